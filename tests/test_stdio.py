"""The ``--stdio`` contract: one state line per input line, unprompted lines with a reason, no mixing."""

from __future__ import annotations

import ast
import asyncio
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import chess
import pytest
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_daemon_support import STOCKFISH, Daemon

from boardctl.daemon import Daemon as DaemonLoop
from boardctl.hw.sim import SimBoard
from boardctl.session import Session, Settings
from boardctl.stdio import InputClock, run_stdio
from boardctl.storage import GameStore


def run(games: Path, lines: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games), *extra],
        input="".join(line + "\n" for line in lines), capture_output=True, text=True, timeout=60,
    )


@pytest.mark.slow
def test_one_line_per_input_and_errors_answered_in_line(tmp_path: Path) -> None:
    result = run(tmp_path / "g", [
        '{"t": 0}',
        '{"t": 1, "square": "e2", "occupied": false}',
        "not json",
        '{"t": 1.1, "square": "e5", "occupied": false}',
        '{"t": 0.5}',
        '{"t": 1.2, "square": "e4", "occupied": true}',
        "",
        '{"t": 2, "button": "bogus"}',
        '{"t": 3}',
    ])
    assert result.returncode == 0, result.stderr
    out = [json.loads(x) for x in result.stdout.splitlines()]
    assert [x["input"] for x in out] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert not any("reason" in x for x in out)
    errors = {x["input"]: x["error"] for x in out if "error" in x}
    assert set(errors) == {3, 4, 5, 7}
    assert "stdin:3: not valid JSON" in errors[3]
    assert "impossible" in errors[4] and "e5" in errors[4]
    assert "went back" in errors[5]
    assert "unknown button 'bogus'" in errors[7]
    last = out[-1]
    assert last["moves"] == ["e2e4"] and last["result"] == "*"
    for key in ("fen", "pending", "moves", "leds", "result"):
        assert key in last
    (state,) = (tmp_path / "g").glob("*.json")
    assert json.loads(state.read_text())["moves"] == ["e2e4"]


@pytest.mark.slow
def test_mixing_timed_and_untimed_lines_is_an_error(tmp_path: Path) -> None:
    result = run(tmp_path / "g", ['{"t": 0}', '{"square": "e2", "occupied": false}'])
    assert result.returncode == 2
    assert "every line must carry 't' or none may" in result.stderr
    assert len(result.stdout.splitlines()) == 1


@pytest.mark.slow
def test_untimed_lines_use_the_clock_and_timers_speak_up(tmp_path: Path) -> None:
    daemon = Daemon("record", tmp_path / "g", "--settle", "0.2")
    line = daemon.send({"square": "d2", "occupied": False})
    assert line["input"] == 1 and line["moves"] == []
    line = daemon.send({"square": "d4", "occupied": True})
    assert line["moves"] == []  # not yet settled
    timer = daemon._next(10.0)  # no input needed: the settle timer completes the move
    assert timer["reason"] == "clock" and timer["moves"] == ["d2d4"] and timer["input"] == 2
    assert daemon.close() == 0


@pytest.mark.slow
def test_daemon_does_not_import_numba(tmp_path: Path) -> None:
    """Playing (engine in its own process, web page on) never loads numba into the daemon."""
    mode = ["play", "--engine", STOCKFISH, "--movetime", "0.01"] if STOCKFISH else ["record"]
    code = (
        "import sys\n"
        "from boardctl import cli\n"
        f"rc = cli.main([*{mode!r}, '--board', 'sim', '--stdio', '--port', '0', '--games-dir', {str(tmp_path)!r}])\n"
        "assert rc == 0, rc\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
        "assert 'engine.uci' not in sys.modules and 'engine.search' not in sys.modules, 'engine imported'\n"
        "print('clean')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], input='{"t": 0}\n{"t": 1, "button": "hint"}\n{"t": 1.1, "square": "e2", "occupied": false}\n'
                            '{"t": 1.2, "square": "e4", "occupied": true}\n{"t": 2}\n',
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "clean"


@pytest.mark.slow
def test_sigterm_with_input_still_open_saves_and_exits(tmp_path: Path) -> None:
    daemon = Daemon("record", tmp_path / "g")
    daemon.send({"t": 0})
    daemon.event("g1", False)
    daemon.event("f3", True)
    assert daemon.tick()["moves"] == ["g1f3"]
    daemon.proc.send_signal(signal.SIGTERM)
    assert daemon.proc.wait(timeout=10) == 0
    (state,) = (tmp_path / "g").glob("*.json")
    assert json.loads(state.read_text())["moves"] == ["g1f3"]


def _timed_line(draw: st.DrawFn, t: float) -> str:
    kind = draw(st.sampled_from(["square", "button", "tick", "garbage", "bad-square", "snapshot"]))
    if kind == "square":
        square = draw(st.sampled_from(["e2", "e4", "g1", "f3", "e7", "e5", "a1", "h8"]))
        return json.dumps({"t": t, "square": square, "occupied": draw(st.booleans())})
    if kind == "button":
        return json.dumps({"t": t, "button": draw(st.sampled_from(["takeback", "draw", "claim", "resign", "new-game", "nope"]))})
    if kind == "tick":
        return json.dumps({"t": t})
    if kind == "snapshot":
        return json.dumps({"t": t, "snapshot": draw(st.sampled_from(["ffff00000000ffff", "zz", "0"]))})
    if kind == "bad-square":
        return json.dumps({"t": t, "square": draw(st.text(max_size=3)), "occupied": 1})
    return draw(st.text(alphabet=st.characters(codec="utf-8", blacklist_characters="\n\r{}\x85\u2028\u2029\x0b\x0c\x1c\x1d\x1e"), min_size=1, max_size=20))


@st.composite
def scripts(draw: st.DrawFn) -> list[str]:
    t, lines = 0.0, []
    for _ in range(draw(st.integers(1, 25))):
        t += draw(st.sampled_from([0.0, 0.05, 0.2, 0.5, 3.0]))
        lines.append(_timed_line(draw, round(t, 3)))
    return lines


@pytest.mark.slow
@pytest.mark.fuzz
@given(scripts())
@settings(max_examples=examples(30), deadline=None)
def test_any_script_gets_exactly_one_line_per_input_line(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = io.StringIO()

        async def scenario() -> int:
            session = Session(Settings(mode="record"))
            clock = InputClock()
            board = SimBoard(session.physical_occupancy(), clock=clock.now)
            daemon = DaemonLoop(session, store=GameStore(Path(tmp)), board=board, virtual_board=True,
                                clock=clock.now, direct=True)
            read, write = os.pipe()
            os.write(write, "".join(line + "\n" for line in lines).encode())
            os.close(write)
            try:
                return await run_stdio(daemon, asyncio.Event(), clock=clock, stdin_fd=read, stdout=out)
            finally:
                os.close(read)
                await daemon.close()

        assert asyncio.run(scenario()) == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    expected = [line for line in lines if line.strip()]
    assert [a["input"] for a in answers if "reason" not in a] == list(range(1, len(expected) + 1))
    for answer in answers:
        assert answer["result"] in ("*", "1-0", "0-1", "1/2-1/2")
        chess.Board(answer["fen"])


def _module_tree(name: str) -> ast.Module:
    path = Path(__file__).resolve().parents[1] / "boardctl" / f"{name}.py"
    return ast.parse(path.read_text(encoding="utf-8"))


def _imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_flow_runs_one_way_launch_stdio_daemon() -> None:
    """launch builds the daemon and hands it to stdio; the daemon knows neither of them."""
    assert not _imported(_module_tree("daemon")) & {"boardctl.stdio", "boardctl.commands.root"}
    assert "boardctl.commands.root" not in _imported(_module_tree("stdio"))


def test_stdio_writes_no_private_field_of_another_object() -> None:
    for node in ast.walk(_module_tree("stdio")):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr.startswith("_"):
                assert isinstance(target.value, ast.Name) and target.value.id == "self", ast.unparse(target)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            assert isinstance(node.value, ast.Name) and node.value.id == "self", ast.unparse(node)


def test_input_clock_is_decided_once() -> None:
    now = [100.0]
    clock = InputClock(lambda: now[0])
    now[0] = 102.5
    assert clock.now() == 2.5 and not clock.is_decided  # real time from the start until told
    clock.decide(virtual=True, t=4.0)
    clock.advance(3.0)  # never back
    assert clock.is_virtual and clock.now() == 4.0
    clock.advance(7.5)
    assert clock.now() == 7.5
    with pytest.raises(RuntimeError):
        clock.decide(virtual=False)
