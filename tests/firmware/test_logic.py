"""The firmware against boardctl's side of the protocol, and fuzzed, under CPython.

The firmware's own tests (debounce, LEDs, tunes, the device loop) are in
``test_firmware_cases.py``, which also runs under MicroPython. Here hypothesis checks that
both sides speak the same lines and that nothing the Pi could send (garbage, corrupted, cut
or repeated lines, any arguments) stops the device or gets an answer other than the protocol's.
``make fuzz`` runs these with many more examples (HYPOTHESIS_PROFILE=fuzz).
"""

from __future__ import annotations

import os

import chess
import pytest
from boardfw import protocol as fw
from boardfw.device import Device
from boardfw.leds import PWM_MAX_HZ, PWM_MIN_HZ, Strip, Tune
from boardfw.matrix import Matrix
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.core.geometry import CHESS_8X8, XIANGQI_9X10, Geometry
from boardctl.hw import protocol as host

from .fake_machine import PWM, NeoPixel, Pin, Wiring

SCALE = 30 if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 1

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


@pytest.mark.fuzz
@settings(max_examples=200 * SCALE, deadline=None)
@given(st.binary(max_size=120))
def test_device_parser_rejects_garbage_only_with_bad_line(data: bytes) -> None:
    try:
        seq, kind, args = fw.parse(data)
    except fw.BadLine:
        return
    assert fw.encode(seq, kind, args)[:-1] == data.rstrip(b"\r")


@pytest.mark.fuzz
@settings(max_examples=200 * SCALE, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=10))
def test_device_framer_agrees_with_the_host_framer(chunks: list[bytes]) -> None:
    a, b = fw.Framer(max_line=64), host.LineFramer(max_line=64)
    assert [line for c in chunks for line in a.feed(c)] == [line for c in chunks for line in b.feed(c)]


@pytest.mark.fuzz
@settings(max_examples=200 * SCALE, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=20), st.integers(1, 100))
def test_device_framer_holds_at_most_a_line(chunks: list[bytes], limit: int) -> None:
    framer = fw.Framer(max_line=limit)
    for chunk in chunks:
        for line in framer.feed(chunk):
            assert b"\n" not in line and len(line) <= limit
        assert len(framer.buf) <= limit


# --- the Pi -> device direction: nothing stops the device ----------------------------------------------

hz = st.one_of(
    st.integers(0, 20000),
    st.sampled_from([0, 1, PWM_MIN_HZ - 1, PWM_MIN_HZ, PWM_MAX_HZ, PWM_MAX_HZ + 1, 10**12]),
    st.integers(0, 10**9),
)
ms = st.one_of(st.integers(0, 10000), st.sampled_from([-1, 10001, 10**6]))
good_note = st.builds(lambda h, t: f"{h}:{t}", hz, ms)
note = st.one_of(
    good_note,
    good_note,
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="*"), min_size=1, max_size=12),
)
lamp = st.one_of(
    st.builds(lambda sq, m, c: f"{sq}:{m:04x}:{c:06x}", st.sampled_from([*chess.SQUARE_NAMES, "i9", "a0"]), st.integers(0, 0xFFFF), st.integers(0, 0xFFFFFF)),
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="*"), min_size=1, max_size=16),
)
edge_note = st.builds(lambda h, t: f"{h}:{t}", st.sampled_from([0, 1, 7, 8, 440, PWM_MAX_HZ, PWM_MAX_HZ + 1]), st.integers(0, 300))
host_line = st.one_of(
    st.builds(lambda s, a: host.encode_line(s, "T", *a), st.integers(0, 255), st.lists(edge_note, min_size=1, max_size=3)),
    st.builds(lambda s, a: host.encode_line(s, "T", *a), st.integers(0, 255), st.one_of(st.lists(note, max_size=4), st.lists(note, max_size=40))),
    st.builds(lambda s, a: host.encode_line(s, "L", *a), st.integers(0, 255), st.lists(lamp, max_size=70)),
    st.builds(lambda s, a: host.encode_line(s, "?", *a), st.integers(0, 255), st.lists(st.sampled_from(["0", "1f", "0badf00d", "0badf00d0", "XY"]), max_size=2)),
    st.builds(lambda s, k: host.encode_line(s, k), st.integers(0, 255), st.sampled_from(["C", "S", "HELLO", "Z"])),
)


def _corrupt(raw: bytes, op: int, at: int, byte: int) -> bytes:
    i = at % len(raw)
    if op == 1:
        return raw[:i] + bytes([byte]) + raw[i + 1 :]  # a changed byte (maybe a newline)
    if op == 2:
        return raw[:i]  # cut short: the next line joins it
    if op == 3:
        return raw + raw  # repeated
    if op == 4:
        return bytes([byte]) * (at % 2000) + raw  # garbage, maybe over-long
    return raw


@pytest.mark.slow
@pytest.mark.fuzz
@settings(max_examples=100 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(host_line, st.integers(0, 6), st.integers(0, 2**16), st.integers(0, 255), st.integers(1, 64)), max_size=12))
def test_nothing_the_pi_sends_stops_the_device(wiring: Wiring, plan: list[tuple[bytes, int, int, int, int]]) -> None:
    out: list[bytes] = []
    rows = [Pin(n, Pin.OUT, value=1) for n in wiring.rows]
    cols = [Pin(n, Pin.IN, Pin.PULL_UP) for n in wiring.columns]
    pwm = PWM(Pin(17))
    dev = Device(Matrix(rows, cols), out.append, strip=Strip(NeoPixel(Pin(16), 64)), tune=Tune(pwm), first_seq=0)
    dev.boot(0)
    now = 0
    stream = b"".join(_corrupt(raw, op, at, byte) for raw, op, at, byte, _ in plan)
    chunk_sizes = [size for *_, size in plan] or [64]
    pos = k = 0
    while pos < len(stream):
        size = chunk_sizes[k % len(chunk_sizes)]
        dev.feed(stream[pos : pos + size], now)
        if k % 4 == 0:
            dev.poll(now)
        pos, k, now = pos + size, k + 1, now + 37
    for _ in range(8):  # let the tunes play on
        now += 1500
        dev.poll(now)
    assert dev.faults == 0  # every bad line was a bad line, never an exception that escaped
    assert pwm.refused == []  # no note the PWM cannot play ever reached it
    lines = [host.parse_line(raw[:-1]) for raw in out]  # the device only ever says valid lines
    assert [ln.seq for ln in lines] == [i & 0xFF for i in range(len(lines))]
    framed = fw.Framer()
    expected = framed.feed(stream)
    answers = [ln for ln in lines if ln.kind == "E" or (ln.kind == "S" and ln.args[1] == "req")]
    assert len(answers) == sum(1 for raw in expected if not _is_silent(raw)) + framed.overflows


def _is_silent(raw: bytes) -> bool:
    """A good ``L`` or ``T`` line gets no answer; everything else gets ``E`` or ``S ... req``."""
    try:
        _, kind, args = fw.parse(raw)
    except fw.BadLine:
        return False
    if kind == "T":
        try:
            from boardfw.device import parse_notes

            parse_notes(args)
        except ValueError:
            return False
        return True
    if kind == "L":
        from boardfw.leds import parse_lamp

        try:
            [parse_lamp(a) for a in args]
        except ValueError:
            return False
        return len(args) <= 64
    return False


def test_every_tune_and_a_full_frame_the_pi_sends_is_accepted() -> None:
    """What boardctl really sends (each signal's tune, all 64 lamps lit) fits the firmware's limits."""
    from boardfw.device import parse_notes
    from boardfw.leds import parse_lamp

    from boardctl.hw.leds import SIGNALS

    for code, signal in SIGNALS.items():
        if signal.tones:
            raw = host.encode_line(255, "T", *(host.tone_arg(h, s) for h, s in signal.tones))
            _, _, args = fw.parse(raw[:-1])
            assert parse_notes(args) == [(round(h), round(s * 1000)) for h, s in signal.tones], code
    raw = host.encode_line(255, "L", *(host.lamp_arg(sq, 0xFFFF, (255, 255, 255)) for sq in range(64)))
    (line,) = fw.Framer().feed(raw)
    _, _, args = fw.parse(line)
    assert [parse_lamp(a)[0] for a in args] == list(range(64))


# --- both sides agree on every board's sizes and names ---------------------------------------------

BOARDS = [(CHESS_8X8, 1), (XIANGQI_9X10, 0)]


@pytest.mark.parametrize(("geometry", "first_rank"), BOARDS)
def test_point_names_agree_with_the_host(geometry: Geometry, first_rank: int) -> None:
    from boardfw.leds import square_index, square_name

    for square in range(geometry.points):
        name = square_name(square, geometry.files, first_rank)
        assert name == geometry.square_name(square)
        assert square_index(name, geometry.files, geometry.ranks, first_rank) == square


@pytest.mark.parametrize(("geometry", "first_rank"), BOARDS)
@settings(deadline=None, max_examples=60 * SCALE, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_snapshots_and_lamps_agree_with_the_host(geometry: Geometry, first_rank: int, data: st.DataObject) -> None:
    from boardfw.leds import parse_lamp

    occupancy = data.draw(st.integers(0, geometry.all_mask))
    w = Wiring()
    w.rows, w.columns, w.files, w.closed = tuple(range(geometry.ranks)), tuple(range(40, 40 + geometry.files)), geometry.files, occupancy
    import boardfw.matrix

    class WiredPin:
        def __init__(self, n: int) -> None:
            self.n, self.out = n, 1

        def value(self, v: object = None) -> int | None:
            if v is None:
                return w.read(self.n)
            self.out = int(v)  # type: ignore[call-overload]
            return None

    rows = [WiredPin(n) for n in w.rows]
    w.pins = {p.n: p for p in rows}  # type: ignore[misc]
    for p in rows:
        p.mode = Pin.OUT  # type: ignore[attr-defined]
    m = boardfw.matrix.Matrix(rows, [WiredPin(n) for n in w.columns], files=geometry.files, ranks=geometry.ranks)
    m.prime()
    text = m.snapshot_hex()
    assert text == geometry.to_hex(occupancy)
    line = host.parse_line(host.encode_line(0, "S", text, "beat")[:-1])
    assert host.bitboard_arg(line, 0, geometry) == occupancy
    square = data.draw(st.integers(0, geometry.points - 1))
    mask, colour = data.draw(st.integers(0, 0xFFFF)), (data.draw(st.integers(0, 255)), 0, 255)
    lamp = host.lamp_arg(square, mask, colour, geometry)
    assert parse_lamp(lamp, geometry.files, geometry.ranks, first_rank) == (square, mask, colour)
