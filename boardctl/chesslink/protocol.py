"""The Millennium ChessLink protocol, pure: bytes in, commands out; replies, options, LEDs.

No I/O and no clock of its own: every transport (serial, TCP, BLE) feeds the same
:class:`Decoder` and writes what :func:`encode` makes, and :mod:`boardctl.chesslink.board` runs
the emulated board on top. docs/chesslink.md is the description this follows.

Framing: every character is 7-bit ASCII with odd parity in bit 7 (on a real UART at 38400 7O1
that bit is the parity bit, so the bytes on the wire are the same as 8N1 with it set by hand);
every message ends with two upper-case hex digits, the XOR of its 7-bit characters (block
parity), unless option byte 0 turns block parity off. Commands are one upper-case letter and a
fixed number of hex digits, so a message's length is known from its first character, and no
command letter is a hex digit: a command letter in the middle of a message ends a truncated one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

# -- constants ------------------------------------------------------------------------------------

#: Commands and the number of hex digits of their data (before the block parity).
DATA_DIGITS: Mapping[str, int] = {"V": 0, "S": 0, "X": 0, "T": 0, "R": 2, "W": 4, "L": 2 + 81 * 2}
HEX_DIGITS = frozenset("0123456789ABCDEFabcdef")
#: Piece codes of the status string; ``.`` is an empty square.
PIECE_CODES = frozenset("KQRBNPkqrbnp.")
EMPTY_STATUS = "." * 64
#: The status of the start position (a8..h8, a7..h7, ..., a1..h1).
START_STATUS = "rnbqkbnr" + "p" * 8 + "." * 32 + "P" * 8 + "RNBQKBNR"

#: The LED grid: 9 x 9 LEDs at the squares' corners.
LED_COUNT = 81
#: Units of the option bytes and the ``L`` slot time, seconds.
SCAN_UNIT = 0.002048
SLOT_UNIT = 0.004096

# Option bytes (E2ROM addresses).
ADDR_SERIAL = 0x00  #: b0: block parity off (1) or on (0, default)
ADDR_SCAN_TIME = 0x01  #: scan time in 2.048 ms units; below 15 means 20
ADDR_AUTO_REPORT = 0x02  #: b2..b0: the automatic reports (:class:`ReportMode`)
ADDR_REPORT_TIME = 0x03  #: time between timed reports, 4.096 ms units
ADDR_BRIGHTNESS = 0x04  #: LED brightness: 0 dim, 15 and above full
DEFAULT_SCAN_TIME = 20
MIN_SCAN_TIME = 15
#: What a board answers before any ``W``: parity on, 40.96 ms scans, a report every scan,
#: timed reports every 20 units (82 ms) when chosen, full brightness.
DEFAULT_OPTIONS: Mapping[int, int] = {
    ADDR_SERIAL: 0x00, ADDR_SCAN_TIME: DEFAULT_SCAN_TIME, ADDR_AUTO_REPORT: 0x00,
    ADDR_REPORT_TIME: 0x14, ADDR_BRIGHTNESS: 0x0F,
}
#: The version ``V`` answers (high byte, low byte).
VERSION = (0x01, 0x03)


# -- characters -----------------------------------------------------------------------------------


def with_parity(char: int) -> int:
    """A 7-bit character with bit 7 set so that the byte has an odd number of ones."""
    char &= 0x7F
    return char | 0x80 if char.bit_count() % 2 == 0 else char


def has_odd_parity(byte: int) -> bool:
    return byte.bit_count() % 2 == 1


def block_parity(text: str) -> str:
    """The two hex digits that end a message: the XOR of its characters (7-bit)."""
    check = 0
    for ch in text:
        check ^= ord(ch) & 0x7F
    return f"{check:02X}"


def encode(text: str, *, block: bool = True) -> bytes:
    """One message as bytes on the wire: ``text``, its block parity (unless off), odd parity per byte."""
    full = text + block_parity(text) if block else text
    return bytes(with_parity(ord(ch)) for ch in full)


def decode_chars(data: bytes) -> str:
    """The 7-bit text of bytes (parity bits dropped, not checked): for logs and clients."""
    return "".join(chr(b & 0x7F) for b in data)


# -- commands -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Command:
    """One checked command: its letter and its data digits (upper-cased)."""

    letter: str
    data: str = ""

    def byte(self, index: int) -> int:
        """The ``index``-th two-digit hex byte of the data."""
        return int(self.data[2 * index:2 * index + 2], 16)

    def text(self) -> str:
        return self.letter + self.data


@dataclass(frozen=True, slots=True)
class LedCommand:
    """``L``: the slot time (4.096 ms units) and the 81 pattern bytes, LED 1 first."""

    slot_time: int
    patterns: tuple[int, ...]


def led_command(command: Command) -> LedCommand:
    return LedCommand(command.byte(0), tuple(command.byte(1 + i) for i in range(LED_COUNT)))


class Decoder:
    """Bytes in, checked commands out; what is malformed is counted and dropped, never raised.

    A message is dropped whole for: a byte of even parity, a character that does not belong
    (a non-hex digit in the data), a wrong block parity. A command letter always starts a new
    message, so a truncated one costs only itself. Characters between messages that are not
    command letters (a client's line ends, replies echoed back) are skipped.
    """

    def __init__(self, *, block: bool = True) -> None:
        #: Whether messages carry the block parity (option byte 0, bit 0 clear).
        self.block = block
        self._text = ""
        self._bad = False  # the message under way had a parity error: dropped when complete
        #: Messages dropped (bad parity, bad block check, truncated) and stray characters skipped.
        self.dropped = 0
        self.skipped = 0

    def feed(self, data: bytes | Iterable[int]) -> list[Command]:
        out: list[Command] = []
        for byte in data:
            command = self._byte(byte & 0xFF)
            if command is not None:
                out.append(command)
        return out

    def _byte(self, byte: int) -> Command | None:
        char = chr(byte & 0x7F)
        parity_ok = has_odd_parity(byte)
        if char in DATA_DIGITS and parity_ok:
            if self._text:
                self.dropped += 1  # truncated: a new command begins
            self._text, self._bad = char, False
            return self._complete()
        if not self._text:
            self.skipped += 1
            return None
        if char not in HEX_DIGITS:
            self.dropped += 1
            self._text, self._bad = "", False
            return None
        self._text += char
        self._bad |= not parity_ok
        return self._complete()

    def _complete(self) -> Command | None:
        letter = self._text[0]
        digits = DATA_DIGITS[letter] + (2 if self.block else 0)
        if len(self._text) < 1 + digits:
            return None
        text, bad = self._text, self._bad
        self._text, self._bad = "", False
        if self.block:
            text, check = text[:-2], text[-2:]
            if check.upper() != block_parity(text):
                bad = True
        if bad:
            self.dropped += 1
            return None
        return Command(letter, text[1:].upper())


# -- replies --------------------------------------------------------------------------------------


def version_reply(version: tuple[int, int] = VERSION) -> str:
    return f"v{version[0]:02X}{version[1]:02X}"


def status_reply(status: str) -> str:
    return "s" + status


def option_reply(letter: str, address: int, value: int) -> str:
    """``w``/``r``: the address and the value as two hex digits each."""
    return f"{letter}{address:02X}{value:02X}"


# -- the status string ----------------------------------------------------------------------------


def status_from_pieces(pieces: Mapping[int, str]) -> str:
    """The 64 piece codes, a8..h8, a7..h7, ..., a1..h1, of ``pieces`` (square a1=0 .. h8=63 ->
    ``KQRBNPkqrbnp``); squares not given are empty."""
    return "".join(pieces.get(rank * 8 + file, ".") for rank in range(7, -1, -1) for file in range(8))


def pieces_from_status(status: str) -> dict[int, str]:
    """The inverse of :func:`status_from_pieces`; ValueError for a string that is not one."""
    if len(status) != 64 or not set(status) <= PIECE_CODES:
        raise ValueError(f"a status is 64 piece codes of {''.join(sorted(PIECE_CODES))}, got {status!r:.80}")
    return {(7 - i // 8) * 8 + i % 8: ch for i, ch in enumerate(status) if ch != "."}


# -- option bytes ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReportMode:
    """Option byte 2 read: ``kind`` is ``every-scan``, ``off``, ``timed`` or ``on-change``;
    ``debounce`` the scans a change must last before it is reported (0, 2, 3, 4 or 5)."""

    kind: str
    debounce: int = 0


def report_mode(value: int) -> ReportMode:
    code = value & 0x07
    if code == 0:
        return ReportMode("every-scan")
    if code == 1:
        return ReportMode("off")
    if code == 2:
        return ReportMode("timed")
    if code == 3:
        return ReportMode("on-change")
    return ReportMode("on-change", debounce=code - 2)


def scan_seconds(value: int) -> float:
    """Option byte 1 as seconds: below 15 the board scans at its default 20 units."""
    return (value if value >= MIN_SCAN_TIME else DEFAULT_SCAN_TIME) * SCAN_UNIT


def report_seconds(value: int, scan: float) -> float:
    """Option byte 3 as seconds; 0 reports every scan."""
    return value * SLOT_UNIT if value else scan


def brightness(value: int) -> float:
    """Option byte 4 as a fraction of full brightness (0 dim .. 15 and above full)."""
    return min(value, 15) / 15


# -- the LED grid ---------------------------------------------------------------------------------


def led_number(column: int, row: int) -> int:
    """The LED at corner ``column`` (0: left of the a-file .. 8: right of the h-file) and ``row``
    (0: above rank 8 .. 8: below rank 1): 1 at a8's corner, 9 at a1's, 73 at h8's, 81 at h1's."""
    return column * 9 + row + 1


def square_corners(square: int) -> tuple[int, int, int, int]:
    """The four LEDs (numbers 1..81) at the corners of ``square`` (a1=0 .. h8=63)."""
    file, rank = square % 8, square // 8
    top = 7 - rank
    return (led_number(file, top), led_number(file + 1, top), led_number(file, top + 1), led_number(file + 1, top + 1))


def lit_squares(lit: int) -> int:
    """Squares shown for one slot, from the bitmask ``lit`` of LEDs (bit ``n - 1`` = LED ``n``).

    A square is lit when its four corners are, except a square between two lit squares of a line
    that explain all its corners on their own: an app lighting e2 and e4 (a pawn's two squares)
    lights e3's four corners too, and e3 stays dark. Each of the two has a corner no other
    square explains; in a whole file lit, e3's neighbours have none, so every square shows.
    """
    candidates = {sq for sq in range(64) if all(lit >> (n - 1) & 1 for n in square_corners(sq))}
    cover: dict[int, int] = {}
    for sq in candidates:
        for n in square_corners(sq):
            cover[n] = cover.get(n, 0) + 1
    essential = {sq for sq in candidates if any(cover[n] == 1 for n in square_corners(sq))}
    out = 0
    for sq in candidates:
        file, rank = sq % 8, sq // 8
        across = 0 < file < 7 and {sq - 1, sq + 1} <= essential
        along = 0 < rank < 7 and {sq - 8, sq + 8} <= essential
        if not (across or along):
            out |= 1 << sq
    return out


def square_patterns(patterns: Sequence[int]) -> dict[int, int]:
    """Each lit square's own 8-slot pattern (bit 7 the first slot, as in ``L``) from the 81 LED
    pattern bytes; squares never lit are left out."""
    if len(patterns) != LED_COUNT:
        raise ValueError(f"an LED pattern has {LED_COUNT} bytes, got {len(patterns)}")
    out: dict[int, int] = {}
    for slot in range(8):
        bit = 7 - slot
        lit = 0
        for i, pattern in enumerate(patterns):
            if pattern >> bit & 1:
                lit |= 1 << i
        squares = lit_squares(lit) if lit else 0
        while squares:
            low = squares & -squares
            sq = low.bit_length() - 1
            out[sq] = out.get(sq, 0) | 1 << bit
            squares ^= low
    return out


def grid_for_squares(squares: Mapping[int, int]) -> tuple[int, ...]:
    """The 81 LED bytes that light each square's four corners with its pattern (for clients and tests)."""
    grid = [0] * LED_COUNT
    for sq, pattern in squares.items():
        for n in square_corners(sq):
            grid[n - 1] |= pattern
    return tuple(grid)


def led_text(slot_time: int, grid: Sequence[int]) -> str:
    """The ``L`` command's text (without block parity) for a slot time and 81 pattern bytes."""
    return "L" + f"{slot_time:02X}" + "".join(f"{b:02X}" for b in grid)
