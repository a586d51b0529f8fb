"""The server's side of the page (issue 14): the default port gives way when taken, the state
lines gain what the page shows (check, promotion, board hint), and saved games open for the viewer."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import chess
import pytest

from boardctl.errors import BoardctlError
from boardctl.web.server import ANNOTATIONS, FALLBACK_PORTS, Annotator, WebServer, game_for_viewer


class QuietDaemon:
    """The daemon's contract, with nothing happening."""

    #: A network game's settings, so that ``start_web`` adds no Invite routes to this stand-in.
    session = SimpleNamespace(settings=SimpleNamespace(mode="network"))

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        return asyncio.Queue()

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        pass

    def state(self) -> dict[str, Any]:
        return {"fen": chess.STARTING_FEN, "moves": []}

    async def submit(self, action: dict[str, Any]) -> None:
        pass


def taken_port() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_a_taken_default_port_gives_way_to_the_next_free_one() -> None:
    async def main() -> None:
        with taken_port() as sock:
            port = int(sock.getsockname()[1])
            next_free = is_free(port + 1)
            server = WebServer(QuietDaemon(), host="127.0.0.1", port=port, pin=None, port_fallback=True)
            async with server:
                assert server.port != port
                if next_free:
                    assert server.port == port + 1
                else:
                    assert port + 1 < server.port <= port + FALLBACK_PORTS or server.port > 0
                assert server.url == f"http://127.0.0.1:{server.port}/"
            # A port the user chose is not replaced: the error names it.
            strict = WebServer(QuietDaemon(), host="127.0.0.1", port=port, pin=None)
            with pytest.raises(BoardctlError, match=f"cannot listen on 127.0.0.1:{port}"):
                await strict.start()
            await strict.close()

    asyncio.run(main())


def test_a_free_default_port_is_used_as_it_is() -> None:
    async def main() -> None:
        with taken_port() as sock:
            port = int(sock.getsockname()[1])
        server = WebServer(QuietDaemon(), host="127.0.0.1", port=port, pin=None, port_fallback=True)
        async with server:
            assert server.port == port

    asyncio.run(main())


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ({"moves": ["f2f3", "e7e5", "g2g4", "d8h4"]}, {"check": "e1", "can_promote": False, "board_hint": None}),
        ({"moves": [], "start_fen": "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"}, {"check": None, "can_promote": True}),
        # After the king half of castling, in the board's own wiring turned round.
        (
            {"moves": [], "start_fen": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "orientation": "flipped",
             "occupancy": f"{chess.flip_vertical(chess.flip_horizontal(0x9100000000000091 & ~0x10 | 0x40)):016x}"},
            {"board_hint": "Complete castling: move the rook h1\u2192f1."},
        ),
        (
            {"moves": [], "start_fen": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "orientation": "normal",
             "occupancy": f"{0x9100000000000091 & ~0x10 | 0x40:016x}"},
            {"board_hint": "Complete castling: move the rook h1\u2192f1."},
        ),
    ],
)
def test_state_lines_gain_what_the_page_shows(line: dict[str, Any], expected: dict[str, Any]) -> None:
    out = Annotator().annotate(line)
    assert set(ANNOTATIONS) <= set(out)
    for key, value in expected.items():
        assert out[key] == value, key


PGN = """[Event "boardctl"]
[White "Human"]
[Black "engine"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1
"""


def test_game_for_viewer(tmp_path: Path) -> None:
    path = tmp_path / "g.pgn"
    path.write_text(PGN)
    data = game_for_viewer(path)
    assert data["san"] == ["f3", "e5", "g4", "Qh4#"]
    assert data["moves"] == ["f2f3", "e7e5", "g2g4", "d8h4"]
    assert len(data["fens"]) == 5 and data["fens"][0] == chess.STARTING_FEN
    assert data["result"] == "0-1" and data["headers"]["White"] == "Human"
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    with pytest.raises(BoardctlError, match=r"empty\.pgn: no game"):
        game_for_viewer(empty)


def test_the_daemon_serves_on_the_documented_port_unless_taken_and_keeps_the_address() -> None:
    """``start_web`` with the default ``web.port`` (8080): that port, or the next free one when
    something else has it; ``--port`` given: exactly that one or an error."""
    from boardctl import config as config_mod
    from boardctl.commands.root import start_web

    cfg = config_mod.load({}, files=[])
    assert cfg.web_port == 8080

    async def main() -> None:
        daemon = QuietDaemon()
        server = await start_web(daemon, cfg, port_chosen=False)  # type: ignore[arg-type]
        try:
            assert server.port == 8080 or not is_free(8080)  # moved only because 8080 is taken
            assert daemon.web_url == server.url == f"http://127.0.0.1:{server.port}/"  # type: ignore[attr-defined]
            if server.port == 8080:
                # 8080 is ours now: a second page takes the next free port, and a chosen one fails.
                second = await start_web(QuietDaemon(), cfg, port_chosen=False)  # type: ignore[arg-type]
                assert second.port != 8080
                await second.close()
                with pytest.raises(BoardctlError, match=r"cannot listen on 127\.0\.0\.1:8080"):
                    await start_web(QuietDaemon(), cfg, port_chosen=True)  # type: ignore[arg-type]
        finally:
            await server.close()

    asyncio.run(main())
