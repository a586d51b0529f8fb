"""``boardctl host``: host a game for another board (``boardctl join``) or a phone, over the network.

Prints the address and a one-time invitation code; with ``--stdio`` the first state line carries
them under ``invite``. Restarted with the same command, it resumes its unfinished network game.
"""

from __future__ import annotations

import argparse

from boardctl.network import serve


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("host", help="host a game for another board over the network", description=describe(__doc__))
    serve.add_host_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return serve.run_command("host", args)
