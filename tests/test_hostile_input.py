"""Hostile event input through the real commands: ``boardctl replay`` (file and ``-``) and the
``--stdio`` daemon, under strict locales. Each bad line is one error naming it; no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boardctl.jsonlimits import MAX_LINE_BYTES

pytestmark = pytest.mark.slow

GOOD = [b'{"t": 0}', b'{"t": 1, "square": "e2", "occupied": false}', b'{"t": 1.2, "square": "e4", "occupied": true}']

#: (a hostile line, what its error says)
HOSTILE = [
    (b'{"t": 2' + b"0" * 400 + b"}", "number too long"),  # an OverflowError once
    (b'{"t": 2' + b"0" * 4400 + b"}", "number too long"),  # Python's int-digit ValueError once
    (b'{"t": 2, "square": ' + b"[" * 1000 + b"]" * 1000 + b"}", "nested more than"),  # a RecursionError once
    (b"[" * 5000, "nested more than"),
    (b'{"t": 2, "button": "hint\xff"}', "not UTF-8 text (byte 0xff"),
    (b"\xfe\xff\x00{", "not UTF-8 text"),
    (b'{"t": NaN}', "NaN is not a JSON number"),
    (b'{"t": 2' + b" " * (MAX_LINE_BYTES + 10) + b"}", f"longer than {MAX_LINE_BYTES} bytes"),
]

LOCALES = {
    "utf8-strict": {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"},
    "C-ascii": {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
    "utf8-mode": {"LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"},
}


def env_for(locale: str, tmp_path: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_CTYPE", "PYTHONUTF8", "PYTHONIOENCODING")}
    return {**base, **LOCALES[locale], "XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def boardctl(args: list[str], data: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "boardctl", *args], input=data, capture_output=True, env=env, timeout=60)


#: Every hostile line under a strict UTF-8 locale; the bytes that are not UTF-8 under every locale.
REPLAY_CASES = [("utf8-strict", line, needle) for line, needle in HOSTILE] + [
    (locale, line, needle) for locale in LOCALES if locale != "utf8-strict" for line, needle in HOSTILE
    if "UTF-8" in needle
]


@pytest.mark.parametrize(("locale", "line", "needle"), REPLAY_CASES, ids=[f"{c[0]}-{c[2]}" for c in REPLAY_CASES])
def test_replay_names_the_bad_line(tmp_path: Path, locale: str, line: bytes, needle: str) -> None:
    data = b"\n".join([*GOOD, line, b'{"t": 3}']) + b"\n"
    log = tmp_path / "game.jsonl"
    log.write_bytes(data)
    env = env_for(locale, tmp_path)
    for args, name in ((["replay", "-"], "<stdin>"), (["replay", str(log)], str(log))):
        result = boardctl(args, data, env)
        assert result.returncode == 2, result.stderr
        assert b"Traceback" not in result.stderr and result.stdout == b""
        (message,) = result.stderr.decode("utf-8", "replace").splitlines()
        assert message.startswith(f"boardctl replay: error: {name}:4: ") and needle in message
        assert len(message) < 400


@pytest.mark.parametrize("locale", LOCALES)
def test_stdio_daemon_answers_every_bad_line_and_carries_on(tmp_path: Path, locale: str) -> None:
    lines = [GOOD[0], *[line for line, _ in HOSTILE], *GOOD[1:], b'{"t": 3}']
    result = boardctl(["record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(tmp_path / "g")],
                      b"\n".join(lines) + b"\n", env_for(locale, tmp_path))
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    out = [json.loads(x) for x in result.stdout.splitlines()]
    answers = [x for x in out if "reason" not in x]
    assert [x["input"] for x in answers] == list(range(1, len(lines) + 1))
    for number, (_, needle) in enumerate(HOSTILE, start=2):
        error = answers[number - 1].get("error", "")
        assert error.startswith(f"stdin:{number}: ") and needle in error, (number, error)
        assert len(error) < 400
    assert answers[-1]["moves"] == ["e2e4"] and "error" not in answers[-1]


def _vm_hwm_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))


def test_stdio_refuses_a_100_mb_line_quickly_in_bounded_memory(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(tmp_path / "g")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env_for("utf8-strict", tmp_path),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"t": 0}\n')
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["input"] == 1
    before = _vm_hwm_kb(proc.pid)
    started = time.monotonic()
    chunk = b"x" * (1 << 20)
    for _ in range(100):
        proc.stdin.write(chunk)
    proc.stdin.flush()
    refused = json.loads(proc.stdout.readline())  # said before the line even ends
    assert refused["input"] == 2 and refused["error"].startswith(f"stdin:2: line longer than {MAX_LINE_BYTES} bytes")
    proc.stdin.write(b'\n{"t": 1, "square": "e2", "occupied": false}\n')
    proc.stdin.flush()
    after = json.loads(proc.stdout.readline())
    assert after["input"] == 3 and "error" not in after
    elapsed = time.monotonic() - started
    grown = _vm_hwm_kb(proc.pid) - before
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and b"Traceback" not in err
    assert elapsed < 20, elapsed
    assert grown < 20_000, f"peak memory grew {grown} kB"


#: (a line hostile to the 9x10 board, what its error says): names and sizes that fit chess only.
XIANGQI_HOSTILE = [
    (b'{"t": 2, "square": "j5", "occupied": true}', "square name"),
    (b'{"t": 2, "square": "a10", "occupied": true}', "square name"),
    (b'{"t": 2, "square": "E2", "occupied": true}', "square name"),
    (b'{"t": 2, "snapshot": "ffff00000000ffff"}', "23 hex digits"),  # a chess-sized snapshot
    (b'{"t": 2, "snapshot": "fffffffffffffffffffffff"}', "beyond the 90"),
    (b'{"t": 2, "snapshot": "0x' + b"0" * 21 + b'"}', "23 hex digits"),
    (b'{"t": 2, "button": "hint", "square": "e2", "occupied": true}', "one event per line"),
]


def test_stdio_xiangqi_daemon_answers_every_bad_line_and_carries_on(tmp_path: Path) -> None:
    good = [b'{"t": 0}', b'{"t": 1, "square": "h2", "occupied": false}', b'{"t": 1.2, "square": "e2", "occupied": true}']
    lines = [good[0], *[line for line, _ in XIANGQI_HOSTILE], *good[1:], b'{"t": 3}']
    result = boardctl(["record", "--variant", "xiangqi", "--board", "sim", "--stdio", "--no-web",
                       "--games-dir", str(tmp_path / "g")],
                      b"\n".join(lines) + b"\n", env_for("utf8-strict", tmp_path))
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    out = [json.loads(x) for x in result.stdout.splitlines()]
    answers = [x for x in out if "reason" not in x]
    assert [x["input"] for x in answers] == list(range(1, len(lines) + 1))
    for number, (_, needle) in enumerate(XIANGQI_HOSTILE, start=2):
        error = answers[number - 1].get("error", "")
        assert error.startswith(f"stdin:{number}: ") and needle in error, (number, error)
        assert len(error) < 400
    assert answers[-1]["moves"] == ["h2e2"] and "error" not in answers[-1]
    assert answers[-1]["variant"] == "xiangqi"
