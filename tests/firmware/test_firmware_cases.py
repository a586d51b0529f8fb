"""The firmware's own tests, written to run unchanged under CPython (pytest) and MicroPython 1.27.

``test_micropython.py`` copies ``firmware/``, this file and the fake ``machine`` module into
MicroPython's WebAssembly port and calls every ``test_*`` function here; pytest runs them under
CPython too. So: no pytest, no fixtures, no typing at run time, nothing outside the builtins.
"""

import machine
from boardfw import VERSION, edge, pins
from boardfw import protocol as fw
from boardfw.device import Device, parse_notes
from boardfw.leds import PWM_MAX_HZ, PWM_MIN_HZ, Strip, Tune, parse_lamp, square_index, square_name
from boardfw.matrix import Buttons, Matrix

Pin = machine.Pin
PWM = machine.PWM
NeoPixel = machine.NeoPixel
WIRING = machine.WIRING


def raises(kind, fn, *args):
    try:
        fn(*args)
    except kind as exc:
        return exc
    raise AssertionError("no " + kind.__name__ + " from " + repr(args))


def fresh_wiring():
    w = WIRING
    w.pins.clear()
    w.rows, w.columns = pins.ROWS, pins.COLUMNS
    w.files = 8
    w.closed = 0
    w.pressed = set()
    return w


def bb(*names):
    out = 0
    for name in names:
        out |= 1 << square_index(name)
    return out


RANK_1 = 0xFF
RANK_2 = 0xFF00


def make_matrix(debounce_ms=25):
    w = fresh_wiring()
    rows = [Pin(n, Pin.OUT, value=1) for n in w.rows]
    cols = [Pin(n, Pin.IN, Pin.PULL_UP) for n in w.columns]
    return Matrix(rows, cols, debounce_ms=debounce_ms)


def decode(out):
    """The device's output lines as (seq, kind, args), each checked by the device's own parser."""
    lines = []
    for raw in out:
        assert raw.endswith(b"\n"), raw
        lines.append(fw.parse(raw[:-1]))
    return lines


def host(seq, kind, *args):
    return fw.encode(seq, kind, args)


# --- protocol ---------------------------------------------------------------------------------


def test_crc_known_values():
    # CRC-16/CCITT-FALSE; the values are CPython's binascii.crc_hqx(data, 0xFFFF).
    assert fw.crc16(b"") == 0xFFFF
    assert fw.crc16(b"123456789") == 0x29B1
    assert fw.crc16(b"07 C e2 0") == 0xD1E1
    assert fw.crc16(b"00 HELLO boardfw-2 8x8") == 0x3EF0
    assert fw.crc16(bytes(range(256))) == 0x3FBD


def test_encode_known_line():
    assert fw.encode(7, "C", ["e2", "0"]) == b"07 C e2 0*d1e1\n"
    assert fw.encode(0x107, "C", ("e2", "0")) == b"07 C e2 0*d1e1\n"  # the sequence number wraps


def test_parse_round_trip_table():
    for seq, kind, args in [
        (0, "HELLO", [VERSION, "8x8"]),
        (255, "S", ["ffff00000000ffff", "req", "0badf00d"]),
        (17, "?", []),
        (3, "L", ["e2:ffff:0050ff", "h8:00ff:ffffff"]),
        (4, "T", ["880:80", "0:40", "62500000:1"]),
        (9, "E", ["checksum"]),
    ]:
        raw = fw.encode(seq, kind, args)
        assert fw.parse(raw[:-1]) == (seq, kind, args)
        assert fw.parse(raw[:-1] + b"\r") == (seq, kind, args)


def test_parse_rejects_with_a_reason():
    good = fw.encode(7, "C", ["e2", "0"])[:-1]
    body = good[: good.index(b"*")]
    cases = [
        (b"", "frame"),
        (b"07 C e2 0", "frame"),  # no checksum
        (body + b"*d1e", "frame"),  # short checksum
        (body + b"*zzzz", "frame"),
        (body + b"*0x12", "frame"),  # int(x, 16) alone would take it
        (body + b"*-001", "frame"),
        (body + b"*\xff\xfe\xfd\xfc", "frame"),  # not UTF-8
        (body[:-1] + b"1" + good[len(body):], "checksum"),
        (good[:5] + b"d" + good[6:], "checksum"),
    ]
    for bad_body in [b"7 C e2 0", b"07  C e2 0", b"0g C e2 0", b"07", b"07 C\te2", b"07 C e\x012", b"07 C \xc3\xa92", b"07 C \xff\xfe"]:
        cases.append((bad_body + f"*{fw.crc16(bad_body):04x}".encode(), "grammar"))
    for raw, reason in cases:
        exc = raises(fw.BadLine, fw.parse, raw)
        assert exc.args[0] == reason, (raw, exc.args, reason)


def test_hex_and_uint_helpers():
    assert fw.is_hex("0badf00d") and fw.is_hex("0", 1, 1)
    for text in ["", "0x1", "-1", "1_0", "ABC", " 1", "123456789"]:
        assert not fw.is_hex(text), text
    assert fw.uint("0", 0, 5) == 0 and fw.uint("0005", 0, 5) == 5
    for text in ["", "-1", "+1", "1_0", " 1", "6", "1.0", "99999999999", "١"]:
        raises(fw.BadLine, fw.uint, text, 0, 5)


def test_framer_splits_any_chunking():
    stream = host(1, "?") + host(2, "L") + b"\r\n" + host(3, "T", "880:80")
    want = [host(1, "?")[:-1], host(2, "L")[:-1], b"\r", host(3, "T", "880:80")[:-1]]
    for size in [1, 2, 3, 7, 16, len(stream)]:
        framer = fw.Framer()
        got = []
        for i in range(0, len(stream), size):
            got += framer.feed(stream[i : i + size])
        assert got == want, size
        assert framer.overflows == 0


def test_framer_refuses_overlong_lines_in_bounded_memory():
    framer = fw.Framer(max_line=50)
    assert framer.feed(b"x" * 50 + b"\n") == [b"x" * 50]  # exactly the limit is fine
    for _ in range(200):  # 20 KB with no newline, a chunk at a time
        assert framer.feed(b"y" * 100) == []
        assert len(framer.buf) <= 50
    assert framer.overflows == 1 and framer.refused == b"y" * fw.REFUSED_PREFIX
    assert framer.feed(b"tail\n" + host(1, "?")) == [host(1, "?")[:-1]]
    assert framer.feed(b"z" * 51 + b"\nok\n") == [b"ok"]
    assert framer.overflows == 2 and framer.refused.startswith(b"zzz")


# --- the fake hardware: the RP2040's limits ----------------------------------------------------------


def test_fake_pwm_models_the_rp2040_range():
    pwm = PWM(Pin(17))
    for hz in [PWM_MIN_HZ, 440, PWM_MAX_HZ]:
        pwm.freq(hz)
        assert pwm.freq() == hz
    for hz in [0, 1, PWM_MIN_HZ - 1, PWM_MAX_HZ + 1, 10**12, -440]:
        raises(ValueError, pwm.freq, hz)
    raises(ValueError, pwm.duty_u16, 65536)
    assert pwm.freq() == PWM_MAX_HZ and pwm.refused == [0, 1, 7, 62500001, 10**12, -440]


# --- matrix, buttons, LEDs, buzzer ------------------------------------------------------------------


def test_matrix_reads_and_debounces():
    m = make_matrix()
    WIRING.closed = RANK_1 | bb("h8")
    m.prime()
    assert m.snapshot_hex() == f"{RANK_1 | bb('h8'):016x}"
    WIRING.closed ^= bb("e1")
    assert m.scan(0) == []
    assert m.scan(10) == []
    WIRING.closed ^= bb("e1")  # bounced back: forgotten
    assert m.scan(20) == []
    WIRING.closed ^= bb("e1")
    assert m.scan(30) == []
    assert m.scan(54) == []
    assert m.scan(55) == [(square_index("e1"), 0)]
    assert m.scan(100) == []


def test_matrix_debounce_survives_tick_wrap():
    def ticks_diff(a, b):
        return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

    m = make_matrix()
    m.ticks_diff = ticks_diff
    m.prime()
    WIRING.closed = bb("c3")
    assert m.scan(0x3FFFFFF0) == []
    assert m.scan(20) == [(square_index("c3"), 1)]  # 36 ms later, across the wrap


def test_buttons_debounce_and_report_once():
    fresh_wiring()
    b = Buttons({"hint": Pin(18, Pin.IN, Pin.PULL_UP)}, debounce_ms=30)
    WIRING.pressed.add(18)
    assert b.poll(0) == [] and b.poll(29) == []
    assert b.poll(30) == ["hint"]
    assert b.poll(500) == []
    WIRING.pressed.clear()
    assert b.poll(510) == []
    WIRING.pressed.add(18)
    assert b.poll(520) == [] and b.poll(560) == ["hint"]


def test_strip_maps_squares_and_blinks():
    px = NeoPixel(Pin(16), 64)
    strip = Strip(px, "serpentine", brightness=255)
    assert square_index("e2") == 12 and strip.index(square_index("a2")) == 15 and strip.index(0) == 0
    for bad in ["z9:ffff:000000", "e2:0xff:000000", "e2:-fff:000000", "e2:ffff:0x0000", "e2:fff:0000000", "e2:ffff", "e2:FFFF:000000"]:
        raises(ValueError, parse_lamp, bad)
    strip.set_frame([parse_lamp("a2:00ff:ff0000"), parse_lamp("h8:ffff:0000ff")])
    assert strip.render(0)
    assert px.shown[15] == (255, 0, 0) and px.shown[56] == (0, 0, 255)
    assert not strip.render(10)  # same step: nothing written
    strip.render(62 * 8)  # step 8: a2's mask 00ff is off
    assert px.shown[15] == (0, 0, 0) and px.shown[56] == (0, 0, 255)


def test_tune_plays_notes_in_time():
    pwm = PWM(Pin(17))
    tune = Tune(pwm)
    tune.play([(880, 80), (0, 40), (440, 100)], 0)
    tune.poll(79)
    tune.poll(80)
    tune.poll(120)
    tune.poll(220)
    assert pwm.history == [(880, 32768), (880, 0), (440, 32768), (440, 0)]


def test_tune_plays_a_refused_note_as_a_rest():
    pwm = PWM(Pin(17))
    tune = Tune(pwm)
    tune.play([(880, 10), (3, 10), (440, 10)], 0)  # 3 Hz: below the PWM's range
    for now in range(0, 40, 5):
        tune.poll(now)
    assert pwm.history == [(880, 32768), (880, 0), (440, 32768), (440, 0)]
    assert tune.faults == 1 and pwm.refused == [3]


# --- the device --------------------------------------------------------------------------------------


def make_device(closed=RANK_2):
    out = []
    matrix = make_matrix()
    WIRING.closed = closed
    px = NeoPixel(Pin(16), 64)
    pwm = PWM(Pin(17))
    dev = Device(matrix, out.append, strip=Strip(px, brightness=255), tune=Tune(pwm), first_seq=0)
    dev.boot(0)
    return dev, out, px, pwm


def test_each_boot_starts_counting_somewhere_else():
    firsts = set()
    for _ in range(20):
        out = []
        dev = Device(make_matrix(), out.append)
        dev.boot(0)
        (seq, kind, _), (seq2, kind2, _) = decode(out)
        assert (kind, kind2, seq2) == ("HELLO", "S", (seq + 1) & 0xFF)
        firsts.add(seq)
    assert len(firsts) > 5  # 20 draws of 8 bits: all alike only by a bug


def test_device_speaks_the_protocol():
    dev, out, px, pwm = make_device()
    assert decode(out) == [(0, "HELLO", [VERSION, "8x8"]), (1, "S", [f"{RANK_2:016x}", "boot"])]
    del out[:]
    WIRING.closed ^= bb("e2")
    dev.poll(5)
    dev.poll(40)
    dev.feed(host(0, "L", "e4:ffff:0050ff") + host(1, "?", "1f"), 41)
    dev.feed(host(2, "T", "880:80"), 42)
    dev.feed(b"\x00garbage\n" + host(3, "L", "nope"), 43)
    dev.poll(1100)
    now = f"{RANK_2 ^ bb('e2'):016x}"
    assert decode(out) == [
        (2, "C", ["e2", "0"]),
        (3, "S", [now, "req", "1f"]),
        (4, "E", ["frame"]),
        (5, "E", ["argument"]),
        (6, "S", [now, "beat"]),
    ]
    assert px.shown[27] == (0, 80, 255)  # e4: rank 4 runs right to left in the serpentine chain
    assert pwm.history[0] == (880, 32768)
    assert dev.bad_lines == 2 and dev.faults == 0


def test_snapshot_request_echoes_its_token():
    dev, out, _, _ = make_device()
    del out[:]
    for args, want in [
        ((), ["req"]),
        (("0",), ["req", "0"]),
        (("0badf00d",), ["req", "0badf00d"]),
        (("0badf00d0",), None),  # 9 digits
        (("XYZ",), None),
        (("1", "2"), None),
    ]:
        dev.feed(host(1, "?", *args), 10)
        (_, kind, got), = decode(out)
        del out[:]
        if want is None:
            assert (kind, got) == ("E", ["argument"]), args
        else:
            assert kind == "S" and got[1:] == want, args


def test_tune_line_catalogue():
    """A ``T`` line the buzzer cannot play is refused whole with ``E argument``; nothing is played."""
    good = [
        (["880:80"], [(880, 80)]),
        (["8:1", "62500000:1", "0:10000"], [(8, 1), (62500000, 1), (0, 10000)]),
        ([], []),
    ]
    for args, notes in good:
        assert parse_notes(args) == notes
    bad = [
        ["1:80"], ["7:80"], ["62500001:80"], ["1000000000000:80"], ["-440:80"], ["+440:80"],
        ["4_40:80"], ["0x1b8:80"], ["440:-1"], ["440:10001"], ["440"], ["440:80:1"], [":80"],
        ["880:80", "5:100"], ["x:1"], ["440:80"] * 33,
    ]
    for args in bad:
        dev, out, _, pwm = make_device()
        dev.feed(host(1, "T", "880:1000"), 0)  # a tune already playing is left alone
        del out[:]
        dev.feed(host(2, "T", *args), 5)
        assert decode(out) == [(2, "E", ["argument"])], args
        for now in (5, 500, 999, 1000, 1001, 2000):
            dev.poll(now)  # never raises, and the loop goes on
        assert pwm.refused == [] and dev.faults == 0, args
        assert [f for f, duty in pwm.history if duty] == [880], args


def test_lamp_line_catalogue():
    for args in [["e9:ffff:000000"], ["e2:0xff:000000"], ["e2:ffff:-00000"], ["e2:ffff"], ["a1:ffff:ffffff"] * 65]:
        dev, out, px, _ = make_device()
        dev.feed(host(1, "L", "a1:ffff:ffffff"), 0)
        del out[:]
        dev.feed(host(2, "L", *args), 5)
        assert decode(out) == [(2, "E", ["argument"])]
        dev.poll(6)
        assert px.shown[0] == (255, 255, 255)  # the previous frame stays


def test_unknown_kind_and_overlong_line_are_answered():
    dev, out, _, _ = make_device()
    del out[:]
    dev.feed(host(1, "X"), 0)
    dev.feed(b"q" * 5000, 1)
    dev.feed(b"\n" + host(2, "?"), 2)
    lines = decode(out)
    assert [(k, a[:1]) for _, k, a in lines] == [("E", ["kind"]), ("E", ["long"]), ("S", [f"{RANK_2:016x}"])]
    assert dev.bad_lines == 2


class Broken:
    """A part that raises from ``poll``/``render``/``scan``, once or always."""

    def __init__(self, times=1):
        self.times = times
        self.calls = 0

    def _fail(self, now):
        self.calls += 1
        if self.calls <= self.times:
            raise RuntimeError("broken")
        return []

    poll = render = scan = _fail


def test_poll_survives_a_failing_part():
    dev, out, _, _ = make_device()
    dev.tune = Broken(times=10**6)
    dev.buttons = Broken(times=1)
    del out[:]
    for now in range(0, 2500, 50):
        dev.poll(now)
    kinds = [k for _, k, _ in decode(out)]
    assert kinds.count("S") == 2  # the heartbeat goes on (at 1000 and 2000 ms)
    assert kinds.count("E") == 3  # "E internal", at most once a second (0, 1000, 2000 ms)
    assert dev.faults == 50 + 1 and dev.buttons.calls == 50


def test_a_line_that_raises_unexpectedly_costs_only_itself():
    dev, out, _, _ = make_device()
    dev.strip = Broken(times=10**6)
    dev.strip.set_frame = dev.strip._fail
    del out[:]
    dev.feed(host(1, "L", "a1:ffff:ffffff") + host(2, "?"), 0)
    assert [(k, a[:1]) for _, k, a in decode(out)] == [("E", ["internal"]), ("S", [f"{RANK_2:016x}"])]


class Stream:
    """What ``edge.run`` reads: bytes given in advance, one ``read(1)`` at a time."""

    def __init__(self, data):
        self.data = data
        self.pos = 0

    def read(self, n):
        chunk = self.data[self.pos : self.pos + n]
        self.pos += len(chunk)
        return chunk


class Poller:
    def __init__(self, stream):
        self.stream = stream

    def poll(self, timeout):
        return self.stream.pos < len(self.stream.data)


class Writer:
    def __init__(self):
        self.out = []

    def write(self, data):
        self.out.append(data)


def test_edge_loop_survives_every_bad_line():
    fresh_wiring()
    WIRING.closed = RANK_1
    writer = Writer()
    dev = edge.build(writer.write)
    data = (
        host(0, "T", "5:100")  # out of the PWM's range: refused
        + host(1, "T", "880:20", "0:20", "440:20")
        + b"\xff\xfe garbage \x00\n"
        + b"w" * 3000 + b"\n"
        + host(2, "L", "e2:ffff:0050ff")
        + host(3, "?", "abc")
    )
    stream = Stream(data)
    read_all = []

    def should_stop():
        if stream.pos < len(data):
            return False
        if not read_all:
            read_all.append(edge.ticks_ms())
        return edge.ticks_diff(edge.ticks_ms(), read_all[0]) > 150  # the tune lasts 60 ms

    edge.run(stream=stream, reader=stream, writer=writer, should_stop=should_stop, period_ms=1, device=dev, poller=Poller(stream))
    lines = decode(writer.out)
    errors = [a[0] for _, k, a in lines if k == "E"]
    assert errors == ["argument", "frame", "long"]
    assert ("S", [f"{RANK_1:016x}", "req", "abc"]) in [(k, a) for _, k, a in lines]
    assert stream.pos == len(data) and dev.faults == 0
    assert dev.tune.pwm.refused == [] and [f for f, d in dev.tune.pwm.history if d] == [880, 440], dev.tune.pwm.history


def test_main_returns_at_once_when_hint_is_held():
    import sys

    fresh_wiring()
    WIRING.pressed.add(pins.BUTTONS["hint"])
    sys.modules.pop("main", None)
    try:
        __import__("main")  # runs firmware/main.py: with HINT held it must not start the loop
    finally:
        sys.modules.pop("main", None)


# --- the 90-point xiangqi board (hardware/pinout-xiangqi.toml: 10 rows x 9 columns) -------------

XQ_ROWS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
XQ_COLUMNS = (10, 11, 12, 13, 14, 15, 16, 17, 18)


def xq_index(name):
    return square_index(name, 9, 10, 0)


def xq_bb(*names):
    out = 0
    for name in names:
        out |= 1 << xq_index(name)
    return out


def make_xq_device(closed=0):
    w = WIRING
    w.pins.clear()
    w.rows, w.columns, w.files = XQ_ROWS, XQ_COLUMNS, 9
    w.closed = closed
    w.pressed = set()
    rows = [Pin(n, Pin.OUT, value=1) for n in XQ_ROWS]
    cols = [Pin(n, Pin.IN, Pin.PULL_UP) for n in XQ_COLUMNS]
    matrix = Matrix(rows, cols, files=9, ranks=10)
    px = NeoPixel(Pin(19), 90)
    out = []
    dev = Device(matrix, out.append, strip=Strip(px, brightness=255, files=9, ranks=10), first_seq=0, first_rank=0)
    dev.boot(0)
    return dev, out, px


def test_xiangqi_point_names_round_trip():
    names = [f + str(r) for r in range(10) for f in "abcdefghi"]
    assert [xq_index(n) for n in names] == list(range(90))
    assert [square_name(i, 9, 0) for i in range(90)] == names
    assert square_index("e2") == 12 and square_name(12) == "e2"  # chess as before
    for bad in ["j0", "a10", "e", "e-1", "E0", "e00", "a01", "", "i9x"]:
        raises(ValueError, square_index, bad, 9, 10, 0)
    for bad in ["e0", "e9", "i1", "a10"]:
        raises(ValueError, square_index, bad)  # not chess squares


def test_xiangqi_matrix_reads_each_of_the_90_points_and_its_snapshot_has_23_digits():
    dev, _out, _ = make_xq_device()
    m = dev.matrix
    assert m.points == 90 and m.snapshot_hex() == "0" * 23
    for sq in range(90):
        WIRING.closed = 1 << sq
        raw = m.read()
        assert [i for i in range(90) if raw[i]] == [sq], sq
    start = xq_bb("a0", "b0", "c0", "d0", "e0", "f0", "g0", "h0", "i0", "b2", "h2", "a3", "c3", "e3", "g3", "i3")
    start |= xq_bb("a9", "b9", "c9", "d9", "e9", "f9", "g9", "h9", "i9", "b7", "h7", "a6", "c6", "e6", "g6", "i6")
    WIRING.closed = start
    m.prime()
    text = m.snapshot_hex()
    assert len(text) == 23 and int(text, 16) == start
    assert text == f"{start:023x}"


def test_xiangqi_device_speaks_the_protocol_with_point_names():
    dev, out, px = make_xq_device(closed=xq_bb("e0", "h2"))
    assert decode(out) == [(0, "HELLO", [VERSION, "10x9"]), (1, "S", ["{:023x}".format(xq_bb("e0", "h2")), "boot"])]
    del out[:]
    WIRING.closed = xq_bb("e0", "e2")  # the cannon from h2 to e2
    dev.poll(5)
    dev.poll(40)
    dev.feed(host(0, "V") + host(1, "?", "2a") + host(2, "L", "i9:ffff:0050ff", "a0:ffff:ff0000"), 41)
    got = decode(out)
    assert sorted(got[:2]) == [(2, "C", ["e2", "1"]), (3, "C", ["h2", "0"])] or sorted(got[:2]) == [
        (2, "C", ["h2", "0"]), (3, "C", ["e2", "1"])]
    assert got[2:] == [(4, "VERSION", [VERSION, "10x9"]), (5, "S", ["{:023x}".format(xq_bb("e0", "e2")), "req", "2a"])]
    # serpentine chain of 9: rank 9 (odd) runs right to left, so i9 is LED 81 and a0 LED 0
    assert px.shown[81] == (0, 80, 255) and px.shown[0] == (255, 0, 0) and len(px.shown) == 90


def test_xiangqi_led_frame_takes_90_lamps_and_refuses_more_or_bad_points():
    dev, out, px = make_xq_device()
    del out[:]
    lamps = [square_name(i, 9, 0) + ":ffff:0000ff" for i in range(90)]
    line = host(0, "L", *lamps)
    assert 1200 < len(line) <= fw.line_limit(90)  # longer than a chess board's limit, within its own
    dev.feed(line, 1)
    assert out == [] and all(px.shown[i] == (0, 0, 255) for i in range(90))
    dev.feed(host(1, "L", *lamps, "a0:ffff:ffffff"), 2)  # 91 lamps
    dev.feed(host(2, "L", "j0:ffff:ffffff"), 3)  # no file j
    dev.feed(host(3, "L", "a10:ffff:ffffff"), 4)  # no rank 10
    dev.feed(host(4, "V", "x"), 5)
    assert [k + " " + " ".join(a) for _, k, a in decode(out)] == ["E argument"] * 4


def test_chess_device_answers_v_and_refuses_xiangqi_names():
    dev, out, _, _ = make_device()
    del out[:]
    dev.feed(host(0, "V"), 1)
    dev.feed(host(1, "L", "e0:ffff:ffffff"), 2)
    dev.feed(host(2, "L", "i1:ffff:ffffff"), 3)
    assert decode(out) == [(2, "VERSION", [VERSION, "8x8"]), (3, "E", ["argument"]), (4, "E", ["argument"])]
    assert fw.line_limit(64) == 1200 and fw.line_limit(90) == 1504


def test_a_smaller_matrix_covers_the_board_from_the_first_point():
    w = WIRING
    w.pins.clear()
    w.rows, w.columns, w.files = (0, 1), (10, 11, 12), 9
    w.closed = (1 << 90) - 1
    rows = [Pin(n, Pin.OUT, value=1) for n in w.rows]
    cols = [Pin(n, Pin.IN, Pin.PULL_UP) for n in w.columns]
    m = Matrix(rows, cols, files=9, ranks=10)
    m.prime()
    assert int(m.snapshot_hex(), 16) == xq_bb("a0", "b0", "c0", "a1", "b1", "c1")
    raises(ValueError, Matrix, rows, cols, 25, None, 2, 10)  # 3 columns on a 2-file board


def test_a_10_by_9_matrix_names_its_points_the_xiangqi_way_by_default():
    w = WIRING
    w.pins.clear()
    w.rows, w.columns, w.files = XQ_ROWS, XQ_COLUMNS, 9
    w.closed = xq_bb("e0")
    w.pressed = set()
    out = []
    matrix = Matrix([Pin(n, Pin.OUT, value=1) for n in XQ_ROWS], [Pin(n, Pin.IN, Pin.PULL_UP) for n in XQ_COLUMNS])
    dev = Device(matrix, out.append, first_seq=0)  # no sizes given: all from the matrix
    dev.boot(0)
    w.closed = xq_bb("e0", "i9")
    dev.poll(1)
    dev.poll(30)
    assert decode(out) == [(0, "HELLO", [VERSION, "10x9"]), (1, "S", [f"{xq_bb('e0'):023x}", "boot"]), (2, "C", ["i9", "1"])]
    assert square_index("e0", 9, 10) == 4 and parse_lamp("i9:ffff:000000", 9, 10)[0] == 89
