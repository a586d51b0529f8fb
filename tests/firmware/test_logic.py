"""The firmware's logic under CPython: protocol, debounce, LEDs, tunes, and the device loop."""

from __future__ import annotations

import chess
import pytest
from boardfw import protocol as fw
from boardfw.device import Device
from boardfw.leds import Strip, Tune, parse_lamp, square_index
from boardfw.matrix import Buttons, Matrix
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.hw import protocol as host

from .fake_machine import PWM, NeoPixel, Pin, Wiring

words = st.lists(st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="*"), min_size=1, max_size=12), max_size=5)
kinds = st.sampled_from(["HELLO", "S", "C", "B", "E", "?", "L", "T"])


@settings(deadline=None)
@given(st.binary(max_size=300))
def test_crc_matches_the_host(data: bytes) -> None:
    assert fw.crc16(data) == host.crc16(data)


@settings(deadline=None)
@given(st.integers(0, 255), kinds, words)
def test_both_sides_speak_the_same_lines(seq: int, kind: str, args: list[str]) -> None:
    line = host.parse_line(fw.encode(seq, kind, args)[:-1])
    assert (line.seq, line.kind, list(line.args)) == (seq, kind, args)
    assert fw.parse(host.encode_line(seq, kind, *args)[:-1]) == (seq, kind, args)


@settings(deadline=None)
@given(st.binary(max_size=120))
def test_device_parser_rejects_garbage_only_with_bad_line(data: bytes) -> None:
    try:
        seq, kind, args = fw.parse(data)
    except fw.BadLine:
        return
    assert fw.encode(seq, kind, args)[:-1] == data.rstrip(b"\r")


@settings(deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=10))
def test_device_framer_agrees_with_the_host_framer(chunks: list[bytes]) -> None:
    a, b = fw.Framer(max_line=64), host.LineFramer(max_line=64)
    assert [line for c in chunks for line in a.feed(c)] == [line for c in chunks for line in b.feed(c)]


def _matrix(wiring: Wiring) -> Matrix:
    rows = [Pin(n, Pin.OUT, value=1) for n in wiring.rows]
    cols = [Pin(n, Pin.IN, Pin.PULL_UP) for n in wiring.columns]
    return Matrix(rows, cols, debounce_ms=25)


def test_matrix_reads_and_debounces(wiring: Wiring) -> None:
    m = _matrix(wiring)
    wiring.closed = chess.BB_RANK_1 | chess.BB_H8
    m.prime()
    assert m.snapshot_hex() == f"{chess.BB_RANK_1 | chess.BB_H8:016x}"
    wiring.closed ^= chess.BB_E1
    assert m.scan(0) == []
    assert m.scan(10) == []
    wiring.closed ^= chess.BB_E1  # bounced back: forgotten
    assert m.scan(20) == []
    wiring.closed ^= chess.BB_E1
    assert m.scan(30) == []
    assert m.scan(54) == []
    assert m.scan(55) == [(chess.E1, 0)]
    assert m.scan(100) == []


def test_matrix_debounce_survives_tick_wrap(wiring: Wiring) -> None:
    def ticks_diff(a: int, b: int) -> int:
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

    m = _matrix(wiring)
    m.ticks_diff = ticks_diff
    m.prime()
    wiring.closed = chess.BB_C3
    assert m.scan(0x3FFFFFF0) == []
    assert m.scan(20) == [(chess.C3, 1)]  # 36 ms later, across the wrap


def test_buttons_debounce_and_report_once(wiring: Wiring) -> None:
    pin = Pin(18, Pin.IN, Pin.PULL_UP)
    b = Buttons({"hint": pin}, debounce_ms=30)
    wiring.pressed.add(18)
    assert b.poll(0) == [] and b.poll(29) == []
    assert b.poll(30) == ["hint"]
    assert b.poll(500) == []
    wiring.pressed.clear()
    assert b.poll(510) == []
    wiring.pressed.add(18)
    assert b.poll(520) == [] and b.poll(560) == ["hint"]


def test_strip_maps_squares_and_blinks() -> None:
    px = NeoPixel(Pin(16), 64)
    strip = Strip(px, "serpentine", brightness=255)
    assert square_index("e2") == chess.E2 and strip.index(chess.A2) == 15 and strip.index(chess.A1) == 0
    with pytest.raises(ValueError):
        parse_lamp("z9:ffff:000000")
    strip.set_frame([parse_lamp("a2:00ff:ff0000"), parse_lamp("h8:ffff:0000ff")])
    assert strip.render(0)
    assert px.shown[15] == (255, 0, 0) and px.shown[56] == (0, 0, 255)
    assert not strip.render(10)  # same step: nothing written
    strip.render(62 * 8)  # step 8: a2's mask 00ff is off
    assert px.shown[15] == (0, 0, 0) and px.shown[56] == (0, 0, 255)


def test_tune_plays_notes_in_time() -> None:
    pwm = PWM(Pin(17))
    tune = Tune(pwm)
    tune.play([(880, 80), (0, 40), (440, 100)], 0)
    tune.poll(79)
    tune.poll(80)
    tune.poll(120)
    tune.poll(220)
    assert pwm.history == [(880, 32768), (880, 0), (440, 32768), (440, 0)]


def test_device_speaks_the_protocol(wiring: Wiring) -> None:
    out: list[bytes] = []
    px = NeoPixel(Pin(16), 64)
    pwm = PWM(Pin(17))
    wiring.closed = chess.BB_RANK_2
    dev = Device(_matrix(wiring), out.append, strip=Strip(px, brightness=255), tune=Tune(pwm))
    dev.boot(0)
    lines = [host.parse_line(raw[:-1]) for raw in out]
    assert [(ln.seq, ln.kind) for ln in lines] == [(0, "HELLO"), (1, "S")]
    assert host.bitboard_arg(lines[1], 0) == chess.BB_RANK_2
    out.clear()
    wiring.closed ^= chess.BB_E2
    dev.poll(5)
    dev.poll(40)
    dev.feed(host.encode_line(0, "L", "e4:ffff:0050ff") + host.encode_line(1, "?"), 41)
    dev.feed(host.encode_line(2, "T", "880:80"), 42)
    dev.feed(b"\x00garbage\n" + host.encode_line(3, "L", "nope"), 43)
    dev.poll(1100)
    lines = [host.parse_line(raw[:-1]) for raw in out]
    assert [(ln.kind, ln.args) for ln in lines] == [
        ("C", ("e2", "0")),
        ("S", (f"{chess.BB_RANK_2 ^ chess.BB_E2:016x}", "req")),
        ("E", ("frame",)),
        ("E", ("argument",)),
        ("S", (f"{chess.BB_RANK_2 ^ chess.BB_E2:016x}", "beat")),
    ]
    assert [ln.seq for ln in lines] == [2, 3, 4, 5, 6]
    assert px.shown[27] == (0, 80, 255)  # e4: rank 4 runs right to left in the serpentine chain
    assert pwm.history[0] == (880, 32768)
    assert dev.bad_lines == 2
