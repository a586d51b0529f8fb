"""The emulated board: every command's reply byte for byte, the option bytes, the automatic
reports in each mode (virtual time), the reset. Expected bytes come from the tests' client."""

from __future__ import annotations

import pytest

from boardctl.chesslink import protocol as p
from boardctl.chesslink.board import DARK, EmulatedBoard, Leds
from chesslink.client import ReplyReader, frame

START = p.START_STATUS
GRID = p.grid_for_squares({12: 0xFF, 28: 0xF0})

#: (command sent, reply expected, what the board keeps after it).
COMMANDS: list[tuple[str, bytes, bytes]] = [
    ("V", frame("V"), frame("v0103")),
    ("S", frame("S"), frame("s" + START)),
    ("X", frame("X"), frame("x")),
    ("L", frame(p.led_text(0x20, GRID)), frame("l")),
    ("R default scan time", frame("R01"), frame("r0114")),
    ("R reports, as written", frame("R02"), frame("r0201")),
    ("R default report time", frame("R03"), frame("r0314")),
    ("R default brightness", frame("R04"), frame("r040F")),
    ("R parity", frame("R00"), frame("r0000")),
    ("R an unused address", frame("RF0"), frame("rF000")),
    ("W scan time", frame("W0115"), frame("w0115")),
    ("W brightness", frame("W0400"), frame("w0400")),
    ("W the host's own byte", frame("W40AB"), frame("w40AB")),
    ("T", frame("T"), b""),
]


@pytest.mark.parametrize(("why", "sent", "reply"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_every_command_byte_for_byte(why: str, sent: bytes, reply: bytes) -> None:
    board = EmulatedBoard(status=START)
    board.receive(frame("W0201"), 0.0)  # no automatic reports in the way
    assert board.receive(sent, 1.0).data == reply


def test_write_then_read_back_and_leds() -> None:
    board = EmulatedBoard(status=START)
    board.receive(frame("W0201"), 0.0)
    assert board.receive(frame("W0401") + frame("R04"), 0.1).data == frame("w0401") + frame("r0401")
    assert board.brightness == pytest.approx(1 / 15)
    out = board.receive(frame(p.led_text(0x20, GRID)), 0.2)
    assert out.leds == Leds(0x20, GRID) == board.leds
    assert p.square_patterns(out.leds.patterns) == {12: 0xFF, 28: 0xF0}
    out = board.receive(frame("X"), 0.3)
    assert out.leds == DARK and out.leds.is_dark


def test_malformed_commands_are_not_answered() -> None:
    board = EmulatedBoard(status=START)
    board.receive(frame("W0201"), 0.0)
    bad = bytes([0x56, 0xB5, 0xB6]) + bytes(p.with_parity(ord(c)) for c in "S00") + frame("Q") + frame("W01")[:3]
    assert board.receive(bad, 1.0).data == b""
    assert board.receive(bad + frame("V"), 1.0).data == frame("v0103")


def test_block_parity_off_both_ways() -> None:
    board = EmulatedBoard(status=START)
    board.receive(frame("W0201"), 0.0)
    # The reply to the write that turns it off still carries it; from then on neither side does.
    assert board.receive(frame("W0001"), 0.1).data == frame("w0001")
    assert board.receive(frame("V", block=False), 0.2).data == frame("v0103", block=False)
    assert board.receive(frame("W0000", block=False), 0.3).data == frame("w0000", block=False)
    assert board.receive(frame("V"), 0.4).data == frame("v0103")


def _statuses(data: bytes) -> list[str]:
    return [d for letter, d in ReplyReader().feed(data) if letter == "s"]


OTHER = START.replace("P", ".", 1)


def test_every_scan_reports_each_scan_and_each_change_at_once() -> None:
    board = EmulatedBoard(status=START, now=0.0)
    assert board.report_mode == p.ReportMode("every-scan")
    assert board.next_due() == pytest.approx(0.04096)
    assert board.poll(0.03) == b""
    assert _statuses(board.poll(0.041)) == [START]
    assert _statuses(board.set_status(OTHER, 0.05)) == [OTHER]  # the scan that saw it
    assert board.poll(0.06) == b""
    assert _statuses(board.poll(0.05 + 0.041)) == [OTHER]
    # A reply may come after a report due meanwhile, as on the real board.
    replies = ReplyReader().feed(board.receive(frame("V"), 0.2).data)
    assert [letter for letter, _ in replies] == ["s", "v"]


def test_reports_off() -> None:
    board = EmulatedBoard(status=START)
    board.receive(frame("W0201"), 0.0)
    assert board.next_due() is None
    assert board.set_status(OTHER, 0.1) == b"" and board.poll(5.0) == b""
    assert _statuses(board.receive(frame("S"), 5.0).data) == [OTHER]


def test_timed_reports() -> None:
    board = EmulatedBoard(status=START)
    board.receive(frame("W0319") + frame("W0202"), 0.0)  # every 25 x 4.096 ms
    assert board.set_status(OTHER, 0.01) == b""
    assert board.next_due() == pytest.approx(0.1024)
    assert board.poll(0.1) == b""
    assert _statuses(board.poll(0.103)) == [OTHER]
    assert _statuses(board.poll(0.21)) == [OTHER]
    assert board.poll(0.22) == b""


def test_on_change_without_debounce() -> None:
    board = EmulatedBoard(status=START)
    board.receive(frame("W0203"), 0.0)
    assert board.next_due() is None
    assert board.set_status(START, 0.1) == b""
    assert _statuses(board.set_status(OTHER, 0.2)) == [OTHER]
    assert _statuses(board.set_status(START, 0.2)) == [START]
    assert board.poll(9.0) == b""


@pytest.mark.parametrize(("mode", "scans"), [(4, 2), (5, 3), (6, 4), (7, 5)])
def test_on_change_with_debounce(mode: int, scans: int) -> None:
    board = EmulatedBoard(status=START)
    board.receive(frame(f"W02{mode:02X}"), 0.0)
    scan = board.scan_time
    assert board.set_status(OTHER, 1.0) == b""
    assert board.poll(1.0 + scans * scan - 0.001) == b""
    assert _statuses(board.poll(1.0 + scans * scan + 0.001)) == [OTHER]
    # A change undone within the debounce is never reported.
    assert board.set_status(START, 2.0) == b"" and board.set_status(OTHER, 2.0 + scan) == b""
    assert board.poll(2.0 + scan + scans * scan + 0.001) == b""


def test_scan_time_option() -> None:
    board = EmulatedBoard(status=START)
    board.receive(frame("W0128"), 0.0)
    assert board.scan_time == pytest.approx(40 * 0.002048)
    board.receive(frame("W010A"), 0.0)
    assert board.scan_time == pytest.approx(20 * 0.002048)  # below 15: the default


def test_reset_is_silent_clears_the_leds_and_keeps_the_options() -> None:
    board = EmulatedBoard(status=START, reset_delay=3.0)
    board.receive(frame("W0203") + frame(p.led_text(0x20, GRID)), 0.0)
    out = board.receive(frame("T") + frame("V"), 1.0)
    assert out.data == b"" and out.leds == DARK
    assert board.receive(frame("V"), 3.5).data == b""  # still starting
    assert board.set_status(OTHER, 3.9) == b""
    assert board.receive(frame("V") + frame("R02"), 4.1).data == frame("v0103") + frame("r0203")
