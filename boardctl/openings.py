"""Opening names (ECO code and name) for a game, matched by position so transpositions count.

The table ``boardctl/data/openings.tsv`` is the CC0 lichess-org/chess-openings data (see
``boardctl/data/openings.SOURCE.md``) with one column added: the EPD each line reaches, so that
looking a game up needs no move parsing. ``python -m boardctl.openings SRC_DIR`` rebuilds it.
"""

from __future__ import annotations

import csv
import functools
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import chess
import chess.pgn


@dataclass(frozen=True)
class Opening:
    eco: str
    name: str


@functools.cache
def _table() -> dict[str, Opening]:
    text = resources.files("boardctl").joinpath("data/openings.tsv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines(), delimiter="\t")
    return {row["epd"]: Opening(row["eco"], row["name"]) for row in rows}


def classify(board: chess.Board) -> Opening | None:
    """The last named position reached in ``board``'s move stack (from its root), if any."""
    table = _table()
    replay = board.root()
    found = table.get(replay.epd())
    for move in board.move_stack:
        replay.push(move)
        found = table.get(replay.epd(), found)
    return found


def _epd_of(pgn_moves: str) -> str:
    board = chess.Board()
    for token in pgn_moves.split():
        if not token[0].isdigit():
            board.push_san(token)
    return board.epd()


def build_rows(sources: Iterable[Path]) -> Iterator[list[str]]:
    """Rows ``eco, name, pgn, epd`` from the upstream ``*.tsv`` files (header included)."""
    yield ["eco", "name", "pgn", "epd"]
    for path in sources:
        with path.open(encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                yield [row["eco"], row["name"], row["pgn"], _epd_of(row["pgn"])]


def main(argv: list[str]) -> int:
    """Rebuild the packaged table from the upstream directory given as the only argument."""
    src = Path(argv[0])
    out = Path(__file__).parent / "data" / "openings.tsv"
    with out.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, delimiter="\t", lineterminator="\n").writerows(build_rows(sorted(src.glob("*.tsv"))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
