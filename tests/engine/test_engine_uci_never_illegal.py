"""Whatever the search returns, the GUI never gets an illegal ``bestmove`` (chess and xiangqi)."""

from __future__ import annotations

from typing import Any

import chess
import pytest

from engine.searcher import Result
from engine.uci import UciProtocol
from engine.xq_position import XqBoard, XqMove, move_name, parse_move


class _Fake:
    """A searcher whose search returns a fixed move, legal or not."""

    def __init__(self, move: Any) -> None:
        self.move = move
        self.rng = None
        self.move_overhead_ms = 0
        self.style_key = None  # what the UCI layer last set its evaluation up for (Searcher.style_key)

    def search(self, board: Any, limits: Any, **_: Any) -> Result:
        return Result(self.move, None, None)

    def stop(self) -> None:
        pass


@pytest.mark.parametrize(
    ("variant", "position", "returned", "legal"),
    [
        ("chess", "position startpos", chess.Move.from_uci("e2e5"), False),
        ("chess", "position startpos moves e2e4", chess.Move.from_uci("e7e5"), True),
        ("chess", "position startpos", chess.Move.from_uci("a1a8"), False),
        ("xiangqi", "position startpos", XqMove(parse_move("b2b7")), False),
        ("xiangqi", "position startpos", XqMove(parse_move("h2e2")), True),
        ("xiangqi", "position startpos moves h2e2", XqMove(parse_move("h2e2")), False),
    ],
)
def test_an_illegal_search_move_is_replaced_by_a_legal_one(
    variant: str, position: str, returned: Any, legal: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    out: list[str] = []
    proto = UciProtocol(out.append, warm=False)
    proto.handle(f"setoption name UCI_Variant value {variant}")
    proto.handle("setoption name OwnBook value false")
    proto.handle(position)
    fake = _Fake(returned)
    monkeypatch.setattr(proto, "_get_searcher", lambda: fake)
    monkeypatch.setattr(proto, "_get_xq_searcher", lambda: fake)
    monkeypatch.setattr(proto, "_strength", lambda: None)
    proto.handle("go depth 1")
    proto.finish()
    best = out[-1].split()[1]
    board = proto.board
    names = {m.uci() for m in board.legal_moves} if isinstance(board, chess.Board) else {
        move_name(m) for m in XqBoard.legal_moves(board)
    }
    assert best in names
    assert (best == returned.uci()) is legal
    assert any("not legal here" in line for line in out) is not legal
