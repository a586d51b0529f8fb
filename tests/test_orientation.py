"""Auto orientation (issue 28): the first completed move tells which way round the board stands,
never a touch before it. Players straighten their own and their opponent's pieces before every
game, brush pieces, and hold one up to look at it; none of that may decide.

A table of what hands do before the first move, played on a board standing either way round, in
chess and xiangqi, under both policies, through the session in-process; the daemon tests at the
end play the issue's own lines through ``boardctl record --board sim --stdio`` (and every game a
daemon test saves is replayed by tests/conftest.py, so the daemon and ``replay`` agree).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from test_daemon_support import Daemon

from boardctl.core.rules import Variant
from boardctl.events import Event, SquareChanged, Tick
from boardctl.session import Session, Settings
from boardctl.variants import get_variant

CHESS = get_variant("chess")
XIANGQI = get_variant("xiangqi")


@dataclass(frozen=True)
class Case:
    name: str
    variant: Variant
    #: What hands do before the first move, in game squares: ``a8-`` lifts, ``a8+`` sets down,
    #: a number waits that many seconds.
    before: str
    moves: tuple[str, ...]  # the moves then played (their events from a plain hand)
    #: Violations a careful arbiter gives, by code (none for pieces put back).
    violations: tuple[str, ...] = ()


def _script(variant: Variant, text: str, t: float, flipped: bool) -> tuple[list[Event], float]:
    geometry = variant.geometry
    out: list[Event] = []
    for token in text.split():
        if token[-1] in "+-":
            square = geometry.parse(token[:-1])
            out.append(SquareChanged(round(t, 4), geometry.turned(square) if flipped else square, token[-1] == "+"))
        else:
            t += float(token)
    return out, t


def _move_events(variant: Variant, uci: str, board: object, t: float, flipped: bool) -> tuple[list[Event], float]:
    """A plain hand: a capture's victim first, then the mover; 0.4 s in the hand; released."""
    geometry = variant.geometry
    game = variant.adopt(board)  # type: ignore[arg-type]
    move = game.parse_uci(uci)
    steps: list[tuple[int, bool]] = []
    victim = game.capture_square(move)
    if victim is not None:
        steps.append((victim, False))
    steps += [(move.from_square, False), (game.landing_square(move), True)]
    out: list[Event] = []
    for square, occupied in steps:
        t += 0.4
        out.append(SquareChanged(round(t, 4), geometry.turned(square) if flipped else square, occupied))
    return out, t + 1.0


CASES = [
    Case("nothing-before", CHESS, "", ("e2e4", "e7e5")),
    Case("straighten-opponents-rook", CHESS, "a8- 0.5 a8+ 1", ("e2e4", "e7e5")),  # the lines
    Case("brush-opponents-rook", CHESS, "a8- 0.04 a8+ 1", ("e2e4", "e7e5")),
    Case("straighten-own-knight", CHESS, "g1- 0.2 g1+ 1", ("e2e4", "e7e5")),
    Case("straighten-both-sides", CHESS, "a8- 0.2 a8+ 0.3 h1- 0.25 h1+ 0.3 d7- 0.15 d7+ 0.3 e1- 0.1 e1+ 1", ("d2d4", "d7d5")),
    Case("straighten-a-whole-rank", CHESS, " ".join(f"{f}7- 0.15 {f}7+ 0.2" for f in "abcdefgh") + " 1", ("g1f3", "g8f6")),
    Case("lift-opponents-queen-and-look", CHESS, "d8- 2.0 d8+ 1", ("c2c4",)),
    Case("knight-first", CHESS, "b8- 0.3 b8+ 1", ("b1c3", "b8c6", "c3b1")),
    Case("xq-nothing-before", XIANGQI, "", ("h2e2", "h9g7")),
    Case("xq-straighten-chariot-a9", XIANGQI, "a9- 0.5 a9+ 1", ("h2e2", "h9g7")),
    Case("xq-straighten-cannon-h7", XIANGQI, "h7- 0.5 h7+ 1", ("h2e2", "h9g7")),
    Case("xq-brush-and-straighten-both", XIANGQI, "b9- 0.03 b9+ 0.4 e0- 0.2 e0+ 0.4 i6- 0.2 i6+ 1", ("c3c4", "c6c5")),
    Case("xq-first-move-captures-victim-first", XIANGQI, "h7- 0.3 h7+ 1", ("b2b9",)),
]


@pytest.mark.parametrize("flipped", [False, True], ids=["normal", "flipped"])
@pytest.mark.parametrize("policy", ["strict", "casual"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_first_move_tells_the_orientation(case: Case, policy: str, flipped: bool) -> None:
    session = Session(Settings(mode="record", variant=case.variant.name, policy=policy))
    answers = [session.tick(0.0)]
    events, t = _script(case.variant, case.before, 0.5, flipped)
    board = case.variant.board()
    for uci in case.moves:
        more, t = _move_events(case.variant, uci, board, t, flipped)
        events += more
        board.push(board.parse_uci(uci))
    for event in events:
        answers += [session.feed(event), session.tick(event.t + 0.05)]
    answers.append(session.tick(t + 2.0))
    line = session.state_line()
    assert line["moves"] == list(case.moves)
    assert line["orientation"] == ("flipped" if flipped else "normal")
    assert [v.code for v in session.record.violations] == list(case.violations)
    # The log is in game orientation: replaying it on a board standing normally gives the game.
    logged = [entry for answer in answers for _, entry in answer.log if isinstance(entry, SquareChanged | Tick)]
    replayed = Session(Settings(mode="record", variant=case.variant.name, policy=policy, orientation="normal"))
    for entry in logged:
        if isinstance(entry, SquareChanged):
            replayed.feed(entry)
        else:
            replayed.tick(entry.t)
    replayed.tick(t + 2.0)
    assert replayed.state_line()["moves"] == list(case.moves)


def test_an_illegal_first_move_either_way_round_is_said_at_once() -> None:
    session = Session(Settings(mode="record"))
    session.tick(0.0)
    for t, square, occupied in [(1.0, "e2", False), (1.4, "e5", True)]:
        session.feed(SquareChanged(t, CHESS.geometry.parse(square), occupied))
    session.tick(3.0)
    assert [v.code for v in session.record.violations] == ["illegal-move"]
    assert session.state_line()["orientation"] == "auto"
    for t, square, occupied in [(4.0, "e5", False), (4.4, "e2", True), (5.0, "e2", False), (5.4, "e4", True)]:
        session.feed(SquareChanged(t, CHESS.geometry.parse(square), occupied))
    session.tick(7.0)
    assert session.state_line()["moves"] == ["e2e4"] and session.state_line()["orientation"] == "normal"


def test_a_touch_only_one_reading_sees_counts_in_the_reading_that_wins() -> None:
    """Strict: White touches its own knight (held past the settle time), then plays e4: touch-move
    in the normal reading. On a turned board the same physical lift is Black's knight: nothing."""
    for flipped, expected in [(False, ["touch-move"]), (True, [])]:
        session = Session(Settings(mode="record", policy="strict"))
        session.tick(0.0)
        g = CHESS.geometry
        script = [(1.0, "g1", False), (1.6, "g1", True), (2.5, "e2", False), (3.0, "e4", True)]
        if flipped:
            script = [(1.0, "g1", False), (1.6, "g1", True), (2.5, "d7", False), (3.0, "d5", True)]
        for t, square, occupied in script:
            session.feed(SquareChanged(t, g.parse(square), occupied))
            session.tick(t + 0.05)
        session.tick(5.0)
        assert [v.code for v in session.record.violations] == expected, flipped


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "lines", "moves", "orientation"),
    [
        ("chess", ["a8-1.0", "a8+1.5", "e2-2.5", "e4+3.0"], ["e2e4"], "normal"),
        ("chess", ["h1-1.0", "h1+1.5", "d7-2.5", "d5+3.0"], ["e2e4"], "flipped"),
        ("xiangqi", ["a9-1.0", "a9+1.5", "h2-2.5", "e2+3.0"], ["h2e2"], "normal"),
        ("xiangqi", ["h7-1.0", "h7+1.5", "h2-2.5", "e2+3.0"], ["h2e2"], "normal"),
        ("xiangqi", ["i0-1.0", "i0+1.5", "b7-2.5", "e7+3.0"], ["h2e2"], "flipped"),
    ],
)
def test_record_stdio_straightened_piece_then_the_first_move(
    tmp_path: Path, variant: str, lines: list[str], moves: list[str], orientation: str
) -> None:
    daemon = Daemon("record", tmp_path / "games", "--variant", variant)
    for line in lines:
        square, sign, t = line[:2], line[2], float(line[3:])
        daemon.send({"t": t, "square": square, "occupied": sign == "+"})
    state = daemon.send({"t": 5.0})
    assert state["moves"] == moves and state["orientation"] == orientation, state
    assert daemon.close() == 0


def test_a_result_before_the_first_move_keeps_the_log_in_time_order() -> None:
    """A network game ended by the other side before any move: the touches sensed meanwhile are
    logged before the result (the log's times never go back; replay refuses a log whose do)."""
    session = Session(Settings(mode="network", color="white"))
    answer = session.tick(0.0)
    g = CHESS.geometry
    answer = answer.then(session.feed(SquareChanged(0.5, g.parse("a8"), False)))
    answer = answer.then(session.feed(SquareChanged(0.9, g.parse("a8"), True)))
    answer = answer.then(session.remote_end("0-1", "white resigns", 2.0))
    times = [entry.t for _, entry in answer.log]
    assert times == sorted(times) and len(times) >= 3
    assert session.state_line()["orientation"] == "normal" and session.record.result == "0-1"


#: The set-up of a new game's position, in the orders hands and the page use (each square once).
SETUP_ORDERS = {
    "lifts-then-places": ("e2-", "e7-", "e4+", "e5+"),
    "piece-by-piece": ("e2-", "e4+", "e7-", "e5+"),
    "black-first": ("e7-", "e5+", "e2-", "e4+"),
}
AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


@pytest.mark.parametrize("mode", ["record", "play"])
@pytest.mark.parametrize("gap", [0.01, 0.05, 0.2, 0.8])
@pytest.mark.parametrize("order", SETUP_ORDERS.values(), ids=list(SETUP_ORDERS))
def test_setting_up_a_new_games_position_is_never_read_turned_round(
    order: tuple[str, ...], gap: float, mode: str
) -> None:
    """A new game from a position (the page's New game with a FEN) after a game whose orientation
    was still open: the set-up is not a move either way round, and the position's first move is
    the game's (the last game's turned reading once read this set-up as 1.d4 d5)."""
    session = Session(Settings(mode=mode, policy="strict", settle=0.15))
    session.tick(0.0)
    session.new_game(0.5, fen=AFTER_E4_E5)
    g = CHESS.geometry
    t = 1.0
    for token in (*order, 1.0, "f1-", 0.4, "a6+"):
        if isinstance(token, float):
            t += token
            continue
        session.feed(SquareChanged(t, g.parse(token[:2]), token[2] == "+"))
        session.tick(t + 0.01)
        t += gap
    session.tick(t + 2.0)
    line = session.state_line()
    assert line["start_fen"] == AFTER_E4_E5
    assert line["moves"][:1] == ["f1a6"] and line["warning"] is None, line


@pytest.mark.parametrize("flipped", [False, True], ids=["normal", "flipped"])
@pytest.mark.parametrize("gap", [0.01, 0.2, 0.8])
def test_setting_up_the_start_again_decides_nothing(gap: float, flipped: bool) -> None:
    """Pieces knocked over before the first move, then New game: putting them back is the set-up
    in either reading, and the first move still tells which way round the board stands."""
    session = Session(Settings(mode="record", policy="strict", settle=0.15))
    session.tick(0.0)
    cleared = ("b1", "g1", "b8", "g8", "e2", "d7")  # knights and two pawns swept off the board
    t = 0.5
    for name in cleared:
        square = CHESS.geometry.parse(name)
        session.feed(SquareChanged(t, CHESS.geometry.turned(square) if flipped else square, False))
        t += 0.05
    session.tick(t + 1.0)
    t += 1.5
    session.new_game(t, fen=None)
    events, t = _script(CHESS, " ".join(f"{name}+ {gap}" for name in cleared), t + 0.5, flipped)
    more, t = _move_events(CHESS, "g1f3", CHESS.board(), t + 1.0, flipped)
    for event in (*events, *more):
        session.feed(event)
        session.tick(event.t + 0.01)
    session.tick(t + 2.0)
    line = session.state_line()
    assert line["moves"] == ["g1f3"], line
    assert line["orientation"] == ("flipped" if flipped else "normal")
