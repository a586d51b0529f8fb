"""``boardctl join ws://HOST:PORT --code CODE``: play the game another board hosts (``boardctl host``).

The code is exchanged for the game's token (stored mode 0600); restarted with the same command,
it resumes the unfinished network game with that token.
"""

from __future__ import annotations

import argparse

from boardctl.network import serve


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("join", help="join a game another board hosts", description=describe(__doc__))
    serve.add_join_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return serve.run_command("join", args)
