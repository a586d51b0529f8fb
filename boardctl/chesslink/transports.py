"""What carries ChessLink bytes: a TCP server, a serial port (any pyserial URL) and BLE.

Each gives the face a :class:`~boardctl.chesslink.face.Link` per app; the protocol itself is
all in :mod:`boardctl.chesslink.protocol`. The serial port is opened by the command through
:mod:`boardctl.hw.appport` (only ``boardctl/hw`` touches ports) and reaches here as any object
with ``start(on_bytes, on_closed)``, ``write`` and ``close``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol

from boardctl.chesslink.face import ChessLinkFace
from boardctl.errors import BoardctlError

log = logging.getLogger(__name__)

#: TCP port of ``boardctl link --transport tcp`` unless ``--port`` says another.
DEFAULT_TCP_PORT = 37000

#: The Millennium boards' BLE service and characteristics (the app writes fff1, the board notifies fff2).
BLE_SERVICE = "49535343-fe7d-4ae5-8fa9-9fafd205e455"
BLE_WRITE = "0000fff1-0000-1000-8000-00805f9b34fb"
BLE_NOTIFY = "0000fff2-0000-1000-8000-00805f9b34fb"
#: Bytes per BLE notification (the smallest ATT payload every central accepts).
BLE_CHUNK = 20


class LinkError(BoardctlError, RuntimeError):
    """A transport could not start (a taken TCP port, no BLE library or adapter); says which."""


class StreamLink:
    """An asyncio stream (a TCP client) as a :class:`~boardctl.chesslink.face.Link`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        peer = writer.get_extra_info("peername")
        self.name = f"tcp {peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "tcp client"

    async def read(self) -> bytes:
        try:
            return await self._reader.read(4096)
        except ConnectionError:
            return b""

    def write(self, data: bytes) -> None:
        if data and not self._writer.is_closing():
            transport = self._writer.transport
            if transport.get_write_buffer_size() > 1 << 20:
                return  # an app that stopped reading: drop rather than grow without end
            self._writer.write(data)

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()


class Port(Protocol):
    """A byte port driven by its own thread (``boardctl.hw.appport.AppPort``)."""

    url: str

    def start(self, on_bytes: Callable[[bytes], None], on_closed: Callable[[], None] | None = None) -> None: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class PortLink:
    """A threaded port as a :class:`~boardctl.chesslink.face.Link`: its bytes cross to the loop."""

    def __init__(self, port: Port, loop: asyncio.AbstractEventLoop) -> None:
        self.name = f"serial {port.url}"
        self._port = port
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()

        def on_bytes(data: bytes) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed
                loop.call_soon_threadsafe(self._queue.put_nowait, data)

        def on_closed() -> None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._queue.put_nowait, b"")

        port.start(on_bytes, on_closed)

    async def read(self) -> bytes:
        return await self._queue.get()

    def write(self, data: bytes) -> None:
        self._port.write(data)

    async def close(self) -> None:
        await asyncio.to_thread(self._port.close)


async def serve_tcp(face: ChessLinkFace, host: str, port: int) -> asyncio.Server:
    """Listen on ``host:port``; every client is an app (``socket://host:port`` in pyserial terms)."""

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await face.serve(StreamLink(reader, writer))

    try:
        return await asyncio.start_server(client, host, port)
    except OSError as exc:
        raise LinkError(f"link: cannot listen on {host}:{port} ({exc.strerror or exc})") from None


async def serve_port(face: ChessLinkFace, port: Port, stop: asyncio.Event) -> None:
    """One app on a serial port, for as long as the port lasts or until ``stop``. A serial line
    has no connect: the app may go and come back on the same port; its LEDs stay until then."""
    link = PortLink(port, asyncio.get_running_loop())
    serving = asyncio.get_running_loop().create_task(face.serve(link))
    stopper = asyncio.get_running_loop().create_task(stop.wait())
    try:
        await asyncio.wait({serving, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving


class BleLink:
    """One BLE central: writes to ``fff1`` arrive here, what the board sends is notified on ``fff2``."""

    name = "ble central"

    def __init__(self, notify: Callable[[bytes], None]) -> None:
        self._notify = notify
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()

    def received(self, data: bytes) -> None:
        self._queue.put_nowait(bytes(data))

    async def read(self) -> bytes:
        return await self._queue.get()

    def write(self, data: bytes) -> None:
        for i in range(0, len(data), BLE_CHUNK):
            self._notify(data[i:i + BLE_CHUNK])

    async def close(self) -> None:
        self._queue.put_nowait(b"")


async def serve_ble(face: ChessLinkFace, stop: asyncio.Event, *, name: str = "MILLENNIUM CHESS") -> None:
    """Advertise the Millennium service on BlueZ through ``bless`` (the ``ble`` extra) until ``stop``.

    Thin on purpose (it cannot be tested without a Bluetooth adapter): GATT in, :class:`BleLink`
    out, everything else is the face's. One central at a time, as on the real board."""
    try:
        from bless import (  # type: ignore[import-not-found, unused-ignore]
            BlessGATTCharacteristic,
            BlessServer,
            GATTAttributePermissions,
            GATTCharacteristicProperties,
        )
    except ImportError:
        raise LinkError("link --transport ble needs the BLE library: pip install 'boardctl[ble]' "
                        "(bless, on BlueZ)") from None
    loop = asyncio.get_running_loop()
    server: Any = BlessServer(name=name, loop=loop)
    link: BleLink | None = None
    serving: asyncio.Task[None] | None = None

    def notify(data: bytes) -> None:
        characteristic = server.get_characteristic(BLE_NOTIFY)
        characteristic.value = bytearray(data)
        server.update_value(BLE_SERVICE, BLE_NOTIFY)

    def on_write(characteristic: BlessGATTCharacteristic, value: Any, **_: Any) -> None:
        nonlocal link, serving
        if serving is None or serving.done():
            link = BleLink(notify)
            serving = loop.create_task(face.serve(link))
        assert link is not None
        link.received(bytes(value))

    def on_read(characteristic: BlessGATTCharacteristic, **_: Any) -> Any:
        return characteristic.value

    server.read_request_func = on_read
    server.write_request_func = on_write
    await server.add_new_service(BLE_SERVICE)
    await server.add_new_characteristic(
        BLE_SERVICE, BLE_WRITE,
        GATTCharacteristicProperties.write | GATTCharacteristicProperties.write_without_response,
        None, GATTAttributePermissions.writeable)
    await server.add_new_characteristic(
        BLE_SERVICE, BLE_NOTIFY, GATTCharacteristicProperties.notify | GATTCharacteristicProperties.read,
        None, GATTAttributePermissions.readable)
    try:
        await server.start()
    except Exception as exc:  # BlueZ missing, no adapter, no D-Bus: one line
        raise LinkError(f"link: cannot advertise over BLE ({exc})") from None
    log.warning("link: advertising over BLE as %r", name)
    try:
        await stop.wait()
    finally:
        if link is not None:
            await link.close()
        if serving is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await serving
        with contextlib.suppress(Exception):
            await server.stop()
