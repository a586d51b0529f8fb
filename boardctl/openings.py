"""Opening names (ECO code and name) for a game, matched by position so transpositions count.

The table ``boardctl/data/openings.tsv`` is the CC0 lichess-org/chess-openings data (see
``boardctl/data/openings.SOURCE.md``) with one column added: the EPD each line reaches, so that
looking a game up needs no move parsing. ``python -m boardctl.openings SRC_DIR`` rebuilds it.
"""

from __future__ import annotations

import csv
import functools
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from boardctl.core.rules import GameBoard


@dataclass(frozen=True)
class Opening:
    eco: str
    name: str


@functools.cache
def _table() -> dict[str, Opening]:
    text = resources.files("boardctl").joinpath("data/openings.tsv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines(), delimiter="\t")
    return {row["epd"]: Opening(row["eco"], row["name"]) for row in rows}


def _epd(board: GameBoard) -> str:
    """The FEN without its move counters: python-chess's ``epd()`` (both name e.p. only if legal)."""
    return " ".join(board.fen().split()[:4])


def classify(board: GameBoard) -> Opening | None:
    """The last named position reached in ``board``'s move stack (from its root), if any. Chess
    by the table above; xiangqi by the engine book's list of openings (:func:`classify_xiangqi`);
    other games have none."""
    geometry = getattr(board, "geometry", None)  # a plain python-chess Board has none: chess
    if geometry is not None and geometry.name == "xiangqi":
        return classify_xiangqi(board)
    if geometry is not None and geometry.name != "chess":
        return None
    table = _table()
    replay = board.root()
    found = table.get(_epd(replay))
    for move in board.move_stack:
        replay.push(move)
        found = table.get(_epd(replay), found)
    return found


#: A xiangqi game is named once it has followed a listed opening for a move each.
XIANGQI_MIN_PLIES = 2
_MIRROR = str.maketrans("abcdefghi", "ihgfedcba")


@functools.cache
def _xiangqi_openings() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(English name, Chinese name, moves) of the openings the xiangqi engine's book plays
    (``engine/data/xiangqi_openings.tsv``, one list for the book and the names)."""
    text = resources.files("engine").joinpath("data/xiangqi_openings.tsv").read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("name\t"):
            continue
        name, chinese, moves = line.split("\t")
        out.append((name, chinese, tuple(moves.split())))
    return tuple(out)


def xiangqi_opening_lines() -> dict[str, str]:
    """Opening name (English, and Chinese) -> its moves in UCCI coordinates (``h2e2 h9g7 ...``):
    the xiangqi characters' repertoires."""
    lines: dict[str, str] = {}
    for name, chinese, moves in _xiangqi_openings():
        lines[name] = lines[chinese] = " ".join(moves)
    return lines


def classify_xiangqi(board: GameBoard) -> Opening | None:
    """The listed xiangqi opening the game follows longest (at least a move each), as played or
    mirrored (炮八平五 is a central cannon as much as 炮二平五); ``eco`` is empty (the list has no
    codes) and ``name`` is Chinese then English: ``中炮对屏风马 central cannon vs screen horses``.
    A game from a set-up has none."""
    from boardctl.variants import get_variant

    if board.root().fen() != get_variant("xiangqi").starting_fen:
        return None
    played = [move.uci() for move in board.move_stack]
    mirrored = [uci.translate(_MIRROR) for uci in played]
    best: tuple[str, str, tuple[str, ...]] | None = None
    best_plies = XIANGQI_MIN_PLIES - 1
    for opening in _xiangqi_openings():
        for line in (played, mirrored):
            plies = 0
            for ours, listed in zip(line, opening[2], strict=False):
                if ours != listed:
                    break
                plies += 1
            if plies > best_plies:
                best, best_plies = opening, plies
    return None if best is None else Opening("", f"{best[1]} {best[0]}")


def main(argv: list[str]) -> int:
    """Rebuild the packaged table from the upstream directory given as the only argument."""
    from boardctl.variants.chess.openings import rebuild

    return rebuild(Path(argv[0]), Path(__file__).parent / "data" / "openings.tsv")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
