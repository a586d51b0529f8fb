"""The ``boardctl`` command: one sub-command per module of :mod:`boardctl.commands`, each exposing
``add_parser`` and ``run``.

Exit status: 0 done, 1 the hardware is not there (no serial device, no GPIO), 2 a usage or
settings error, 130 interrupted before the game started.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import re
import sys
from collections.abc import Sequence
from typing import Any

from boardctl import __version__
from boardctl.errors import BoardctlError, HardwareError

#: The sub-commands, in the order ``--help`` lists them; each is ``boardctl.commands.NAME``, a
#: module defining ``add_parser(subparsers)`` and ``run(args) -> int``.
COMMANDS: dict[str, str] = {name: f"boardctl.commands.{name}" for name in (
    "replay", "pin", "play", "record", "demo", "games", "selftest", "tournament", "host", "join", "online",
    "learn", "link", "relay",
)}

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def describe(doc: str | None) -> str:
    """A module docstring as help text: reStructuredText markup (````code````, ``:class:`X```) taken out."""
    text = _ROLE.sub(lambda m: m[1].rsplit(".", 1)[-1], doc or "")
    return text.replace("``", "").strip()


def config_help(name: str, *, help: str | None = None, default: str | None = None) -> str:
    """Help for an option that sets config key ``name``: a sentence, its default and the key.

    ``help``/``default`` replace the table's wording (``config.KEYS``) where the flag says it better.
    """
    from boardctl.config import KEY_BY_NAME

    key = KEY_BY_NAME[name]
    sentence = help or key.help
    shown = default
    if shown is None:
        if isinstance(key.default, bool):
            shown = "on" if key.default else "off"
        elif key.default == "" and "; empty: " in sentence:
            sentence, shown = sentence.split("; empty: ", 1)
        elif key.default == "":
            shown = "none"
        else:
            shown = str(key.default)
    sentence = sentence.split("; empty: ", 1)[0]
    if sentence[:1].islower() and not re.match(r"(gpio|serial|sim)\b", sentence):
        sentence = sentence[0].upper() + sentence[1:]
    sentence = sentence.rstrip(".")
    return f"{sentence}. Default: {shown} (config {name})."


def add_key_option(group: argparse._ActionsContainer, key: Any, *, shown_default: str | None = None) -> None:
    """The flag of config key ``key`` (a ``config.Key``), made from the table: type from the
    default, choices from the check, sentence and default from the key; ``None`` as argparse's
    default, so that a flag not given leaves the config files to speak."""
    assert key.flag is not None, key.name
    kwargs: dict[str, Any] = {
        "help": config_help(key.name, help=key.flag_help, default=shown_default or key.shown_default),
    }
    if isinstance(key.default, bool):
        if key.flag.startswith("--no-"):
            kwargs.update(dest=key.dest, action="store_const", const=False, default=None)
        else:
            kwargs.update(action=argparse.BooleanOptionalAction, default=None)
    else:
        if key.choices is not None:
            kwargs["choices"] = list(key.choices)
        if key.metavar is not None:
            kwargs["metavar"] = key.metavar
        if isinstance(key.default, float):
            kwargs["type"] = float
        elif isinstance(key.default, int):
            kwargs["type"] = int
    group.add_argument(key.flag, **kwargs)


def _mark_parsers(parser: argparse.ArgumentParser) -> None:
    """Every (sub-)parser records itself in the namespace, so an unknown option gets its own usage."""
    parser.set_defaults(_parser=parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _mark_parsers(child)


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose mistakes are one line and a pointer to ``--help`` (argparse
    prints the whole usage first, 18 lines for ``boardctl demo``, above the error)."""

    def error(self, message: str) -> Any:  # argparse's signature: it never returns
        self.exit(2, f"{self.prog}: error: {message}\nType {self.prog} --help for the options.\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that sub-command's module is imported (faster start-up)."""
    parser = Parser(
        prog="boardctl",
        description="A reed-switch chess e-board: play the engine, record games, replay, check the hardware. "
        "Try it without a board: boardctl demo.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging: -v for what happens, -vv for debugging. Default: warnings only.")
    parser.add_argument("--version", action="version", version=f"boardctl {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(module_name)
        module.add_parser(sub)
        assert name in sub.choices, f"{module_name} must register {name!r}"
    _mark_parsers(parser)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv``; an unknown option is reported with the usage of the sub-command it was given to."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        owner: argparse.ArgumentParser = getattr(args, "_parser", parser)
        owner.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_in(argv))
    args = parse_args(parser, argv)
    plain = args.verbose == 0 and sys.stderr.isatty()
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        # At a terminal without -v, a warning is one readable line; logs (journal, files) keep the time.
        format="boardctl: %(message)s" if plain else "%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    module = importlib.import_module(COMMANDS[args.command])
    try:
        code: int = module.run(args)
    except HardwareError as exc:
        sys.stderr.write(f"boardctl {args.command}: {exc}\n")
        return 1
    except BoardctlError as exc:
        sys.stderr.write(f"boardctl {args.command}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
