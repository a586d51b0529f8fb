"""``boardctl host`` and ``join`` show the terminal board and take typed moves, as ``--help``
promises (issue 35, finding 8: neither drew the board nor read a move), and the terminal names
the friend and the connection. Two real daemons in pseudo-terminals, over a real socket."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from network.harness import free_port
from test_terminal_session import Pty, assert_quiet

pytestmark = pytest.mark.slow


def test_host_and_join_play_by_typing_in_their_terminals(tmp_path: Path) -> None:
    port, guest_port = free_port(), free_port()
    host = Pty(tmp_path / "host", "host", "--board", "sim", "--port", str(port), "--games-dir",
               str(tmp_path / "host-games"))
    guest = None
    try:
        invite = host.expect(r"boardctl join (\S+) --code (\S+)")
        host.expect(r"Waiting for Guest to join with the invitation\.")
        guest = Pty(tmp_path / "guest", "join", invite[1], "--code", invite[2], "--board", "sim", "--port",
                    str(guest_port), "--games-dir", str(tmp_path / "guest-games"))
        guest.expect(r"Playing Host over the network \(connected\)\.", timeout=30)
        host.expect(r"Playing Guest over the network \(connected\)\.", timeout=30)
        host.type("e4")
        guest.expect(r"Host plays e4: make it on this board \(type e4 or e2e4\)\.", timeout=30)
        guest.type("e4")
        guest.expect(r"1\. e4")
        guest.type("e5")
        host.expect(r"Guest plays e5: make it on this board", timeout=30)
        host.type("e5")
        host.expect(r"1\.\.\. e5")
        for term in (host, guest):
            term.type("quit")
        assert host.wait(30) == 0 and guest.wait(30) == 0
        assert_quiet(host.out)
        assert_quiet(guest.out)
    finally:
        host.close()
        if guest is not None:
            guest.close()
    for folder in ("host-games", "guest-games"):
        (state,) = [p for p in (tmp_path / folder).glob("*.json") if not p.name.startswith("network-")]
        assert json.loads(state.read_text(encoding="utf-8"))["moves"] == ["e2e4", "e7e5"], folder
    assert re.search(r"^\s*8\s", host.out, re.M) and re.search(r"^\s*8\s", guest.out, re.M)  # the boards drawn
