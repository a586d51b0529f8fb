"""Issue 16's harness: ``host`` and ``join`` daemons (sim board, stdio, real time) play a whole game
by hand through a TCP proxy; one is killed with SIGKILL and restarted mid-game, the connection is
cut and restored; both saved games must be complete and the same (moves, ``[%clk]``, Result)."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest
from network.harness import Board, Proxy, free_port, pgn_moves_and_clocks

pytestmark = pytest.mark.slow

#: Legal's mate: captures, check, and mate on move 7 (13 plies, White = the host).
GAME = ["e2e4", "e7e5", "g1f3", "d7d6", "f1c4", "c8g4", "b1c3", "g7g6", "f3e5", "g4d1", "c4f7", "e8e7", "c3d5"]


def _start_host(root: Path, port: int) -> Board:
    return Board(["host", "--board", "sim", "--stdio", "--port", str(port), "--games-dir", str(root / "host"),
                  "--time-control", "5+2"], root / "host-home")


def _start_guest(root: Path, address: str, code: str, port: int) -> Board:
    return Board(["join", address, "--code", code, "--board", "sim", "--stdio", "--port", str(port),
                  "--games-dir", str(root / "guest")], root / "guest-home")


def _connected(line: dict[str, object]) -> bool:
    network = line.get("network")
    return isinstance(network, dict) and bool(network.get("connected"))


def test_a_whole_game_survives_kill_and_a_cut_link(tmp_path: Path) -> None:
    host_port, guest_port = free_port(), free_port()
    proxy = Proxy(host_port)
    proxy.start()
    host = _start_host(tmp_path, host_port)
    first = host.next_line(30)
    invite = first["invite"]
    assert invite["code"] and invite["address"] == f"ws://127.0.0.1:{host_port}/net"
    assert first["mode"] == "network" and first["human"] == "white"
    address = f"ws://127.0.0.1:{proxy.port}"  # the guest reaches the host through the proxy
    guest = _start_guest(tmp_path, address, invite["code"], guest_port)
    boards = [host, guest]
    try:
        for board in boards:
            board.send({})  # real time starts with the first line
            board.wait_for(_connected, 30)
        ply = 0

        def play(n: int) -> None:
            nonlocal ply
            for _ in range(n):
                uci = GAME[ply]
                mover, other = (host, guest) if ply % 2 == 0 else (guest, host)
                mover.make(uci)
                lit = other.wait_for(lambda s, uci=uci: s["pending"] == uci, 30)
                assert {led["why"] for led in lit["leds"]} >= {"remote-move"}
                assert lit["mode"] == "network"
                if ply < len(GAME) - 1:  # this board's time runs from the moment the move is lit
                    assert lit["clock"]["running"] == lit["human"]
                other.make(uci)
                ply += 1

        play(4)
        # kill -9 the guest with the host's move lit on it, and restart it with the same command.
        host.make(GAME[ply])
        guest.wait_for(lambda s: s["pending"] == GAME[ply], 30)
        guest.kill()
        guest.start()
        guest.send({})
        resumed = guest.wait_for(lambda s: s["pending"] == GAME[ply] and _connected(s), 30)
        assert resumed["moves"] == GAME[:ply]
        guest.make(GAME[ply])
        ply += 1
        # Cut the link on the guest's turn: the guest moves meanwhile; its clock runs on the host.
        before = host.state["clock"]["black"]
        proxy.stop()
        guest.wait_for(lambda s: not _connected(s), 30)
        time.sleep(2.5)  # Black thinks while the link is down: longer than the 2 s increment of 5+2
        guest.make(GAME[ply])  # made while disconnected
        assert host.state["pending"] is None
        proxy.start()
        lit = host.wait_for(lambda s: s["pending"] == GAME[ply], 30)
        # The side to move's clock kept running all the while: the increment does not make up for it.
        assert lit["clock"]["black"] < before, (before, lit["clock"])
        # kill -9 the host with the guest's move lit on it; restart; the guest reconnects by itself.
        host.kill()
        host.start()
        again = host.next_line(30)
        assert again["invite"]["code"] is None and again["moves"] == GAME[:ply]
        host.send({})
        host.wait_for(lambda s: _connected(s) and s["pending"] == GAME[ply], 30)
        host.make(GAME[ply])
        ply += 1
        play(len(GAME) - ply)
        for board in boards:
            end = board.wait_for(lambda s: s["result"] != "*", 30)
            assert end["result"] == "1-0" and end["termination"] == "checkmate"
            assert end["moves"] == GAME
        for board in boards:
            assert board.close() == 0
    finally:
        proxy.stop()
        for board in boards:
            if board.proc.poll() is None:
                board.kill()
    host_pgn = next((tmp_path / "host").glob("*.pgn"))
    guest_pgn = next((tmp_path / "guest").glob("*.pgn"))
    host_game, guest_game = pgn_moves_and_clocks(host_pgn), pgn_moves_and_clocks(guest_pgn)
    assert host_game == guest_game
    moves, clocks, result = host_game
    assert moves == GAME and len(clocks) == len(GAME) and result == "1-0"
    # The tokens are stored for the owner only; the code is used up.
    for role, folder in (("host", "host"), ("join", "guest")):
        ticket = tmp_path / folder / f"network-{role}.json"
        assert stat.S_IMODE(os.stat(ticket).st_mode) == 0o600
        data = json.loads(ticket.read_text())
        assert data["token"] and data["code"] is None


def test_killed_before_any_move_both_resume(tmp_path: Path) -> None:
    """kill -9 the host before anyone joined (the same code stays valid), and the guest right after
    joining (it resumes with the token, not the used code)."""
    host_port, guest_port = free_port(), free_port()
    host = _start_host(tmp_path, host_port)
    boards = [host]
    try:
        invite = host.next_line(30)["invite"]
        host.kill()
        host.start()
        again = host.next_line(30)["invite"]
        assert again == invite  # the same game, the same one-time code
        guest = _start_guest(tmp_path, invite["address"], invite["code"], guest_port)
        boards.append(guest)
        guest.next_line(30)  # joined: its first line
        guest.kill()
        guest.start()
        guest.send({})
        host.send({})
        guest.wait_for(_connected, 30)
        host.make(GAME[0])
        lit = guest.wait_for(lambda s: s["pending"] == GAME[0], 30)
        assert lit["human"] == "black" and lit["moves"] == []
        for board in boards:
            assert board.close() == 0
    finally:
        for board in boards:
            if board.proc.poll() is None:
                board.kill()
