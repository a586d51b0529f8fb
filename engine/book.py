"""The opening book: Polyglot format, built from the CC0 opening names shipped in engine/data.

``python -m engine.book SRC_DIR`` rebuilds ``engine/data/book.bin`` from the ``*.tsv``
files (columns eco, name, pgn). Each (position, move) pair weighs as many named lines as
pass through it, so popular main lines come up more often. A named line is not a sound one
(the lists name the Grob and the Latvian too), so a move that Stockfish finds clearly worse
than the position's best book move, or bad outright, is left out: the scores are
``engine/data/book_scores.tsv``, made by ``python -m bench book_scores``.
"""

from __future__ import annotations

import io
import logging
import random
import struct
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot

log = logging.getLogger(__name__)

BOOK_PATH = Path(__file__).parent / "data" / "book.bin"
SCORES_PATH = Path(__file__).parent / "data" / "book_scores.tsv"
#: A book move is left out when it scores this many centipawns below the position's best book
#: move, for the side that plays it (Stockfish at depth 12: its noise is some 10-20 cp here) ...
MAX_LOSS = 40
#: ... or when it leaves the side that plays it this far behind whatever the alternatives.
FLOOR = -100


class BookError(ValueError):
    """A malformed book scores file."""


def read_scores(path: Path = SCORES_PATH) -> dict[tuple[str, str], int]:
    """(epd, uci) -> centipawns for the moving side, from a book scores file."""
    out: dict[tuple[str, str], int] = {}
    for lineno, row in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not row or row.startswith("#"):
            continue
        parts = row.split("\t")
        try:
            if len(parts) != 3:
                raise ValueError(f"{len(parts)} columns, not 3")
            out[(parts[0], parts[1])] = int(parts[2])
        except ValueError as exc:
            raise BookError(f"{path}:{lineno}: bad book score line {row[:80]!r}: {exc}") from None
    return out


def is_sound(cp: int, best: int) -> bool:
    """Whether a book move scoring ``cp`` stays in beside a best book move scoring ``best``."""
    return cp >= best - MAX_LOSS and cp >= FLOOR


_ENTRY = struct.Struct(">QHHI")


def _polyglot_move(board: chess.Board, move: chess.Move) -> int:
    to = move.to_square
    if board.is_castling(move):  # Polyglot writes castling as king takes rook
        to = chess.H1 if to == chess.G1 else chess.A1 if to == chess.C1 else chess.H8 if to == chess.G8 else chess.A8
    promo = move.promotion - 1 if move.promotion else 0
    return to | (move.from_square << 6) | (promo << 12)


def lines_from_tsv(paths: list[Path]) -> list[list[chess.Move]]:
    """Move lists of every opening in the tsv files (header row skipped)."""
    out: list[list[chess.Move]] = []
    for path in sorted(paths):
        for lineno, row in enumerate(path.read_text(encoding="utf-8").splitlines()):
            parts = row.split("\t")
            if lineno == 0 or len(parts) < 3:
                continue
            game = chess.pgn.read_game(io.StringIO(parts[2]))
            if game is None or game.errors:
                log.warning("%s:%d: unreadable pgn %r", path, lineno + 1, parts[2])
                continue
            out.append(list(game.mainline_moves()))
    return out


def line_moves(lines: list[list[chess.Move]]) -> Iterator[tuple[chess.Board, chess.Move]]:
    """Each move of each line with the board before it (the same board, pushed on after the yield)."""
    for moves in lines:
        board = chess.Board()
        for move in moves:
            yield board, move
            board.push(move)


def build(lines: list[list[chess.Move]], scores: dict[tuple[str, str], int] | None = None) -> bytes:
    """Polyglot bytes for the given lines, entries sorted by key as the format requires.

    With ``scores`` the unsound moves (``is_sound``) are left out; a move without a score stays.
    """
    weights: Counter[tuple[int, int]] = Counter()
    cp: dict[tuple[int, int], int] = {}
    for board, move in line_moves(lines):
        entry = (chess.polyglot.zobrist_hash(board), _polyglot_move(board, move))
        weights[entry] += 1
        if scores is not None and entry not in cp:
            score = scores.get((board.epd(), move.uci()))
            if score is not None:
                cp[entry] = score
    if cp:
        best: dict[int, int] = {}
        for (key, _), score in cp.items():
            best[key] = max(score, best.get(key, score))
        for entry, score in cp.items():
            if not is_sound(score, best[entry[0]]):
                del weights[entry]
    entries = sorted((key, move, min(count, 0xFFFF)) for (key, move), count in weights.items())
    return b"".join(_ENTRY.pack(key, move, weight, 0) for key, move, weight in entries)


class Book:
    """Weighted random probing of a Polyglot file; returns None when out of book."""

    def __init__(self, path: Path = BOOK_PATH, *, rng: random.Random | None = None) -> None:
        self.path = path
        self.rng = rng or random.Random()

    def pick(self, board: chess.Board) -> chess.Move | None:
        if not self.path.exists():
            return None
        with chess.polyglot.open_reader(self.path) as reader:
            entries = list(reader.find_all(board))
        if not entries:
            return None
        return self.rng.choices([e.move for e in entries], weights=[e.weight for e in entries])[0]


def main(argv: list[str]) -> int:
    src = Path(argv[0]) if argv else Path("../shared/data/openings")
    data = build(lines_from_tsv(list(src.glob("*.tsv"))), read_scores() if SCORES_PATH.exists() else None)
    BOOK_PATH.parent.mkdir(parents=True, exist_ok=True)
    BOOK_PATH.write_bytes(data)
    log.info("wrote %d entries to %s", len(data) // _ENTRY.size, BOOK_PATH)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    sys.exit(main(sys.argv[1:]))
