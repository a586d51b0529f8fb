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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="boardctl", description=__doc__)
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        module.add_parser(sub)
        assert name in sub.choices, f"{module_name} must register {name!r}"
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
