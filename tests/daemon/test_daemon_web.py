"""The daemon on the sim board with its web page (port 0), and a clean stop on SIGTERM."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


def start(games: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardctl", "-v", "record", "--board", "sim", "--no-terminal", "--port", "0",
         "--games-dir", str(games), "--settle", "0.2", *extra],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={"XDG_CONFIG_HOME": str(games.parent / "config"), "PATH": "/usr/bin:/bin"},
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            assert proc.poll() is None, "daemon exited"
            continue
        found = re.search(r"web page at (http://127\.0\.0\.1:\d+/)", line)
        if found:
            return proc, found.group(1)
    raise AssertionError("no web page URL logged")


def call(url: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path.lstrip("/"), data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_for(url: str, check: Any, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        _, state = call(url, "/api/state")
        if check(state) or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


def test_web_actions_drive_the_sim_board_and_sigterm_saves(tmp_path: Path) -> None:
    games = tmp_path / "games"
    proc, url = start(games)
    try:
        status, state = call(url, "/api/state")
        assert status == 200 and state["moves"] == [] and state["mode"] == "record"
        assert call(url, "/api/action", {"event": {"square": "e2", "occupied": False}})[0] == 200
        assert call(url, "/api/action", {"event": {"square": "e4", "occupied": True}})[0] == 200
        state = wait_for(url, lambda s: s["moves"] == ["e2e4"])
        assert state["moves"] == ["e2e4"]
        status, reply = call(url, "/api/action", {"event": {"square": "e5", "occupied": False}})
        assert status == 400 and "impossible" in json.dumps(reply)
        status, reply = call(url, "/api/action", {"new-game": {"color": "purple"}})
        assert status == 400 and "color" in json.dumps(reply)
        status, _ = call(url, "/api/action", {"button": "resign"})
        state = wait_for(url, lambda s: s["result"] != "*")
        assert state["result"] == "1-0" and state["termination"] == "black resigned"
        status, _ = call(url, "/api/action", {"new-game": {"time-control": "5+3"}})
        assert status == 200
        state = wait_for(url, lambda s: s["moves"] == [])
        assert state["moves"] == [] and state["clock"]["white"] == 300.0 and state["matching"] is False
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    saved = sorted((json.loads(p.read_text()) for p in games.glob("*.json")), key=lambda s: s["id"])
    assert [(s["moves"], s["result"]) for s in saved] == [(["e2e4"], "1-0"), ([], "*")]
