"""The xiangqi board's parts (issue 31): the state in one place, the functions over it.

``XiangqiBoard`` owns the side to move, the counters and the stack; its base class
``XiangqiBaseBoard`` owns the pieces and is the only code that assigns them; ``movegen``, ``fen``
and ``endings`` are functions that keep nothing.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from boardctl.errors import PositionError
from boardctl.variants.xiangqi.base_board import XiangqiBaseBoard
from boardctl.variants.xiangqi.board import STARTING_FEN, XiangqiBoard, XiangqiMove
from boardctl.variants.xiangqi.fen import board_fen, diagram, parse_fen
from boardctl.variants.xiangqi.movegen import illegal_reason, make_move, unmake_move

PACKAGE = Path(__file__).resolve().parents[3] / "boardctl" / "variants" / "xiangqi"
PLACEMENT = {"_b", "occupied_co", "_kings"}


def _set_up(source: str) -> dict[str, set[str]]:
    """Each class's attributes set up in its ``__init__`` (``self.name = ...``)."""
    owned: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            init = [f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"]
            owned[node.name] = {
                t.attr
                for f in init
                for stmt in ast.walk(f)
                for t in (stmt.targets if isinstance(stmt, ast.Assign) else
                          [stmt.target] if isinstance(stmt, ast.AnnAssign) else [])
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
            }
    return owned


def _assigned_attributes(source: str) -> set[str]:
    """Every attribute assigned anywhere, as a whole or by item (``x._b = ...``, ``x._b[i] = ...``)."""
    out: set[str] = set()
    for stmt in ast.walk(ast.parse(source)):
        targets = (stmt.targets if isinstance(stmt, ast.Assign) else
                   [stmt.target] if isinstance(stmt, ast.AnnAssign | ast.AugAssign) else [])
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Subscript):
                    t = t.value
                if isinstance(t, ast.Attribute):
                    out.add(t.attr)
    return out


def test_the_board_and_its_base_set_up_no_attribute_twice() -> None:
    base = _set_up((PACKAGE / "base_board.py").read_text(encoding="utf-8"))["XiangqiBaseBoard"]
    board = _set_up((PACKAGE / "board.py").read_text(encoding="utf-8"))["XiangqiBoard"]
    assert base == PLACEMENT
    assert "turn" in board and "move_stack" in board
    assert not base & board


def test_only_the_base_board_assigns_the_pieces() -> None:
    assigning = {
        path.name
        for path in sorted(PACKAGE.glob("*.py"))
        if _assigned_attributes(path.read_text(encoding="utf-8")) & PLACEMENT
    }
    assert assigning == {"base_board.py"}


def test_the_checks_see_what_they_look_for() -> None:
    source = "class A:\n def __init__(self):\n  self.x = 1\n  self.y: int = 2\n def f(self):\n  self.z = 3\n"
    assert _set_up(source) == {"A": {"x", "y"}}
    assert _assigned_attributes("o._b[3] = 1\np.occupied_co[0] ^= 2\nq = r._kings\n") == {"_b", "occupied_co"}


def test_a_board_is_a_base_board() -> None:
    board = XiangqiBoard()
    assert isinstance(board, XiangqiBaseBoard)
    assert str(board) == diagram(board._b)
    assert board.board_fen() == board_fen(board._b) == STARTING_FEN.split()[0]


def test_make_and_unmake_restore_every_part_of_the_placement() -> None:
    rng = random.Random(31)
    for _ in range(20):
        board = XiangqiBoard()
        for _ in range(rng.randint(1, 80)):
            moves = list(board.generate_legal_moves())
            if not moves:
                break
            board.push(rng.choice(moves))
        b, occ, kings = board._b.copy(), board.occupied_co.copy(), board._kings.copy()
        for move in list(board.generate_pseudo_legal_moves()):
            taken = b[move.to_square]
            assert make_move(b, occ, kings, move.from_square, move.to_square) == taken
            assert b[move.to_square] and not b[move.from_square]
            assert occ[0] | occ[1] == sum(1 << s for s, p in enumerate(b) if p)
            unmake_move(b, occ, kings, move.from_square, move.to_square, taken)
            assert (b, occ, kings) == (board._b, board.occupied_co, board._kings), move.uci()


def test_parse_fen_reads_without_touching_a_board() -> None:
    setup = parse_fen("4k4/9/9/9/9/9/9/9/9/3K5 b - - 7 12")
    assert board_fen(setup.board) == "4k4/9/9/9/9/9/9/9/9/3K5"
    assert (setup.turn, setup.halfmove_clock, setup.fullmove_number) == (False, 7, 12)
    assert setup.kings == [85, 3] and setup.occupied_co == [1 << 85, 1 << 3]
    with pytest.raises(PositionError, match="has no general"):
        parse_fen("9/9/9/9/9/9/9/9/9/3K5 w - - 0 1")


@pytest.mark.parametrize(("fen", "uci", "why"), [
    (STARTING_FEN, "e4e5", "no piece on e4"),
    (STARTING_FEN, "a6a5", "the piece on a6 is not Red's"),
    (STARTING_FEN, "b2b8", "a cannon cannot go from b2 to b8"),
    ("4k4/4r4/9/9/9/9/9/9/4R4/4K4 w - - 0 1", "e1d1", "it would leave the general in check or facing the other general"),
])
def test_illegal_reason_names_why(fen: str, uci: str, why: str) -> None:
    board = XiangqiBoard(fen)
    move = XiangqiMove.from_uci(uci)
    assert not board.is_legal(move)
    assert illegal_reason(board._b, board.occupied_co, board.turn, move) == why
    with pytest.raises(ValueError, match=why):
        board.parse_uci(uci)
