"""``boardctl link``: the command as a user runs it (a process, marked slow), and its refusals."""

from __future__ import annotations

import json
import os
import queue
import random
import re
import select
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from chesslink.client import GameFollower, ReplyReader, frame

from boardctl.cli import main
from boardctl.events import SquareChanged, Tick
from boardctl.gestures import Hand, events_for_game, random_game
from boardctl.storage import GameStore


def test_xiangqi_answers_one_line_and_exits_non_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["link", "--variant", "xiangqi", "--board", "sim", "--no-web"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no app protocol exists for xiangqi" in err
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").rglob("*.json"))


def test_a_taken_tcp_port_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code = main(["link", "--board", "sim", "--no-web", "--link-host", "127.0.0.1", "--port", str(port),
                     "--games-dir", str(tmp_path / "games")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in err


def test_a_missing_serial_port_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    code = main(["link", "--board", "sim", "--no-web", "--transport", "serial", "--port", str(tmp_path / "ttyNONE"),
                 "--games-dir", str(tmp_path / "games")])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "cannot open the port" in err


def _event_lines(seed: int, plies: int) -> list[str]:
    rng = random.Random(seed)
    lines, t = [], 0.0
    for event in events_for_game(random_game(rng, max_plies=plies), Hand(rng)):
        while t + 0.05 < event.t:  # the ticks a real daemon's timer makes
            t += 0.05
            lines.append(json.dumps({"t": round(t, 4)}))
        t = max(t, event.t)
        if isinstance(event, SquareChanged):
            lines.append(json.dumps({"t": event.t, "square": "abcdefgh"[event.square % 8] + str(event.square // 8 + 1),
                                     "occupied": event.occupied}))
        elif not isinstance(event, Tick):
            lines.append(json.dumps({"t": event.t, "button": event.button.value}))  # type: ignore[union-attr]
    lines.append(json.dumps({"t": round(t + 3.0, 4)}))
    return lines


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["tcp", "serial"])
def test_the_command_serves_a_game_to_an_app(tmp_path: Path, transport: str) -> None:
    games = tmp_path / "games"
    args = [sys.executable, "-m", "boardctl", "link", "--board", "sim", "--stdio", "--no-web",
            "--games-dir", str(games), "--transport", transport]
    master = None
    if transport == "tcp":
        args += ["--link-host", "127.0.0.1", "--port", "0"]
    else:
        master, slave = os.openpty()
        args += ["--port", os.ttyname(slave)]
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if master is not None:
        os.close(slave)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    said: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [said.put(line.decode()) for line in proc.stderr], daemon=True).start()  # type: ignore[union-attr]
    started = said.get(timeout=30)
    assert "ChessLink on " + transport in started, started
    received = bytearray()
    done = threading.Event()
    if transport == "tcp":
        port = int(re.search(r":(\d+) ", started)[1])  # type: ignore[index]
        conn = socket.create_connection(("127.0.0.1", port))
        conn.sendall(frame("W0203"))

        def pump() -> None:
            while chunk := conn.recv(4096):
                received.extend(chunk)
    else:
        assert master is not None
        os.write(master, frame("W0203"))

        def pump() -> None:
            while True:  # until the device side is gone (EIO) or, once told, nothing more comes
                if select.select([master], [], [], 0.2)[0]:
                    try:
                        received.extend(os.read(master, 4096))
                    except OSError:
                        return
                elif done.is_set():
                    return
    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    stdout: list[bytes] = []
    out_thread = threading.Thread(target=lambda: stdout.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
    out_thread.start()
    proc.stdin.write(("\n".join(_event_lines(7, 40)) + "\n").encode())
    proc.stdin.close()
    assert proc.wait(timeout=120) == 0
    done.set()
    reader.join(timeout=5)
    out_thread.join(timeout=5)
    replies = ReplyReader().feed(bytes(received))
    assert ("w", "0203") in replies  # automatic reports may come before it, as on the real board
    follower = GameFollower()
    for letter, body in replies:
        if letter == "s":
            follower.see(body)
    game = json.loads(stdout[-1])["game"]
    saved = list(GameStore(games).load(game).moves)
    assert len(saved) >= 20 and follower.moves == saved
    if master is not None:
        os.close(master)


@pytest.mark.slow
def test_app_mode_serves_apps_beside_a_recorded_game(tmp_path: Path) -> None:
    """``link.transport`` in the config: ``boardctl record`` answers apps while it records."""
    (tmp_path / "config" / "boardctl").mkdir(parents=True)
    (tmp_path / "config" / "boardctl" / "config.toml").write_text(
        '[link]\ntransport = "tcp"\nport = 0\nhost = "127.0.0.1"\n', encoding="utf-8")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.Popen([sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
                             "--games-dir", str(tmp_path / "games")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    started = proc.stderr.readline().decode()
    assert "ChessLink on tcp" in started, started
    conn = socket.create_connection(("127.0.0.1", int(re.search(r":(\d+) ", started)[1])))  # type: ignore[index]
    conn.sendall(frame("W0201") + frame("V"))
    reader = ReplyReader()
    got: list[tuple[str, str]] = []
    while len(got) < 2:
        got += reader.feed(conn.recv(4096))
    assert got == [("w", "0201"), ("v", "0103")]
    for line in ('{"t": 0.5, "square": "e2", "occupied": false}', '{"t": 0.7, "square": "e4", "occupied": true}',
                 '{"t": 2.0}'):
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        json.loads(proc.stdout.readline())
    conn.sendall(frame("S"))
    got = []
    while not got:
        got += reader.feed(conn.recv(4096))
    assert got == [("s", "rnbqkbnrpppppppp" + "." * 20 + "P" + "." * 11 + "PPPP.PPPRNBQKBNR")]
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    conn.close()
