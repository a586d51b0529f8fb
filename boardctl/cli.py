"""The ``boardctl`` command: one sub-command per module, each exposing ``add_parser`` and ``run``."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from boardctl.errors import BoardctlError

#: sub-command name -> module defining ``add_parser(subparsers)`` and ``run(args) -> int``.
COMMANDS: dict[str, str] = {
    "replay": "boardctl.replay",
    "pin": "boardctl.web.pin",
    "play": "boardctl.play",
    "record": "boardctl.record",
    "demo": "boardctl.demo",
    "games": "boardctl.games",
    "selftest": "boardctl.selftest",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that sub-command's module is imported (faster start-up)."""
    parser = argparse.ArgumentParser(
        prog="boardctl", description="A reed-switch chess e-board: play the engine, record games, replay, check the hardware."
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(module_name)
        module.add_parser(sub)
        assert name in sub.choices, f"{module_name} must register {name!r}"
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_in(argv))
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    module = importlib.import_module(COMMANDS[args.command])
    try:
        code: int = module.run(args)
    except BoardctlError as exc:
        sys.stderr.write(f"boardctl {args.command}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
