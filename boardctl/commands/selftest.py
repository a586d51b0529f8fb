"""``boardctl selftest``: light each square in turn, have a piece placed on it and lifted, report faults.

All 64 squares of a chess board, or all 90 points of a xiangqi board (``--variant xiangqi``; the
gpio backend takes the board from its pin map, e.g. ``--pinout hardware/pinout-xiangqi.toml``).
For every square: its LED is lit (``Code.SELFTEST``); if the square reads occupied, the
piece must be lifted first; then a piece must be placed on it and lifted again. Whoever
tests presses HINT when a lit LED cannot be seen. Findings:

- *stuck* switch: never reads empty (lift not seen);
- *dead* switch: never reads occupied (place not seen in time);
- *crossed*: another square reported the piece (swapped or shorted wires);
- *dead* LED: HINT pressed while the square was lit;
- *stuck* LED: lit while all LEDs should be dark. Before the squares, every LED is switched
  off; a piece placed on (or lifted from) a square still lit names it, HINT ends the step.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from boardctl.core.geometry import CHESS_8X8, GEOMETRIES, Geometry, Square
from boardctl.events import Button, ButtonPressed, Code, LedIntent, Snapshot, SquareChanged
from boardctl.hw.base import Board, EventQueue

log = logging.getLogger(__name__)


@dataclass
class Report:
    geometry: Geometry = CHESS_8X8
    tested: list[Square] = field(default_factory=list)
    dead_switches: list[Square] = field(default_factory=list)
    stuck_switches: list[Square] = field(default_factory=list)
    dead_leds: list[Square] = field(default_factory=list)
    stuck_leds: list[Square] = field(default_factory=list)
    #: square tested -> squares that reported instead
    crossed: dict[Square, list[Square]] = field(default_factory=dict)

    @property
    def is_ok(self) -> bool:
        return not (self.dead_switches or self.stuck_switches or self.dead_leds or self.stuck_leds or self.crossed)

    def format(self) -> str:
        def names(squares: Iterable[Square]) -> str:
            return " ".join(self.geometry.square_name(s) for s in squares) or "none"

        lines = [
            f"{'squares' if self.geometry == CHESS_8X8 else 'points'} tested: {len(self.tested)}",
            f"dead switches:  {names(self.dead_switches)}",
            f"stuck switches: {names(self.stuck_switches)}",
            f"dead LEDs:      {names(self.dead_leds)}",
            f"stuck LEDs:     {names(self.stuck_leds)}",
        ]
        for sq, others in self.crossed.items():
            lines.append(f"crossed:        {self.geometry.square_name(sq)} was reported as {names(others)}")
        lines.append("result: OK" if self.is_ok else "result: FAULTS FOUND")
        return "\n".join(lines)


class SelfTest:
    def __init__(
        self,
        board: Board,
        *,
        squares: Iterable[Square] | None = None,
        timeout: float = 20.0,
        dark_timeout: float = 10.0,
        prompt: Callable[[str], None] = log.info,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.board = board
        #: The board tested: the backend's.
        self.geometry: Geometry = board.geometry
        self.squares = list(range(self.geometry.points) if squares is None else squares)
        self.timeout = timeout
        self.dark_timeout = dark_timeout
        self.prompt = prompt
        self._clock = clock
        self._events = EventQueue()
        self.occupancy = 0

    def run(self) -> Report:
        report = Report(geometry=self.geometry)
        self.board.start(self._events)
        first = self._events.get(timeout=self.timeout)
        if isinstance(first, Snapshot):
            self.occupancy = first.occupancy
        try:
            self._check_dark(report)
            for sq in self.squares:
                self._test_square(sq, report)
        finally:
            self.board.show(())
        return report

    def _test_square(self, sq: Square, report: Report) -> None:
        name = self.geometry.square_name(sq)
        report.tested.append(sq)
        self.board.show([LedIntent(sq, Code.SELFTEST)])
        led_reported = False
        if self.occupancy >> sq & 1:
            self.prompt(f"{name}: lift the piece from the lit square (HINT if it is not lit)")
            seen, hint = self._wait(sq, occupied=False, report=report)
            led_reported |= hint
            if not seen:
                report.stuck_switches.append(sq)
                self.prompt(f"{name}: stuck switch (never read empty)")
                self._led(sq, led_reported, report)
                return
        self.prompt(f"{name}: place a piece on the lit square (HINT if it is not lit)")
        seen, hint = self._wait(sq, occupied=True, report=report)
        led_reported |= hint
        if not seen:
            report.dead_switches.append(sq)
            self.prompt(f"{name}: dead switch (a piece was never seen)")
            self._led(sq, led_reported, report)
            return
        self.prompt(f"{name}: now lift it")
        seen, hint = self._wait(sq, occupied=False, report=report)
        led_reported |= hint
        if not seen:
            report.stuck_switches.append(sq)
            self.prompt(f"{name}: stuck switch (never read empty again)")
        self._led(sq, led_reported, report)

    def _check_dark(self, report: Report) -> None:
        """All LEDs off: any square still lit is named by a piece placed on or lifted from it."""
        self.board.show(())
        self.prompt("all LEDs are off now: if one is lit, put a piece on it (or lift its piece); press HINT when none is")
        deadline = self._clock() + self.dark_timeout
        while (left := deadline - self._clock()) > 0:
            event = self._events.get(timeout=min(left, 0.1))
            match event:
                case SquareChanged(_, square, occupied):
                    self.occupancy ^= (self.occupancy >> square & 1 != occupied) << square
                    if square not in report.stuck_leds:
                        report.stuck_leds.append(square)
                        self.prompt(f"{self.geometry.square_name(square)}: stuck LED (lit while all are off)")
                case Snapshot(_, occupancy):
                    self.occupancy = occupancy
                case ButtonPressed(_, Button.HINT):
                    return

    def _led(self, sq: Square, reported: bool, report: Report) -> None:
        if reported:
            report.dead_leds.append(sq)

    def _wait(self, sq: Square, *, occupied: bool, report: Report) -> tuple[bool, bool]:
        """Wait for ``sq`` to read ``occupied``; returns (seen, HINT pressed meanwhile)."""
        deadline = self._clock() + self.timeout
        hint = False
        while (left := deadline - self._clock()) > 0:
            event = self._events.get(timeout=min(left, 0.1))
            match event:
                case SquareChanged(_, square, now_occupied):
                    self.occupancy ^= (self.occupancy >> square & 1 != now_occupied) << square
                    if square == sq and now_occupied == occupied:
                        return True, hint
                    if square != sq and now_occupied:
                        others = report.crossed.setdefault(sq, [])
                        if square not in others:
                            others.append(square)
                case Snapshot(_, occupancy):
                    self.occupancy = occupancy
                    if bool(occupancy >> sq & 1) == occupied:
                        return True, hint
                case ButtonPressed(_, Button.HINT):
                    hint = True
        return False, hint


# --- the command ---------------------------------------------------------------------------------------


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import config_help, describe

    parser = sub.add_parser("selftest", help="check every reed switch and LED", description=describe(__doc__),
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--board", choices=["sim", "gpio", "serial"], help=config_help(
        "board.backend", help="board hardware: sim (no hardware), gpio (the Pi scans the switches) or serial (a Pico does)"))
    parser.add_argument("--serial-url", metavar="URL", help=config_help("board.serial_url"))
    parser.add_argument("--pinout", metavar="FILE", help=config_help("board.pinout"))
    parser.add_argument("--pin-factory", choices=["auto", "lgpio", "rpigpio", "native", "mock"],
                        help=config_help("board.pin_factory"))
    parser.add_argument("--variant", choices=sorted(GEOMETRIES), default=None,
                        help="The board: chess (64 squares) or xiangqi (90 points). Default: the pin map's "
                             "board with --board gpio, else chess.")
    parser.add_argument("--squares", default="all",
                        help="Comma-separated squares (points) to test, e.g. a1,e4 (xiangqi: a0,e9). "
                             "Default: all 64 (90).")
    parser.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS",
                        help="Seconds to wait for each lift and place. Default: 20.")
    parser.add_argument("--dark-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="Seconds to look for LEDs lit while all should be off (HINT ends it sooner). Default: 10.")


def _squares(spec: str, geometry: Geometry = CHESS_8X8) -> list[Square]:
    from boardctl.errors import ConfigError

    if spec == "all":
        return list(range(geometry.points))
    try:
        return [geometry.parse(name.strip()) for name in spec.split(",") if name.strip()]
    except ValueError:
        first, last = geometry.square_name(0), geometry.square_name(geometry.points - 1)
        raise ConfigError(
            f"--squares: expected {geometry.name} point names {first}..{last} like "
            f"{'a1,e4' if geometry == CHESS_8X8 else 'a0,e9'}, got {spec!r:.80}"
        ) from None


def run(args: argparse.Namespace) -> int:
    from boardctl import config
    from boardctl.hw import open_board

    cfg = config.load({"board.backend": args.board, "board.serial_url": args.serial_url,
                       "board.pin_factory": getattr(args, "pin_factory", None)})
    variant = getattr(args, "variant", None)
    geometry = GEOMETRIES[variant] if variant else None

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    if cfg.board_backend == "serial" and cfg.board_serial_url:
        from boardctl.hw.seriallink import wait_for_device

        # One clear line (and exit 1) for a wrong port, old firmware or a board of another size.
        wait_for_device(cfg.board_serial_url, geometry=geometry or CHESS_8X8)
    with open_board(cfg.board_backend, url=cfg.board_serial_url, pinout=args.pinout, geometry=geometry,
                    pin_factory=cfg.board_pin_factory) as board:
        squares = _squares(args.squares, board.geometry)
        if cfg.board_backend == "gpio":
            say(f"gpio pin factory: {getattr(board, 'pin_factory_name', '')}")
        if cfg.board_backend == "sim":
            import threading

            from boardctl.hw.sim import SimBoard, run_terminal

            assert isinstance(board, SimBoard)
            say("sim board: type the square names to place and lift pieces, !hint for HINT")
            threading.Thread(target=run_terminal, args=(board, sys.stdin, sys.stdout), daemon=True).start()
        report = SelfTest(board, squares=squares, timeout=args.timeout, dark_timeout=args.dark_timeout, prompt=say).run()
    say(report.format())
    return 0 if report.is_ok else 1
