"""A virtual board behind the same interfaces: it holds its pieces like real wood.

Pieces stay where they are until a lift or place moves them. Faults can be set for the
selftest: a dead switch never closes, a stuck one never opens, a dead LED never lights, a
stuck LED never goes dark.
Events are delivered on the caller's thread (the sim has no thread of its own). A script in
virtual time (stdio JSON lines carrying ``t``) should give the board a ``clock`` returning
that virtual time (e.g. the last ``t`` read, starting at 0.0), since event times are kept
non-decreasing and the start snapshot is stamped with ``clock()``.

The selftest's terminal (``boardctl.hw.sim.run_terminal``; the game's terminal view is
``boardctl.terminal``) reads commands per line:
``e2`` lifts or places on e2, ``e2e4`` does both, ``!hint`` presses a button, ``?`` asks for
a snapshot, ``.`` just redraws; it draws the board with LEDs after every line.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import TextIO

import chess

from boardctl.errors import ConfigError
from boardctl.events import Button, ButtonPressed, Code, Event, Snapshot, SquareChanged, Tick
from boardctl.hw.base import Board, Clock
from boardctl.hw.leds import SIGNALS, step_at

log = logging.getLogger(__name__)

SETUPS = ("expected", "start", "empty")


def occupancy_for_setup(setup: str, *, expected: int) -> int:
    """``--sim-setup``: ``expected`` (the game's position), ``start``, ``empty`` or a FEN."""
    if setup == "expected":
        return expected
    if setup == "start":
        return int(chess.Board().occupied)
    if setup == "empty":
        return 0
    try:
        return int(chess.Board(setup).occupied) if " " in setup.strip() else int(chess.BaseBoard(setup).occupied)
    except ValueError as exc:
        raise ConfigError(f"sim-setup: expected expected|start|empty|FEN, got {setup!r} ({exc})") from None


class SimBoard(Board):
    kind = "sim"

    def __init__(
        self,
        occupancy: int = 0,
        *,
        clock: Clock = time.monotonic,
        dead_switches: Iterable[chess.Square] = (),
        stuck_switches: Iterable[chess.Square] = (),
        dead_leds: Iterable[chess.Square] = (),
        stuck_leds: Iterable[chess.Square] = (),
    ) -> None:
        super().__init__(clock=clock)
        self._pieces = occupancy
        self._dead = _bb(dead_switches)
        self._stuck = _bb(stuck_switches)
        self.dead_leds = _bb(dead_leds)
        self.stuck_leds = _bb(stuck_leds)
        self._occupancy = self._sensed()
        self.tones: list[str] = []  # codes played, newest last (for tests and the terminal view)

    @property
    def pieces(self) -> int:
        """Where pieces physically stand (the sensors may disagree if faulty)."""
        return self._pieces

    def _sensed(self) -> int:
        return (self._pieces & ~self._dead | self._stuck) & chess.BB_ALL

    def _start(self) -> None:
        self.request_snapshot()

    def request_snapshot(self, t: float | None = None) -> None:
        self._emit(Snapshot(self._clock() if t is None else t, self._occupancy))

    # --- the hands ------------------------------------------------------------------------------
    def _move_piece(self, square: chess.Square, present: bool, t: float | None) -> bool:
        if bool(self._pieces >> square & 1) == present:
            log.warning("sim: %s already %s", chess.square_name(square), "occupied" if present else "empty")
            return False
        self._pieces ^= 1 << square
        sensed = self._sensed()
        if sensed == self._occupancy:
            return True  # a faulty switch saw nothing
        self._occupancy = sensed
        self._emit(SquareChanged(self._clock() if t is None else t, square, present))
        return True

    def lift(self, square: chess.Square, *, t: float | None = None) -> bool:
        return self._move_piece(square, False, t)

    def place(self, square: chess.Square, *, t: float | None = None) -> bool:
        return self._move_piece(square, True, t)

    def toggle(self, square: chess.Square, *, t: float | None = None) -> bool:
        return self._move_piece(square, not self._pieces >> square & 1, t)

    def press(self, button: Button, *, t: float | None = None) -> None:
        self._emit(ButtonPressed(self._clock() if t is None else t, button))

    def set_pieces(self, occupancy: int, *, t: float | None = None) -> None:
        """Rearrange everything at once (e.g. a board swept and set up); reported as a snapshot."""
        self._pieces = occupancy & chess.BB_ALL
        self._occupancy = self._sensed()
        self.request_snapshot(t)

    def inject(self, event: Event) -> bool:
        """Apply an event from a script (stdio JSON lines) as if hands did it; False if impossible.

        A lift from an empty square or a place on an occupied one cannot happen on wood, so it
        is logged and dropped. Ticks pass straight through.
        """
        match event:
            case SquareChanged(t, square, occupied):
                return self._move_piece(square, occupied, t)
            case ButtonPressed(t, button):
                self.press(button, t=t)
            case Snapshot(t, occupancy):
                self.set_pieces(occupancy, t=t)
            case Tick():
                self._emit(event)
        return True

    # --- LEDs / buzzer -----------------------------------------------------------------------------
    def lit_now(self, t: float | None = None) -> int:
        """Squares whose LED is lit at time ``t`` (dead LEDs stay dark, stuck ones stay lit)."""
        step = step_at(self._clock() if t is None else t)
        return self._frame.lit(step) & ~self.dead_leds | self.stuck_leds

    def play(self, code: Code) -> None:
        if SIGNALS[code].tones:
            self.tones.append(str(code))

    # --- the terminal view ----------------------------------------------------------------------------
    def render(self, *, white_at_bottom: bool = True) -> str:
        """The board as text: ``o`` a piece, ``.`` empty; a lit square shows its code's initial in caps."""
        lamps = {lamp.square: lamp for lamp in self._frame.lamps}
        ranks = range(7, -1, -1) if white_at_bottom else range(8)
        files = range(8) if white_at_bottom else range(7, -1, -1)
        lines = []
        for rank in ranks:
            cells = []
            for file in files:
                sq = chess.square(file, rank)
                piece = "o" if self._occupancy >> sq & 1 else "."
                lamp = lamps.get(sq)
                mark = f"[{piece}]" if lamp is not None else f" {piece} "
                cells.append(mark)
            lines.append(f"{rank + 1} {''.join(cells)}")
        lines.append("   " + "  ".join("abcdefgh"[f] for f in files))
        if lamps:
            legend = sorted({f"{chess.square_name(s)}={lamp.why}" for s, lamp in lamps.items()})
            lines.append("lit: " + " ".join(legend))
        return "\n".join(lines)


def _bb(squares: Iterable[chess.Square]) -> int:
    out = 0
    for sq in squares:
        out |= 1 << sq
    return out


def run_terminal(board: SimBoard, stdin: TextIO, stdout: TextIO) -> None:
    """The interactive face of the sim: read commands, make events, redraw (see module doc)."""
    stdout.write(board.render() + "\n> ")
    stdout.flush()
    for raw in stdin:
        line = raw.strip().lower()
        try:
            _terminal_command(board, line)
        except ValueError as exc:
            stdout.write(f"? {exc}\n")
        stdout.write(board.render() + "\n> ")
        stdout.flush()


def _terminal_command(board: SimBoard, line: str) -> None:
    """One line of the selftest's terminal; every mistake is a ValueError in plain words."""
    if not line or line == ".":
        return
    if line == "?":
        board.request_snapshot()
    elif line.startswith("!"):
        if line[1:] not in {b.value for b in Button}:
            raise ValueError(f"there is no button '{line[1:]}'; the buttons are " + ", ".join(f"!{b.value}" for b in Button))
        board.press(Button(line[1:]))
    elif len(line) == 2 and line in chess.SQUARE_NAMES:
        board.toggle(chess.parse_square(line))
    elif len(line) == 4 and line[:2] in chess.SQUARE_NAMES and line[2:] in chess.SQUARE_NAMES:
        board.lift(chess.parse_square(line[:2]))
        board.place(chess.parse_square(line[2:]))
    else:
        raise ValueError(f"'{line}' is not a square (e2), a move (e2e4), a button (!hint) or ? (snapshot)")
