"""The engine's root guard under the Chinese rules (engine/xq_searcher.py): a chosen move that
brings back a cycle forbidden to the engine's side (here 一将一捉, which the search kernel's Asian
rules draw) is replaced by the best move that does not, and the Asian rules leave it alone."""

from __future__ import annotations

import pytest

from boardctl.variants.xiangqi.board import from_moves
from engine.searcher import Info, Limits, Result
from engine.xq_position import XqBoard, XqMove, parse_move
from engine.xq_searcher import XqSearcher

#: Black's rook checks on a0 and chases the horse on a2 in turn (the arbiter's case, turned round).
FEN = "3k5/9/9/9/9/9/9/r6N1/9/5K3 b - - 0 1"
CYCLE = ["a2a0", "f0f1", "a0a2", "f1f0"]


@pytest.fixture(scope="module")
def searcher() -> XqSearcher:
    return XqSearcher(hash_mb=8, seed=1)


def _forbidden_for_black(moves: list[str], move: str) -> bool:
    game = from_moves([*moves, move], FEN)
    occurrences = game.earlier_occurrences()
    return bool(occurrences) and game.cycle_ruling(occurrences[-1]).loser is False


@pytest.mark.parametrize("played", [CYCLE, CYCLE * 2], ids=["warned next", "lost next"])
def test_a_forbidden_repetition_is_replaced(searcher: XqSearcher, played: list[str]) -> None:
    board = XqBoard.from_moves(FEN, played)
    assert _forbidden_for_black(played, "a2a0")
    searcher.rules = "chinese"
    searcher.clear()
    chosen = searcher._vary(board, Result(XqMove(parse_move("a2a0")), None, Info(3, 3, 0, None, 100, 1, [])))
    assert chosen.best is not None and chosen.best.uci() != "a2a0"
    assert not _forbidden_for_black(played, chosen.best.uci())
    assert chosen.info is not None and chosen.info.pv == [chosen.best]


def test_an_allowed_move_is_kept(searcher: XqSearcher) -> None:
    board = XqBoard.from_moves(FEN, CYCLE)
    kept = Result(XqMove(parse_move("a2h2")), None, None)  # takes the horse: nothing repeats
    assert searcher._vary(board, kept) is kept


@pytest.mark.parametrize("rules", ["chinese", "asian"])
def test_the_search_never_plays_a_forbidden_repetition_under_the_chinese_rules(searcher: XqSearcher, rules: str) -> None:
    searcher.rules = rules
    searcher.clear()
    board = XqBoard.from_moves(FEN, CYCLE * 2)
    result = searcher.search(board, Limits(depth=4))
    assert result.best is not None
    if rules == "chinese":
        assert not _forbidden_for_black(CYCLE * 2, result.best.uci())
    searcher.rules = "chinese"
