"""``boardctl replay FILE|-``: judge an event log as the daemon did and print the game(s) as PGN.

The events go through the very :class:`~boardctl.session.Session` the daemon runs (tracker,
touch-move, buttons, clock, game end), so a saved ``<id>.jsonl`` prints the saved game. A log the
daemon wrote starts with a header line (settings, start position, clock; docs/events.md) and
holds the engine's replies; a hand-made log without one is judged with ``--policy``/``--fen``.

Violations and notices go to stderr, one line each: ``warning: <code> <ply> <detail>``.
The whole input is parsed before anything is written, so a malformed line leaves stdout empty.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from boardctl.errors import EventFormatError
from boardctl.lines import iter_lines
from boardctl.positions import board_from_fen
from boardctl.replay import read_events, replay
from boardctl.tracker import Policy
from boardctl.variants import NAMES, get_variant


def add_parser(sub: Any) -> None:
    from boardctl.cli import describe

    parser: argparse.ArgumentParser = sub.add_parser("replay", help="replay an event log (.jsonl) as PGN",
                                                     description=describe(__doc__))
    parser.add_argument("file", help="event file (JSON lines, docs/events.md), or - for standard input")
    parser.add_argument("--policy", choices=["strict", "fide", "casual"], default="strict",
                        help="Touch-move rules for a log without a header line: strict (or its old name fide) "
                        "enforces them, casual lets any piece be touched. Default: strict.")
    parser.add_argument("--variant", choices=list(NAMES), default="chess",
                        help="The game of a log without a header line. Default: chess.")
    parser.add_argument("--fen", help="The game's starting position, for a log without a header line. "
                        "Default: the standard start.")
    parser.add_argument("--xiangqi-rules", choices=["chinese", "asian"], default="chinese",
                        help="Xiangqi repetitions in a log without a header line: the Chinese competition rules "
                        "(chinese) or the Asian rules (asian, pyffish). Default: chinese.")
    parser.add_argument("--xiangqi-move-limit", type=int, default=60, metavar="MOVES",
                        help="Xiangqi: moves by each side without a capture that draw (1-60). Default: 60.")


def run(args: argparse.Namespace, *, stdin: TextIO | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    variant = get_variant(getattr(args, "variant", None) or "chess")
    board = board_from_fen(args.fen, where="--fen", variant=variant) if args.fen else None
    # Read bytes, whatever the locale: a line that is not UTF-8 is an error naming that line.
    if args.file == "-":
        binary = getattr(stdin, "buffer", None)
        events = read_events(iter_lines(binary) if binary is not None else stdin, name="<stdin>", variant=variant)
    else:
        path = Path(args.file)
        try:
            with path.open("rb") as handle:
                events = read_events(iter_lines(handle), name=str(path), variant=variant)
        except OSError as exc:
            raise EventFormatError(f"{path}: cannot read ({exc.strerror})") from None
    limit = getattr(args, "xiangqi_move_limit", 60)
    if not 1 <= limit <= 60:
        print(f"boardctl replay: --xiangqi-move-limit is 1 to 60 moves a side, got {limit}", file=stderr)
        return 2
    games, warnings = replay(events, policy=Policy(args.policy), board=board, variant=variant,
                             xiangqi_rules=getattr(args, "xiangqi_rules", "chinese"), xiangqi_move_limit=limit)
    for warning in warnings:
        stderr.write(f"{warning}\n")
    stdout.write("\n\n".join(str(game.to_pgn()) for game in games) + "\n")
    return 0
