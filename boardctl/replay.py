"""``boardctl replay FILE|-``: feed an event log through the tracker and print the game(s) as PGN.

Violations and notices go to stderr, one line each: ``warning: <code> <ply> <detail>``.
The whole input is parsed before anything is written, so a malformed line leaves stdout empty.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import chess
import chess.pgn

from boardctl.errors import EventFormatError
from boardctl.events import Code, Event, Tick, parse_event
from boardctl.tracker import (
    DEFAULT_TIMING,
    Forfeit,
    GameStarted,
    MoveMade,
    MoveTakenBack,
    Policy,
    TakebackMode,
    Timing,
    Tracker,
    Violation,
)

#: Long enough after the last event for any settle or promotion window to close.
_FLUSH = 60.0


@dataclass
class ReplayedGame:
    board: chess.Board
    comments: dict[int, list[str]] = field(default_factory=dict)
    result: str = "*"

    def to_pgn(self) -> chess.pgn.Game:
        game = chess.pgn.Game.from_board(self.board)
        result = self.result if self.result != "*" else self.board.result(claim_draw=False)
        game.headers["Result"] = result
        for index, node in enumerate(game.mainline()):
            notes = self.comments.get(index + 1)
            if notes:
                node.comment = " ".join(notes)
        return game


@dataclass
class ReplayWarning:
    code: Code
    ply: int
    detail: str

    def __str__(self) -> str:
        return f"warning: {self.code} {self.ply} {self.detail}"


def read_events(lines: Iterable[str], *, name: str = "-") -> list[Event]:
    """Parse every line (blank lines skipped); an error names the file and line number."""
    events: list[Event] = []
    last_t = 0.0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        event = parse_event(line, where=where)
        if event.t < last_t:
            raise EventFormatError(f"{where}: 't' went backwards ({event.t} after {last_t})")
        last_t = event.t
        events.append(event)
    return events


def replay(
    events: Iterable[Event],
    *,
    policy: Policy = Policy.FIDE,
    board: chess.Board | None = None,
    timing: Timing = DEFAULT_TIMING,
) -> tuple[list[ReplayedGame], list[ReplayWarning]]:
    """Run the tracker over ``events``; return the games played and the warnings, in order."""
    tracker = Tracker(board, policy=policy, timing=timing, takeback=TakebackMode.APPLY)
    games = [ReplayedGame(tracker.board.copy())]
    warnings: list[ReplayWarning] = []
    last_t = 0.0

    def take(outputs: Iterator[Any]) -> None:
        game = games[-1]
        for out in outputs:
            if isinstance(out, MoveMade):
                game.board.push(out.move)
            elif isinstance(out, MoveTakenBack):
                game.board.pop()
                warnings.append(ReplayWarning(Code.TAKEBACK, out.ply, f"{out.move.uci()} taken back"))
            elif isinstance(out, Violation):
                warnings.append(ReplayWarning(out.code, out.ply, out.detail))
                game.comments.setdefault(out.ply, []).append(f"{out.code}: {out.detail}")
            elif isinstance(out, Forfeit):
                game.result = out.result
            elif isinstance(out, GameStarted):
                warnings.append(ReplayWarning(Code.NEW_GAME, len(game.board.move_stack) + 1, out.fen))
                game = ReplayedGame(chess.Board(out.fen))
                games.append(game)

    for event in events:
        last_t = event.t
        take(iter(tracker.feed(event).outputs))
    take(iter(tracker.feed(Tick(last_t + _FLUSH)).outputs))
    if len(games) > 1 and not games[0].board.move_stack:
        games.pop(0)  # the file began by setting up a new game
    return games, warnings


def add_parser(sub: Any) -> None:
    from boardctl.cli import describe

    parser: argparse.ArgumentParser = sub.add_parser("replay", help="replay an event log (.jsonl) as PGN",
                                                     description=describe(__doc__))
    parser.add_argument("file", help="event file (JSON lines, docs/events.md), or - for standard input")
    parser.add_argument("--policy", choices=[p.value for p in Policy], default=Policy.FIDE.value,
                        help="Touch-move rules: fide enforces them, casual lets any piece be touched. Default: fide.")
    parser.add_argument("--fen", help="The game's starting position. Default: the standard start.")


def run(args: argparse.Namespace, *, stdin: TextIO | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    board = None
    if args.fen:
        try:
            board = chess.Board(args.fen)
        except ValueError as exc:
            raise EventFormatError(f"--fen: not a valid FEN ({exc})") from None
    if args.file == "-":
        events = read_events(stdin, name="<stdin>")
    else:
        path = Path(args.file)
        try:
            with path.open(encoding="utf-8") as handle:
                events = read_events(handle, name=str(path))
        except OSError as exc:
            raise EventFormatError(f"{path}: cannot read ({exc.strerror})") from None
        except UnicodeDecodeError:
            raise EventFormatError(f"{path}: not UTF-8 text") from None
    games, warnings = replay(events, policy=Policy(args.policy), board=board)
    for warning in warnings:
        stderr.write(f"{warning}\n")
    stdout.write("\n\n".join(str(game.to_pgn()) for game in games) + "\n")
    return 0
