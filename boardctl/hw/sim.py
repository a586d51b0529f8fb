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
a snapshot, ``.`` just redraws; it draws the board with LEDs after every line. Points are named
as the game names them: on a xiangqi board (``geometry=XIANGQI_9X10``, 90 points) ``e0`` is
Red's king point and ``h2e2`` moves a piece from h2 to e2.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import TextIO

from boardctl.core.geometry import CHESS_8X8, Geometry, Square
from boardctl.errors import ConfigError
from boardctl.events import Button, ButtonPressed, Code, Event, Snapshot, SquareChanged, Tick
from boardctl.hw.base import Board, Clock
from boardctl.hw.leds import SIGNALS, step_at

log = logging.getLogger(__name__)

SETUPS = ("expected", "start", "empty")

#: The start position's placement, per board (the game's rules own the full FEN).
START_PLACEMENTS: dict[str, str] = {
    "chess": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    "xiangqi": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR",
}
#: Piece letters a placement may hold, per board (xiangqi FENs write knights and elephants
#: either as n/b or as h/e).
PIECE_LETTERS: dict[str, str] = {"chess": "pnbrqk", "xiangqi": "rnbakcpeh"}
#: Letters of the side to move a full FEN may give (xiangqi's ``w`` is Red, ``r`` also seen).
TURN_LETTERS: dict[str, tuple[str, ...]] = {"chess": ("w", "b"), "xiangqi": ("w", "b", "r")}


def occupancy_for_setup(setup: str, *, expected: int, geometry: Geometry = CHESS_8X8) -> int:
    """``--sim-setup``: ``expected`` (the game's position), ``start``, ``empty`` or a FEN of the game."""
    if setup == "expected":
        return expected
    if setup == "start":
        return occupancy_from_placement(START_PLACEMENTS[geometry.name], geometry)
    if setup == "empty":
        return 0
    try:
        fields = setup.split()
        if not 1 <= len(fields) <= 6:
            raise ValueError("a FEN has one to six fields")
        if len(fields) > 1 and fields[1] not in TURN_LETTERS.get(geometry.name, ("w", "b")):
            raise ValueError(f"bad side to move {fields[1]!r}")
        return occupancy_from_placement(fields[0], geometry)
    except ValueError as exc:
        raise ConfigError(
            f"sim-setup: expected expected|start|empty|{geometry.name} FEN, got {setup!r:.100} ({exc})"
        ) from None


def occupancy_from_placement(placement: str, geometry: Geometry = CHESS_8X8) -> int:
    """The occupied points of a FEN's placement field (ranks from the far side, ``/`` between
    them, digits counting empty points); ValueError says what is wrong."""
    rows = placement.split("/")
    if len(rows) != geometry.ranks:
        raise ValueError(f"the {geometry.name} placement needs {geometry.ranks} ranks, got {len(rows)}")
    letters = PIECE_LETTERS.get(geometry.name)
    occupancy = 0
    for i, row in enumerate(rows):
        rank = geometry.ranks - 1 - i
        file = 0
        run = ""
        for ch in row + "/":
            if ch.isdigit():
                run += ch
                continue
            if run:
                if run.startswith("0"):
                    raise ValueError(f"bad empty count {run!r} in rank {rank + geometry.first_rank}")
                file += int(run)
                run = ""
            if ch == "/":
                break
            if not ch.isascii() or not ch.isalpha() or (letters is not None and ch.lower() not in letters):
                raise ValueError(f"{ch!r} is not a {geometry.name} piece")
            if file < geometry.files:
                occupancy |= 1 << geometry.square(file, rank)
            file += 1
        if file != geometry.files:
            raise ValueError(
                f"rank {rank + geometry.first_rank} of the placement has {file} points, not {geometry.files}"
            )
    return occupancy


class SimBoard(Board):
    kind = "sim"

    def __init__(
        self,
        occupancy: int = 0,
        *,
        clock: Clock = time.monotonic,
        dead_switches: Iterable[Square] = (),
        stuck_switches: Iterable[Square] = (),
        dead_leds: Iterable[Square] = (),
        stuck_leds: Iterable[Square] = (),
        geometry: Geometry = CHESS_8X8,
    ) -> None:
        super().__init__(clock=clock)
        self.geometry = geometry
        if occupancy & ~geometry.all_mask:
            raise ValueError(f"sim: occupancy has bits beyond the {geometry.points} points of the {geometry.name} board")
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
        return (self._pieces & ~self._dead | self._stuck) & self.geometry.all_mask

    def _start(self) -> None:
        self.request_snapshot()

    def request_snapshot(self, t: float | None = None) -> None:
        self._emit(Snapshot(self._clock() if t is None else t, self._occupancy))

    # --- the hands ------------------------------------------------------------------------------
    def _move_piece(self, square: Square, present: bool, t: float | None) -> bool:
        if not self.geometry.is_square(square):
            log.warning("sim: no point %r on the %s board", square, self.geometry.name)
            return False
        if bool(self._pieces >> square & 1) == present:
            log.warning("sim: %s already %s", self.geometry.square_name(square), "occupied" if present else "empty")
            return False
        self._pieces ^= 1 << square
        sensed = self._sensed()
        if sensed == self._occupancy:
            return True  # a faulty switch saw nothing
        self._occupancy = sensed
        self._emit(SquareChanged(self._clock() if t is None else t, square, present))
        return True

    def lift(self, square: Square, *, t: float | None = None) -> bool:
        return self._move_piece(square, False, t)

    def place(self, square: Square, *, t: float | None = None) -> bool:
        return self._move_piece(square, True, t)

    def toggle(self, square: Square, *, t: float | None = None) -> bool:
        return self._move_piece(square, not self._pieces >> square & 1, t)

    def press(self, button: Button, *, t: float | None = None) -> None:
        self._emit(ButtonPressed(self._clock() if t is None else t, button))

    def set_pieces(self, occupancy: int, *, t: float | None = None) -> None:
        """Rearrange everything at once (e.g. a board swept and set up); reported as a snapshot."""
        self._pieces = occupancy & self.geometry.all_mask
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
        """The board as text: ``o`` a piece, ``.`` empty, ``[o]`` a lit point; then the lit points and why.

        Ranks are numbered as the game names them (1-8 in chess, 0-9 in xiangqi); a xiangqi board
        shows its river between ranks 4 and 5.
        """
        g = self.geometry
        lamps = {lamp.square: lamp for lamp in self._frame.lamps}
        ranks = range(g.ranks - 1, -1, -1) if white_at_bottom else range(g.ranks)
        files = range(g.files) if white_at_bottom else range(g.files - 1, -1, -1)
        width = len(str(g.ranks - 1 + g.first_rank))
        river = g.ranks // 2 if g.name == "xiangqi" else None
        lines = []
        for rank in ranks:
            cells = []
            for file in files:
                sq = g.square(file, rank)
                piece = "o" if self._occupancy >> sq & 1 else "."
                lamp = lamps.get(sq)
                mark = f"[{piece}]" if lamp is not None else f" {piece} "
                cells.append(mark)
            lines.append(f"{rank + g.first_rank:>{width}} {''.join(cells)}")
            if river is not None and rank == (river if white_at_bottom else river - 1):
                lines.append(" " * width + " " + "~" * (3 * g.files))
        lines.append(" " * (width + 2) + "  ".join(g.square_name(f)[0] for f in files))
        if lamps:
            legend = sorted({f"{g.square_name(s)}={lamp.why}" for s, lamp in lamps.items()})
            lines.append("lit: " + " ".join(legend))
        return "\n".join(lines)


def _bb(squares: Iterable[Square]) -> int:
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
    elif (g := board.geometry).is_name(line):
        board.toggle(g.parse(line))
    elif (move := _split_move(g, line)) is not None:
        board.lift(move[0])
        board.place(move[1])
    else:
        if g == CHESS_8X8:
            raise ValueError(f"'{line[:40]}' is not a square (e2), a move (e2e4), a button (!hint) or ? (snapshot)")
        raise ValueError(
            f"'{line[:40]}' is not a point (e0), a move (h2e2), a button (!hint) or ? (snapshot) "
            f"on the {g.name} board ({g.square_name(0)}..{g.square_name(g.points - 1)})"
        )


def _split_move(geometry: Geometry, text: str) -> tuple[Square, Square] | None:
    """``h2e2`` -> (h2, e2): two point names one after the other, or None."""
    for cut in range(2, len(text) - 1):
        if geometry.is_name(text[:cut]) and geometry.is_name(text[cut:]):
            return geometry.parse(text[:cut]), geometry.parse(text[cut:])
    return None
