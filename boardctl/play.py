"""``boardctl play``: a game against the engine on the board (see docs/playing.md)."""

from __future__ import annotations

import argparse

from boardctl import launch


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("play", help="play against the engine", description=describe(__doc__))
    launch.add_arguments(parser, mode="play")


def run(args: argparse.Namespace) -> int:
    return launch.run_command("play", args)
