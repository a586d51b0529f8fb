"""Issue 29, finding 3: every wait of ``boardctl join`` and ``host`` ends promptly on SIGTERM or
Ctrl-C (SIGINT), with exit status 0 and the game saved: a host that refuses connections, a host
that accepts them and never answers, and a resumed game whose host is gone."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from boardctl.network.tokens import Ticket, TicketStore
from boardctl.session import Session, Settings
from boardctl.storage import GameStore

pytestmark = pytest.mark.slow

#: A stopped daemon must be gone within this many seconds (systemd's default wait is 90).
PROMPT = 5.0
TOKEN = "T" * 43


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def silent_host() -> Iterator[socket.socket]:
    """A listening TCP socket that never says a word (``connected`` waits for the joiner)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    try:
        yield server
    finally:
        server.close()


def _port(server: socket.socket) -> int:
    return int(server.getsockname()[1])


def connected(server: socket.socket) -> socket.socket:
    """Wait (at most a minute, however loaded the machine) for the joiner to connect."""
    server.settimeout(60)
    conn, _ = server.accept()
    return conn


def _wait_listening(port: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"nothing listens on {port}"
            time.sleep(0.1)


def _join(tmp_path: Path, url: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    return subprocess.Popen(
        [sys.executable, "-m", "boardctl", "join", url, *extra, "--board", "sim", "--stdio",
         "--games-dir", str(tmp_path / "games"), "--no-web"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def _stop(proc: subprocess.Popen[str], sig: signal.Signals, *, after: float = 2.5, waiting_for: str | None = None) -> tuple[int, float, str]:
    """Signal ``proc`` once it is waiting: ``after`` seconds, or (``waiting_for``) once that text
    has appeared on its stderr (so a slow start on a loaded machine is never signalled early)."""
    lines: list[str] = []
    if waiting_for is not None:
        assert proc.stderr is not None
        seen = threading.Event()

        def read() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                lines.append(line)
                if waiting_for in line:
                    seen.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert seen.wait(60), "".join(lines)
    else:
        time.sleep(after)
    assert proc.poll() is None, "".join(lines) or proc.communicate()[1]
    start = time.monotonic()
    proc.send_signal(sig)
    try:
        if waiting_for is not None:
            proc.wait(timeout=PROMPT + 10)
            reader.join(5)
            return proc.returncode, time.monotonic() - start, "".join(lines)
        _, err = proc.communicate(timeout=PROMPT + 10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        return -1, time.monotonic() - start, err
    return proc.returncode, time.monotonic() - start, err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_join_stops_while_the_host_cannot_be_reached(tmp_path: Path, sig: signal.Signals) -> None:
    proc = _join(tmp_path, f"ws://127.0.0.1:{_free_port()}/net", "--code", "ABCD2345")
    status, took, err = _stop(proc, sig, waiting_for="cannot reach")
    assert status == 0 and took < PROMPT, (status, took, err)
    assert "Traceback" not in err


def test_join_stops_while_the_host_never_answers(tmp_path: Path, silent_host: socket.socket) -> None:
    proc = _join(tmp_path, f"ws://127.0.0.1:{_port(silent_host)}/net", "--code", "ABCD2345")
    with connected(silent_host):
        status, took, err = _stop(proc, signal.SIGTERM, after=0.2)
    assert status == 0 and took < PROMPT, (status, took, err)
    assert "Traceback" not in err


def test_a_resumed_join_stops_and_keeps_its_game(tmp_path: Path, silent_host: socket.socket) -> None:
    url = f"ws://127.0.0.1:{_port(silent_host)}/net"
    store = GameStore(tmp_path / "games")
    session = Session(Settings(mode="network", color="black", takeback="off"))
    store.save(session.record)
    TicketStore(store.root).save(Ticket("join", session.record.id, token=TOKEN, address=url, color="black",
                                        host_game="20260101-120000-000001"))
    proc = _join(tmp_path, url)
    with connected(silent_host):
        status, took, err = _stop(proc, signal.SIGTERM, after=0.2)
    assert status == 0 and took < PROMPT, (status, took, err)
    assert "Traceback" not in err
    saved = store.load(session.record.id)
    assert saved.result == "*" and saved.mode == "network"  # still there, still to be resumed


def test_host_stops_with_a_silent_guest_connected(tmp_path: Path) -> None:
    """``host`` waiting for a guest whose connection never says hello: SIGTERM ends it at once."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardctl", "host", "--board", "sim", "--stdio", "--port", str(port),
         "--games-dir", str(tmp_path / "games")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    _wait_listening(port)
    with socket.create_connection(("127.0.0.1", port)) as silent:  # a guest that never finishes its request
        silent.sendall(b"GET /net HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        status, took, err = _stop(proc, signal.SIGTERM, after=0.3)
    assert status == 0 and took < PROMPT, (status, took, err)
    assert "Traceback" not in err
    games = [p for p in (tmp_path / "games").glob("*.json") if not p.name.startswith("network-")]
    assert len(games) == 1 and '"result": "*"' in games[0].read_text()
