"""The command line's side of the composition root: the options of a command that runs a daemon,
made from the settings table, read into one typed :class:`~boardctl.commands.root.Options` and
checked there, once, before anything starts."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from boardctl import config as config_mod
from boardctl.commands.root import Options, check_game_ready, start_fen
from boardctl.config import Config
from boardctl.errors import ConfigError


def _board_extras(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--stdio", action="store_true",
                       help="Sim only: read events as JSON lines on stdin and write state lines on stdout "
                       "(docs/events.md). Default: off.")
    group.add_argument("--sim-setup", default="expected", metavar="expected|start|empty|FEN",
                       help="Where the sim board's pieces stand at start. Default: expected (where the game has them).")
    group.add_argument("--no-terminal", dest="terminal", action="store_false",
                       help="Sim without --stdio: do not show the board in this terminal nor read moves from it. "
                       "Default: shown when the input is a terminal or a pipe.")


def _game_extras(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--fen", help="Start a new game from this position (FEN). Default: the standard start, "
                       "or the unfinished game.")
    group.add_argument("--new", action="store_true",
                       help="Start a new game even if one is unfinished; the unfinished one is marked abandoned "
                       "(as the page's New game does). Default: resume it.")


def _files_extras(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--config", type=Path, metavar="FILE",
                       help="Read settings from this file instead of the user file. Default: ~/.config/boardctl/config.toml.")


def _engine_extras(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--opponent", metavar="NAME",
                       help="Play against this character (id or name, e.g. ilya or \"Ilya Inferno\"; "
                       "docs/learning.md lists them): its style, repertoire and strength instead of --level, "
                       "and the finished game counts in your rating. Default: none, the engine at --level.")


#: The options that are not settings, each after the setting it sits beside in ``--help``.
EXTRAS_AFTER: dict[str, Callable[[argparse._ArgumentGroup], None]] = {
    "board.pinout": _board_extras,
    "game.blunder_warning": _game_extras,
    "storage.games_dir": _files_extras,
    "engine.level": _engine_extras,
}


def add_arguments(parser: argparse.ArgumentParser, *, mode: str, shown_defaults: Mapping[str, str] | None = None) -> None:
    """The options of a command that runs a daemon: one flag per key of ``config.KEYS`` that
    ``mode`` reads (``boardctl.cli.add_key_option``), plus the few that are not settings.
    ``shown_defaults``: a default as this command's help says it (the demo's own)."""
    from boardctl.cli import add_key_option

    keys = sorted((key for key in config_mod.KEYS if key.flag is not None and mode in key.commands),
                  key=lambda key: config_mod.GROUPS.index(key.group))  # stable: table order in a group
    groups = {name: parser.add_argument_group(name) for name in config_mod.GROUPS
              if any(key.group == name for key in keys)}
    for key in keys:
        add_key_option(groups[key.group], key, shown_default=(shown_defaults or {}).get(key.name))
        if key.name in EXTRAS_AFTER:
            EXTRAS_AFTER[key.name](groups[key.group])


def config_from_args(args: argparse.Namespace) -> Config:
    """The settings: the flags given in ``args`` over the config files (``--config`` or the usual ones)."""
    cli = {key.name: getattr(args, key.dest, None) for key in config_mod.KEYS if key.dest is not None}
    files = None
    config = getattr(args, "config", None)
    if config is not None:
        if not config.exists():
            raise ConfigError(f"--config: no such file {config}")
        files = [config_mod.SYSTEM_FILE, config]
    return config_mod.load(cli, files=files)


def options_from_args(args: argparse.Namespace, *, mode: str, cfg: Config | None = None, **given: Any) -> Options:
    """The checked options of a command that runs a daemon of ``mode`` (``play`` or ``record``):
    the settings (``cfg``, else read from ``args`` and the config files) and the flags that are not
    settings. ``given``: fields the command sets itself (a lesson's ``new``, the demo's browser).
    Every fault is one BoardctlError here (exit status 2), before anything is opened."""
    if cfg is None:
        cfg = config_from_args(args)
    character = _opponent(mode, args, cfg)
    fields: dict[str, Any] = {
        "command": getattr(args, "command", None) or mode, "mode": mode, "cfg": cfg, "character": character,
        "new": bool(getattr(args, "new", False)), "fen": getattr(args, "fen", None) or None,
        "stdio": bool(getattr(args, "stdio", False)), "sim_setup": getattr(args, "sim_setup", "expected"),
        "terminal": bool(getattr(args, "terminal", False)), "port_chosen": getattr(args, "port", None) is not None,
        "games_dir_given": getattr(args, "games_dir", None) is not None,
    }
    fields.update(given)
    options = Options(**fields)
    if character is not None:
        options = options.with_cfg(engine_level=character.level)
    variant = check_game_ready(options.cfg)
    if options.fen:
        start_fen(options.fen, variant)  # refused before anything starts
    if options.stdio and options.cfg.board_backend != "sim":
        raise ConfigError("--stdio: only with the sim board (--board sim)")
    return options


def _opponent(mode: str, args: argparse.Namespace, cfg: Config) -> Any:
    """The character of ``--opponent`` (play only, of the game played), or None; one clear error otherwise."""
    name = getattr(args, "opponent", None)
    if name is None:
        return None
    from boardctl.learning.characters import find_character

    if mode != "play":
        raise ConfigError(f"--opponent: only with boardctl play, not {mode}")
    if getattr(args, "level", None) is not None:
        raise ConfigError("--opponent and --level: choose one (a character plays at its own rating)")
    try:
        return find_character(name, game=cfg.game_variant)
    except ConfigError as exc:
        raise ConfigError(f"--opponent: {exc}") from None
