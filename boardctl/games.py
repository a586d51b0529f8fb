"""``boardctl games list|show|export``: the saved games (PGN, state file and event log per game).

Games of boardctl demo are kept apart, so that play never resumes one; --demo reads them.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from boardctl import config
from boardctl.errors import GameFileError
from boardctl.storage import ABANDONED, GameRecord, GameStore

log = logging.getLogger(__name__)

def demo_games_dir() -> Path:
    """Where ``boardctl demo`` saves its games: beside the real ones, never mixed with them."""
    return config.data_dir() / "demo-games"


def resume_notice(record: GameRecord, *, command: str) -> str:
    """The announcement of a resumed game for the terminal and the log: the page's words
    (``session.resume_notice``, one source) ending with the command that starts afresh, e.g.
    "Resuming your unfinished game of 2026-12-01, move 12, you play Black. New game: boardctl play --new"."""
    from boardctl.session import resume_notice as page_notice

    head = page_notice(record).split(" New game:", 1)[0]
    return f"{head} New game: {command}"


def abandon_unfinished(store: GameStore, mode: str) -> list[GameRecord]:
    """Mark every unfinished game of ``mode`` abandoned (``--new``), so none is resumed later."""
    marked = []
    while (record := store.unfinished(mode)) is not None:
        record.termination = ABANDONED
        store.save(record)
        log.info("game %s (%d moves) marked %s", record.id, len(record.moves), ABANDONED)
        marked.append(record)
    return marked


def _folder_options(parser: argparse.ArgumentParser, *, default: object) -> None:
    folder = parser.add_mutually_exclusive_group()
    folder.add_argument("--games-dir", metavar="DIR", default=default, help=(
        "Read the games in this folder. Default: storage.games_dir from the config, "
        "else $XDG_DATA_HOME/boardctl/games (~/.local/share/boardctl/games)."))
    folder.add_argument("--demo", action="store_true", default=default if default is not None else False, help=(
        f"Read the games of boardctl demo ({demo_games_dir()}). Default: off, the real games."))
    parser.add_argument("--config", type=Path, metavar="FILE", default=default, help=(
        "Read settings from this file instead of the user file. Default: ~/.config/boardctl/config.toml."))


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("games", help="list, show and export saved games", description=describe(__doc__))
    _folder_options(parser, default=None)
    # The same options after the action (games list --games-dir X); SUPPRESS keeps one given before it.
    common = argparse.ArgumentParser(add_help=False)
    _folder_options(common, default=argparse.SUPPRESS)
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", parents=[common], help="one line per game, oldest first",
                       description="One line per saved game, oldest first: id, mode, players, result, moves, opening.")
    show = actions.add_parser("show", parents=[common], help="print one game's PGN",
                              description="Print one saved game's PGN.")
    show.add_argument("game", help="game id, or a unique prefix of it, or 'last' (the newest)")
    export = actions.add_parser("export", parents=[common], help="all (or the given) games as one PGN file",
                                description="All saved games (or the given ones) as one PGN file.")
    export.add_argument("games", nargs="*", help="game ids or prefixes. Default: all games.")
    export.add_argument("-o", "--output", type=Path, metavar="FILE", help="Write here. Default: standard output.")


def _find(store: GameStore, name: str) -> GameRecord:
    ids = store.ids()
    if name == "last" and ids:
        return store.load(ids[-1])
    matches = [i for i in ids if i.startswith(name)]
    if len(matches) != 1:
        found = "no game" if not matches else f"{len(matches)} games"
        raise GameFileError(f"{found} matching {name!r} in {store.root}{_demo_hint(store)}")
    return store.load(matches[0])


def _demo_hint(store: GameStore) -> str:
    demo = GameStore(demo_games_dir())
    if store.root != demo.root and demo.ids():
        return f" (the demo's games are in {demo.root}: add --demo)"
    return ""


def run(args: argparse.Namespace) -> int:
    if args.demo:
        root = demo_games_dir()
    else:
        files = None if args.config is None else [config.SYSTEM_FILE, args.config]
        root = config.load({"storage.games_dir": args.games_dir}, files=files).games_dir
    store = GameStore(root)
    out = sys.stdout
    if args.action == "list":
        records = list(store.records())
        if not records:
            sys.stderr.write(f"no games saved in {store.root}{_demo_hint(store)}\n")
        for record in records:
            opening = record.to_pgn().headers.get("Opening", "")
            status = record.result if record.result != "*" else (record.termination or "unfinished")
            out.write(
                f"{record.id}  {record.mode:6}  {record.white} - {record.black}  {status}  "
                f"{len(record.moves)} plies  {opening}\n"
            )
    elif args.action == "show":
        out.write(_find(store, args.game).pgn_text())
    else:
        records = [_find(store, g) for g in args.games] if args.games else list(store.records())
        text = "\n".join(record.pgn_text() for record in records)
        if args.output is not None:
            args.output.write_text(text, encoding="utf-8")
        else:
            out.write(text)
    return 0
