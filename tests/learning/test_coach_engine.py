"""The coach against the real engine subprocess: every catalogue position gets its category.

All positions are judged once, each by a full-strength engine process of its own with a fixed
node budget (so the verdicts depend neither on the machine's load nor on the order of the
cases), then each case is checked on its own."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from boardctl.learning.coach import Coach, Verdict
from boardctl.variants import get_variant

sys.path.insert(0, str(Path(__file__).parent))
from coach_catalogue import cases

ENGINE = [sys.executable, "-m", "engine"]
#: Enough for the engine to see these short tactics; a node budget makes the run repeatable.
NODES = 30000
CASES = cases()


async def _judge_all() -> dict[str, Verdict | None]:
    chess_game = get_variant("chess")
    out: dict[str, Verdict | None] = {}
    for name, fen, uci, _category in CASES:
        # an engine of its own per case: what the table learnt from the case before cannot sway it
        async with Coach.from_command(ENGINE, movetime=30.0, nodes=NODES) as coach:
            board = chess_game.board(fen)
            out[name] = await coach.judge(board, board.parse_uci(uci), variant="chess")
    return out


@pytest.fixture(scope="module")
def verdicts() -> dict[str, Verdict | None]:
    return asyncio.run(_judge_all())


def test_catalogue_is_broad() -> None:
    per_category: dict[str, int] = {}
    for _name, _fen, _move, category in CASES:
        per_category[category] = per_category.get(category, 0) + 1
    assert set(per_category) >= {"hangs", "misses-mate", "allows-mate", "fork", "pin", "skewer", "loses"}
    assert sum(per_category.values()) >= 50


@pytest.mark.slow
@pytest.mark.parametrize(("name", "fen", "move", "category"), CASES, ids=[c[0] for c in CASES])
def test_verdict(verdicts: dict[str, Verdict | None], name: str, fen: str, move: str, category: str) -> None:
    verdict = verdicts[name]
    assert verdict is not None, f"{name}: the coach found {move} good enough"
    assert verdict.category == category, f"{name}: {verdict.text} (loss {verdict.loss})"
    assert verdict.loss >= 100
    assert verdict.best != move
    assert verdict.text.startswith(verdict.san)


@pytest.mark.slow
def test_xiangqi_moves_are_judged_too() -> None:
    """Xiangqi has no motif finder: a chariot step that leaves the horse to the cannon "loses N pawns"."""

    async def scenario() -> tuple[Verdict | None, Verdict | None]:
        xq = get_variant("xiangqi")
        board = xq.board()
        async with Coach.from_command(ENGINE, movetime=30.0, nodes=NODES) as coach:
            bad = await coach.judge(board, board.parse_uci("a0a1"), variant="xiangqi")
            good = await coach.judge(board, board.parse_uci("h2e2"), variant="xiangqi")
        return bad, good

    bad, good = asyncio.run(scenario())
    assert bad is not None and bad.category == "loses" and bad.text.startswith("R9+1 loses ")
    assert bad.loss >= 100 and bad.number == "1."
    assert good is None  # the central cannon is a main opening move
