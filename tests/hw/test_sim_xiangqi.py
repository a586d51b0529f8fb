"""The sim board with 90 points (``geometry=XIANGQI_9X10``): setups from a xiangqi FEN's placement,
the text rendering, and the terminal's commands with xiangqi point names."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.core.geometry import CHESS_8X8, XIANGQI_9X10, Geometry
from boardctl.errors import ConfigError
from boardctl.events import Button, ButtonPressed, Code, LedIntent, Snapshot, SquareChanged
from boardctl.hw import EventQueue, open_board
from boardctl.hw.sim import SimBoard, occupancy_for_setup, occupancy_from_placement, run_terminal

from .conftest import FakeClock

G = XIANGQI_9X10
START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
START = G.mask(
    [G.square(f, 0) for f in range(9)] + [G.square(f, 9) for f in range(9)]
    + [G.parse(n) for n in ("b2", "h2", "b7", "h7")]
    + [G.square(f, r) for f in (0, 2, 4, 6, 8) for r in (3, 6)]
)


SETUPS = [
    ("start", START),
    ("empty", 0),
    (START_FEN, START),
    (START_FEN.split()[0], START),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b", START),
    ("4k4/9/9/9/9/9/9/9/9/4K4 w", G.mask([G.parse("e0"), G.parse("e9")])),
    ("3k5/9/9/9/9/9/9/9/4p4/3K5 w - - 0 1", G.mask([G.parse("d0"), G.parse("e1"), G.parse("d9")])),
    ("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w", START),  # h/e for horse and elephant
    ("8R/9/9/9/9/9/9/9/9/R8 r", G.mask([G.parse("a0"), G.parse("i9")])),
    ("2bakab2/9/4c4/9/9/9/9/9/9/4K4", G.mask([G.parse(n) for n in ("c9", "d9", "e9", "f9", "g9", "e7", "e0")])),
]


@pytest.mark.parametrize(("setup", "expected"), SETUPS)
def test_setups_from_a_xiangqi_fen(setup: str, expected: int) -> None:
    assert occupancy_for_setup(setup, expected=0, geometry=G) == expected


BAD_SETUPS = [
    ("rubbish", r"xiangqi placement needs 10 ranks, got 1"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", r"needs 10 ranks, got 8"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w", r"rank 0 of the placement has 8 points, not 9"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w", r"rank 0 of the placement has 10 points"),
    ("rnbqkabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", r"'q' is not a xiangqi piece"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", r"bad side to move 'x'"),
    ("4k4/9/9/9/9/9/9/9/9/09K w", r"bad empty count '09'"),
    ("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1 extra", r"one to six fields"),
]


@pytest.mark.parametrize(("setup", "message"), BAD_SETUPS)
def test_bad_xiangqi_setups_say_what_is_wrong(setup: str, message: str) -> None:
    with pytest.raises(ConfigError, match=rf"sim-setup: expected expected\|start\|empty\|xiangqi FEN.*{message}"):
        occupancy_for_setup(setup, expected=0, geometry=G)


def test_the_placement_parser_agrees_with_chess_too() -> None:
    assert occupancy_from_placement("8/8/8/4k3/8/8/8/4K3", CHESS_8X8) == 1 << 36 | 1 << 4
    with pytest.raises(ValueError, match="not a chess piece"):
        occupancy_from_placement("8/8/8/4c3/8/8/8/4K3", CHESS_8X8)


def test_holds_90_points_like_wood(clock: FakeClock) -> None:
    q = EventQueue()
    with open_board("sim", occupancy=START, clock=clock, geometry=G) as board:
        assert isinstance(board, SimBoard) and board.geometry == G
        board.start(q)
        assert q.drain() == [Snapshot(clock.t, START)]
        assert board.lift(G.parse("h2"))
        assert board.place(G.parse("e2"))
        assert not board.place(G.parse("e2"))
        assert board.lift(G.parse("i9"))  # bit 89, beyond any chess square
        assert not board.lift(90)  # no such point
        assert q.drain() == [
            SquareChanged(clock.t, G.parse("h2"), False),
            SquareChanged(clock.t, G.parse("e2"), True),
            SquareChanged(clock.t, 89, False),
        ]
        board.set_pieces(START | 1 << 95)  # bits beyond the board are no pieces
        assert board.pieces == START
    with pytest.raises(ValueError, match="beyond the 90 points"):
        SimBoard(1 << 90, geometry=G)


def test_render_shows_10_ranks_9_files_and_the_river(clock: FakeClock) -> None:
    board = SimBoard(START, clock=clock, geometry=G, dead_leds=[G.parse("e9")])
    board.show([LedIntent(G.parse("h2"), Code.LEGAL_MOVES), LedIntent(G.parse("e2"), Code.ENGINE_MOVE)])
    text = board.render()
    lines = text.splitlines()
    ranks = [line for line in lines if re.match(r"^\d ", line)]
    assert [line[0] for line in ranks] == list("9876543210")
    assert all(len(re.findall(r"[ \[][o.][ \]]", line[2:])) == 9 for line in ranks)
    river = lines.index(ranks[4]) + 1  # after rank 5 (Black's side), before rank 4
    assert set(lines[river].strip()) == {"~"} and lines[river + 1].startswith("4 ")
    assert lines[-2].split() == list("abcdefghi") and lines[-1] == "lit: e2=engine-move h2=legal-moves"
    assert ranks[0] == "9  o  o  o  o  o  o  o  o  o "  # Black's home rank
    assert "[o]" in ranks[7] and "[.]" in ranks[7]  # rank 2: h2 lit with its cannon, e2 lit and empty
    flipped = board.render(white_at_bottom=False).splitlines()
    assert flipped[0].startswith("0 ") and flipped[-2].split() == list("ihgfedcba")
    board.show([LedIntent(G.parse("e9"), Code.HINT), LedIntent(G.parse("a0"), Code.HINT)])
    clock.t = 0.0
    assert board.lit_now() == 1 << G.parse("a0")  # e9's LED is dead


def test_terminal_takes_xiangqi_points_and_moves(clock: FakeClock) -> None:
    q = EventQueue()
    board = SimBoard(START, clock=clock, geometry=G)
    board.start(q)
    q.drain()
    out = io.StringIO()
    run_terminal(board, io.StringIO("h2e2\ne0\ne0\nh9g7\n!draw\n?\ni10\n"), out)
    events = q.drain()
    assert events[:6] == [
        SquareChanged(clock.t, G.parse("h2"), False),
        SquareChanged(clock.t, G.parse("e2"), True),
        SquareChanged(clock.t, G.parse("e0"), False),
        SquareChanged(clock.t, G.parse("e0"), True),
        SquareChanged(clock.t, G.parse("h9"), False),
        SquareChanged(clock.t, G.parse("g7"), True),
    ]
    assert events[6] == ButtonPressed(clock.t, Button.DRAW) and isinstance(events[7], Snapshot)
    assert "'i10' is not a point (e0), a move (h2e2)" in out.getvalue() and "a0..i9" in out.getvalue()


@pytest.mark.parametrize("line", ["e10", "j0", "e2e", "a0a", "h2e2e2", "e8e", "zz9"])
def test_terminal_mistakes_on_the_xiangqi_board_are_plain_words(clock: FakeClock, line: str) -> None:
    board = SimBoard(START, clock=clock, geometry=G)
    board.start(EventQueue())
    out = io.StringIO()
    run_terminal(board, io.StringIO(line + "\n"), out)
    assert f"? '{line}' is not a point (e0)" in out.getvalue() and "Traceback" not in out.getvalue()


def test_chess_setups_and_render_are_unchanged(clock: FakeClock) -> None:
    board = SimBoard(occupancy_for_setup("start", expected=0), clock=clock)
    assert board.geometry == CHESS_8X8
    lines = board.render().splitlines()
    assert lines[0] == "8  o  o  o  o  o  o  o  o " and lines[-1] == "   a  b  c  d  e  f  g  h"
    assert len(lines) == 9  # no river on a chess board


def _placement(geometry: Geometry, occupancy: int, letters: str, draw: st.DataObject) -> str:
    rows = []
    for rank in range(geometry.ranks - 1, -1, -1):
        row, run = "", 0
        for file in range(geometry.files):
            if occupancy >> geometry.square(file, rank) & 1:
                row += (str(run) if run else "") + draw.draw(st.sampled_from(letters))
                run = 0
            else:
                run += 1
        rows.append(row + (str(run) if run else ""))
    return "/".join(rows)


@pytest.mark.parametrize(("geometry", "letters"), [(G, "rnbakcpRNBAKCPheHE"), (CHESS_8X8, "pnbrqkPNBRQK")])
@settings(deadline=None, max_examples=80)
@given(data=st.data())
def test_any_placement_reads_back_its_points(geometry: Geometry, letters: str, data: st.DataObject) -> None:
    occupancy = data.draw(st.integers(0, geometry.all_mask))
    placement = _placement(geometry, occupancy, letters, data)
    assert occupancy_from_placement(placement, geometry) == occupancy
    assert occupancy_for_setup(placement + " w - - 0 1", expected=-1, geometry=geometry) == occupancy


@settings(deadline=None, max_examples=200)
@given(st.text(max_size=120))
def test_any_setup_text_is_a_board_or_one_clear_config_error(text: str) -> None:
    try:
        occupancy = occupancy_for_setup(text, expected=0, geometry=G)
    except ConfigError as exc:
        assert str(exc).startswith("sim-setup: ") and "\n" not in str(exc)
    else:
        assert 0 <= occupancy <= G.all_mask
