"""``boardctl record``: two people play over the board; the game is recorded (see docs/playing.md)."""

from __future__ import annotations

import argparse

from boardctl.commands import options, root


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("record", help="record a game between two people", description=describe(__doc__))
    options.add_arguments(parser, mode="record")


def run(args: argparse.Namespace) -> int:
    return root.run(options.options_from_args(args, mode="record"))
