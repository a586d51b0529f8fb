"""The serial link sized by the board, and refusing what it cannot speak: protocol versions named
in ``HELLO``/``VERSION``, a board of another size (its ``HELLO`` or the width of its snapshots).
One clear line each time (logged, kept in ``refusal``, raised by ``wait_for_device``), never a
traceback, and nothing from a refused device reaches the tracker."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import pytest

from boardctl.core.geometry import CHESS_8X8, XIANGQI_9X10, Geometry
from boardctl.errors import HardwareError, ProtocolError
from boardctl.events import Code, LedIntent, Snapshot, SquareChanged
from boardctl.hw import EventQueue
from boardctl.hw import protocol as p
from boardctl.hw.seriallink import SerialBoard, wait_for_device

from .serialdevice import LoopPico
from .test_seriallink import PtyDevice, _next

G = XIANGQI_9X10
XQ_START = G.mask([G.square(f, 0) for f in range(9)] + [G.square(f, 9) for f in range(9)])


def _until(cond: Callable[[], bool], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


def xiangqi_pico() -> LoopPico:
    dev = LoopPico(occupancy=XQ_START)
    dev.geometry, dev.size, dev.digits, dev.version = G, "10x9", 23, p.PROTOCOL_VERSION
    return dev


# --- the pure checks -------------------------------------------------------------------------------

IDENTITIES: list[tuple[str, str, Geometry, str | None]] = [
    ("boardfw-3", "8x8", CHESS_8X8, None),
    ("boardfw-3", "10x9", XIANGQI_9X10, None),
    ("boardfw-2", "8x8", CHESS_8X8, None),
    ("boardfw-1", "8x8", CHESS_8X8, None),
    ("boardfw-2", "6x8", CHESS_8X8, None),  # old firmware on a smaller chess matrix: chess indices
    ("boardfw-3", "10x9", CHESS_8X8, r"board is '10x9' .*game is chess, which needs 8x8"),
    ("boardfw-3", "8x8", XIANGQI_9X10, r"board is '8x8' .*game is xiangqi, which needs 10x9"),
    ("boardfw-3", "9x10", XIANGQI_9X10, r"board is '9x10' .*needs 10x9"),
    ("boardfw-2", "8x8", XIANGQI_9X10, r"firmware boardfw-2 drives only 8x8 chess boards.*xiangqi \(10x9\)"),
    ("boardfw-1", "8x8", XIANGQI_9X10, r"firmware boardfw-1 drives only 8x8 chess boards"),
    ("boardfw-4", "10x9", XIANGQI_9X10, r"protocol 'boardfw-4'.*cannot speak \(it speaks boardfw-1, boardfw-2, boardfw-3\)"),
    ("1", "8x8", CHESS_8X8, r"protocol '1'.*cannot speak"),
    ("(none)", "(none)", CHESS_8X8, r"protocol '\(none\)'"),
]


@pytest.mark.parametrize(("version", "size", "geometry", "refusal"), IDENTITIES)
def test_which_firmware_and_board_can_run_which_game(version: str, size: str, geometry: Geometry, refusal: str | None) -> None:
    if refusal is None:
        p.check_identity(version, size, geometry)
        return
    with pytest.raises(HardwareError, match=refusal) as info:
        p.check_identity(version, size, geometry)
    assert "\n" not in str(info.value) and str(info.value).startswith("serial: ")


@pytest.mark.parametrize(
    ("geometry", "value", "ok"),
    [(CHESS_8X8, "0" * 16, True), (CHESS_8X8, "f" * 16, True), (CHESS_8X8, "0" * 23, False),
     (XIANGQI_9X10, "0" * 23, True), (XIANGQI_9X10, "3" + "f" * 22, True), (XIANGQI_9X10, "0" * 16, False),
     (XIANGQI_9X10, "4" + "0" * 22, None), (XIANGQI_9X10, "0" * 22 + "g", None), (CHESS_8X8, "0" * 15, False)],
)
def test_snapshot_width_and_bits_follow_the_board(geometry: Geometry, value: str, ok: bool | None) -> None:
    line = p.parse_line(p.encode_line(1, "S", value, "beat")[:-1])
    if ok is False:
        with pytest.raises(HardwareError, match=rf"{len(value)}-digit snapshots.*{geometry.name}.*need {geometry.hex_digits}"):
            p.check_snapshot_width(line, geometry)
        return
    p.check_snapshot_width(line, geometry)
    if ok:
        assert p.bitboard_arg(line, 0, geometry) == int(value, 16)
    else:  # right width, but bits beyond the 90 points, or not hex: a bad line (a resync), not a refusal
        with pytest.raises(ProtocolError):
            p.bitboard_arg(line, 0, geometry)


@pytest.mark.parametrize(("geometry", "name", "ok"), [
    (XIANGQI_9X10, "e0", True), (XIANGQI_9X10, "i9", True), (XIANGQI_9X10, "a10", False), (XIANGQI_9X10, "j0", False),
    (CHESS_8X8, "e0", False), (CHESS_8X8, "h8", True), (CHESS_8X8, "i1", False),
])
def test_point_names_follow_the_board(geometry: Geometry, name: str, ok: bool) -> None:
    line = p.parse_line(p.encode_line(1, "C", name, "1")[:-1])
    if ok:
        assert p.square_arg(line, 0, geometry) == geometry.parse(name)
    else:
        with pytest.raises(ProtocolError, match=f"bad square '{name}'.*{geometry.name}"):
            p.square_arg(line, 0, geometry)


def test_line_limits() -> None:
    assert p.line_limit(64) == p.MAX_LINE == 1200
    full = p.encode_line(255, "L", *(p.lamp_arg(s, 0xFFFF, (255, 255, 255), G) for s in range(90)))
    assert 1200 < len(full) <= p.line_limit(90)


# --- the link -------------------------------------------------------------------------------------


def test_a_xiangqi_link_carries_points_snapshots_and_90_lamps() -> None:
    dev = xiangqi_pico()
    q = EventQueue()
    with SerialBoard("loop://", opener=dev.open, reconnect_delay=0.05, geometry=G) as board:
        board.start(q)
        assert board.wait_connected(3.0)
        dev.boot()
        assert _next(q, Snapshot).occupancy == XQ_START
        _until(lambda: board.stats.resets >= 1 and not board.is_resync_pending)
        q.drain()
        dev.move("e0", False)
        dev.move("e1", True)
        assert [(e.square, e.occupied) for e in (_next(q, SquareChanged), _next(q, SquareChanged))] == [  # type: ignore[attr-defined]
            (G.parse("e0"), False), (G.parse("e1"), True)]
        board.show([LedIntent(s, Code.SELFTEST) for s in range(90)])
        _until(lambda: any(k == "L" and len(a) == 90 for k, a in dev.host_lines))
        lamps = next(a for k, a in reversed(dev.host_lines) if k == "L" and len(a) == 90)
        assert {a.split(":")[0] for a in lamps} == set(G.names)
        assert board.refusal is None and board.stats.bad_lines == 0


@pytest.mark.parametrize(
    ("version", "size", "digits", "geometry", "message"),
    [
        ("boardfw-9", "8x8", 16, CHESS_8X8, "cannot speak (it speaks boardfw-1, boardfw-2, boardfw-3)"),
        ("boardfw-3", "10x9", 23, CHESS_8X8, "game is chess, which needs 8x8"),
        ("boardfw-2", "8x8", 16, XIANGQI_9X10, "firmware boardfw-2 drives only 8x8 chess boards"),
        ("boardfw-3", "8x8", 16, XIANGQI_9X10, "game is xiangqi, which needs 10x9"),
    ],
)
def test_a_device_that_does_not_fit_is_refused_in_one_line_until_it_does(
    version: str, size: str, digits: int, geometry: Geometry, message: str, caplog: pytest.LogCaptureFixture
) -> None:
    dev = LoopPico(occupancy=0)
    dev.version, dev.size, dev.digits = version, size, digits
    q = EventQueue()
    with caplog.at_level(logging.WARNING), SerialBoard(
        "loop://", opener=dev.open, reconnect_delay=0.05, geometry=geometry
    ) as board:
        board.start(q)
        assert board.wait_connected(3.0)
        dev.boot()
        _until(lambda: message in str(board.refusal))  # maybe first refused by a snapshot's width
        q.drain()  # the answer to the connect's request may have come before the HELLO told
        time.sleep(0.3)  # answers to its requests and heartbeats keep coming: all refused
        dev.send("S", "0" * digits, "beat")
        _until(lambda: board.stats.refused >= 2)
        assert q.drain() == []
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and "serial: " in errors[0].getMessage()  # said once
        assert message in str(board.refusal)  # the HELLO's word, the most precise, is kept
        assert not any(r.exc_info for r in caplog.records)  # no traceback
        # Flashed with the right firmware for the game, it restarts: accepted, resynced.
        dev.version, dev.size, dev.digits = p.PROTOCOL_VERSION, p.board_size(geometry), geometry.hex_digits
        dev.geometry = geometry
        dev.boot()
        assert _next(q, Snapshot).occupancy == 0
        assert board.refusal is None
        dev.move(geometry.square_name(4), True)
        assert _next(q, SquareChanged).square == 4  # type: ignore[attr-defined]


def test_a_snapshot_of_another_width_is_refused_without_hello(caplog: pytest.LogCaptureFixture) -> None:
    """Connected to a running device (no HELLO seen): the first answer's width tells."""
    dev = LoopPico()  # a chess board, 16-digit snapshots
    q = EventQueue()
    with caplog.at_level(logging.ERROR), SerialBoard("loop://", opener=dev.open, reconnect_delay=0.05, geometry=G) as board:
        board.start(q)
        _until(lambda: board.refusal is not None)
        assert "16-digit snapshots, but the game is xiangqi, whose 90 points need 23" in str(board.refusal)
        assert q.drain() == []


def _answer(device: PtyDevice, lines: list[tuple[str, ...]]) -> threading.Thread:
    def run() -> None:
        device.expect("?", timeout=5)
        for kind, *args in lines:
            device.send(kind, *args)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lines", "geometry", "refusal"),
    [
        ([("S", "0" * 16, "req"), ("VERSION", "boardfw-3", "8x8")], CHESS_8X8, None),
        ([("S", "0" * 23, "req"), ("VERSION", "boardfw-3", "10x9")], XIANGQI_9X10, None),
        ([("S", "0" * 16, "req"), ("E", "kind")], CHESS_8X8, None),  # boardfw-2 does not know V: fine for chess
        ([("S", "0" * 16, "req")], CHESS_8X8, None),  # a device silent on V is taken as it is
        ([("S", "0" * 16, "req"), ("E", "kind")], XIANGQI_9X10, r"older than boardfw-3.*only 8x8 chess"),
        ([("S", "0" * 16, "req")], XIANGQI_9X10, r"16-digit snapshots.*xiangqi.*need 23"),
        ([("VERSION", "boardfw-7", "10x9")], XIANGQI_9X10, r"protocol 'boardfw-7'.*cannot speak"),
        ([("S", "0" * 23, "req"), ("VERSION", "boardfw-3", "10x9")], CHESS_8X8, r"board is .10x9.*needs 8x8"),
        ([("S", "0" * 23, "req"), ("VERSION", "boardfw-3", "8x8")], CHESS_8X8, r"23-digit snapshots.*chess"),
        ([("HELLO", "boardfw-3", "10x9")], CHESS_8X8, r"board is '10x9'.*needs 8x8"),
    ],
)
def test_wait_for_device_refuses_at_start(lines: list[tuple[str, ...]], geometry: Geometry, refusal: str | None) -> None:
    device = PtyDevice()
    thread = _answer(device, lines)
    try:
        started = time.monotonic()
        if refusal is None:
            wait_for_device(device.path, timeout=5.0, geometry=geometry)
        else:
            with pytest.raises(HardwareError, match=refusal) as info:
                wait_for_device(device.path, timeout=5.0, geometry=geometry)
            assert "\n" not in str(info.value)
        assert time.monotonic() - started < 4.5  # it answered: the 5 s timeout was not waited out
    finally:
        thread.join(3)
        device.unplug()
