"""Helpers for the browser tests and bench/web.py: Debian's Chromium and a real daemon subprocess."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "test-artifacts" / "web"


def ensure_chromium() -> str:
    """Debian's Chromium, installed by scripts/ensure-chromium.sh when missing (a fresh clone)."""
    if not os.access(CHROMIUM, os.X_OK):
        subprocess.run(["sh", str(REPO / "scripts" / "ensure-chromium.sh")], check=True, timeout=900)
    return CHROMIUM


@functools.cache
def engine_command() -> str:
    """Stockfish (``make system`` installs it), else our engine: the page's tests need an engine
    that answers fast and always; the bundled engine is exercised by the daemon's own play test.

    ``BOARDCTL_TEST_ENGINE`` overrides the choice.
    """
    if os.environ.get("BOARDCTL_TEST_ENGINE"):
        return os.environ["BOARDCTL_TEST_ENGINE"]
    for path in (shutil.which("stockfish"), "/usr/games/stockfish"):
        if path and os.access(path, os.X_OK):
            return path
    if importlib.util.find_spec("engine.uci") is not None:
        return f"{sys.executable} -m engine.uci"
    pytest.fail("no UCI engine: install stockfish (make system) or the bundled engine")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RunningDaemon:
    proc: subprocess.Popen[bytes]
    url: str
    games_dir: Path
    log_path: Path

    def state(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "api/state", timeout=5) as resp:
            data: dict[str, Any] = json.load(resp)
            return data

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextlib.contextmanager
def run_daemon(
    tmp: Path, *args: str, mode: str = "play", timeout: float = 60.0, new: bool = True, port: int | None = None
) -> Iterator[RunningDaemon]:
    """``boardctl <mode> --board sim`` on a free port, with its own config and games folders.

    ``new=False`` lets it resume the unfinished game in ``tmp``; ``port`` (else a free one) is
    passed as ``--port``."""
    port = free_port() if port is None else port
    games = tmp / "games"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_DATA_HOME": str(tmp / "data"),
        "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(REPO / ".numba-cache")),
        "PYTHONUNBUFFERED": "1",
    }
    cmd = [sys.executable, "-m", "boardctl", "-v", mode, "--board", "sim", "--port", str(port),
           "--games-dir", str(games), *(["--new"] if new else []), *args]
    if mode == "play" and "--engine" not in args:
        cmd += ["--engine", engine_command()]
    with serve(cmd, env=env, cwd=tmp, url=f"http://127.0.0.1:{port}/", games_dir=games,
               log_path=tmp / f"daemon-{port}.log", what=f"boardctl {mode}", timeout=timeout) as daemon:
        yield daemon


@contextlib.contextmanager
def serve(cmd: list[str], *, env: dict[str, str], cwd: Path, url: str, games_dir: Path, log_path: Path,
          what: str, timeout: float = 60.0) -> Iterator[RunningDaemon]:
    """Start any ``boardctl`` command that serves the page, wait until it answers ``api/state``,
    and stop it with SIGTERM afterwards (killed if it has not exited within 15 s)."""
    with log_path.open("wb") as log_file:
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                                cwd=cwd)
    daemon = RunningDaemon(proc, url, games_dir, log_path)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                pytest.fail(f"{what} exited with {proc.returncode}:\n{daemon.log()}")
            try:
                daemon.state()
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if time.monotonic() > deadline:
                    pytest.fail(f"{what} did not serve the page within {timeout} s:\n{daemon.log()}")
                time.sleep(0.1)
        yield daemon
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
