"""The daemon object in-process: sim board LEDs and buzzer, an engine killed mid-game, the web contract."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import chess
import pytest
from test_daemon_support import STOCKFISH, move_events, needs_engine

from boardctl.actions import ButtonAction, LessonAction, NewGameAction, SquareAction, StepAction
from boardctl.commands.guided import start_guided
from boardctl.daemon import SUBSCRIBER_BACKLOG, ActionError, Daemon
from boardctl.engine_client import EngineClient
from boardctl.events import Button, ButtonPressed, SquareChanged, Tick
from boardctl.hw.sim import SimBoard
from boardctl.session import Session, Settings
from boardctl.storage import GameStore


def make(tmp_path: Path, settings: Settings, engine: EngineClient | None = None) -> tuple[Daemon, SimBoard]:
    session = Session(settings)
    board = SimBoard(session.physical_occupancy(), clock=lambda: session.t)
    daemon = Daemon(session, store=GameStore(tmp_path / "games"), engine=engine, board=board,
                    virtual_board=True, virtual_time=True, guided=start_guided)
    daemon.direct = True
    board.start(daemon.feed)
    return daemon, board


def play(daemon: Daemon, uci: str) -> dict[str, object]:
    board = daemon.session.board
    t = daemon.session.t
    for square, occupied in move_events(board, chess.Move.from_uci(uci)):
        t += 0.1
        daemon.inject(SquareChanged(t, chess.parse_square(square), occupied))
    line = daemon.inject(Tick(t + 0.5))
    assert line is not None
    return line


def test_result_on_the_sim_leds_and_buzzer(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, board = make(tmp_path, Settings(mode="record"))
        for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):
            play(daemon, uci)
        assert daemon.state()["result"] == "0-1"
        assert {(chess.square_name(i.square), str(i.why)) for i in board.intents} == {("e8", "result")}
        assert "result" in board.tones
        await daemon.close()

    asyncio.run(scenario())


def test_web_contract_subscribe_state_submit(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, _ = make(tmp_path, Settings(mode="record"))
        queue = daemon.subscribe()
        await daemon.submit({"event": {"square": "e2", "occupied": False}})
        await daemon.submit({"event": {"square": "e4", "occupied": True}})
        daemon.inject(Tick(daemon.session.t + 1.0))
        lines = [queue.get_nowait() for _ in range(queue.qsize())]
        assert [x.get("reason") for x in lines] == ["web", "web", None]
        assert lines[-1] == daemon.state() and daemon.state()["moves"] == ["e2e4"]
        for bad, message in [
            ({"event": {"square": "e9", "occupied": True}}, "e9"),
            ({"event": {"square": "e4", "occupied": True}}, "impossible"),
            ({"button": "fly"}, "unknown button"),
            ({"new-game": {"level": "godlike"}}, "new-game"),
            ({"new-game": {"fen": "not a fen"}}, "new-game"),
            ({"dance": 1}, "unknown kind"),
            ({}, "exactly one"),
        ]:
            with pytest.raises(ActionError, match=message) as info:
                await daemon.submit(bad)
            assert isinstance(info.value, ValueError)
        refused = [queue.get_nowait() for _ in range(queue.qsize())]
        assert [x.get("error", "")[:10] for x in refused] == ["impossible"]  # the sim's own refusal, in line
        daemon.unsubscribe(queue)
        await daemon.submit(ButtonAction(Button.RESIGN))  # typed, as the web server hands it on
        assert queue.empty() and daemon.state()["result"] == "1-0"
        await daemon.submit({"new-game": {"time-control": "3+2", "fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}})
        state = daemon.state()
        assert state["start_fen"] == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1" and state["clock"]["white"] == 180.0
        assert "4k3" in daemon.pgn() and '[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]' in daemon.pgn()
        await daemon.close()

    asyncio.run(scenario())


@pytest.mark.slow
@needs_engine
def test_engine_killed_mid_game_is_restarted_with_the_position(tmp_path: Path) -> None:
    assert STOCKFISH is not None

    async def scenario() -> None:
        engine = EngineClient([STOCKFISH], level="practice1", movetime=0.02)
        await engine.start()
        daemon, _ = make(tmp_path, Settings(mode="play", color="white"), engine)
        daemon.inject(ButtonPressed(0.0, Button.CLOCK))  # time starts
        play(daemon, "e2e4")
        await daemon.idle()
        reply = daemon.state()["pending"]
        assert isinstance(reply, str)
        play(daemon, reply)
        assert engine.pid is not None
        os.kill(engine.pid, signal.SIGKILL)
        play(daemon, "d2d4")
        await daemon.idle()
        state = daemon.state()
        assert state["pending"] is not None and state["reason"] == "engine-move"
        assert chess.Move.from_uci(state["pending"]) in daemon.session.board.legal_moves
        assert engine.restarts == 1
        await daemon.close()

    asyncio.run(scenario())


def test_lifting_a_piece_lights_its_legal_squares_when_asked(tmp_path: Path) -> None:
    async def scenario() -> None:
        for legal_moves, expected in ((True, {"f3", "h3"}), (False, set())):
            daemon, _ = make(tmp_path / str(legal_moves), Settings(mode="record", legal_moves=legal_moves))
            line = daemon.inject(SquareChanged(1.0, chess.G1, False))
            assert line is not None
            assert {led["square"] for led in line["leds"] if led["why"] == "legal-moves"} == expected
            await daemon.close()

    asyncio.run(scenario())


def test_a_stalled_subscriber_keeps_only_the_newest_lines(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, _ = make(tmp_path, Settings(mode="record"))
        queue = daemon.subscribe()
        t = daemon.session.t
        for _ in range(SUBSCRIBER_BACKLOG + 40):
            t += 0.5
            daemon.inject(SquareChanged(t, chess.E2, False))
            t += 0.5
            daemon.inject(SquareChanged(t, chess.E2, True))
        assert queue.qsize() == SUBSCRIBER_BACKLOG
        lines = [queue.get_nowait() for _ in range(queue.qsize())]
        assert lines[-1] == daemon.state()
        await daemon.close()

    asyncio.run(scenario())


def test_a_pgn_new_game_says_only_its_final_position_is_kept(tmp_path: Path) -> None:
    """The note from the upload reaches the state line's warning, which the page and terminal show."""
    from boardctl.web.protocol import validate_action

    async def scenario() -> None:
        session = Session(Settings(mode="record"))
        daemon = Daemon(session, store=GameStore(tmp_path), board=None, guided=start_guided)
        action = validate_action({"new-game": {"pgn": "1. e4 e5 2. Nf3 *"}})
        await daemon.submit(action)
        line = daemon.state()
        assert isinstance(action, NewGameAction)
        assert line["start_fen"] == action.fen and line["moves"] == []
        assert "without those moves" in line["warning"]

    asyncio.run(scenario())


def test_typed_actions_are_carried_out_without_a_second_check(tmp_path: Path) -> None:
    """The page's actions arrive checked (boardctl.web.protocol); the daemon refuses only what the
    moment forbids: a virtual-board event when a real board is attached."""

    async def scenario() -> None:
        session = Session(Settings(mode="record"))
        daemon = Daemon(session, store=GameStore(tmp_path), board=None, virtual_board=False, guided=start_guided)
        with pytest.raises(ActionError, match="only the simulated board"):
            await daemon.submit(SquareAction(chess.E2, False))
        await daemon.submit(NewGameAction(time_control="5+3", level="master"))
        assert daemon.session.settings.time_control == "5+3" and daemon.session.settings.level == "master"
        assert daemon.state()["clock"]["white"] == 300.0
        await daemon.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("action", [LessonAction("italian", "white"), StepAction("1. e4 e5 *", watch=True)],
                         ids=["lesson", "replay"])
def test_a_network_game_is_never_left_for_a_lesson_or_a_replay(tmp_path: Path, action: object) -> None:
    """``boardctl host``/``join`` play only their network game: the page cannot swap it out."""
    async def scenario() -> None:
        daemon, _ = make(tmp_path, Settings(mode="network", color="white"))
        game = daemon.session.record.id
        with pytest.raises(ActionError, match="cannot start during a network game"):
            await daemon.submit(action)
        assert daemon.session.record.id == game and daemon.session.guide is None
        await daemon.close()

    asyncio.run(scenario())
