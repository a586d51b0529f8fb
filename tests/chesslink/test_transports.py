"""The transports' own parts that run without a device: the BLE link's framing into
notifications and its refusal without the library, the serial port's refusal of a missing device."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest

from boardctl.chesslink import protocol as p
from boardctl.chesslink.face import ChessLinkFace
from boardctl.chesslink.transports import BLE_CHUNK, BleLink, LinkError, serve_ble
from boardctl.errors import HardwareError
from boardctl.hw.appport import AppPort


def test_ble_notifies_in_pieces_of_20_bytes_and_reads_what_was_written() -> None:
    sent: list[bytes] = []

    async def scenario() -> None:
        link = BleLink(sent.append)
        status = p.encode(p.status_reply(p.START_STATUS))
        link.write(status)
        assert [len(piece) for piece in sent] == [BLE_CHUNK, BLE_CHUNK, BLE_CHUNK, len(status) - 3 * BLE_CHUNK]
        assert b"".join(sent) == status
        link.received(bytearray(p.encode("V")))
        assert await link.read() == p.encode("V")
        await link.close()
        assert await link.read() == b""

    asyncio.run(scenario())


@pytest.mark.skipif(importlib.util.find_spec("bless") is not None, reason="the BLE library is installed here")
def test_ble_without_its_library_is_one_line() -> None:
    class NoDaemon:
        def subscribe(self) -> asyncio.Queue[dict[str, object]]:
            return asyncio.Queue()

        def unsubscribe(self, queue: object) -> None: ...

        def state(self) -> dict[str, object]:
            return {}

        def show_face_leds(self, intents: object) -> None: ...

    with pytest.raises(LinkError, match=r"pip install 'boardctl\[ble\]'"):
        asyncio.run(serve_ble(ChessLinkFace(NoDaemon()), asyncio.Event()))


def test_a_missing_serial_port_is_a_hardware_error(tmp_path: Path) -> None:
    with pytest.raises(HardwareError, match="cannot open the port"):
        AppPort(str(tmp_path / "no-such-tty"))
