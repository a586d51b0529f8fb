"""``boardctl demo`` (``make demo``): play the engine on the simulated board, in this terminal.

It is ``boardctl play --board sim`` with the sim's terminal view, a short thinking time and its
own games directory under the system's temporary directory, so it never resumes a real game.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from boardctl import daemon


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("demo", help="play the engine on the simulated board", description=__doc__)
    daemon.add_arguments(parser, mode="play")


def run(args: argparse.Namespace) -> int:
    args.board = args.board or "sim"
    args.movetime = args.movetime if args.movetime is not None else 0.5
    args.games_dir = args.games_dir or str(Path(tempfile.gettempdir()) / "boardctl-demo" / "games")
    return daemon.run_command("play", args)
