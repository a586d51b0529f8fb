"""The ``--stdio`` contract: one state line per input line, unprompted lines with a reason, no mixing."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from test_daemon_support import STOCKFISH, Daemon


def run(games: Path, lines: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games), *extra],
        input="".join(line + "\n" for line in lines), capture_output=True, text=True, timeout=60,
    )


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


def test_mixing_timed_and_untimed_lines_is_an_error(tmp_path: Path) -> None:
    result = run(tmp_path / "g", ['{"t": 0}', '{"square": "e2", "occupied": false}'])
    assert result.returncode == 2
    assert "every line must carry 't' or none may" in result.stderr
    assert len(result.stdout.splitlines()) == 1


def test_untimed_lines_use_the_clock_and_timers_speak_up(tmp_path: Path) -> None:
    daemon = Daemon("record", tmp_path / "g", "--settle", "0.2")
    line = daemon.send({"square": "d2", "occupied": False})
    assert line["input"] == 1 and line["moves"] == []
    line = daemon.send({"square": "d4", "occupied": True})
    assert line["moves"] == []  # not yet settled
    timer = daemon._next(10.0)  # no input needed: the settle timer completes the move
    assert timer["reason"] == "clock" and timer["moves"] == ["d2d4"] and timer["input"] == 2
    assert daemon.close() == 0


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
