"""``boardctl record``: two people play over the board; the game is recorded (see README, "Playing")."""

from __future__ import annotations

import argparse

from boardctl import daemon


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("record", help="record a game between two people", description=describe(__doc__))
    daemon.add_arguments(parser, mode="record")


def run(args: argparse.Namespace) -> int:
    return daemon.run_command("record", args)
