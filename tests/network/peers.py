"""Hostile peers for the board-to-board protocol (docs/network-protocol.md): a fake guest that
speaks raw frames to a real host's ``/net``, and a fake host that serves ``/net`` with whatever
welcome and messages a test scripts, to a real ``join``. Either sends what the protocol allows
and what it does not: malformed, out-of-order, replayed and late messages. Not a test module."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, Self

import aiohttp
from aiohttp import web

from boardctl.network import protocol

Frame = dict[str, Any] | str

CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
TOKEN = "T" * 43


def _text(frame: Frame) -> str:
    return frame if isinstance(frame, str) else json.dumps(frame)


def welcome(**fields: Any) -> dict[str, Any]:
    """A good ``welcome`` for a chess game where the guest plays black; ``fields`` override."""
    return {"type": "welcome", "token": TOKEN, "game": "20260101-120000-000001", "color": "black",
            "variant": "chess", "fen": CHESS_START, "white": "Host", "black": "Guest", "time_control": "5+0",
            **fields}


def state(moves: list[str] | None = None, *, result: str = "*", termination: str = "", **fields: Any) -> dict[str, Any]:
    moves = moves or []
    return {"type": "state", "moves": moves, "clocks": [None] * len(moves), "remaining": {}, "running": None,
            "result": result, "termination": termination, **fields}


class FakeGuest:
    """A guest that says exactly what the test makes it say, on a real host's ``/net``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._http: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None

    async def __aenter__(self) -> Self:
        self._http = aiohttp.ClientSession()
        self.ws = await self._http.ws_connect(self.url)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._http is not None:
            await self._http.close()

    async def send(self, *frames: Frame) -> None:
        assert self.ws is not None
        for frame in frames:
            await self.ws.send_str(_text(frame))

    async def hello(self, *, code: str | None = None, token: str | None = None, variant: str = "chess") -> dict[str, Any]:
        """Say hello; the host's answer (a welcome, or an error)."""
        secret = {"code": code} if code is not None else {"token": token}
        await self.send({"type": "hello", "version": protocol.VERSION, "variant": variant, **secret})
        answers = await self.answers(until=lambda a: a.get("type") in ("welcome", "error"))
        return answers[-1]

    async def answers(self, *, quiet: float = 0.3, until: Any = None, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Every frame the host sends until it is ``quiet`` (or ``until`` one matches)."""
        assert self.ws is not None
        out: list[dict[str, Any]] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        with contextlib.suppress(TimeoutError):
            while True:
                wait = quiet if until is None else max(0.01, deadline - loop.time())
                msg = await asyncio.wait_for(self.ws.receive(), wait)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                out.append(json.loads(msg.data))
                if until is not None and until(out[-1]):
                    break
        return out


class FakeHost:
    """A host's ``/net`` that answers ``hello`` with :attr:`welcome_frame` (any frame, even a broken
    one) and then sends what :meth:`send` is given; it keeps every frame the guest sent."""

    def __init__(self, welcome_frame: Frame | None = None, *, then: list[Frame] | None = None) -> None:
        self.welcome_frame: Frame = welcome() if welcome_frame is None else welcome_frame
        self.then = list(then or [])
        self.received: list[Any] = []
        self.hellos = 0
        self._ws: web.WebSocketResponse | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.joined = asyncio.Event()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/net"

    async def __aenter__(self) -> Self:
        app = web.Application()
        app.router.add_get("/net", self._handle)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._ws = ws
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                continue
            try:
                data: Any = json.loads(msg.data)
            except ValueError:
                data = msg.data
            self.received.append(data)
            if isinstance(data, dict) and data.get("type") == "hello":
                self.hellos += 1
                await ws.send_str(_text(self.welcome_frame))
                for frame in self.then:
                    await ws.send_str(_text(frame))
                self.joined.set()
        return ws

    async def send(self, *frames: Frame) -> None:
        assert self._ws is not None, "no guest connected"
        for frame in frames:
            await self._ws.send_str(_text(frame))

    def sent_by_guest(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.received if isinstance(m, dict) and m.get("type") == kind]
