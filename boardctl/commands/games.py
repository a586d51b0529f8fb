"""``boardctl games list|show|export|open``: the saved games (PGN, state file and event log per
game), and any game record to play on from.

Games of boardctl demo are kept apart, so that play never resumes one; --demo reads them.
``export --notation`` writes xiangqi moves in ICCS (H2-E2), WXF (C2.5) or Chinese (炮二平五 马８进７;
``chinese-ascii``: 马8进7);
chess games keep SAN. ``open FILE`` sets up the position after ``--ply N`` (default: the last)
of the one game in FILE (a PGN; in xiangqi also an XQF file) and plays on from it, against the
engine by default (``--mode record``: two people), with every option of ``boardctl play``.
The record's game is what it says of itself (XQF, a ``Game`` or ``Variant`` tag, the ranks of
its FEN), else the game its moves are legal in; ``--variant`` is trusted unless the record says
or its moves show it is of the other game (``boardctl.records.read_any_record``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from boardctl import config
from boardctl.errors import GameFileError
from boardctl.guide import GUIDED_MODES
from boardctl.stepper import ReplayGame, read_game_file
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


def abandon_unfinished(store: GameStore, mode: str, *, variant: str | None = None) -> list[GameRecord]:
    """Mark every unfinished game of ``mode`` (of ``variant`` when given: ``--new`` leaves the
    other game's alone) abandoned, so none is resumed later."""
    marked = []
    while (record := store.unfinished(mode, variant=variant)) is not None:
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
    export.add_argument("--notation", choices=NOTATIONS, default=None, help=(
        "How xiangqi moves are written: iccs (H2-E2), wxf (C2.5), chinese (炮二平五 马８进７, Black's digits "
        "full-width as Chinese PGN files print them) or chinese-ascii (马8进7); chess games keep SAN. "
        "Default: iccs."))
    _add_open(actions)
    add_step(actions)


#: Xiangqi move notations of ``games export --notation`` (boardctl.variants.xiangqi.notation).
NOTATIONS = ("iccs", "wxf", "chinese", "chinese-ascii")


def _add_open(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.commands import options

    opener = actions.add_parser(
        "open", help="play on from a game record (PGN, or XQF in xiangqi)",
        description="Set up the position after ply N of the one game in FILE and play on from it: against the "
        "engine (--mode play, the default) or between two people (--mode record). Takes every option of "
        "boardctl play; the game's own moves are not part of the new game.")
    opener.add_argument("file", type=Path, metavar="FILE", help="the game record: a PGN file, or XQF in xiangqi")
    opener.add_argument("--ply", type=int, metavar="N", default=None,
                        help="Set up the position after this many half-moves (0: the start). Default: the last.")
    opener.add_argument("--mode", choices=("play", "record"), default="play",
                        help="Play on against the engine (play) or between two people (record). Default: play.")
    options.add_arguments(opener, mode="play")


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


#: Largest record ``games open`` reads: a PGN of one long game is some tens of kilobytes.
MAX_RECORD_BYTES = 1024 * 1024


def read_opened(args: argparse.Namespace) -> tuple[str, str, str]:
    """``(variant, fen, note)``: the game ``games open`` plays on from, read from ``args.file`` at
    ``args.ply``; every fault is one GameFileError naming the file."""
    from boardctl.records import RecordError, read_any_record

    path: Path = args.file
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise GameFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_RECORD_BYTES:
        raise GameFileError(f"{path}: larger than {MAX_RECORD_BYTES} bytes; is it one game?")
    try:
        variant, game = read_any_record(data, named=args.variant)
        board = game.board_after(variant, args.ply)
    except RecordError as exc:
        raise GameFileError(f"{path}: {exc}") from None
    plies = len(board.move_stack)
    note = (f"{path.name} is set up as it stands after {plies} of its {len(game.moves)} half-moves; "
            "the new game starts there")
    return variant.name, board.fen(), note


def open_record(args: argparse.Namespace) -> int:
    """``games open``: the daemon of ``--mode`` on the position read from the record."""
    from boardctl.commands import options, root

    variant, fen, note = read_opened(args)
    args.variant = variant  # the record's game, over --variant
    log.warning("%s", note)
    return root.run(options.options_from_args(args, mode=args.mode, fen=fen, new=False, note=note))


def _export_text(record: GameRecord, notation: str | None) -> str:
    """One game's PGN; the moves of a game with record formats of its own (xiangqi) in ``notation``
    (chess keeps SAN)."""
    from boardctl.variants import NAMES, get_variant

    name = getattr(record, "variant", "chess")
    if name not in NAMES or not get_variant(name).has_part("records"):
        return record.pgn_text()
    return xiangqi_pgn(record, notation or "iccs")


def xiangqi_pgn(record: GameRecord, notation: str) -> str:
    """A xiangqi game as PGN in the Chinese-chess convention (``[Game "Chinese Chess"]`` first,
    ``Red``, ``Black``, ``Result``, ``FEN`` for a set-up, ``Format``), its moves in ``notation``,
    written by ``boardctl.variants.xiangqi.records.export``."""
    import re

    from boardctl.variants import get_variant

    records = get_variant("xiangqi").part("records")
    tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]\s*$', record.pgn_text(), flags=re.MULTILINE))
    for western, side in (("White", "Red"),):
        if western in tags and side not in tags:
            tags[side] = tags.pop(western)
    text: str = records.export(list(record.moves), record.fen, notation, tags=tags, result=record.result)
    return text


def run(args: argparse.Namespace) -> int:
    if args.action == "open":
        return open_record(args)
    if args.action == "step":
        return run_step(args)
    if args.demo:
        root = demo_games_dir()
    else:
        files = None if args.config is None else [config.SYSTEM_FILE, args.config]
        root = config.load({"storage.games_dir": args.games_dir}, files=files).games_dir
    store = GameStore(root)
    out = sys.stdout
    if args.action == "list":
        records: list[GameRecord] = []
        damaged: list[str] = []
        for game_id in store.ids():
            try:
                records.append(store.load(game_id))  # a damaged state file is rebuilt from its log
            except GameFileError as exc:
                damaged.append(f"{game_id}  damaged: {exc}\n")
        if not records and not damaged:
            sys.stderr.write(f"no games saved in {store.root}{_demo_hint(store)}\n")
        out.writelines(damaged)
        for record in records:
            opening = record.to_pgn().headers.get("Opening", "")
            unfinished = "left midway" if record.mode in GUIDED_MODES else "unfinished"  # a lesson, a replay
            status = record.result if record.result != "*" else (record.termination or unfinished)
            out.write(
                f"{record.id}  {record.mode:6}  {record.white} - {record.black}  {status}  "
                f"{len(record.moves)} plies  {opening}\n"
            )
    elif args.action == "show":
        out.write(_find(store, args.game).pgn_text())
    else:
        records = [_find(store, g) for g in args.games] if args.games else list(store.records())
        text = "\n".join(_export_text(record, args.notation) for record in records)
        if args.output is not None:
            args.output.write_text(text, encoding="utf-8")
        else:
            out.write(text)
    return 0


# -- games step: a game replayed on the board (boardctl.stepper's guide) ---------------------------


def game_from_store(store: GameStore, name: str) -> ReplayGame:
    """A saved game by id, unique id prefix or ``last``."""
    record = _find(store, name)
    if not record.moves:
        raise GameFileError(f"game {record.id} has no moves to step through")
    headers = {"White": record.white, "Black": record.black, "Result": record.result,
               "Date": record.started[:10]}
    return ReplayGame(record.variant, record.fen, tuple(record.moves),
                      {k: v for k, v in headers.items() if v}, source=record.id)


def load_game(name: str, *, store: GameStore, variant_name: str | None = None) -> ReplayGame:
    """``name`` as a record file when such a file exists (or it ends in .pgn/.xqf), else a saved game."""
    path = Path(name)
    if path.suffix.lower() in (".pgn", ".xqf") or path.is_file():
        return read_game_file(path, variant_name=variant_name)
    return game_from_store(store, name)


def add_step(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``games step`` action and its options (those of ``boardctl record`` besides its own)."""
    from boardctl.commands import options

    step = actions.add_parser(
        "step", help="replay a game on the board, move by move",
        description="Set up the start of a game on the board, then step through it: the hint button forward, "
        "takeback back. The LEDs show each move and you make it, or with --watch you only watch. GAME is a saved "
        "game's id (or a unique prefix, or 'last'), or a record file: any PGN (in xiangqi also XQF).")
    step.add_argument("game", metavar="GAME", help="a saved game's id, unique prefix or 'last'; or a PGN/XQF file")
    step.add_argument("--watch", action="store_true",
                      help="Only watch: nothing is moved on the board, the LEDs show each move. Default: you make "
                      "each move on the board.")
    options.add_arguments(step, mode="record")


def run_step(args: argparse.Namespace) -> int:
    """``games step``: read the game, then run the daemon on its start with a :class:`StepGuide`."""
    import tempfile

    from boardctl.commands import options, root
    from boardctl.stepper import StepGuide
    from boardctl.variants import get_variant

    if getattr(args, "demo", False):
        folder = demo_games_dir()
    else:
        files = None if args.config is None else [config.SYSTEM_FILE, args.config]
        folder = config.load({"storage.games_dir": args.games_dir}, files=files).games_dir
    game = load_game(args.game, store=GameStore(folder), variant_name=args.variant)
    variant = get_variant(game.variant)
    guide = StepGuide(game, variant, watch=args.watch)  # every move checked before the board starts

    args.variant = game.variant
    args.time_control = ""
    log.info("stepping through %s: %d plies", game.source, len(game.moves))
    with tempfile.TemporaryDirectory(prefix="boardctl-step-") as scratch:
        args.games_dir = scratch  # the replay is not a game of its own: nothing is kept
        fen = game.fen if game.fen != variant.starting_fen else None
        return root.run(options.options_from_args(args, mode="record", fen=fen, new=True), root.GuidePlug(guide))
