"""The host's ``/net`` endpoint in-process, over real sockets: the one-time code, the token, a game
of another variant, bad messages and moves for the wrong colour refused without harm, TLS with a
self-signed certificate checked by fingerprint or CA, and a guest (JoinLink) following the game."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import stat
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import chess
import pytest

from boardctl.commands.host import certificate_fingerprint
from boardctl.daemon import Daemon
from boardctl.events import Button, ButtonPressed, SquareChanged
from boardctl.network import host as host_mod
from boardctl.network import protocol
from boardctl.network.host import HostLink, attach
from boardctl.network.join import Address, JoinLink, JoinRefused, handshake, tls_option
from boardctl.network.protocol import Hello
from boardctl.network.tokens import Ticket, TicketStore, new_code
from boardctl.session import Session, Settings
from boardctl.storage import GameStore
from boardctl.web.server import WebServer


@pytest.fixture(autouse=True)
def _no_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_mod, "WRONG_SECRET_DELAY", 0.0)


def _session(color: str, *, variant: str = "chess", time_control: str = "") -> Session:
    return Session(Settings(mode="network", color=color, time_control=time_control, takeback="off", settle=0.15,
                            variant=variant))


class Hosted:
    def __init__(self, root: Path, *, variant: str = "chess", ssl_context: Any = None, lan: bool = False) -> None:
        self.root = root
        self.store = GameStore(root / "host")
        self.daemon = Daemon(_session("white", variant=variant, time_control="5+0"), store=self.store)
        self.tickets = TicketStore(self.store.root)
        self.ticket = Ticket("host", self.daemon.session.record.id, code=new_code(), color="white")
        self.tickets.save(self.ticket)
        self.link = HostLink(self.daemon, self.tickets, self.ticket)
        self.server = WebServer(self.daemon, host="127.0.0.1", port=0, pin="4321" if lan else None, lan=lan,
                                ssl_context=ssl_context)
        attach(self.server, self.link)
        self.stop = asyncio.Event()

    @property
    def url(self) -> str:
        scheme = "wss" if self.server.url.startswith("https") else "ws"
        return f"{scheme}://127.0.0.1:{self.server.port}/net"


@contextlib.asynccontextmanager
async def hosted(root: Path, **kwargs: Any) -> AsyncIterator[Hosted]:
    h = Hosted(root, **kwargs)
    await h.server.start()
    task = asyncio.get_running_loop().create_task(h.link.run(h.stop))
    try:
        yield h
    finally:
        h.stop.set()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await h.link.close()
        await h.server.close()


async def _talk(url: str, first: dict[str, Any], then: list[Any] = (), **kw: Any) -> list[dict[str, Any]]:  # type: ignore[assignment]
    """Send ``first`` and ``then`` (dicts or raw text); every answer until quiet."""
    answers: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as http, http.ws_connect(url, **kw) as ws:
        for message in [first, *then]:
            await ws.send_str(message if isinstance(message, str) else json.dumps(message))
            await asyncio.sleep(0.05)
        with contextlib.suppress(TimeoutError):
            while True:
                msg = await asyncio.wait_for(ws.receive(), 0.5)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                answers.append(json.loads(msg.data))
    return answers


def hello(**kw: Any) -> dict[str, Any]:
    return {"type": "hello", "version": protocol.VERSION, "variant": "chess", **kw}


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), 60))


@pytest.mark.slow
def test_the_code_works_once_and_the_token_after(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path) as h:
            code = h.ticket.code
            assert code
            wrong = await _talk(h.url, hello(code="WRONG234"))
            assert wrong[0]["type"] == "error" and wrong[0]["fatal"] and "wrong" in wrong[0]["message"]
            first = await _talk(h.url, hello(code=code))
            assert first[0]["type"] == "welcome" and first[0]["color"] == "black"
            token = first[0]["token"]
            again = await _talk(h.url, hello(code=code))
            assert again[0]["type"] == "error" and "already used" in again[0]["message"]
            back = await _talk(h.url, hello(token=token))
            assert back[0]["type"] == "welcome" and back[0]["token"] == token and back[1]["type"] == "state"
            bad = await _talk(h.url, hello(token="x" * 43))
            assert bad[0]["type"] == "error" and bad[0]["fatal"]
            path = h.tickets.path("host")
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
            saved = json.loads(path.read_text())
            assert saved["token"] == token and saved["code"] is None
            assert h.daemon.session.network_moves() == []  # nothing changed by the refused ones

    run(scenario)


def test_a_board_playing_another_game_is_refused_clearly(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path) as h:
            assert h.ticket.code
            with pytest.raises(JoinRefused, match="this game is chess and your board plays xiangqi"):
                await handshake(Address.from_string(h.url), Hello(variant="xiangqi", code=h.ticket.code), tls=None)
            # The code was not used up by the refused board.
            welcome = await handshake(Address.from_string(h.url), Hello(variant="chess", code=h.ticket.code), tls=None)
            assert welcome.variant == "chess"

    run(scenario)


#: After a good hello: each of these is refused with an error, and the game is unchanged.
BAD_AFTER_HELLO: list[tuple[Any, str]] = [
    ("{", "not JSON"),
    ({"type": "welcome"}, "missing"),
    ({"type": "move", "ply": 0, "uci": "e7e5"}, "this board's turn"),  # Black's move on White's turn
    ({"type": "move", "ply": 0, "uci": "e2e4"}, "this board's turn"),  # the host's colour
    ({"type": "move", "ply": 5, "uci": "e7e5"}, "missing"),
    ({"type": "move", "ply": 0, "uci": "e2z9"}, "not valid"),
    ({"type": "state", "moves": [], "clocks": [], "result": "1-0", "termination": "x"}, "not for the host"),
    ({"type": "takeback", "moves": 0}, "not for the host"),
    ({"type": "request", "kind": "surrender"}, "must be one of"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("message", "why"), BAD_AFTER_HELLO, ids=lambda v: str(v)[:30])
def test_bad_messages_are_refused_without_harm(tmp_path: Path, message: Any, why: str) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path) as h:
            answers = await _talk(h.url, hello(code=h.ticket.code), [message])
            errors = [a for a in answers if a["type"] == "error"]
            assert errors and why in errors[0]["message"] and not errors[0]["fatal"], answers
            session = h.daemon.session
            assert session.network_moves() == [] and session.record.result == "*"

    run(scenario)


async def _make(daemon: Daemon, uci: str) -> None:
    """A move by hand on an in-process daemon's board (no sim: straight to the session)."""
    board = chess.Board(daemon.session.board.fen())
    move = chess.Move.from_uci(uci)
    changes = [(move.to_square, False)] if board.is_capture(move) else []
    changes += [(move.from_square, False), (move.to_square, True)]
    for square, occupied in changes:
        daemon.handle(SquareChanged(daemon.now(), square, occupied))
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.25)
    daemon.tick()


async def _until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


@pytest.mark.slow
def test_a_guest_follows_the_game_and_requests_pass(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path) as h:
            assert h.ticket.code
            address = Address.from_string(h.url)
            welcome = await handshake(address, Hello(variant="chess", code=h.ticket.code), tls=None)
            guest = Daemon(_session(welcome.color, time_control=welcome.time_control), store=GameStore(tmp_path / "guest"))
            link = JoinLink(guest, address, welcome.token, tls=None)
            stop = asyncio.Event()
            task = asyncio.get_running_loop().create_task(link.run(stop))
            host = h.daemon
            await _until(lambda: link.is_connected and h.link.is_connected)
            await _make(host, "e2e4")
            await _until(lambda: guest.session.pending is not None)
            assert {led["why"] for led in guest.state()["leds"]} == {"remote-move"}
            await _make(guest, "e2e4")
            await _make(guest, "e7e5")
            await _until(lambda: host.session.pending is not None)
            assert host.session.pending is not None and host.session.pending.uci() == "e7e5"
            await _make(host, "e7e5")
            await _until(lambda: guest.session.record.clocks == host.session.record.clocks)
            # A takeback asked by the guest, accepted on the host: both games are one move shorter.
            guest.handle(ButtonPressed(guest.now(), Button.TAKEBACK))
            await _until(lambda: host.session.remote_offer == "takeback")
            host.handle(ButtonPressed(host.now(), Button.TAKEBACK))
            await _until(lambda: host.session.record.moves == ["e2e4"] and guest.session.record.moves == ["e2e4"])
            # A draw offered by the host, accepted by the guest.
            host.handle(ButtonPressed(host.now(), Button.DRAW))
            await _until(lambda: guest.session.draw_offer)
            guest.handle(ButtonPressed(guest.now(), Button.DRAW))
            await _until(lambda: host.session.record.result == "1/2-1/2")
            await _until(lambda: guest.session.record.termination == "draw agreed")
            stop.set()
            await task
            await link.close()

    run(scenario)


def test_resignation_passes(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path) as h:
            assert h.ticket.code
            address = Address.from_string(h.url)
            welcome = await handshake(address, Hello(variant="chess", code=h.ticket.code), tls=None)
            guest = Daemon(_session(welcome.color), store=GameStore(tmp_path / "guest"))
            link = JoinLink(guest, address, welcome.token, tls=None)
            stop = asyncio.Event()
            task = asyncio.get_running_loop().create_task(link.run(stop))
            await _until(lambda: link.is_connected and h.link.is_connected)
            guest.handle(ButtonPressed(guest.now(), Button.RESIGN))
            await _until(lambda: h.daemon.session.record.result == "1-0")
            assert h.daemon.session.record.termination == "black resigned"
            stop.set()
            await task

    run(scenario)


# -- TLS ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return cert, key


def _server_context(cert: Path, key: Path) -> Any:
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    return context


@pytest.mark.slow
def test_wss_checked_by_fingerprint_or_ca(tmp_path: Path, certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    fingerprint = certificate_fingerprint(cert)

    async def scenario() -> None:
        async with hosted(tmp_path, ssl_context=_server_context(cert, key)) as h:
            assert h.url.startswith("wss://") and h.ticket.code
            address = Address.from_string(h.url)
            # Not trusted by the system's CAs: refused, and the code is not used up.
            with pytest.raises(JoinRefused, match="not trusted"):
                await handshake(address, Hello(variant="chess", code=h.ticket.code), tls=tls_option(address, ca=None, fingerprint=None))
            wrong = "00:" * 31 + "00"
            with pytest.raises(JoinRefused, match="not trusted"):
                await handshake(address, Hello(variant="chess", code=h.ticket.code), tls=tls_option(address, ca=None, fingerprint=wrong))
            welcome = await handshake(address, Hello(variant="chess", code=h.ticket.code),
                                      tls=tls_option(address, ca=None, fingerprint=fingerprint))
            again = await handshake(address, Hello(variant="chess", token=welcome.token),
                                    tls=tls_option(address, ca=cert, fingerprint=None))
            assert again.token == welcome.token

    run(scenario)


@pytest.mark.slow
def test_in_lan_mode_the_code_stands_in_for_the_pin_on_net_only(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path, lan=True) as h:
            welcome = await _talk(h.url, hello(code=h.ticket.code))
            assert welcome[0]["type"] == "welcome"  # no PIN asked on /net
            async with aiohttp.ClientSession() as http:
                base = f"http://127.0.0.1:{h.server.port}"
                async with http.post(f"{base}/api/action", json={"button": "resign"}) as response:
                    assert response.status == 403  # the page still needs the PIN
                async with http.post(f"{base}/api/action", json={"button": "resign"},
                                     headers={"X-Boardctl-Pin": welcome[0]["token"]}) as response:
                    assert response.status == 403  # and the token is no PIN
            assert h.daemon.session.record.result == "*"

    run(scenario)


@pytest.mark.slow
def test_xiangqi_boards_play_together(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path, variant="xiangqi") as h:
            assert h.ticket.code
            address = Address.from_string(h.url)
            with pytest.raises(JoinRefused, match="this game is xiangqi and your board plays chess"):
                await handshake(address, Hello(variant="chess", code=h.ticket.code), tls=None)
            welcome = await handshake(address, Hello(variant="xiangqi", code=h.ticket.code), tls=None)
            assert welcome.variant == "xiangqi" and welcome.color == "black"
            answers = await _talk(h.url, hello(token=welcome.token, variant="xiangqi"),
                                  [{"type": "move", "ply": 0, "uci": "h7e7"}])
            assert answers[0]["type"] == "welcome" and any(a["type"] == "error" for a in answers)
            assert h.daemon.session.network_moves() == []

    run(scenario)
