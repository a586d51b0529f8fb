"""Rebuilding the chess openings table (``python -m boardctl.openings SRC_DIR``): the EPD each line reaches."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from pathlib import Path

import chess


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


def rebuild(src: Path, out: Path) -> int:
    """Write ``out`` from the upstream ``*.tsv`` files in ``src``."""
    with out.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, delimiter="\t", lineterminator="\n").writerows(build_rows(sorted(src.glob("*.tsv"))))
    return 0
