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
    """The last named position reached in ``board``'s move stack (from its root), if any.
    The table is of chess openings: other games have none."""
    geometry = getattr(board, "geometry", None)  # a plain python-chess Board has none: chess
    if geometry is not None and geometry.name != "chess":
        return None
    table = _table()
    replay = board.root()
    found = table.get(_epd(replay))
    for move in board.move_stack:
        replay.push(move)
        found = table.get(_epd(replay), found)
    return found


def main(argv: list[str]) -> int:
    """Rebuild the packaged table from the upstream directory given as the only argument."""
    from boardctl.variants.chess.openings import rebuild

    return rebuild(Path(argv[0]), Path(__file__).parent / "data" / "openings.tsv")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
