"""Results the other side decides, and rematches, through two real daemons (``host``/``join
--board sim --stdio``, real time): one pair of boards plays a game per row of :data:`ENDINGS`,
each ended another way and the next begun as a rematch asked for another way (the new-game
button, the page's New game, the start position set up by hand). Every game is saved on both
boards with the same moves and Result, and each board's log replays to it (tests/conftest.py's
hook: the result lines of docs/events.md)."""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from network.harness import Board, free_port, pgn_moves_and_clocks

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Ending:
    """One game: the opening moves, who ends it and how, and how the rematch is then asked for."""

    name: str
    moves: tuple[str, ...]
    ender: str  # "host" or "guest": whose action ends it
    action: str  # "resign", "draw" (offered by the ender, accepted by the other)
    result: str  # with the host playing white in the first game, black in the second, ...
    termination: str
    asks: str  # how the rematch is asked for first: "button", "page", "setup"


#: Colours swap each game: the host is white in games 1 and 3, black in 2 and 4.
ENDINGS = [
    Ending("guest resigns", ("e2e4", "e7e5"), "guest", "resign", "1-0", "black resigned", "setup"),
    Ending("host resigns", ("d2d4", "d7d5"), "host", "resign", "1-0", "black resigned", "page"),
    Ending("draw agreed", ("g1f3", "g8f6"), "host", "draw", "1/2-1/2", "draw agreed", "button"),
    Ending("draw offered by the guest", ("c2c4", "c7c5"), "guest", "draw", "1/2-1/2", "draw agreed", "button"),
]


def _connected(line: dict[str, Any]) -> bool:
    network = line.get("network")
    return isinstance(network, dict) and bool(network.get("connected"))


def _new_game_from_page(port: int) -> dict[str, Any]:
    """The page's New game, as the page posts it."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/action", data=json.dumps({"new-game": {}}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def _ask(board: Board, how: str, port: int, moves: tuple[str, ...]) -> None:
    """Ask this board for a new game: its button, its page, or the start position set up by hand."""
    if how == "button":
        board.send({"button": "new-game"})
    elif how == "page":
        assert _new_game_from_page(port) == {"ok": True}
    else:
        for uci in reversed(moves):  # every piece back where it started (no captures in these games)
            board.send({"square": uci[2:4], "occupied": False})
            board.send({"square": uci[0:2], "occupied": True})


def test_results_of_the_other_side_and_rematches(tmp_path: Path) -> None:
    host_port, guest_port = free_port(), free_port()
    host = Board(["host", "--board", "sim", "--stdio", "--port", str(host_port), "--games-dir", str(tmp_path / "host"),
                  "--time-control", "5+0"], tmp_path / "host-home")
    boards = [host]
    games: list[tuple[str, str]] = []  # (host's game id, guest's game id)
    try:
        invite = host.next_line(30)["invite"]
        guest = Board(["join", invite["address"], "--code", invite["code"], "--board", "sim", "--stdio",
                       "--port", str(guest_port), "--games-dir", str(tmp_path / "guest")], tmp_path / "guest-home")
        boards.append(guest)
        for board in boards:
            board.send({})
            board.wait_for(_connected, 30)
        for number, ending in enumerate(ENDINGS):
            host_white = number % 2 == 0
            assert host.state["human"] == ("white" if host_white else "black"), ending.name
            assert guest.state["human"] == ("black" if host_white else "white"), ending.name
            games.append((host.state["game"], guest.state["game"]))
            white, black = (host, guest) if host_white else (guest, host)
            for ply, uci in enumerate(ending.moves):
                mover, other = (white, black) if ply % 2 == 0 else (black, white)
                mover.make(uci)
                other.wait_for(lambda s, uci=uci: s["pending"] == uci, 30)
                other.make(uci)
                if ply == 0 and number == 1:
                    # Mid-game, a new game on either board is refused with one message; the game goes on.
                    host.send({"button": "new-game"})
                    refused = host.wait_for(lambda s: "cannot start during a network game" in (s["warning"] or ""))
                    assert refused["game"] == games[-1][0] and refused["moves"] == [uci]
                    assert _new_game_from_page(guest_port) == {"ok": True}
                    said = guest.wait_for(lambda s: "cannot start during a network game" in (s["warning"] or ""))
                    assert said["game"] == games[-1][1] and said["result"] == "*"
            ender, other = (host, guest) if ending.ender == "host" else (guest, host)
            if ending.action == "resign":
                ender.send({"button": "resign"})
            elif ending.action == "draw":
                ender.send({"button": "draw"})
                other.wait_for(lambda s: s["draw_offer"], 30)
                other.send({"button": "draw"})
            for board in boards:
                end = board.wait_for(lambda s: s["result"] != "*", 30)
                assert (end["result"], end["termination"]) == (ending.result, ending.termination), ending.name
            if number == len(ENDINGS) - 1:
                break
            # The rematch: asked for on one board (offered), then on the other (agreed).
            first, second = (guest, host) if number % 2 == 0 else (host, guest)
            _ask(first, ending.asks, guest_port if first is guest else host_port, ending.moves)
            first.wait_for(lambda s: "rematch offered" in (s["warning"] or ""), 30)
            second.wait_for(lambda s: "offers a rematch" in (s["warning"] or ""), 30)
            assert second.state["game"] == games[-1][0 if second is host else 1]  # nothing starts alone
            _ask(second, "page" if ending.asks != "page" else "button", guest_port if second is guest else host_port,
                 ending.moves)
            for board, ids in ((host, 0), (guest, 1)):
                board.wait_for(lambda s, old=games[-1][ids]: s["game"] != old and s["result"] == "*", 30)
            for board in boards:
                if board is not first or ending.asks != "setup":
                    _ask(board, "setup", 0, ending.moves)
                board.wait_for(lambda s: s["matching"], 30)
        for board in boards:
            assert board.close() == 0
    finally:
        for board in boards:
            if board.proc.poll() is None:
                board.kill()
    assert len({g for pair in games for g in pair}) == 2 * len(ENDINGS)  # a new id per game on each board
    for (host_id, guest_id), ending in zip(games, ENDINGS, strict=True):
        saved = [pgn_moves_and_clocks(tmp_path / side / f"{game}.pgn") for side, game in (("host", host_id),
                                                                                           ("guest", guest_id))]
        assert saved[0] == saved[1], ending.name
        assert saved[0][0] == list(ending.moves) and saved[0][2] == ending.result, ending.name
        for side, game in (("host", host_id), ("guest", guest_id)):
            record = json.loads((tmp_path / side / f"{game}.json").read_text())
            assert record["result"] == ending.result and record["termination"] == ending.termination
    # Both boards' tickets point at the last game (a restart resumes it), with the same token.
    host_ticket = json.loads((tmp_path / "host" / "network-host.json").read_text())
    guest_ticket = json.loads((tmp_path / "guest" / "network-join.json").read_text())
    assert host_ticket["game"] == games[-1][0] and guest_ticket["game"] == games[-1][1]
    assert host_ticket["token"] == guest_ticket["token"] and guest_ticket["host_game"] == games[-1][0]
