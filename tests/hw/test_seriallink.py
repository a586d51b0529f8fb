"""The serial backend with faults injected: corruption, loss, garbage, device reset, unplug/replug."""

from __future__ import annotations

import os
import select
import threading
import time
import tty
from collections.abc import Iterator
from typing import Any

import chess
import pytest
import serial

from boardctl.events import Button, ButtonPressed, Code, Event, LedIntent, Snapshot, SquareChanged
from boardctl.hw import EventQueue
from boardctl.hw.protocol import LineFramer, encode_line, parse_line
from boardctl.hw.seriallink import SerialBoard

from .serialdevice import START, LoopPico


def _next(q: EventQueue, kind: type, timeout: float = 3.0) -> Event:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = q.get(timeout=0.05)
        if isinstance(event, kind):
            return event
    raise AssertionError(f"no {kind.__name__} within {timeout} s")


def _until(condition: Any, what: str, timeout: float = 3.0) -> None:
    """Wait for ``condition()`` (the reader thread's counters), never a fixed time."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {timeout} s"
        time.sleep(0.01)


def _settled(board: SerialBoard, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while board.is_resync_pending:
        assert time.monotonic() < deadline, "the resync never completed"
        time.sleep(0.01)


@pytest.fixture
def loop_board() -> Iterator[tuple[SerialBoard, LoopPico, EventQueue]]:
    dev = LoopPico()
    q = EventQueue()
    board = SerialBoard("loop://", opener=dev.open, reconnect_delay=0.05)
    board.start(q)
    assert board.wait_connected(3.0)
    dev.boot()
    assert _next(q, Snapshot).occupancy == START
    deadline = time.monotonic() + 3.0
    while board.stats.resets < 1 or board.is_resync_pending:
        assert time.monotonic() < deadline, "no resync after the boot"
        time.sleep(0.01)
    assert all(e == Snapshot(e.t, START) for e in q.drain())
    try:
        yield board, dev, q
    finally:
        board.close()
        dev.close()


@pytest.mark.slow
def test_first_event_is_the_answer_to_a_request_not_the_boot_snapshot() -> None:
    dev = LoopPico()
    dev.answering = False
    q = EventQueue()
    with SerialBoard("loop://", opener=dev.open, reconnect_delay=0.05) as board:
        board.start(q)
        assert board.wait_connected(3.0)
        dev.boot()
        dev.send("S", f"{START:016x}", "beat")
        dev.send("S", f"{START:016x}", "req")  # no token: an old firmware, or a stale line
        dev.send("S", f"{START:016x}", "req", "0badf00d")  # a token never asked for
        dev.move("e2", False)
        _until(lambda: board.stats.stale_snapshots == 4 and board.stats.dropped == 1, "the four stale answers and the change read")
        assert q.drain() == []
        dev.answering = True  # the next retried request is answered
        assert _next(q, Snapshot).occupancy == START ^ chess.BB_E2
        assert q.drain() == []


@pytest.mark.slow
def test_firmware_without_tokens_still_resyncs_and_never_acts_on_stale_lines(caplog: pytest.LogCaptureFixture) -> None:
    dev = LoopPico()
    dev.echo_token, dev.version = False, "boardfw-1"
    q = EventQueue()
    with SerialBoard("loop://", opener=dev.open, reconnect_delay=0.05) as board:
        board.start(q)
        assert board.wait_connected(3.0)
        assert _next(q, Snapshot).occupancy == START  # the tokenless answer to the first request
        dev.occupancy ^= chess.BB_C2  # moved while it restarted
        dev.answering = False
        dev.boot()
        assert _next(q, Snapshot).occupancy == START ^ chess.BB_C2  # its boot snapshot, right after HELLO
        dev.answering, dev.delay = True, 0.8
        dev.deliver(encode_line((dev.seq - 5) & 0xFF, "C", "g1", "0"))  # stale: dropped, not acted on
        snap = _next(q, Snapshot)
        assert snap.occupancy == START ^ chess.BB_C2 and q.drain() == [] and board.stats.dropped == 1
        _settled(board)
        dev.move("e2", False)
        assert _next(q, SquareChanged) == SquareChanged(board._last_t, chess.E2, False)
    assert any("echoes no request token" in r.getMessage() for r in caplog.records)
    assert any("firmware boardfw-1 echoes no request token" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_once_a_device_echoes_tokens_an_answer_without_one_is_refused() -> None:
    dev = LoopPico()
    dev.version = "boardfw-1"  # no HELLO to go by: the first tokened answer tells
    q = EventQueue()
    with SerialBoard("loop://", opener=dev.open, reconnect_delay=0.05) as board:
        board.start(q)
        assert board.wait_connected(3.0)
        assert _next(q, Snapshot).occupancy == START
        dev.answering = False
        dev.send("C", "e4", "0")  # contradicts: a resync
        stale = board.stats.stale_snapshots
        dev.send("S", f"{START:016x}", "req")  # a tokenless (stale or forged) answer
        _until(lambda: board.stats.stale_snapshots == stale + 1, "the tokenless answer read")
        assert q.drain() == [] and board.is_resync_pending
        dev.answering = True
        assert _next(q, Snapshot).occupancy == START


def test_changes_and_buttons_arrive_with_host_time(loop_board: tuple[SerialBoard, LoopPico, EventQueue]) -> None:
    board, dev, q = loop_board
    before = time.monotonic()
    dev.move("e2", False)
    dev.move("e4", True)
    dev.send("B", "hint")
    events = [_next(q, SquareChanged), _next(q, SquareChanged), _next(q, ButtonPressed)]
    assert [(e.square, e.occupied) for e in events[:2]] == [(chess.E2, False), (chess.E4, True)]  # type: ignore[union-attr]
    assert events[2] == ButtonPressed(events[2].t, Button.HINT)
    assert all(before <= e.t <= time.monotonic() for e in events)
    assert board.occupancy == START ^ chess.BB_E2 ^ chess.BB_E4
    assert board.stats.bad_lines == 0 and board.stats.sequence_gaps == 0 and board.stats.dropped == 0


def test_corrupted_line_is_dropped_and_resynced_by_snapshot(loop_board: tuple[SerialBoard, LoopPico, EventQueue]) -> None:
    board, dev, q = loop_board
    raw = bytearray(dev.change("e2", False))
    raw[5] ^= 0x01  # "e2" -> "d2": checksum catches it
    dev.deliver(bytes(raw))
    snap = _next(q, Snapshot)
    assert snap.occupancy == START & ~chess.BB_E2  # the lift is not lost: it arrives as a resync
    assert board.stats.bad_lines == 1
    assert q.drain() == []  # never replayed as a lift


def test_lost_line_holds_back_the_next_one_until_the_snapshot(loop_board: tuple[SerialBoard, LoopPico, EventQueue]) -> None:
    board, dev, q = loop_board
    dev.change("g1", False)  # made, never sent
    dev.move("f3", True)
    assert _next(q, Snapshot).occupancy == START & ~chess.BB_G1 | chess.BB_F3
    assert q.drain() == []  # the f3 line after the gap was never acted on
    assert board.stats.sequence_gaps == 1 and board.stats.dropped == 1


@pytest.mark.slow
def test_garbage_and_partial_lines_are_survived(loop_board: tuple[SerialBoard, LoopPico, EventQueue]) -> None:
    board, dev, q = loop_board
    dev.answering = False
    dev.deliver(b"\x00\xff\x03garbage\r\n")
    dev.deliver(dev.change("e2", False)[:7])  # a partial line, then the device talks on
    dev.deliver(b"\n")
    dev.deliver(b"z" * 5000)  # a flood with no newline
    dev.deliver(b"\n")
    dev.move("a2", False)
    _until(lambda: board.stats.bad_lines >= 2 and board.stats.overflows == 1 and board.stats.dropped == 1,
           "the garbage, the flood and the change read")
    assert q.drain() == []
    dev.answering = True
    assert _next(q, Snapshot).occupancy == START & ~chess.BB_A2 & ~chess.BB_E2
    _settled(board)
    dev.move("a2", True)
    assert _next(q, SquareChanged) == SquareChanged(board._last_t, chess.A2, True)


def test_overlong_line_is_refused_and_named_in_the_log(loop_board: tuple[SerialBoard, LoopPico, EventQueue], caplog: pytest.LogCaptureFixture) -> None:
    board, dev, q = loop_board
    dev.deliver(b"07 C " + b"x" * 3000 + b"\n")
    assert _next(q, Snapshot).occupancy == START
    assert board.stats.overflows == 1
    assert any("refused a line longer than 1200 bytes" in r.getMessage() and "07 C xxx" in r.getMessage() for r in caplog.records)


def test_device_reset_resyncs(loop_board: tuple[SerialBoard, LoopPico, EventQueue]) -> None:
    board, dev, q = loop_board
    dev.seq = 0x30
    dev.send("C", "b1", "0")  # noise before the reset is fine too
    dev.occupancy &= ~chess.BB_B1 & ~chess.BB_C1  # pieces moved while it restarted
    dev.boot()
    snap = _next(q, Snapshot)
    assert snap.occupancy == START & ~chess.BB_B1 & ~chess.BB_C1
    assert board.stats.resets == 2 and q.drain() == []


def test_heartbeat_is_silent_unless_it_differs(loop_board: tuple[SerialBoard, LoopPico, EventQueue]) -> None:
    board, dev, q = loop_board
    dev.send("S", f"{START:016x}", "beat")
    dev.send("B", "draw")
    assert isinstance(_next(q, ButtonPressed), ButtonPressed)
    assert q.drain() == []
    dev.occupancy ^= chess.BB_H2  # the device knows better (say the host missed its own update)
    dev.send("S", f"{dev.occupancy:016x}", "beat")
    assert _next(q, Snapshot).occupancy == START ^ chess.BB_H2  # via a fresh request, not the beat itself
    assert dev.requests and board.stats.resyncs >= 2


def test_contradicting_change_asks_for_a_snapshot(loop_board: tuple[SerialBoard, LoopPico, EventQueue]) -> None:
    board, dev, q = loop_board
    resyncs = board.stats.resyncs
    dev.send("C", "e4", "0")  # e4 is already empty
    assert _next(q, Snapshot).occupancy == START
    assert board.stats.resyncs == resyncs + 1 and q.drain() == []


def test_unplug_and_replug(loop_board: tuple[SerialBoard, LoopPico, EventQueue]) -> None:
    board, dev, q = loop_board
    first = dev.port
    dev.unplugged = True
    first.close()  # the cable is pulled: reads fail under the reader thread
    _until(lambda: not board.wait_connected(0.0), "the pulled cable noticed")
    dev.occupancy ^= chess.BB_D2  # a pawn moved while unplugged
    dev.unplugged = False
    assert board.wait_connected(3.0)
    assert dev.port is not first
    assert _next(q, Snapshot).occupancy == START ^ chess.BB_D2
    assert board.stats.reconnects >= 1


def test_request_snapshot_from_another_thread(loop_board: tuple[SerialBoard, LoopPico, EventQueue]) -> None:
    board, dev, q = loop_board
    asked = len(dev.requests)
    board.request_snapshot()
    assert _next(q, Snapshot).occupancy == START
    assert len(dev.requests) == asked + 1


# --- over a real pseudo-terminal, where the test also sees what the host sends -----------------------


class PtyDevice:
    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.framer = LineFramer()
        self.pending: list[bytes] = []
        self.seq = 0

    def send(self, kind: str, *args: str) -> None:
        os.write(self.master, encode_line(self.seq, kind, *args))
        self.seq = self.seq + 1 & 0xFF

    def expect(self, kind: str, args: tuple[str, ...] | None = None, timeout: float = 3.0) -> tuple[str, ...]:
        """Wait for a line of ``kind`` (with exactly ``args``, if given) from the host; earlier lines are skipped."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while self.pending:
                line = parse_line(self.pending.pop(0))
                if line.kind == kind and (args is None or line.args == args):
                    return line.args
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                self.pending += self.framer.feed(os.read(self.master, 4096))
        raise AssertionError(f"host sent no {kind} line {args or ''}")

    def unplug(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def test_pty_host_requests_snapshot_sends_leds_and_tunes_and_survives_replug() -> None:
    devices = [PtyDevice()]
    q = EventQueue()
    board = SerialBoard(opener=lambda: serial.serial_for_url(devices[-1].path, timeout=0.02), reconnect_delay=0.05)
    try:
        board.start(q)
        dev = devices[-1]
        (token,) = dev.expect("?")
        dev.send("S", f"{START:016x}", "req", token)
        assert _next(q, Snapshot).occupancy == START
        board.show([LedIntent(chess.E2, Code.ENGINE_MOVE), LedIntent(chess.E4, Code.ENGINE_MOVE)])
        lamps = ("e2:ffff:0050ff", "e4:ffff:0050ff")
        dev.expect("L", lamps)
        board.play(Code.ENGINE_MOVE)
        dev.expect("T", ("880:80",))
        dev.send("E", "bad-checksum")
        dev.expect("L", lamps)  # the device complained: the frame is sent again
        devices.append(PtyDevice())
        dev.unplug()
        new = devices[-1]
        (token,) = new.expect("?")
        new.expect("L", lamps)  # LEDs restored after replug
        new.send("S", f"{START ^ chess.BB_E2:016x}", "req", token)
        assert _next(q, Snapshot).occupancy == START ^ chess.BB_E2
    finally:
        board.close()
        devices[-1].unplug()


def test_close_while_unplugged_does_not_hang() -> None:
    board = SerialBoard("/nonexistent/ttyACM9", reconnect_delay=0.05)
    board.start(EventQueue())
    time.sleep(0.1)
    started = time.monotonic()
    board.close()
    assert time.monotonic() - started < 1.0
    assert not any(t.name == "boardctl-serial" and t.is_alive() for t in threading.enumerate())


def test_spy_url_logs_the_traffic(tmp_path: Any) -> None:
    log_file = tmp_path / "spy.txt"
    dev = PtyDevice()
    q = EventQueue()
    try:
        with SerialBoard(f"spy://{dev.path}?file={log_file}", reconnect_delay=0.05) as board:
            board.start(q)
            (token,) = dev.expect("?")
            dev.send("S", f"{START:016x}", "req", token)
            assert _next(q, Snapshot).occupancy == START
        text = log_file.read_text()
        assert "TX" in text and "RX" in text  # pyserial's hexdump of both directions
    finally:
        dev.unplug()
