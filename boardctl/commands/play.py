"""``boardctl play``: a game against the engine on the board (see docs/playing.md)."""

from __future__ import annotations

import argparse

from boardctl.commands import options, root


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("play", help="play against the engine", description=describe(__doc__))
    options.add_arguments(parser, mode="play")


def run(args: argparse.Namespace) -> int:
    return root.run(options.options_from_args(args, mode="play"))
