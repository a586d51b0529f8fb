"""The ChessLink protocol module, byte for byte: characters, framing, the decoder, options, the
status string and the LED grid. Expected bytes are written out or made by the tests' own client
(tests/chesslink/client.py), never by the module under test."""

from __future__ import annotations

import pytest

from boardctl.chesslink import protocol as p
from chesslink.client import frame


@pytest.mark.parametrize(("char", "byte"), [
    ("V", 0xD6), ("5", 0xB5), ("6", 0xB6), ("v", 0x76), ("0", 0xB0), ("1", 0x31), ("3", 0xB3),
    ("7", 0x37), ("4", 0x34), ("x", 0xF8), ("l", 0xEC), ("C", 0x43), ("S", 0xD3), (".", 0xAE),
    ("K", 0xCB), ("k", 0x6B), ("\x00", 0x80), ("\x7f", 0x7F), ("X", 0x58), ("2", 0x32), ("R", 0x52),
])
def test_odd_parity_per_character(char: str, byte: int) -> None:
    assert p.with_parity(ord(char)) == byte
    assert p.has_odd_parity(byte) and not p.has_odd_parity(byte ^ 0x80)


@pytest.mark.parametrize(("text", "wire"), [
    # The version exchange as a real board's log shows it: V56 and v0103 with 74.
    ("V", b"\xd6\xb5\xb6"),
    ("v0103", b"v\xb01\xb0\xb374"),
    ("x", b"\xf878"),
    ("l", b"\xec\xb6C"),
    ("S", b"\xd3\xb5\xb3"),
    ("X", b"X\xb58"),
    ("T", b"T\xb54"),
    ("R02", b"R\xb02\xb5\xb0"),
    ("W0203", b"W\xb02\xb0\xb3\xb5\xb6"),
    ("w0203", b"\xf7\xb02\xb0\xb37\xb6"),
    ("r0014", b"\xf2\xb0\xb01477"),
])
def test_encode_byte_for_byte(text: str, wire: bytes) -> None:
    assert p.encode(text) == wire == frame(text)


def test_encode_without_block_parity() -> None:
    assert p.encode("S", block=False) == b"\xd3"
    assert p.encode("r0014", block=False) == frame("r0014", block=False)


@pytest.mark.parametrize(("text", "check"), [("V", "56"), ("S", "53"), ("v0103", "74"), ("W0203", "56"), ("", "00")])
def test_block_parity_is_the_xor_of_the_characters(text: str, check: str) -> None:
    assert p.block_parity(text) == check


# -- the decoder ------------------------------------------------------------------------------

LED_TEXT = "L20" + "FF" * 81

#: (what the app sent, the commands decoded): every command, and every way to be malformed.
DECODES: list[tuple[str, bytes, list[str]]] = [
    ("V", frame("V"), ["V"]),
    ("S", frame("S"), ["S"]),
    ("X", frame("X"), ["X"]),
    ("T", frame("T"), ["T"]),
    ("R", frame("R04"), ["R04"]),
    ("W", frame("W0115"), ["W0115"]),
    ("L", frame(LED_TEXT), [LED_TEXT]),
    ("two at once", frame("V") + frame("S"), ["V", "S"]),
    ("lower-case hex data", frame("W0a0b"), ["W0A0B"]),
    ("line ends between messages", frame("V") + bytes([p.with_parity(13), p.with_parity(10)]) + frame("S"), ["V", "S"]),
    ("bad character parity", bytes([0x56, 0xB5, 0xB6]), []),
    ("bad parity in the data", bytes([p.with_parity(ord("R")), 0x30, p.with_parity(ord("2"))]) + b"\xb5\xb2", []),
    ("bad block check", bytes(p.with_parity(ord(c)) for c in "V57"), []),
    ("check digits missing", bytes(p.with_parity(ord(c)) for c in "V"), []),
    ("unknown command", frame("Q"), []),
    ("a reply echoed back", frame("v0103"), []),
    ("truncated, then a command", frame("W01")[:3] + frame("V"), ["V"]),
    ("truncated LED pattern, then S", frame(LED_TEXT)[:100] + frame("S"), ["S"]),
    ("garbage", bytes(range(256)), []),
    ("garbage, then V", b"\x00\xff\x13hello" + frame("V"), ["V"]),
    ("non-hex in the data", bytes(p.with_parity(ord(c)) for c in "R0Z") + frame("S"), ["S"]),
    ("empty", b"", []),
]


@pytest.mark.parametrize(("why", "data", "commands"), DECODES, ids=[d[0] for d in DECODES])
def test_decoder_table(why: str, data: bytes, commands: list[str]) -> None:
    decoder = p.Decoder()
    assert [c.text() for c in decoder.feed(data)] == commands


def test_decoder_takes_bytes_one_at_a_time() -> None:
    decoder = p.Decoder()
    out = []
    for byte in frame("W0203") + frame("V"):
        out += decoder.feed(bytes([byte]))
    assert [c.text() for c in out] == ["W0203", "V"]


def test_decoder_counts_what_it_drops() -> None:
    decoder = p.Decoder()
    decoder.feed(bytes(p.with_parity(ord(c)) for c in "V57") + frame("W01")[:3] + frame("S") + b"\xb0")
    assert decoder.dropped == 2 and decoder.skipped == 1


def test_decoder_without_block_parity() -> None:
    decoder = p.Decoder(block=False)
    assert [c.text() for c in decoder.feed(frame("S", block=False) + frame("R00", block=False))] == ["S", "R00"]
    # A client that still sends the check digits: the command is read, the digits are skipped.
    assert [c.text() for c in decoder.feed(frame("V"))] == ["V"]


def test_led_command_reads_slot_time_and_81_bytes() -> None:
    grid = tuple(range(81))
    command = p.Decoder().feed(frame(p.led_text(0x32, grid)))[0]
    led = p.led_command(command)
    assert led.slot_time == 0x32 and led.patterns == grid


# -- replies, the status string -----------------------------------------------------------------


def test_replies_text() -> None:
    assert p.version_reply() == "v0103"
    assert p.version_reply((0x12, 0xAB)) == "v12AB"
    assert p.status_reply(p.START_STATUS) == "s" + p.START_STATUS
    assert p.option_reply("r", 0x02, 0x0B) == "r020B"
    assert p.option_reply("w", 0xFF, 0x00) == "wFF00"


def test_status_order_is_a8_to_h8_then_down_to_a1_h1() -> None:
    status = p.status_from_pieces({0: "R", 7: "r", 56: "K", 63: "k", 28: "Q"})  # a1 h1 a8 h8 e4
    assert status[0] == "K" and status[7] == "k" and status[56] == "R" and status[63] == "r"
    assert status[4 * 8 + 4] == "Q"  # e4: row 4 from the top, file e
    assert p.pieces_from_status(status) == {0: "R", 7: "r", 56: "K", 63: "k", 28: "Q"}
    assert p.START_STATUS == "rnbqkbnrpppppppp" + "." * 32 + "PPPPPPPPRNBQKBNR"
    with pytest.raises(ValueError):
        p.pieces_from_status("x" * 64)


# -- option bytes -------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "kind", "debounce"), [
    (0, "every-scan", 0), (1, "off", 0), (2, "timed", 0), (3, "on-change", 0), (4, "on-change", 2),
    (5, "on-change", 3), (6, "on-change", 4), (7, "on-change", 5), (0xF9, "off", 0),
])
def test_report_modes(value: int, kind: str, debounce: int) -> None:
    assert p.report_mode(value) == p.ReportMode(kind, debounce)


@pytest.mark.parametrize(("value", "seconds"), [(20, 0.04096), (15, 0.03072), (14, 0.04096), (0, 0.04096), (255, 0.52224)])
def test_scan_time(value: int, seconds: float) -> None:
    assert p.scan_seconds(value) == pytest.approx(seconds)


def test_report_time_and_brightness() -> None:
    assert p.report_seconds(0x19, 0.04) == pytest.approx(0.1024)
    assert p.report_seconds(0, 0.04) == 0.04
    assert [p.brightness(v) for v in (0, 15, 200)] == [0.0, 1.0, 1.0]


# -- the LED grid -------------------------------------------------------------------------------


@pytest.mark.parametrize(("square", "corners"), [
    (56, (1, 10, 2, 11)),  # a8: LED 1 at its corner
    (0, (8, 17, 9, 18)),  # a1: LED 9 at its corner
    (63, (64, 73, 65, 74)),  # h8: LED 73
    (7, (71, 80, 72, 81)),  # h1: LED 81
    (28, (41, 50, 42, 51)),  # e4
])
def test_square_corners(square: int, corners: tuple[int, ...]) -> None:
    assert p.square_corners(square) == corners


def _leds(*numbers: int) -> int:
    return sum(1 << (n - 1) for n in set(numbers))


def _squares(mask: int) -> set[int]:
    return {sq for sq in range(64) if mask >> sq & 1}


@pytest.mark.parametrize(("why", "lit", "squares"), [
    ("one square", _leds(*p.square_corners(12)), {12}),
    ("two squares apart: not the one between", _leds(*p.square_corners(12), *p.square_corners(28)), {12, 28}),
    ("a whole file", _leds(*(n for sq in range(4, 64, 8) for n in p.square_corners(sq))), set(range(4, 64, 8))),
    ("a 2 x 2 block", _leds(*(n for sq in (27, 28, 35, 36) for n in p.square_corners(sq))), {27, 28, 35, 36}),
    ("three corners only", _leds(*p.square_corners(12)[:3]), set()),
    ("one LED", _leds(41), set()),
    ("castling's two king squares: not f1", _leds(*p.square_corners(4), *p.square_corners(6)), {4, 6}),
    ("a row of three looks like its two ends", _leds(*(n for sq in (8, 9, 10) for n in p.square_corners(sq))), {8, 10}),
    ("a rank", _leds(*(n for sq in range(16, 24) for n in p.square_corners(sq))), set(range(16, 24))),
    ("a knight's move", _leds(*p.square_corners(6), *p.square_corners(21)), {6, 21}),
    ("every LED", (1 << 81) - 1, set(range(64))),
])
def test_lit_squares(why: str, lit: int, squares: set[int]) -> None:
    assert _squares(p.lit_squares(lit)) == squares


def test_square_patterns_keep_the_flashing() -> None:
    grid = p.grid_for_squares({12: 0xFF, 28: 0xC4, 63: 0x0F})
    assert p.square_patterns(grid) == {12: 0xFF, 28: 0xC4, 63: 0x0F}
    assert p.square_patterns((0,) * 81) == {}
    with pytest.raises(ValueError):
        p.square_patterns((0,) * 80)


def test_led_text() -> None:
    text = p.led_text(0x20, p.grid_for_squares({56: 0x80}))
    assert text[:3] == "L20" and len(text) == 3 + 162
    assert text[3:5] == "80" and text[5:7] == "80"  # LED 1 and 2: two corners of a8
