"""The session answers every input with one ``Effects`` (issue 31): a table of event sequences and
the answer to their last input (LEDs, sounds, log entries, records to save, the engine request,
requests for the other side); how answers join; the other side's input as one answer; and the
daemon carrying an answer out in one place."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import chess
import pytest
from test_daemon_support import move_events

from boardctl.daemon import Daemon
from boardctl.events import (
    Button,
    ButtonPressed,
    Code,
    EngineReplied,
    Event,
    GameDecided,
    GameHeader,
    LedIntent,
    SquareChanged,
    Tick,
)
from boardctl.reply import Reply
from boardctl.session import NOTHING, Effects, RemoteInput, RemoteMoveError, Session, Settings
from boardctl.storage import GameStore


class Driver:
    """Hands on the board and the engine, at virtual times; keeps every answer in order."""

    def __init__(self, settings: Settings) -> None:
        self.session = Session(settings)
        self.t = 0.0
        self.answers = [self.session.tick(0.0)]

    @property
    def last(self) -> Effects:
        return self.answers[-1]

    def move(self, uci: str) -> Effects:
        """A move by hand: its events, then the settle tick that completes it (its answer)."""
        for square, occupied in move_events(self.session.board, chess.Move.from_uci(uci)):
            self.t += 0.1
            self.answers.append(self.session.feed(SquareChanged(self.t, chess.parse_square(square), occupied)))
        self.t += 0.5
        self.answers.append(self.session.tick(self.t))
        return self.last

    def press(self, button: Button) -> Effects:
        self.t += 0.1
        self.answers.append(self.session.feed(ButtonPressed(self.t, button)))
        return self.last

    def engine(self, uci: str, score: int | None = 0) -> Effects:
        request = self.session.engine_request()
        assert request is not None
        self.answers.append(self.session.engine_replied(request, Reply(chess.Move.from_uci(uci), score), self.t))
        return self.last

    def wait(self, seconds: float) -> Effects:
        self.t += seconds
        self.answers.append(self.session.tick(self.t))
        return self.last


def names(intents: tuple[LedIntent, ...]) -> set[tuple[str, str]]:
    return {(chess.square_name(i.square), str(i.why)) for i in intents}


def kinds(effects: Effects) -> list[type[Event]]:
    return [type(entry) for _, entry in effects.log]


@dataclass
class Case:
    name: str
    settings: Settings
    steps: Callable[[Driver], object]
    leds: set[tuple[str, str]] = field(default_factory=set)
    sounds: tuple[Code, ...] = ()
    log: list[type[Event]] = field(default_factory=list)
    saves: bool = False  # the answer gives the current record to save
    engine: str | None = None  # the kind of request the engine should be asked
    requests: tuple[str, ...] = ()
    changed: bool = True


CASES = [
    Case("time passes, nothing happens", Settings(mode="record"), lambda d: d.wait(1.0), changed=False),
    Case("the first time: the log's header, the new record", Settings(mode="record"),
         lambda d: None, log=[GameHeader], saves=True),
    Case("a lift: kept until the first move tells the orientation", Settings(mode="record"),
         lambda d: d.answers.append(d.session.feed(SquareChanged(0.5, chess.E2, False)))),
    Case("a move by hand: its events and the tick that completed it", Settings(mode="record"),
         lambda d: d.move("e2e4"), log=[SquareChanged, SquareChanged, Tick], saves=True),
    Case("the human's move asks the engine", Settings(mode="play", color="white"),
         lambda d: d.move("e2e4"), log=[SquareChanged, SquareChanged, Tick], saves=True, engine="move"),
    Case("the engine's reply lit and logged", Settings(mode="play", color="white"),
         lambda d: (d.move("e2e4"), d.engine("e7e5")),
         leds={("e7", "engine-move"), ("e5", "engine-move")}, log=[EngineReplied], saves=True),
    Case("a hint asked", Settings(mode="play", color="white"),
         lambda d: (d.move("e2e4"), d.engine("e7e5"), d.move("e7e5"), d.press(Button.HINT)),
         log=[ButtonPressed], engine="hint"),
    Case("a blunder warned of: lit and sounded", Settings(mode="play", color="white", blunder_warning=True),
         lambda d: (d.move("e2e4"), d.engine("e7e5", 0), d.move("e7e5"), d.move("d1h5"), d.engine("g8f6", 400)),
         leds={("d1", "blunder"), ("h5", "blunder"), ("g8", "engine-move"), ("f6", "engine-move")},
         sounds=(Code.BLUNDER,), log=[EngineReplied], saves=True),
    Case("a resignation sounds the result", Settings(mode="play", color="white"),
         lambda d: d.press(Button.RESIGN), leds={("e8", "result")}, sounds=(Code.RESULT,),
         log=[ButtonPressed], saves=True),  # replay decides it again from the button
    Case("a network resignation is a request for the other side", Settings(mode="network", color="white"),
         lambda d: d.press(Button.RESIGN), leds={("e8", "result")}, sounds=(Code.RESULT,),
         log=[ButtonPressed, GameDecided], saves=True, requests=("resign",)),  # a network result is logged
    Case("the other side's draw offer: the kings lit, the buzzer", Settings(mode="network", color="white"),
         lambda d: d.answers.append(d.session.remote_request("draw", 1.0)),
         leds={("e1", "draw-offer"), ("e8", "draw-offer")}, sounds=(Code.DRAW_OFFER,)),
    Case("the other side's move lit as a remote move", Settings(mode="network", color="black"),
         lambda d: d.answers.append(d.session.remote_move(0, "e2e4", 1.0)),
         leds={("e2", "remote-move"), ("e4", "remote-move")}, log=[EngineReplied], saves=True),
    Case("the other side's move sent twice: nothing", Settings(mode="network", color="black"),
         lambda d: [d.answers.append(d.session.remote_move(0, "e2e4", t)) for t in (1.0, 1.5)],
         leds={("e2", "remote-move"), ("e4", "remote-move")}, changed=False),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_input_answers_with_its_effects(case: Case) -> None:
    driver = Driver(case.settings)
    case.steps(driver)
    answer = driver.last
    assert names(answer.leds) == case.leds
    assert names(answer.leds) == names(tuple(driver.session.leds()))  # what the board shows now
    assert answer.sounds == case.sounds
    assert kinds(answer) == case.log
    assert all(game == driver.session.record.id for game, _ in answer.log)
    assert answer.record is (driver.session.record if case.saves else None)
    assert (answer.engine.kind if answer.engine is not None else None) == case.engine
    assert answer.engine is driver.session.engine_request()  # the same request: asked once
    assert answer.requests == case.requests
    assert answer.changed is case.changed
    assert answer.finished == ()


def test_everything_is_answered_once() -> None:
    """Nothing is answered twice or left behind: asked again at once, the session has nothing new."""
    driver = Driver(Settings(mode="play", color="white"))
    driver.move("e2e4")
    driver.engine("e7e5")
    again = driver.session.answer()
    assert (again.sounds, again.log, again.finished, again.record, again.requests, again.changed) == (
        (), (), (), None, (), False)
    assert again.leds == driver.last.leds  # still to show


def test_a_new_game_leaves_the_old_one_to_save_with_its_end_in_its_own_log() -> None:
    driver = Driver(Settings(mode="record"))
    driver.move("e2e4")
    old = driver.session.record
    answer = driver.session.new_game(driver.t + 1.0)
    assert answer.finished == (old,) and old.termination == "abandoned"
    assert answer.record is driver.session.record is not old
    assert [(game, type(entry)) for game, entry in answer.log] == [
        (old.id, GameDecided), (driver.session.record.id, GameHeader)]


def test_a_guide_s_input_inside_an_input_is_answered_by_the_outer_one() -> None:
    """A lesson takes a wrong move back while the move is applied: the move's answer holds it all."""
    from boardctl.learning.guided import LessonGuide
    from boardctl.learning.lessons import Mode
    from boardctl.variants.chess.lessons import load_lesson

    driver = Driver(Settings(mode="play", color="white"))
    driver.session.guide = LessonGuide(load_lesson("italian"), mode=Mode.GUIDED, rng=random.Random(1))
    driver.answers.append(driver.session.tick(0.1))
    answer = driver.move("a2a3")  # not the lesson's move
    assert Code.LESSON_WRONG in answer.sounds
    assert driver.session.record.moves == [] and ("a3", "takeback") in names(answer.leds)
    assert answer.record is driver.session.record


# -- joining answers --------------------------------------------------------------------------------

def _record(id_: str) -> object:
    from boardctl.storage import GameRecord

    return GameRecord(id_, "record", "", "")


A, B = _record("a"), _record("b")
E1, E2 = LedIntent(chess.E1, Code.RESULT), LedIntent(chess.E2, Code.TAKEBACK)


@pytest.mark.parametrize(("first", "later", "joined"), [
    (NOTHING, NOTHING, NOTHING),
    (Effects(leds=(E1,), sounds=(Code.RESULT,)), Effects(leds=(E2,), sounds=(Code.BLUNDER,)),
     Effects(leds=(E2,), sounds=(Code.RESULT, Code.BLUNDER), changed=False)),
    (Effects(log=(("a", Tick(1.0)),), requests=("draw",), changed=True), Effects(log=(("a", Tick(2.0)),)),
     Effects(log=(("a", Tick(1.0)), ("a", Tick(2.0))), requests=("draw",), changed=True)),
    (Effects(record=A), NOTHING, Effects(record=A)),  # type: ignore[arg-type]
    (Effects(record=A), Effects(record=A), Effects(record=A)),  # type: ignore[arg-type]
    # changed, then left for a new game: both saved
    (Effects(record=A), Effects(record=B), Effects(record=B, finished=(A,))),  # type: ignore[arg-type]
    (Effects(finished=(A,)), Effects(finished=(B,)), Effects(finished=(A, B))),  # type: ignore[arg-type]
])
def test_answers_join_in_order(first: Effects, later: Effects, joined: Effects) -> None:
    assert first.then(later) == joined


# -- the other side's input ---------------------------------------------------------------------

def test_the_other_side_s_messages_are_answered_as_one() -> None:
    driver = Driver(Settings(mode="network", color="black", time_control="5+0"))
    with RemoteInput(driver.session) as game:
        assert game.move(0, "e2e4", 1.0, clock=299.0) is True
        assert game.move(0, "e2e4", 1.1) is False  # sent twice
        game.sync_clock({"white": 299.0, "black": 300.0}, "black", 1.2)
        game.request("draw", 1.3)
    assert kinds(game.effects) == [EngineReplied]
    assert names(game.effects.leds) == {("e2", "remote-move"), ("e4", "remote-move"),
                                        ("e1", "draw-offer"), ("e8", "draw-offer")}
    assert game.effects.sounds == (Code.DRAW_OFFER,) and game.effects.record is driver.session.record


def test_a_refused_message_leaves_what_came_before_it_to_the_next_answer() -> None:
    driver = Driver(Settings(mode="network", color="black"))
    with pytest.raises(RemoteMoveError), RemoteInput(driver.session) as game:
        game.move(0, "e2e4", 1.0)
        game.move(2, "d2d4", 1.1)  # a move missing
    assert game.effects == NOTHING
    later = driver.wait(1.0)
    assert kinds(later) == [EngineReplied] and later.record is driver.session.record


# -- the daemon carries an answer out ---------------------------------------------------------------

class Board:
    """A board that notes what it is told: the LEDs shown and the sounds played."""

    def __init__(self) -> None:
        self.shown: list[set[tuple[str, str]]] = []
        self.played: list[Code] = []

    def show(self, intents: list[LedIntent]) -> None:
        self.shown.append(names(tuple(intents)))

    def play(self, code: Code) -> None:
        self.played.append(code)


def test_the_daemon_carries_out_remote_input_with_one_state_line(tmp_path: Path) -> None:
    async def scenario() -> None:
        session = Session(Settings(mode="network", color="black"))
        board = Board()
        daemon = Daemon(session, store=GameStore(tmp_path), board=board, virtual_time=True)
        lines = daemon.subscribe()
        daemon.tick()
        while not lines.empty():
            lines.get_nowait()
        with daemon.remote_input("network") as game:
            if game.move(0, "e2e4", 1.0):
                game.reason = Code.REMOTE_MOVE
            game.request("draw", 1.1)
        line = lines.get_nowait()
        assert lines.empty() and line["reason"] == "remote-move" and line["pending"] == "e2e4"
        assert board.shown[-1] == {("e2", "remote-move"), ("e4", "remote-move"), ("e1", "draw-offer"),
                                   ("e8", "draw-offer")}
        assert board.played == [Code.DRAW_OFFER]
        with pytest.raises(RemoteMoveError), daemon.remote_input("network") as game:
            game.request("decline", 1.2)
            game.move(5, "d2d4", 1.3)
        assert lines.empty()  # refused: no state line
        daemon.tick()  # the next input carries out what was applied (the offer's LEDs off)
        assert board.shown[-1] == {("e2", "remote-move"), ("e4", "remote-move")}
        await daemon.close()
        logged = (tmp_path / f"{session.record.id}.jsonl").read_text(encoding="utf-8")
        assert '"engine": "e2e4"' in logged

    asyncio.run(scenario())


def test_the_daemon_passes_this_board_s_requests_on(tmp_path: Path) -> None:
    async def scenario() -> None:
        session = Session(Settings(mode="network", color="white"))
        daemon = Daemon(session, store=GameStore(tmp_path), virtual_time=True)
        daemon.tick()
        daemon.handle(ButtonPressed(0.5, Button.DRAW))
        assert daemon.take_requests() == ["draw"]
        assert daemon.take_requests() == []
        await daemon.close()

    asyncio.run(scenario())


def test_the_session_is_answered_not_pulled() -> None:
    """No ``take_*`` on the session's face: what an input did comes back with it (issue 31)."""
    assert [name for name in dir(Session) if name.startswith("take_")] == ["take_back"]  # an input: a takeback
    assert callable(Session.answer)
