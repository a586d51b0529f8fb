"""``boardctl selftest``: light each square in turn, have a piece placed on it and lifted, report faults.

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

import chess

from boardctl.events import Button, ButtonPressed, Code, LedIntent, Snapshot, SquareChanged
from boardctl.hw.base import Board, EventQueue

log = logging.getLogger(__name__)


@dataclass
class Report:
    tested: list[chess.Square] = field(default_factory=list)
    dead_switches: list[chess.Square] = field(default_factory=list)
    stuck_switches: list[chess.Square] = field(default_factory=list)
    dead_leds: list[chess.Square] = field(default_factory=list)
    stuck_leds: list[chess.Square] = field(default_factory=list)
    #: square tested -> squares that reported instead
    crossed: dict[chess.Square, list[chess.Square]] = field(default_factory=dict)

    @property
    def is_ok(self) -> bool:
        return not (self.dead_switches or self.stuck_switches or self.dead_leds or self.stuck_leds or self.crossed)

    def format(self) -> str:
        def names(squares: Iterable[chess.Square]) -> str:
            return " ".join(chess.square_name(s) for s in squares) or "none"

        lines = [
            f"squares tested: {len(self.tested)}",
            f"dead switches:  {names(self.dead_switches)}",
            f"stuck switches: {names(self.stuck_switches)}",
            f"dead LEDs:      {names(self.dead_leds)}",
            f"stuck LEDs:     {names(self.stuck_leds)}",
        ]
        for sq, others in self.crossed.items():
            lines.append(f"crossed:        {chess.square_name(sq)} was reported as {names(others)}")
        lines.append("result: OK" if self.is_ok else "result: FAULTS FOUND")
        return "\n".join(lines)


class SelfTest:
    def __init__(
        self,
        board: Board,
        *,
        squares: Iterable[chess.Square] = chess.SQUARES,
        timeout: float = 20.0,
        dark_timeout: float = 10.0,
        prompt: Callable[[str], None] = log.info,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.board = board
        self.squares = list(squares)
        self.timeout = timeout
        self.dark_timeout = dark_timeout
        self.prompt = prompt
        self._clock = clock
        self._events = EventQueue()
        self.occupancy = 0

    def run(self) -> Report:
        report = Report()
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

    def _test_square(self, sq: chess.Square, report: Report) -> None:
        name = chess.square_name(sq)
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
                        self.prompt(f"{chess.square_name(square)}: stuck LED (lit while all are off)")
                case Snapshot(_, occupancy):
                    self.occupancy = occupancy
                case ButtonPressed(_, Button.HINT):
                    return

    def _led(self, sq: chess.Square, reported: bool, report: Report) -> None:
        if reported:
            report.dead_leds.append(sq)

    def _wait(self, sq: chess.Square, *, occupied: bool, report: Report) -> tuple[bool, bool]:
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
    parser.add_argument("--squares", default="all",
                        help="Comma-separated squares to test, e.g. a1,e4. Default: all 64.")
    parser.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS",
                        help="Seconds to wait for each lift and place. Default: 20.")
    parser.add_argument("--dark-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="Seconds to look for LEDs lit while all should be off (HINT ends it sooner). Default: 10.")


def _squares(spec: str) -> list[chess.Square]:
    from boardctl.errors import ConfigError

    if spec == "all":
        return list(chess.SQUARES)
    try:
        return [chess.parse_square(name.strip()) for name in spec.split(",") if name.strip()]
    except ValueError:
        raise ConfigError(f"--squares: expected square names like a1,e4, got {spec!r}") from None


def run(args: argparse.Namespace) -> int:
    from boardctl import config
    from boardctl.hw import open_board

    cfg = config.load({"board.backend": args.board, "board.serial_url": args.serial_url})
    squares = _squares(args.squares)

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    with open_board(cfg.board_backend, url=cfg.board_serial_url, pinout=args.pinout) as board:
        if cfg.board_backend == "sim":
            import threading

            from boardctl.hw.sim import SimBoard, run_terminal

            assert isinstance(board, SimBoard)
            say("sim board: type the square names to place and lift pieces, !hint for HINT")
            threading.Thread(target=run_terminal, args=(board, sys.stdin, sys.stdout), daemon=True).start()
        report = SelfTest(board, squares=squares, timeout=args.timeout, dark_timeout=args.dark_timeout, prompt=say).run()
    say(report.format())
    return 0 if report.is_ok else 1
