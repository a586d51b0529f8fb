"""The board as a Millennium ChessLink board for other apps (docs/chesslink.md): a transport opened
before the game (``serial``, ``tcp`` or ``ble``), the ChessLink face attached to the daemon, and
app mode beside a game of ``play``, ``record`` or ``demo``. ``boardctl link`` serves it alone
(``boardctl.commands.link``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from boardctl.chesslink.transports import DEFAULT_TCP_PORT, LinkError
from boardctl.errors import ConfigError

log = logging.getLogger(__name__)

TRANSPORTS = ("serial", "tcp", "ble")
#: The USB gadget serial port of a Pi set up as a USB device (docs/chesslink.md).
DEFAULT_SERIAL_PORT = "/dev/ttyGS0"


def open_transport(transport: str, port: str | None, host: str) -> Any:
    """The TCP socket or serial port, opened before the game is: a taken port or a missing device
    is one line and the exit status, with no game started. None for BLE (started with the face)."""
    if transport == "tcp":
        try:
            number = int(port) if port is not None else DEFAULT_TCP_PORT
        except ValueError:
            raise ConfigError(f"link port: a TCP port number, got {port!r}") from None
        if not 0 <= number <= 65535:
            raise ConfigError(f"link port: a TCP port is 0..65535, got {number}")
        try:
            return socket.create_server((host, number))
        except OSError as exc:
            raise LinkError(f"link: cannot listen on {host}:{number} ({exc.strerror or exc})") from None
    if transport == "serial":
        from boardctl.hw.appport import AppPort

        return AppPort(port or DEFAULT_SERIAL_PORT)
    try:
        import bless  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
    except ImportError:
        raise LinkError("link --transport ble needs the BLE library: pip install 'boardctl[ble]' (bless, on BlueZ)") from None
    return None


def attach(transport: str, opened: Any, *, fatal: bool = True) -> Callable[[Any, asyncio.Event], Callable[[], Awaitable[None]]]:
    """The face on the daemon and the transport (the composition root's hook); returns its closer."""

    def hook(daemon: Any, stop: asyncio.Event) -> Callable[[], Awaitable[None]]:
        from boardctl.chesslink.face import ChessLinkFace
        from boardctl.chesslink.transports import serve_ble, serve_port

        face = ChessLinkFace(daemon)
        # Statuses before the disk: each event's report does not wait for the game log's fsync.
        daemon.save_after_publish = True
        loop = asyncio.get_running_loop()
        tasks = [loop.create_task(face.run(stop))]
        servers: list[asyncio.Server] = []

        async def tcp() -> None:
            server = await asyncio.start_server(lambda r, w: _client(face, r, w), sock=opened)
            servers.append(server)
            host, port = opened.getsockname()[:2]
            log.warning("ChessLink on tcp %s:%d (socket://%s:%d)", host, port, host, port)

        if transport == "tcp":
            tasks.append(loop.create_task(tcp()))
        elif transport == "serial":
            log.warning("ChessLink on serial %s", opened.url)
            tasks.append(loop.create_task(serve_port(face, opened, stop)))
        else:
            tasks.append(loop.create_task(_ble(serve_ble(face, stop), stop, fatal=fatal)))

        async def close() -> None:
            face.drain()
            await asyncio.sleep(0.05)  # the last reports on their way
            for server in servers:
                server.close()
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            daemon.show_face_leds(None)

        return close

    return hook


class AppMode:
    """App mode of ``play``, ``record`` and ``demo``: ChessLink served beside the game, on from the
    start with ``link.transport`` in the config, and switched on and off from the page (the
    daemon's ``app-mode`` switch). The state lines say it under ``app_mode``."""

    def __init__(self, daemon: Any, stop: asyncio.Event, *, transport: str, port: str | None, host: str,
                 opened: Any = None) -> None:
        self.daemon = daemon
        self.stop = stop
        self.transport = transport
        self.port = port
        self.host = host
        self._opened = opened
        self._closer: Callable[[], Awaitable[None]] | None = None
        self._publish()

    @property
    def is_on(self) -> bool:
        return self._closer is not None

    async def switch(self, on: bool) -> None:
        if on == self.is_on:
            return
        if on:
            from boardctl.actions import ActionError
            from boardctl.errors import BoardctlError

            try:
                opened = self._opened or open_transport(self.transport, self.port, self.host)
            except BoardctlError as exc:
                raise ActionError(f"app-mode: {exc}") from None
            self._opened = opened
            self._closer = attach(self.transport, opened, fatal=False)(self.daemon, self.stop)
            await asyncio.sleep(0)  # the TCP server takes its socket
        else:
            closer, self._closer = self._closer, None
            assert closer is not None
            await closer()
            if self._opened is not None:
                self._opened.close()
            self._opened = None
        self._publish()

    async def close(self) -> None:
        await self.switch(False)

    def _publish(self) -> None:
        where = None
        if self.is_on and isinstance(self._opened, socket.socket):
            host, port = self._opened.getsockname()[:2]
            where = f"socket://{host}:{port}"
        elif self.is_on and self._opened is not None:
            where = str(getattr(self._opened, "url", ""))
        elif self.is_on:
            where = "BLE"
        self.daemon.extra_state["app_mode"] = {"on": self.is_on, "transport": self.transport, "address": where}


async def _client(face: Any, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    from boardctl.chesslink.transports import StreamLink

    await face.serve(StreamLink(reader, writer))


async def _ble(serving: Awaitable[None], stop: asyncio.Event, *, fatal: bool) -> None:
    """BLE failing to start is one line in the log; it ends the run of ``boardctl link``
    (``fatal``), not a game that serves apps on the side."""
    try:
        await serving
    except LinkError as exc:
        log.error("%s", exc)
        if fatal:
            stop.set()
