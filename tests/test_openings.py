from __future__ import annotations

import csv
import itertools
from pathlib import Path

import chess

from boardctl import openings
from boardctl.variants.chess import openings as chess_openings

SHARED = Path("/work/shared/data/openings")
PACKAGED = Path(openings.__file__).parent / "data" / "openings.tsv"


def board_after(*ucis: str) -> chess.Board:
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return board


def test_named_line() -> None:
    found = openings.classify(board_after("e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"))
    assert found == openings.Opening("B90", "Sicilian Defense: Najdorf Variation")


def test_transposition_is_named_by_position() -> None:
    direct = openings.classify(board_after("e2e4", "c7c5", "g1f3"))
    transposed = openings.classify(board_after("g1f3", "c7c5", "e2e4"))
    assert direct == transposed == openings.Opening("B27", "Sicilian Defense")
    # Nf3 c5 alone is a different (English-family) position: the name comes from where the game is.
    assert openings.classify(board_after("g1f3", "c7c5")) != direct


def test_keeps_last_named_position_after_leaving_the_book() -> None:
    inside = openings.classify(board_after("e2e4", "e7e5"))
    outside = openings.classify(board_after("e2e4", "e7e5", "h2h4", "h7h5", "a2a4", "a7a5"))
    assert inside is not None and outside is not None
    assert outside.eco.startswith("C2") or outside == inside


def test_start_position_has_no_name() -> None:
    assert openings.classify(chess.Board()) is None


def test_packaged_table_matches_upstream_rows_and_epds() -> None:
    with PACKAGED.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert len(rows) == 3807
    for row in itertools.islice(rows, 0, None, 97):
        assert row["epd"] == chess_openings._epd_of(row["pgn"])
    if SHARED.is_dir():
        upstream = []
        for path in sorted(SHARED.glob("*.tsv")):
            with path.open(encoding="utf-8") as f:
                upstream += [(r["eco"], r["name"], r["pgn"]) for r in csv.DictReader(f, delimiter="\t")]
        assert upstream == [(r["eco"], r["name"], r["pgn"]) for r in rows]


def test_licence_and_source_notes_are_shipped() -> None:
    data = PACKAGED.parent
    assert "CC0" in (data / "openings.COPYING.txt").read_text(encoding="utf-8")
    assert "lichess-org/chess-openings" in (data / "openings.SOURCE.md").read_text(encoding="utf-8")
