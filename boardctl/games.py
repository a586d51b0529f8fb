"""``boardctl games list|show|export``: the saved games (PGN, state file and event log per game)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boardctl import config
from boardctl.errors import GameFileError
from boardctl.storage import GameRecord, GameStore


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("games", help="list, show and export saved games", description=__doc__)
    parser.add_argument("--games-dir", help="storage.games_dir")
    parser.add_argument("--config", type=Path, help="config file instead of ~/.config/boardctl/config.toml")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("list", help="one line per game, oldest first")
    show = actions.add_parser("show", help="print one game's PGN")
    show.add_argument("game", help="game id, or a unique prefix of it, or 'last'")
    export = actions.add_parser("export", help="all (or the given) games as one PGN file")
    export.add_argument("games", nargs="*", help="game ids or prefixes (default: all)")
    export.add_argument("-o", "--output", type=Path, help="write here instead of stdout")


def _find(store: GameStore, name: str) -> GameRecord:
    ids = store.ids()
    if name == "last" and ids:
        return store.load(ids[-1])
    matches = [i for i in ids if i.startswith(name)]
    if len(matches) != 1:
        found = "no game" if not matches else f"{len(matches)} games"
        raise GameFileError(f"{found} matching {name!r} in {store.root}")
    return store.load(matches[0])


def run(args: argparse.Namespace) -> int:
    files = None if args.config is None else [config.SYSTEM_FILE, args.config]
    cfg = config.load({"storage.games_dir": args.games_dir}, files=files)
    store = GameStore(cfg.games_dir)
    out = sys.stdout
    if args.action == "list":
        for record in store.records():
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
