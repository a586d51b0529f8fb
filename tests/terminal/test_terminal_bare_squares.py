"""A bare square that is a legal move plays it (issue 35, finding 10): a newcomer types ``e4``
for 1. e4, as the help's SAN promises; it used to place a piece on e4 and report a mismatch.
A hand action stays available: ``lift e2`` / ``place e4`` always, and a bare square that is
no move, or typed while a piece is in the air (the second half of a move made by hand)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from test_terminal import pos
from test_terminal_session import Pty, assert_quiet

from boardctl.core.geometry import XIANGQI_9X10
from boardctl.core.moves_typed import (
    HELP,
    HELP_XIANGQI,
    InputError,
    MakeMove,
    Position,
)
from boardctl.terminal import (
    SHORT_HELP,
    Toggle,
    parse,
)

START = chess.STARTING_FEN
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
EP = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
PROMO = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1"


def mv(uci: str) -> chess.Move:
    return chess.Move.from_uci(uci)


def lifted(fen: str, *squares: int, **kw: Any) -> Position:
    """The position with ``squares`` in the air (their pieces lifted by hand)."""
    board = chess.Board(fen)
    occupancy = board.occupied
    for square in squares:
        occupancy &= ~(1 << square)
    return pos(fen, occupancy=f"{occupancy:016x}", **kw)


#: (typed, position, what it does)
BARE = [
    ("e4", pos(), MakeMove(mv("e2e4"), True)),
    ("E4", pos(), MakeMove(mv("e2e4"), True)),
    (" d4 ", pos(), MakeMove(mv("d2d4"), True)),
    ("e3", pos(), MakeMove(mv("e2e3"), True)),
    ("a3", pos(), MakeMove(mv("a2a3"), True)),
    ("h4", pos(), MakeMove(mv("h2h4"), True)),
    ("e5", pos(AFTER_E4), MakeMove(mv("e7e5"), True)),  # Black's turn in record mode
    ("c5", pos(AFTER_E4), MakeMove(mv("c7c5"), True)),
    # the engine's reply waiting to be made, typed as SAN
    ("e5", pos(AFTER_E4, mode="play", human="white", pending="e7e5"), MakeMove(mv("e7e5"), True)),
    # a bare square that is no move: one piece by hand, as before
    ("e2", pos(), Toggle(chess.E2)),
    ("e5", pos(), Toggle(chess.E5)),
    ("h8", pos(), Toggle(chess.H8)),
    ("f6", pos(EP), Toggle(chess.F6)),  # en passant is exf6, never a bare square
    ("e8", pos(PROMO), Toggle(chess.E8)),  # a promotion names its piece (e8=Q)
    ("e4", pos(result="1-0"), Toggle(chess.E4)),  # after the game: wood only
    # a move half made by hand: the bare square finishes it
    ("e4", lifted(START, chess.E2), Toggle(chess.E4)),
    ("d4", lifted(START, chess.D2), Toggle(chess.D4)),
    # explicit hand actions, whatever the square
    ("lift e2", pos(), Toggle(chess.E2)),
    ("up e2", pos(), Toggle(chess.E2)),
    ("place e4", lifted(START, chess.E2), Toggle(chess.E4)),
    ("down e4", pos(), Toggle(chess.E4)),
    ("LIFT D2", pos(), Toggle(chess.D2)),
]


@pytest.mark.parametrize(("text", "position", "expected"), BARE, ids=[f"{i}-{c[0].strip()}" for i, c in enumerate(BARE)])
def test_a_bare_square_plays_the_move_it_names(text: str, position: Position, expected: object) -> None:
    assert parse(text, position) == expected


@pytest.mark.parametrize(("text", "words"), [
    ("lift e4", "There is no piece on e4 to lift"),
    ("place e2", "E2 is occupied: lift its piece first (lift e2)"),
    ("lift z9", "'z9' is not a square: type lift e2"),
    ("place", "is not a move"),
])
def test_a_hand_action_that_wood_cannot_do_is_answered(text: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse(text, pos())
    assert words in str(caught.value), caught.value


def test_xiangqi_points_lift_and_place_as_before() -> None:
    state = {"fen": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
             "variant": "xiangqi", "occupancy": None, "mode": "record"}
    from boardctl.variants.xiangqi import XiangqiBoard

    board = XiangqiBoard(state["fen"])
    state["occupancy"] = f"{board.occupied:x}"
    position = Position.from_state(state)
    assert parse("h2", position) == Toggle(XIANGQI_9X10.parse("h2"))
    assert parse("lift h2", position) == Toggle(XIANGQI_9X10.parse("h2"))
    assert parse("e4", position) == Toggle(XIANGQI_9X10.parse("e4"))


def test_the_help_says_so() -> None:
    assert "a bare square that is a legal move now, such as e4, plays that pawn move" in HELP
    assert "lift e2 / place e4" in HELP and "lift e2 / place e4" in SHORT_HELP and "e4" in SHORT_HELP.split("(")[1]
    assert "lift h2 / place e2" in HELP_XIANGQI


@pytest.mark.slow
def test_typing_e4_plays_1_e4_in_the_terminal(tmp_path: Path) -> None:
    """The newcomer's session: ``e4``, ``e5``, then a move by hand (lift g1, place f3), saved."""
    games = tmp_path / "games"
    term = Pty(tmp_path, "record", "--board", "sim", "--no-web", "--games-dir", str(games))
    try:
        term.expect(r"> ")
        term.type("e4")
        term.expect(r"1\. e4")
        term.type("e5")
        term.expect(r"1\.\.\. e5")
        term.type("lift g1")
        term.expect(r"> ")
        term.type("f3")  # a knight in the air: the bare square places it
        term.expect(r"2\. Nf3")
        term.type("quit")
        assert term.wait() == 0
        assert_quiet(term.out)
        assert "mismatch" not in term.out.lower()
    finally:
        term.close()
    (state,) = games.glob("*.json")
    assert json.loads(state.read_text(encoding="utf-8"))["moves"] == ["e2e4", "e7e5", "g1f3"]
    game = chess.pgn.read_game(state.with_suffix(".pgn").open(encoding="utf-8"))
    assert game is not None and re.sub(r"\s+", " ", str(game.mainline_moves())) == "1. e4 e5 2. Nf3"
