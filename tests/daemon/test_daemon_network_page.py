"""Hosting begun on the page's Invite (``POST /api/invite`` on a ``record`` daemon) survives a
kill -9 of that daemon: restarted with the same command it takes the network game up again with
its stored ticket, as ``boardctl host`` does, and the guest (``boardctl join``) rejoins by itself."""

from __future__ import annotations

import contextlib
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import chess
import pytest
from network.harness import Board, free_port, pgn_moves_and_clocks

pytestmark = pytest.mark.slow


def _connected(line: dict[str, Any]) -> bool:
    network = line.get("network")
    return isinstance(network, dict) and bool(network.get("connected"))


def _invite(port: int, color: str) -> dict[str, Any]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/invite", data=json.dumps({"color": color}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def _saved(path: Path, plies: int, timeout: float = 10.0) -> None:
    """Wait until the game file on disk holds ``plies`` moves (a daemon saves after it publishes)."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError, ValueError):
            if len(json.loads(path.read_text())["moves"]) == plies:
                return
        assert time.monotonic() < deadline, f"{path.name} never held {plies} moves"
        time.sleep(0.02)


@pytest.mark.parametrize(("color", "before_kill", "after"), [
    ("white", ["e2e4", "e7e5"], ["g1f3"]),  # the code used, the game under way: resumed with the token
    ("black", [], ["d2d4", "d7d5"]),  # nobody joined yet: the same one-time code still works
])
def test_page_hosting_resumes_after_a_restart(tmp_path: Path, color: str, before_kill: list[str],
                                              after: list[str]) -> None:
    port, guest_port = free_port(), free_port()
    argv = ["record", "--board", "sim", "--stdio", "--port", str(port), "--games-dir", str(tmp_path / "host")]
    host = Board(argv, tmp_path / "host-home")
    boards = [host]
    board = chess.Board()
    try:
        host.send({})
        host.next_line(30)
        invite = _invite(port, color)["invite"]
        host_white = color == "white"
        guest_argv = ["join", invite["address"], "--code", invite["code"], "--board", "sim", "--stdio",
                      "--port", str(guest_port), "--games-dir", str(tmp_path / "guest")]

        def play(moves: list[str], guest: Board) -> None:
            for uci in moves:
                white_moves = board.turn == chess.WHITE
                mover, other = (host, guest) if white_moves == host_white else (guest, host)
                mover.make(uci)
                other.wait_for(lambda s, uci=uci: s["pending"] == uci, 30)
                other.make(uci)
                board.push_uci(uci)

        guest = None
        if before_kill:
            guest = Board(guest_argv, tmp_path / "guest-home")
            boards.append(guest)
            guest.send({})
            host.wait_for(_connected, 30)
            play(before_kill, guest)
        game = host.state["game"]
        _saved(tmp_path / "host" / f"{game}.json", len(before_kill))  # saved just after its state line
        host.kill()
        # The same command, the sim's pieces where the game has them (a real board keeps them there).
        host.argv = [*argv, "--sim-setup", board.fen()]
        host.start()
        host.send({})
        again = host.wait_for(lambda s: s["mode"] == "network", 30)
        assert again["game"] == game and again["moves"] == before_kill and again["human"] == color
        assert again["invite"]["code"] == (None if before_kill else invite["code"])
        if guest is None:  # joins only now, with the code from before the restart
            guest = Board(guest_argv, tmp_path / "guest-home")
            boards.append(guest)
            guest.send({})
        host.wait_for(_connected, 30)
        guest.wait_for(_connected, 30)
        play(after, guest)
        if color == "white":
            # The page's New game leaves hosting: the other board is told, and stops with that message.
            request = urllib.request.Request(f"http://127.0.0.1:{port}/api/action",
                                             data=json.dumps({"new-game": {}}).encode(),
                                             headers={"Content-Type": "application/json"}, method="POST")
            with urllib.request.urlopen(request, timeout=10):
                pass
            host.wait_for(lambda s: s["mode"] == "record", 30)
            assert guest.proc.wait(timeout=30) != 0
            assert guest.proc.stderr is not None and "stopped hosting" in guest.proc.stderr.read()
            assert not (tmp_path / "host" / "network-host.json").exists()  # not resumed any more
        for each in boards:
            assert each.close() == (0 if each is host or color != "white" else guest.proc.returncode)
    finally:
        for each in boards:
            if each.proc.poll() is None:
                each.kill()
    host_pgn, guest_pgn = (next((tmp_path / side).glob(f"{game}.pgn" if side == "host" else "*.pgn"))
                           for side in ("host", "guest"))
    assert pgn_moves_and_clocks(host_pgn)[0] == pgn_moves_and_clocks(guest_pgn)[0] == before_kill + after
