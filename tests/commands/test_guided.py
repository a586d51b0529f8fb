"""The page's ``lesson`` and ``step`` actions: checked at the edge (tables and hypothesis), and
carried out on an in-process daemon."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.actions import ActionError, LessonAction, StepAction
from boardctl.commands.guided import start_guided
from boardctl.daemon import Daemon
from boardctl.session import Session, Settings
from boardctl.storage import GameStore
from boardctl.web.protocol import WebInputError, action_to_json, validate_action


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"lesson": {"name": "italian", "color": "white"}}, LessonAction("italian", "white", False)),
        ({"lesson": {"name": "petrov", "color": "black", "quiz": True}}, LessonAction("petrov", "black", True)),
        ({"step": {"record": "1. e4 *"}}, StepAction("1. e4 *", False)),
        ({"step": {"record": "1. e4 *", "watch": True}}, StepAction("1. e4 *", True)),
    ],
)
def test_valid_actions_round_trip(action: dict[str, Any], expected: Any) -> None:
    assert validate_action(action) == expected
    assert validate_action(action_to_json(expected)) == expected


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"lesson": "italian"}, "lesson: expected"),
        ({"lesson": {"name": "italian"}}, "lesson: expected"),
        ({"lesson": {"name": "Italian!", "color": "white"}}, "lesson.name"),
        ({"lesson": {"name": "italian", "color": "red"}}, "lesson.color"),
        ({"lesson": {"name": "italian", "color": "white", "quiz": 1}}, "lesson.quiz"),
        ({"lesson": {"name": "italian", "color": "white", "x": 1}}, "lesson: expected"),
        ({"step": {"record": ""}}, "step.record"),
        ({"step": {"record": 5}}, "step.record"),
        ({"step": {"record": "x" * 60_001}}, "longer than"),
        ({"step": {"record": "1. e4", "watch": "yes"}}, "step.watch"),
        ({"step": ["1. e4"]}, "step: expected"),
    ],
)
def test_bad_actions_are_named(action: dict[str, Any], message: str) -> None:
    with pytest.raises(WebInputError, match=message.replace(".", r"\.")):
        validate_action(action)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=10)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["lesson", "step"]), JSON | st.fixed_dictionaries(
    {"name": st.text(max_size=12), "color": st.text(max_size=6)}, optional={"quiz": JSON})
    | st.fixed_dictionaries({"record": st.text(max_size=40)}, optional={"watch": JSON}))
def test_any_value_is_an_action_or_one_clear_error(kind: str, value: Any) -> None:
    try:
        action = validate_action({kind: value})
    except WebInputError as exc:
        assert str(exc).startswith(kind)
    else:
        assert isinstance(action, LessonAction | StepAction)


OPERA_START = '[White "Paul Morphy"]\n\n1. e4 e5 2. Nf3 d6 3. d4 Bg4 *\n'


def test_started_on_a_record_daemon_and_left_by_a_new_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))

    async def main() -> None:
        session = Session(Settings(mode="record"))
        daemon = Daemon(session, store=GameStore(tmp_path / "games"), virtual_time=True, guided=start_guided)
        await daemon.submit({"lesson": {"name": "italian", "color": "black"}})
        line = daemon.state()
        assert line["mode"] == "play" and line["human"] == "black"
        assert line["lesson"]["key"] == "italian" and line["pending"] == "e2e4"  # the lesson's first move, lit
        with pytest.raises(ActionError, match="no lesson called 'sicilian'"):
            await daemon.submit({"lesson": {"name": "sicilian", "color": "white"}})
        with pytest.raises(ActionError, match="the uploaded record: illegal san: 'Ke3'"):
            await daemon.submit({"step": {"record": "1. e4 e5 2. Ke3 *"}})
        await daemon.submit({"step": {"record": OPERA_START, "watch": True}})
        line = daemon.state()
        assert "lesson" not in line and line["step"]["plies"] == 6 and line["mode"] == "record"
        await daemon.submit({"button": "hint"})
        assert daemon.state()["moves"] == ["e2e4"]
        await daemon.submit({"new-game": {}})
        line = daemon.state()
        assert "step" not in line and "lesson" not in line and line["mode"] == "record"  # as before the lesson
        await daemon.close()

    asyncio.run(main())


def _make(daemon: Daemon, uci: str) -> None:
    """A move by hand on the board (lift, place), then past the settle time."""
    import chess

    from boardctl.events import SquareChanged, Tick

    move = chess.Move.from_uci(uci)
    t = daemon.session.t
    daemon.handle(SquareChanged(t + 0.1, move.from_square, False))
    daemon.handle(SquareChanged(t + 0.2, move.to_square, True))
    daemon.handle(Tick(t + 1.5))


def _listed(folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    from boardctl.cli import main as cli_main

    capsys.readouterr()
    assert cli_main(["games", "list", "--games-dir", str(folder)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(("mode", "action", "moves", "saved_as"), [
    ("play", {"lesson": {"name": "italian", "color": "white"}}, ["e2e4"], "lesson"),
    ("record", {"lesson": {"name": "petrov", "color": "white", "quiz": True}}, ["e2e4"], "lesson"),
    ("record", {"step": {"record": OPERA_START, "watch": False}}, ["e2e4", "e7e5"], "replay"),
    ("play", {"step": {"record": OPERA_START, "watch": False}}, ["e2e4"], "replay"),
])
def test_a_lesson_or_replay_left_midway_is_no_unfinished_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str], mode: str,
                                                               action: dict[str, Any], moves: list[str],
                                                               saved_as: str) -> None:
    """Neither while it runs (a power cut) nor once the daemon stops: it is saved as a lesson's or a
    replay's game, so ``play``/``record`` never take it up and ``games list`` says "left midway"."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    folder = tmp_path / "games"

    async def main() -> None:
        settings = Settings(mode="play") if mode == "play" else Settings(mode="record")
        daemon = Daemon(Session(settings), store=GameStore(folder), virtual_time=True, guided=start_guided)
        await daemon.submit(action)
        for uci in moves:
            _make(daemon, uci)
        assert daemon.session.record.moves == moves
        store = GameStore(folder)
        (saved,) = [r for r in store.records() if r.moves]  # saved as it goes, as any game
        assert saved.mode == saved_as and not saved.is_finished()
        assert store.unfinished("play") is None and store.unfinished("record") is None  # a power cut now
        await daemon.close()

    asyncio.run(main())
    store = GameStore(folder)
    (left,) = [r for r in store.records() if r.moves]
    assert left.mode == saved_as and left.result == "*"
    assert store.unfinished("play") is None and store.unfinished("record") is None
    listed = _listed(folder, capsys)
    assert left.id in listed and "left midway" in listed and "unfinished" not in listed, listed


def test_a_real_game_still_resumes_after_a_daemon_stops(tmp_path: Path) -> None:
    async def main() -> None:
        daemon = Daemon(Session(Settings(mode="record")), store=GameStore(tmp_path), virtual_time=True, guided=start_guided)
        _make(daemon, "e2e4")
        await daemon.close()

    asyncio.run(main())
    record = GameStore(tmp_path).unfinished("record")
    assert record is not None and record.moves == ["e2e4"] and record.termination == ""
    assert record.mode == "record"
