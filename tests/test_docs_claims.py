"""Where the ``claim`` button is described, each game's claims are named (issue 35, finding 5):
the docs said "threefold repetition or the 50-move rule" for every game, while xiangqi's limit
is 60 moves a side, and only a repetition cycle kept by both sides (双方不变作和, the Chinese
rules) is claimed; the Asian rules rule every repetition by themselves. The numbers are taken from
the rules themselves (the xiangqi judge's ``nMoveRule``, python-chess's fifty-move rule)."""

from __future__ import annotations

import re
from pathlib import Path

import chess
import pytest

from boardctl.events import Button, ButtonPressed
from boardctl.session import Session, Settings
from boardctl.variants.xiangqi.judge import CONFIG

ROOT = Path(__file__).resolve().parents[1]
XIANGQI_MOVES = int(re.search(r"nMoveRule\s*=\s*(\d+)", CONFIG).group(1))  # type: ignore[union-attr]


def _fifty_move_limit() -> int:
    """The moves a side python-chess's fifty-move rule needs (the least half-move clock that ends it)."""
    plies = next(n for n in range(400) if chess.Board(f"4k3/8/8/8/8/8/8/4K2R w - - {n} 80").is_fifty_moves())
    return plies // 2


#: (file, how the claim row starts) for every place the button is described.
ROWS = [("docs/events.md", "| `claim` |"), ("docs/playing.md", "| `claim` |")]


@pytest.mark.parametrize(("path", "start"), ROWS, ids=[r[0] for r in ROWS])
def test_the_claim_button_names_each_games_claims(path: str, start: str) -> None:
    (row,) = [line for line in (ROOT / path).read_text(encoding="utf-8").splitlines() if line.startswith(start)]
    chess_part, _, xiangqi_part = row.lower().partition("xiangqi")
    assert "chess" in chess_part and "threefold repetition" in chess_part and "fifty-move rule" in chess_part
    assert f"{XIANGQI_MOVES} moves" in xiangqi_part and "by themselves" in xiangqi_part, row
    assert "双方不变作和" in xiangqi_part and "asian" in xiangqi_part, row
    assert _fifty_move_limit() == 50 and f"{_fifty_move_limit()}-move" not in xiangqi_part


@pytest.mark.parametrize(("variant", "words"), [
    ("chess", "neither threefold repetition nor the fifty-move rule"),
    ("xiangqi", "only a cycle kept by both sides (双方不变作和) under the Chinese rules"),
])
def test_the_buttons_answer_names_the_games_rule(variant: str, words: str) -> None:
    session = Session(Settings(mode="record", orientation="normal", variant=variant))
    session.feed(ButtonPressed(1.0, Button.CLAIM))
    assert session.record.result == "*" and words in (session.warning or ""), session.warning
