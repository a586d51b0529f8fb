"""The coach in the daemon, in-process with the real engine processes on the sim board: a bad
move gets the coach's LEDs (not the blunder warning) and line, a takeback clears them, and the
review of a finished game is saved as PGN comments and NAGs."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from pathlib import Path

import chess
import pytest
from test_daemon_support import move_events

from boardctl.daemon import Daemon
from boardctl.engine_client import EngineClient
from boardctl.events import Button, ButtonPressed, SquareChanged, Tick
from boardctl.hw.sim import SimBoard
from boardctl.learning.coach import Coach
from boardctl.session import Session, Settings
from boardctl.storage import GameStore

ENGINE = [sys.executable, "-m", "engine"]
AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


def make(tmp_path: Path, settings: Settings) -> tuple[Daemon, SimBoard, EngineClient]:
    session = Session(settings, fen=AFTER_E4_E5)
    board = SimBoard(session.physical_occupancy(), clock=lambda: session.t)
    engine = EngineClient(ENGINE, level=settings.level, movetime=0.05)
    coach = Coach.from_command(ENGINE, movetime=5.0, nodes=20000)
    daemon = Daemon(session, store=GameStore(tmp_path / "games"), engine=engine, board=board,
                    virtual_board=True, virtual_time=True, coach=coach)
    daemon.direct = True
    board.start(daemon.feed)
    return daemon, board, engine


def play(daemon: Daemon, uci: str) -> None:
    t = daemon.session.t
    for square, occupied in move_events(daemon.session.board, chess.Move.from_uci(uci)):
        t += 0.1
        daemon.inject(SquareChanged(t, chess.parse_square(square), occupied))
    daemon.inject(Tick(t + 0.5))


@pytest.mark.slow
def test_a_hanging_bishop_is_coached_taken_back_and_reviewed(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, board, _engine = make(tmp_path, Settings(mode="play", color="white", level="practice2",
                                                         blunder_warning=True))
        assert daemon.session.is_coached()
        play(daemon, "f1a6")
        assert daemon.coach is not None
        await daemon.coach.idle()
        state = daemon.state()
        verdict = state["coach"]
        assert verdict is not None and verdict["category"] == "hangs", verdict
        assert verdict["text"] == "Ba6 hangs the bishop on a6"
        from boardctl.terminal import render  # the terminal view says it as the page does

        assert f"Coach: Ba6 hangs the bishop on a6. Better: {verdict['best_san']}" in render(state, style="letters")
        lit = {(chess.square_name(i.square), str(i.why)) for i in board.intents}
        assert {sq for sq, why in lit if why == "coach"} == {verdict["best"][:2], verdict["best"][2:4]}
        assert not any(why == "blunder" for _, why in lit)  # the coach replaces the blunder warning
        assert "coach" in board.tones
        # take back freely: the verdict goes with the move
        await daemon.idle()
        daemon.handle(ButtonPressed(daemon.session.t + 0.1, Button.TAKEBACK))
        assert daemon.state()["coach"] is None
        assert daemon.session.coach_notes.verdicts == {}
        # the bishop back by hand, the same blunder again, then resign: the review is saved in the PGN
        t = daemon.session.t
        daemon.inject(SquareChanged(t + 0.1, chess.A6, False))
        daemon.inject(SquareChanged(t + 0.2, chess.F1, True))
        daemon.inject(Tick(t + 3.0))
        assert daemon.state()["matching"] and daemon.state()["moves"] == []
        play(daemon, "f1a6")
        await daemon.coach.idle()
        await daemon.idle()
        daemon.handle(ButtonPressed(daemon.session.t + 0.1, Button.RESIGN))
        review = daemon.state()["review"]
        assert [v["san"] for v in review] == ["Ba6"] and review[0]["nag"] == "??"
        pgn = daemon.pgn()
        await daemon.close()
        assert "Ba6 $4" in pgn or "Ba6??" in pgn, pgn
        assert "hangs the bishop on a6; better was" in pgn
        saved = (tmp_path / "games").glob("*.pgn")
        assert any("hangs the bishop on a6" in p.read_text() for p in saved)

    asyncio.run(scenario())


def test_no_coach_outside_practice_without_the_flag(tmp_path: Path) -> None:
    async def scenario() -> None:
        daemon, board, _ = make(tmp_path, Settings(mode="play", color="white", level="beginner"))
        assert not daemon.session.is_coached()
        play(daemon, "f1a6")
        assert daemon.coach is not None
        await daemon.coach.idle()
        assert daemon.state()["coach"] is None
        assert not any(str(i.why) == "coach" for i in board.intents)
        await daemon.close()
        coached = Session(Settings(mode="play", level="beginner", coach=True))
        assert coached.is_coached()
        assert not Session(Settings(mode="record", level="practice1")).is_coached()

    asyncio.run(scenario())


@pytest.mark.parametrize(("flags", "level", "coached"), [
    ([], "practice1", True),
    ([], "practice5", True),
    (["--no-coach"], "practice1", False),
    (["--no-coach"], "practice3", False),
    (["--no-coach"], "practice5", False),
    (["--coach"], "beginner", True),
    ([], "beginner", False),
    (["--no-coach"], "beginner", False),
])
def test_the_coach_flag_over_the_practice_levels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 flags: list[str], level: str, coached: bool) -> None:
    """``--no-coach`` turns the coach off at the practice levels too, from the command line to the
    session (and ``coach.enabled = true`` in the config file, like ``--coach``, turns it on)."""
    from boardctl.cli import build_parser
    from boardctl.commands import options, root

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    args = build_parser("play").parse_args(["play", "--board", "sim", "--level", level, *flags])
    session = root.open_session(options.options_from_args(args, mode="play"), GameStore(tmp_path / "games"),
                                engine_name="engine")
    assert session.is_coached() is coached
    assert not Session(replace(session.settings, mode="record")).is_coached()


#: (the config file's [coach] enabled, flags, level, whether the coach judges): the file's value
#: speaks when no flag does, and a file's ``false`` turns it off at the practice levels too.
CONFIG_FILE_COACH = [
    ("true", [], "beginner", True),
    ("true", ["--no-coach"], "beginner", False),
    ("true", [], "practice2", True),
    ("false", [], "practice1", False),
    ("false", [], "practice5", False),
    ("false", ["--coach"], "practice3", True),
    ("false", ["--coach"], "beginner", True),
    ("false", [], "beginner", False),
]


@pytest.mark.parametrize(("enabled", "flags", "level", "coached"), CONFIG_FILE_COACH)
def test_the_config_file_turns_the_coach_on_or_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, enabled: str,
                                                  flags: list[str], level: str, coached: bool) -> None:
    from boardctl.cli import build_parser
    from boardctl.commands import options, root

    (tmp_path / "config" / "boardctl").mkdir(parents=True)
    (tmp_path / "config" / "boardctl" / "config.toml").write_text(f"[coach]\nenabled = {enabled}\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    args = build_parser("play").parse_args(["play", "--board", "sim", "--level", level, *flags])
    session = root.open_session(options.options_from_args(args, mode="play"), GameStore(tmp_path / "games"),
                                engine_name="engine")
    assert session.is_coached() is coached
