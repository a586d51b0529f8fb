"""``boardctl demo`` (``make demo``): play the engine on the simulated board.

It is ``boardctl play --board sim`` with both faces of the sim: the web page (opened in a browser
where there is a desktop, else its address is printed; port 8080 unless it is taken, or
``--port``) and the terminal view. Thinking time is short, and the games go to their own directory under the system's
temporary directory, so the demo never resumes a real game.
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
    args.open_browser = True
    return daemon.run_command("play", args)
