"""The terminal view draws and reads xiangqi: 9x10 points, the river and palaces, the pieces'
Chinese characters as double-width text (or plain letters), the board turned round, highlights,
and typed point-to-point moves turned into hands. No python-chess anywhere in these paths."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.core.geometry import CHESS_8X8, XIANGQI_9X10
from boardctl.core.moves_typed import (
    CAPTURE_PAUSE,
    InputError,
    Lift,
    MakeMove,
    Pause,
    Place,
    PointMove,
    PointMoves,
    Position,
    check_steps,
    parse_placement,
)
from boardctl.events import Button
from boardctl.terminal import (
    Press,
    TerminalView,
    Toggle,
    choose_style,
    display_width,
    pad,
    parse,
    render,
)
from boardctl.variants.xiangqi import XiangqiBoard, XiangqiMove
from boardctl.variants.xiangqi.notation import chinese, wxf

G = XIANGQI_9X10
START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
AFTER_CANNON = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
#: Red's chariot on e6 checks the black general up the open file.
CHECK = "r1bakabnr/9/1cn4c1/p1p1R1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR b - - 0 5"
ROW0 = "俥傌相仕帥仕相傌俥"
ROW9 = "車馬象士將士象馬車"


def occ(fen: str) -> int:
    return G.mask(parse_placement(fen, G))


def state(fen: str = START, **kw: Any) -> dict[str, Any]:
    """A xiangqi state line as the daemon publishes it, for a board that matches the game."""
    line: dict[str, Any] = {
        "variant": "xiangqi", "fen": fen, "start_fen": fen, "occupancy": G.to_hex(occ(fen)), "pending": None,
        "moves": [], "leds": [], "result": "*", "termination": None,
        "turn": "red" if fen.split()[1] == "w" else "black", "mode": "record", "human": None, "level": None,
        "orientation": "normal", "clock": None, "hint": None, "eval": None, "draw_offer": False,
        "matching": True, "thinking": False, "warning": None, "game": "xq",
    }
    line.update(kw)
    return line


def pos(fen: str = START, **kw: Any) -> Position:
    return Position.from_state(state(fen, **kw))


def p(a: str, b: str) -> XiangqiMove:
    return XiangqiMove(G.parse(a), G.parse(b))


def point_pos(fen: str = START, **kw: Any) -> Position:
    """The same position read by the plain from-to reader (a board whose game has no notation)."""
    return dataclasses.replace(pos(fen, **kw), reader=PointMoves("xiangqi", G), board=None)


# -- the neutral parts ------------------------------------------------------------------------------


@pytest.mark.parametrize(("fen", "geometry", "expected"), [
    (START, G, {"a0": "R", "e0": "K", "b2": "C", "e3": "P", "e6": "p", "h7": "c", "e9": "k", "i9": "r"}),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", CHESS_8X8,
     {"e1": "K", "e4": "P", "d8": "q", "h8": "r"}),
    ("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", G, {"e0": "K", "e9": "k"}),
])
def test_placement_reads_any_board(fen: str, geometry: Any, expected: dict[str, str]) -> None:
    pieces = parse_placement(fen, geometry)
    named = {geometry.square_name(s): piece for s, piece in pieces.items()}
    for name, piece in expected.items():
        assert named[name] == piece
    assert len(pieces) == sum(ch.isalpha() for ch in fen.split()[0])


@pytest.mark.parametrize(("fen", "words"), [
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w - - 0 1", "10 rows, got 9"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w - - 0 1", "bad row"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/8/RNBAKABNR w - - 0 1", "has 8 squares, not 9"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA*ABNR w - - 0 1", "bad row"),
])
def test_placement_refuses_a_broken_fen(fen: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_placement(fen, G)


@pytest.mark.parametrize(("text", "width"), [
    ("", 0), ("a", 1), ("·", 1), ("帥", 2), ("[帥]", 4), ("楚 河", 5), ("♞", 1), ("Ｒ", 2), ("e\u0301", 1),
])
def test_display_width_counts_wide_characters_twice(text: str, width: int) -> None:
    assert display_width(text) == width
    assert display_width(pad(text, 6)) == max(6, width)


# -- drawing ----------------------------------------------------------------------------------------


def board_lines(text: str) -> list[str]:
    """The board's own lines: ten rank rows, the river, the bottom side's file numbers, the files."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if re.match(r" \d  ", line))
    return lines[first:first + 13]


def columns(line: str) -> dict[int, str]:
    """Display column -> the visible character starting there."""
    out, col = {}, 0
    for ch in line:
        if not ch.isspace():
            out[col] = ch
        col += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return out


def test_render_draws_the_points_river_and_characters_aligned() -> None:
    text = render(state())
    lines = board_lines(text)
    ranks = [line[:3].strip() for line in lines if re.match(r" \d ", line)]
    assert ranks == [str(r) for r in range(9, -1, -1)]
    assert "".join(ch for ch in lines[0][3:] if not ch.isspace()) == ROW9
    assert "".join(ch for ch in lines[10][3:] if not ch.isspace()) == ROW0
    assert "楚 河" in lines[5] and "漢 界" in lines[5]  # between ranks 5 and 4
    assert lines[4].startswith(" 5") and lines[6].startswith(" 4")
    files = lines[12]
    assert files.split() == list("abcdefghi")
    # Every piece sits in its file's column, whatever its width.
    letter_cols = {ch: col for col, ch in columns(files).items()}
    for row in (lines[0], lines[3], lines[10]):
        for col, ch in columns(row).items():
            if col > 2 and ch not in "·+":
                assert col in letter_cols.values(), (row, col, ch)
    assert "Red to move." in text


def test_render_marks_the_palaces_empty_points() -> None:
    lines = board_lines(render(state("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")))
    for row_index, rank in [(0, 9), (1, 8), (2, 7), (8, 2), (9, 1), (10, 0)]:
        marks = [ch for col, ch in sorted(columns(lines[row_index]).items()) if col > 2]
        assert len(marks) == 9, lines[row_index]
        expected_palace = {3, 4, 5}
        for file, mark in enumerate(marks):
            if file in expected_palace and mark not in "帥將":
                assert mark == "+", (rank, file, lines[row_index])
            elif file not in expected_palace:
                assert mark == "·", (rank, file, lines[row_index])
    for row_index in (3, 4, 6, 7):  # ranks 6, 5, 4, 3: no palace
        assert "+" not in lines[row_index]


def test_letters_style_is_plain_ascii_letters() -> None:
    text = render(state(), style="letters")
    lines = board_lines(text)
    assert lines[0].split()[1:] == list("rnbakabnr")
    assert lines[10].split()[1:] == list("RNBAKABNR")
    assert "river" in lines[5] and "楚" not in text


def test_render_turns_the_board_round_when_you_play_black() -> None:
    line = state(AFTER_CANNON, start_fen=START, moves=["h2e2"], mode="play", human="black", level="advanced",
                 clock={"red": 296.5, "black": 300.0, "running": "black"})
    text = render(line)
    lines = board_lines(text)
    assert lines[0].startswith(" 0") and lines[10].startswith(" 9")
    assert lines[12].split() == list("ihgfedcba")
    assert "".join(ch for ch in lines[0][3:] if not ch.isspace()) == ROW0[::-1]
    assert "楚 河" in lines[5]
    assert "Black: you" in text and "Red: engine (advanced)" in text
    assert "4:56" in text and "5:00" in text and "⏱" in text
    assert "Last move: 1. C2.5 炮二平五" in text and "Your move (Black)." in text


def test_render_board_turned_round_maps_physical_points() -> None:
    """With the board turned round, the sensors' e2 is the game's e7 (89 - 22 = 67)."""
    logical = occ(START) & ~(1 << G.parse("b7"))  # the black cannon on b7 is lifted
    line = state(orientation="flipped", occupancy=G.to_hex(G.turn_mask(logical)),
                 leds=[{"square": "h2", "why": "lifted"}])
    text = render(line, style="letters")
    assert "lifted b7" in text
    row7 = next(r for r in board_lines(text) if r.startswith(" 7"))
    assert "[c]" in row7


@pytest.mark.parametrize(("line", "words"), [
    (state(AFTER_CANNON, start_fen=START, moves=["h2e2"], mode="play", human="red", pending="h9g7",
           leds=[{"square": "h9", "why": "engine-move"}, {"square": "g7", "why": "engine-move"}]),
     ["The engine plays H8+7 ", ": make it on the board (type h9g7 or H8+7)", "engine-move g7 h9", "[馬]",
      "Last move: 1. C2.5 炮二平五"]),
    (state(AFTER_CANNON, start_fen=START, moves=["h2e2"], mode="play", human="red", thinking=True),
     ["The engine is thinking"]),
    (state(START, mode="play", human="red", hint="h2e2"), ["Hint: C2.5 炮二平五 (type h2e2 or C2.5)"]),
    (state(CHECK), ["Black is in check", "Black to move"]),  # from the rules, not only the state's "check"
    (state(START, result="0-1", termination="perpetual check"), ["Game over: 0-1 (perpetual check)"]),
    (state(START, eval={"mate": 3}), ["Red mates in 3"]),
    (state(START, eval={"cp": -120}), ["-1.2 (Red's view)"]),
    (state(START, occupancy=G.to_hex(occ(START) & ~(1 << G.parse("e3")) | 1 << G.parse("e4")), matching=False),
     ["(兵)", " ? ", "the piece on e4 belongs on e3 (type e4e3)"]),
    (state(START, occupancy=G.to_hex(occ(START) & ~(1 << G.parse("a0")) & ~(1 << G.parse("i0"))), matching=False),
     ["put a piece on a0 i0 (type each point)"]),
    (state("rnbakabnr/9/1c2c4/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2", start_fen=AFTER_CANNON,
           moves=["h7e7"]), ["Last move: 1... C8.5 "]),  # Black counts files from its own right
])
def test_render_says_what_is_happening(line: dict[str, Any], words: list[str]) -> None:
    text = render(line)
    for word in words:
        assert word in text, text


def test_the_view_keeps_characters_unless_the_terminal_cannot_show_them() -> None:
    assert choose_style("unicode", io.TextIOWrapper(io.BytesIO(), encoding="utf-8")) == "unicode"
    assert choose_style("unicode", io.TextIOWrapper(io.BytesIO(), encoding="ascii")) == "letters"
    assert choose_style("unicode", io.TextIOWrapper(io.BytesIO(), encoding="cp437")) == "letters"
    assert choose_style("letters", io.TextIOWrapper(io.BytesIO(), encoding="utf-8")) == "letters"


# -- reading typed lines ----------------------------------------------------------------------------

PARSED = [
    ("e0", pos(), Toggle(G.parse("e0"))),
    ("I9", pos(), Toggle(G.parse("i9"))),
    ("!hint", pos(), Press(Button.HINT)),
    ("h2e2", pos(), MakeMove(p("h2", "e2"), True)),
    ("H2-E2", pos(), MakeMove(p("h2", "e2"), True)),  # ICCS
    ("C2.5", pos(), MakeMove(p("h2", "e2"), True)),  # WXF
    ("c2.5", pos(), MakeMove(p("h2", "e2"), True)),
    ("炮二平五", pos(), MakeMove(p("h2", "e2"), True)),  # Chinese
    ("H8+7", pos(), MakeMove(p("b0", "c2"), True)),
    ("b2b9", pos(), MakeMove(p("b2", "b9"), True)),  # the cannon jumps and takes the horse
    ("h9g7", pos(AFTER_CANNON), MakeMove(p("h9", "g7"), True)),
    ("H8+7", pos(AFTER_CANNON), MakeMove(p("h9", "g7"), True)),  # Black counts files from its own right
    ("H2+3", pos(AFTER_CANNON), MakeMove(p("b9", "c7"), True)),
    # From-to pairs the rules refuse are still wood moved by hand; the tracker says what is wrong.
    ("h9g7", pos(), MakeMove(p("h9", "g7"), False)),  # Black's horse on Red's turn
    ("a0a3", pos(), MakeMove(p("a0", "a3"), False)),  # onto Red's own soldier
    ("e4e5", pos(), MakeMove(p("e4", "e5"), False)),  # no piece there
    ("h2g3", pos(), MakeMove(p("h2", "g3"), False)),  # a cannon does not go sideways
    ("b0d1", pos(), MakeMove(p("b0", "d1"), False)),  # the horse's leg (c0) is blocked
    ("e0e1", pos(), MakeMove(p("e0", "e1"), True)),
    ("e0e2", pos(), MakeMove(p("e0", "e2"), False)),  # the general steps one point
]


@pytest.mark.parametrize(("text", "position", "expected"), PARSED)
def test_parse(text: str, position: Position, expected: object) -> None:
    assert parse(text, position) == expected


@pytest.mark.parametrize(("text", "position", "words"), [
    ("j0", pos(), ["'j0' is not a move, a point or a command", "h2e2", "such as h2"]),
    ("Nf3", pos(), ["not a move"]),
    ("C2.5", pos(AFTER_CANNON, moves=["h2e2"]), None),  # Black's cannon to the centre too
    ("C1.5", pos(), ["C1.5 is not a legal move for Red here"]),
    ("C5+4", pos(AFTER_CANNON), ["C5+4 is a move for Red, but it is Black's turn"]),
    ("炮二平五", pos(AFTER_CANNON, mode="play", human="red", thinking=True), ["engine is thinking"]),
    ("e2e2", pos(), ["goes nowhere", "two different points"]),
    ("h2e2", pos(result="1-0", termination="checkmate"), ["The game is over", "checkmate", "!new-game"]),
    ("c6c5", pos(AFTER_CANNON, mode="play", human="red", pending="h9g7"),
     ["engine plays H8+7", "type h9g7 or H8+7", "!takeback"]),
    ("c6c5", pos(AFTER_CANNON, mode="play", human="red", thinking=True), ["engine is thinking"]),
])
def test_every_mistake_is_answered_in_plain_words(text: str, position: Position, words: list[str] | None) -> None:
    if words is None:
        parse(text, position)  # accepted
        return
    with pytest.raises(InputError) as info:
        parse(text, position)
    for word in words:
        assert word in str(info.value), str(info.value)


def test_the_engines_move_is_accepted_while_it_waits_to_be_made() -> None:
    position = pos(AFTER_CANNON, mode="play", human="red", pending="h9g7")
    assert parse("h9g7", position) == MakeMove(p("h9", "g7"), True)
    assert parse("H8+7", position) == MakeMove(p("h9", "g7"), True)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_any_text_is_a_command_or_a_plain_error(text: str) -> None:
    for position in (pos(), point_pos()):
        try:
            parse(text, position)
        except InputError as exc:
            assert str(exc) and "Error" not in str(exc)


@st.composite
def games(draw: st.DrawFn) -> XiangqiBoard:
    board = XiangqiBoard()
    for _ in range(draw(st.integers(0, 40))):
        moves = list(board.generate_legal_moves())
        if not moves:
            break
        board.push(draw(st.sampled_from(moves)))
    return board


@settings(max_examples=40, deadline=None)
@given(games(), st.data())
def test_every_legal_move_reads_back_from_its_notations(board: XiangqiBoard, data: st.DataObject) -> None:
    moves = list(board.generate_legal_moves())
    if not moves:
        return
    move = data.draw(st.sampled_from(moves))
    position = pos(board.fen())
    for text in (move.uci(), move.uci().upper()[:2] + "-" + move.uci().upper()[2:], wxf(board, move),
                 chinese(board, move)):
        assert parse(text, position) == MakeMove(move, True), text


# -- the plain from-to reader (a board whose game has no notation of its own) -----------------------


@pytest.mark.parametrize(("text", "fen", "expected"), [
    ("h2e2", START, MakeMove(PointMove(G.parse("h2"), G.parse("e2"), "h2e2"), True)),
    ("H2-E2", START, MakeMove(PointMove(G.parse("h2"), G.parse("e2"), "h2e2"), True)),
    ("h9g7", START, MakeMove(PointMove(G.parse("h9"), G.parse("g7"), "h9g7"), False)),  # not Red's piece
    ("a0a3", START, MakeMove(PointMove(G.parse("a0"), G.parse("a3"), "a0a3"), False)),  # onto its own
    ("b2b9", START, MakeMove(PointMove(G.parse("b2"), G.parse("b9"), "b2b9"), True)),
])
def test_point_pairs_without_rules(text: str, fen: str, expected: object) -> None:
    assert parse(text, point_pos(fen)) == expected


def test_point_pairs_without_rules_hands_and_words() -> None:
    position = point_pos(mode="play", human="red")
    command = parse("b2b9", position)
    assert isinstance(command, MakeMove)
    assert position.reader.hand_steps(position, command.move) == [
        Lift(G.parse("b9")), Pause(CAPTURE_PAUSE), Lift(G.parse("b2")), Place(G.parse("b9"))]
    with pytest.raises(InputError, match="not a move, a point"):
        parse("C2.5", position)
    assert position.reader.last_move(START, ["h2e2", "h9g7"]) == "1... h9g7"
    assert position.reader.is_check(dataclasses.replace(position, check="e0"))


@pytest.mark.parametrize(("fen", "text", "steps"), [
    (START, "h2e2", [Lift(G.parse("h2")), Place(G.parse("e2"))]),
    (START, "b2b9", [Lift(G.parse("b9")), Pause(CAPTURE_PAUSE), Lift(G.parse("b2")), Place(G.parse("b9"))]),
    (AFTER_CANNON, "b7b0", [Lift(G.parse("b0")), Pause(CAPTURE_PAUSE), Lift(G.parse("b7")), Place(G.parse("b0"))]),
])
def test_hand_steps(fen: str, text: str, steps: list[object]) -> None:
    position = pos(fen)
    command = parse(text, position)
    assert isinstance(command, MakeMove)
    got = position.reader.hand_steps(position, command.move)
    assert got == steps
    assert command.legal
    assert check_steps(got, position.occupancy, G) is None


def test_steps_that_wood_cannot_do_name_the_points() -> None:
    assert check_steps([Lift(G.parse("e4"))], 1 << G.parse("e3"), G) == "there is no piece on e4 to pick up"
    assert check_steps([Place(G.parse("i9"))], 1 << G.parse("i9"), G) == "i9 is occupied"


# -- the view, on a simulated board ----------------------------------------------------------------


class FakeSim:
    """The sim board's hands, recorded; ``count_after`` seconds after a piece is set down the
    tracker "counts" the move (the daemon's state becomes ``counted``), as a busy daemon would."""

    def __init__(self, daemon: FakeDaemon) -> None:
        self.daemon = daemon
        self.done: list[tuple[str, object]] = []
        self.count_after = 0.0
        self.counted: dict[str, Any] | None = None

    def lift(self, square: int) -> None:
        self.done.append(("lift", G.square_name(square)))

    def place(self, square: int) -> None:
        self.done.append(("place", G.square_name(square)))
        if self.counted is not None:
            counted = self.counted
            asyncio.get_running_loop().call_later(self.count_after, lambda: setattr(self.daemon, "line", counted))

    def toggle(self, square: int) -> None:
        self.done.append(("toggle", G.square_name(square)))

    def press(self, button: Button) -> None:
        self.done.append(("press", button))


class FakeDaemon:
    def __init__(self, line: dict[str, Any]) -> None:
        self.line = line
        self.board = FakeSim(self)
        self.session = type("S", (), {"settings": type("T", (), {"settle": 0.0})()})()

    def state(self) -> dict[str, Any]:
        return self.line


@pytest.mark.slow
@pytest.mark.parametrize(("orientation", "text", "done"), [
    ("normal", "b2b9", [("lift", "b9"), ("lift", "b2"), ("place", "b9")]),
    ("flipped", "b2b9", [("lift", "h0"), ("lift", "h7"), ("place", "h0")]),  # physical = 89 - logical
    ("normal", "e3", [("toggle", "e3")]),
    ("flipped", "e3", [("toggle", "e6")]),
])
def test_typed_moves_become_hands_on_physical_points(orientation: str, text: str, done: list[object]) -> None:
    line = state(orientation=orientation)
    if orientation == "flipped":
        line["occupancy"] = G.to_hex(G.turn_mask(occ(START)))
    daemon = FakeDaemon(line)
    out = io.StringIO()
    view = TerminalView(daemon, out=out, style="unicode", clock=lambda: 0.0)
    assert asyncio.run(view.apply(text)) is True
    assert daemon.board.done == done, out.getvalue()


def test_help_speaks_of_points_and_a_refused_move_says_why() -> None:
    daemon = FakeDaemon(state())
    out = io.StringIO()
    view = TerminalView(daemon, out=out, style="unicode", clock=lambda: 0.0)
    asyncio.run(view.apply("help"))
    assert "h2e2" in out.getvalue() and "point" in out.getvalue()
    asyncio.run(view.apply("a0a3"))  # onto Red's own soldier
    assert "A3 is occupied: take that piece off first (type a3)" in out.getvalue()
    assert daemon.board.done == []


def test_clocks_are_red_and_black() -> None:
    text = render(state(mode="play", human="red", clock={"red": 61.0, "black": 12.5, "running": "red"}))
    red = next(line for line in text.splitlines() if line.startswith(" Red"))
    black = next(line for line in text.splitlines() if line.startswith(" Black"))
    assert "1:01 ⏱" in red and "to move" in red
    assert "0:12.5" in black and "⏱" not in black


@pytest.mark.slow
def test_piped_lines_are_read_after_the_last_move_is_counted() -> None:
    """A script types faster than a busy tracker counts: ``h2e2`` then ``H8+7`` must read the
    second against the position after the first (Black's horse h9g7, not Red's b0c2)."""
    daemon = FakeDaemon(state())
    daemon.board.counted = state(AFTER_CANNON, start_fen=START, moves=["h2e2"])
    daemon.board.count_after = 0.5  # longer than the settle time the view waits anyway

    async def script() -> None:
        view = TerminalView(daemon, out=io.StringIO(), style="unicode", clock=lambda: 0.0)
        assert await view.apply("h2e2")
        assert await view.apply("H8+7")

    asyncio.run(script())
    assert daemon.board.done == [("lift", "h2"), ("place", "e2"), ("lift", "h9"), ("place", "g7")]
