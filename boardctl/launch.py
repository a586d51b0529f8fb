"""Building the daemon from the command line: ``play``, ``record`` and ``demo`` share this.

The flow runs one way: this module reads the options and the config files, opens the store, the
engine, the board and the web page, and hands the :class:`~boardctl.daemon.Daemon` to its driver,
:mod:`boardctl.stdio` (``--stdio``), the terminal view, or the board's own events.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import importlib
import logging
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from boardctl import config as config_mod
from boardctl.config import Config
from boardctl.core.rules import Variant
from boardctl.daemon import Daemon
from boardctl.engine_client import EngineClient, resolve_command
from boardctl.errors import ConfigError
from boardctl.games import abandon_unfinished, resume_notice
from boardctl.guided_actions import start_guided
from boardctl.positions import board_from_fen
from boardctl.session import Session, Settings
from boardctl.stdio import InputClock, run_stdio
from boardctl.storage import GameRecord, GameStore
from boardctl.tracker import Policy
from boardctl.variants import get_variant

log = logging.getLogger(__name__)


def settings_from_config(mode: str, cfg: Config) -> Settings:
    return Settings(
        mode="play" if mode == "play" else "record",
        color=cfg.game_color,
        level=cfg.engine_level,
        orientation=cfg.board_orientation,
        time_control=cfg.game_time_control,
        policy=Policy(cfg.game_policy).value,
        arbiter=cfg.game_arbiter,
        takeback=cfg.game_takeback,
        settle=cfg.board_settle,
        legal_moves=cfg.game_legal_moves,
        blunder_warning=cfg.game_blunder_warning,
        variant=cfg.game_variant,
        xiangqi_rules=cfg.xiangqi_rules,
        xiangqi_move_limit=cfg.xiangqi_move_limit,
        coach=cfg.coach_enabled,  # None: at the practice levels only; false (or --no-coach): never
    )


class NotReady(ConfigError):
    """The chosen game cannot run with the chosen parts; the message says which part."""


def check_game_ready(mode: str, cfg: Config) -> Variant:
    """The game of ``game.variant``, once the parts it needs are in this build; otherwise one
    clear :class:`NotReady` naming the part (never a traceback half-way through starting). A
    board that does not fit the game (an 8 x 8 pin map for xiangqi, a serial device of another
    size) is refused by the board itself when it opens, in one line too. Every game in
    :data:`boardctl.variants.NAMES` ships with the package: an ``ImportError`` of its rules
    (or of what they import) is a broken install and raises as it is, never a polite line."""
    where = f"--variant {cfg.game_variant}"
    variant = get_variant(cfg.game_variant)
    if variant.write_pgn is None:  # every move is saved as PGN: a game that cannot be is not started
        raise NotReady(f"{where}: this build cannot save {variant.name} games as PGN yet")
    return variant


def check_engine_plays(engine: EngineClient, variant: Variant) -> None:
    """Refuse, before any game is opened, an engine that cannot play ``variant`` (it must offer
    ``UCI_Variant`` with the game among its values); chess needs no option."""
    if variant.name == "chess":
        return
    option = engine.options.get("UCI_Variant")
    if option is None or (option.var and variant.name not in option.var):
        raise NotReady(f"--variant {variant.name}: engine {engine.name} does not play {variant.name} "
                       f"(no UCI_Variant {variant.name}); give one that does with --engine")


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
    """The options of ``play``/``record``/``demo``: one flag per key of ``config.KEYS`` that
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
    if args.config is not None:
        if not args.config.exists():
            raise ConfigError(f"--config: no such file {args.config}")
        files = [config_mod.SYSTEM_FILE, args.config]
    return config_mod.load(cli, files=files)


def open_session(mode: str, cfg: Config, args: argparse.Namespace, store: GameStore, *, engine_name: str,
                 announce: int = logging.WARNING, opponent: str = "") -> Session:
    """A new game, or the newest unfinished one of ``mode``, announced in the log at level
    ``announce`` (INFO when the terminal view shows the announcement itself); ``opponent``: the
    character's label (play --opponent)."""
    settings = replace(settings_from_config(mode, cfg), engine_name=engine_name, opponent=opponent)
    variant = get_variant(cfg.game_variant)
    record: GameRecord | None = None
    if not args.new and not args.fen:
        record = store.unfinished(mode, variant=variant.name)  # this game's own: another variant's never
        other = store.unfinished(mode)
        if (other is not None and other.variant != variant.name and other.moves
                and (record is None or other.id > record.id)):
            # Said even above the terminal view: a newer game this command leaves, and the way back to it.
            log.warning("Left unfinished: the %s game %s (%d plies); this command plays %s. To return to it: %s "
                        "--variant %s", other.variant, other.id, len(other.moves), variant.name,
                        _command_line(args, mode, store), other.variant)
        if record is not None:
            log.log(announce, "%s", resume_notice(record, command=f"boardctl {getattr(args, 'command', mode)} --new"))
            if record.level:
                settings = replace(settings, level=record.level)
            if record.mode == "play" and record.human in ("white", "black"):  # it keeps its opponent too
                settings = replace(settings, opponent=_resumed_opponent(record))
    elif args.new:
        abandon_unfinished(store, mode, variant=variant.name)
    fen = _start_fen(args.fen, variant) if args.fen else variant.starting_fen
    session = Session(settings, record=record, fen=fen)
    note = getattr(args, "open_note", None)  # boardctl games open: where the position came from
    if note:
        session.warning = note
    return session


def _start_fen(fen: str, variant: Variant) -> str:
    """``--fen``, checked as a position of ``variant`` to start from (PositionError names every fault)."""
    return board_from_fen(fen, where="--fen", variant=variant).fen()


def _preload_web(cfg: Config) -> None:
    if cfg.web_enabled:
        with contextlib.suppress(ImportError):
            importlib.import_module("boardctl.web.server")


async def serve(mode: str, args: argparse.Namespace) -> int:
    """Build everything from ``args`` and the config files, run until EOF/SIGTERM/SIGINT, save, clean up."""
    from boardctl.hw import open_board
    from boardctl.hw.sim import occupancy_for_setup

    cfg = config_from_args(args)
    character = _opponent(mode, args, cfg)
    if character is not None:
        cfg = replace(cfg, engine_level=character.level)
    variant = check_game_ready(mode, cfg)
    if args.fen:
        _start_fen(args.fen, variant)  # refused before anything starts
    if args.stdio and cfg.board_backend != "sim":
        raise ConfigError("--stdio: only with the sim board (--board sim)")
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    async with contextlib.AsyncExitStack() as stack:
        # A stop (Ctrl-C, SIGTERM) while starting ends quietly too, with nothing half-saved.
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
            stack.callback(loop.remove_signal_handler, sig)
        app_link = _open_app_link(mode, args, cfg, variant)  # link.transport: apps served on the side
        if app_link is not None:
            stack.callback(app_link.close)
        if cfg.board_backend == "serial" and not cfg.board_serial_wait:
            # A wrong port: one clear line and exit status 1, before any game is opened or saved.
            from boardctl.hw.seriallink import wait_for_device

            await asyncio.to_thread(functools.partial(wait_for_device, cfg.board_serial_url, geometry=variant.geometry))
        store = GameStore(cfg.games_dir)
        storage_problem: OSError | None = None
        try:
            store.check()
            store.repair()
        except OSError as exc:  # the daemon says it at once, plays on in memory and keeps retrying
            storage_problem = exc
        engine: EngineClient | None = None
        if mode == "play":
            # One UCI client for every game: it sets UCI_Variant from the boards it is given.
            engine = EngineClient(resolve_command(cfg.engine_path), level=cfg.engine_level,
                                  movetime=cfg.engine_movetime,
                                  options=character.uci_options if character is not None else None)
            stack.push_async_callback(engine.close)
            # The engine starts in its own process while this one imports the web server.
            await asyncio.gather(engine.start(), asyncio.to_thread(_preload_web, cfg))
            check_engine_plays(engine, variant)
        if stop.is_set():
            return 0
        view_wanted = _wants_view(cfg, args)
        session = open_session(mode, cfg, args, store, engine_name=engine.name if engine else "",
                               announce=logging.INFO if view_wanted else logging.WARNING,
                               opponent=_character_label(character))
        if engine is not None and session.settings.opponent != _character_label(character):
            character = await _resume_opponent(engine, session.settings.opponent, character)
        prepare = getattr(args, "prepare_session", None)  # boardctl learn, games step: their guide
        if prepare is not None:
            session = prepare(session)
        if engine is not None and session.settings.level != engine.level:
            await engine.set_level(session.settings.level)  # a resumed game keeps its level
        # --stdio: the first input line decides the time base of the board and the daemon alike.
        input_clock = InputClock() if args.stdio else None
        clock = input_clock.now if input_clock is not None else time.monotonic
        board = open_board(
            cfg.board_backend,
            clock=clock,
            url=cfg.board_serial_url,
            pinout=cfg.board_pinout or None, pin_factory=cfg.board_pin_factory,
            debounce=cfg.board_debounce,
            occupancy=occupancy_for_setup(args.sim_setup, expected=session.physical_occupancy(),
                                          geometry=variant.geometry),
            geometry=variant.geometry,
        )
        stack.callback(board.close)
        daemon = Daemon(session, store=store, engine=engine, board=board, virtual_board=cfg.board_backend == "sim",
                        clock=clock, direct=input_clock is not None,
                        coach=make_coach(cfg) if mode == "play" else None, speaker=make_speaker(cfg, variant),
                        guided=start_guided)
        stack.push_async_callback(daemon.close)
        if mode == "play" and variant.name == "chess":
            daemon.on_record_saved.append(_rater())
        if storage_problem is not None:
            daemon.storage_failed(storage_problem)
        on_daemon = getattr(args, "on_daemon", None)  # boardctl tournament next follows its game
        if on_daemon is not None:
            closer = on_daemon(daemon, stop)  # boardctl link: its face, closed before the daemon
            if closer is not None:
                stack.push_async_callback(closer)
        if variant.name == "chess" and getattr(args, "command", mode) != "link":
            from boardctl.chesslink.command import AppMode

            app_mode = AppMode(daemon, stop, transport=cfg.link_transport if cfg.link_transport != "off" else "tcp",
                               port=cfg.link_port or None, host=cfg.link_host, opened=app_link)
            daemon.switches["app-mode"] = app_mode.switch
            stack.push_async_callback(app_mode.close)
            if cfg.link_transport != "off":
                await app_mode.switch(True)
        if daemon.coach is not None and session.is_coached():
            await daemon.coach.coach.start()  # ready before the first move (it loads like the engine)
        if getattr(cfg, "broadcast_url", ""):  # the game live on a club's screen (docs/broadcast.md)
            from boardctl.broadcast.publisher import start_broadcast

            publisher = await start_broadcast(daemon, cfg.broadcast_url, state_dir=store.root / "broadcast")
            stack.push_async_callback(publisher.close)
        web = await start_web(daemon, cfg, port_chosen=args.port is not None, fresh=bool(args.new or args.fen),
                               command=_command_line(args, mode, store))
        if input_clock is not None:
            if web is not None:
                stack.push_async_callback(web.close)
                log.warning("Open %s in a browser", web.url)
            return await run_stdio(daemon, stop, clock=input_clock)
        view = _terminal_view(daemon, cfg) if view_wanted else None
        notes: list[str] = []
        if session.resumed:
            notes.append(resume_notice(session.record, command=f"boardctl {getattr(args, 'command', mode)} --new"))
        if web is not None:
            stack.push_async_callback(web.close)
            if view is not None:
                notes.append(f"Open {web.url} in a browser")
            else:
                log.warning("Open %s in a browser", web.url)
            if getattr(args, "open_browser", False):
                from boardctl.web.browser import open_page

                open_page(web.url)
        if getattr(args, "show_games_dir", False):
            notes.append(f"Games are saved in {store.root} (boardctl games list --demo lists them)")
        if view is not None:
            view.notes = tuple(notes)
            task = loop.create_task(view.run(stop))
            stack.push_async_callback(_finish_view, view, task, daemon)
        await daemon.run_board(stop)
    return 0


def _open_app_link(mode: str, args: argparse.Namespace, cfg: Config, variant: Variant) -> Any:
    """App mode from the config (``link.transport``): the ChessLink transport, opened before the
    game so that a taken port is one line; None when off, under ``boardctl link`` itself (it opens
    its own), for BLE (started with its face) and for xiangqi (no app protocol: said in the log)."""
    if cfg.link_transport == "off" or getattr(args, "command", mode) == "link":
        return None
    if variant.name != "chess":
        log.warning("link.transport: no app protocol exists for %s boards; no app is served", variant.name)
        return None
    from boardctl.chesslink.command import open_transport

    return open_transport(cfg.link_transport, cfg.link_port or None, cfg.link_host)


def _command_line(args: argparse.Namespace, mode: str, store: GameStore) -> str:
    """The command as given, with ``--games-dir`` when it was given: what the log names as the
    way back to a game this run left unfinished (another variant's)."""
    from boardctl.games import demo_games_dir

    command = getattr(args, "command", mode)
    line = f"boardctl {command}"
    given = getattr(args, "games_dir", None)
    if given and not (command == "demo" and Path(given) == demo_games_dir()):
        line += f" --games-dir {store.root}"
    return line


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


def _resumed_opponent(record: GameRecord) -> str:
    """The character label of a saved game's engine side, or "" (the plain engine)."""
    from boardctl.learning.characters import label, load_characters

    theirs = record.black if record.human == "white" else record.white
    return theirs if any(label(c) == theirs for c in load_characters(game=record.variant)) else ""


async def _resume_opponent(engine: EngineClient, opponent: str, asked: Any) -> Any:
    """A resumed game is played on against its own opponent, whatever --opponent says (--new
    starts one against that); the engine gets that opponent's options."""
    from boardctl.learning.characters import NEUTRAL_OPTIONS, label, load_characters

    character = next((c for c in load_characters(game=None) if label(c) == opponent), None)
    if asked is not None:
        log.warning("the unfinished game is against %s; boardctl play --new --opponent %s starts one against %s",
                    opponent or "the plain engine", asked.id, asked.name)
    await engine.set_options(character.uci_options if character is not None else NEUTRAL_OPTIONS)
    return character


def _character_label(character: Any) -> str:
    if character is None:
        return ""
    from boardctl.learning.characters import label

    return label(character)


def _rater() -> Callable[[GameRecord], object]:
    """Rates each finished game against a character (boardctl/learning/rating.py keeps the rating)."""
    from boardctl.learning.characters import rate_finished_game, rating_file
    from boardctl.learning.rating import RatingStore

    return functools.partial(rate_finished_game, store=RatingStore(rating_file()))
def make_coach(cfg: Config) -> Any:
    """The practice coach's own full-strength engine process (started by its first question)."""
    from boardctl.learning.coach import Coach

    return Coach.from_command(resolve_command(cfg.engine_path), movetime=cfg.coach_movetime)


def make_speaker(cfg: Config, variant: Variant) -> Any:
    """Spoken moves (``[speech]``), or None when off."""
    if not cfg.speech_enabled:
        return None
    from boardctl.learning.speech import Speaker, SpeechOptions, words_for

    options = SpeechOptions.from_mapping({
        "enabled": True, "language": cfg.speech_language, "voice": cfg.speech_voice,
        "events": list(cfg.speech_events), "sounds": cfg.speech_sounds, "rate": cfg.speech_rate,
        "output": cfg.speech_output,
    })
    words = words_for(variant.name)
    if options.language not in words.languages:
        raise ConfigError(f"speech.language: {variant.name} has words for {', '.join(words.languages)} only")
    return Speaker(options, words=words, folder=config_mod.data_dir() / "speech")


def _wants_view(cfg: Config, args: argparse.Namespace) -> bool:
    """The sim's face in this terminal (boardctl.terminal), unless --stdio, --no-terminal, or there
    is no input to read (stdin is /dev/null, as under a service manager or in a test)."""
    from boardctl.terminal import reads_input

    return cfg.board_backend == "sim" and not args.stdio and getattr(args, "terminal", False) and reads_input(0)


def _terminal_view(daemon: Daemon, cfg: Config) -> Any:
    import sys

    from boardctl.terminal import TerminalView

    return TerminalView(daemon, out=sys.stdout, style=cfg.terminal_pieces)


async def _finish_view(view: Any, task: asyncio.Task[None], daemon: Daemon) -> None:
    """After the game is saved: stop reading, and say where the game is."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await daemon.close()
    path = daemon.store.path(daemon.session.record.id, ".pgn")
    view.write(f"\nGame saved: {path}\n" if path.exists() else "\n")


def run_command(mode: str, args: argparse.Namespace) -> int:
    return asyncio.run(serve(mode, args))


async def start_web(daemon: Daemon, cfg: Config, *, port_chosen: bool = False, fresh: bool = False,
                     command: str = "boardctl play") -> Any:
    """The web page on ``web.port``; the documented default port gives way to a free one when it is
    taken, unless the user chose it (``port_chosen``: ``--port``). A network game hosted from
    the page before a restart is taken up again unless the command names another game
    (``fresh``: a new one; ``command``: how to return to it, see ``PageInvite.resume``)."""
    if not cfg.web_enabled:
        return None
    try:
        from boardctl.hosts import is_loopback_host
        from boardctl.web.server import WebServer
    except ImportError as exc:
        log.warning("web page unavailable (%s)", exc)
        return None
    pin: str | None = cfg.web_pin or None
    if pin is None and not is_loopback_host(cfg.web_host):
        from boardctl.web.pin import load_or_create_pin

        pin = load_or_create_pin(config_mod.user_file())
    fallback = not port_chosen and cfg.web_port == config_mod.KEY_BY_NAME["web.port"].default
    server = WebServer(daemon, host=cfg.web_host, port=cfg.web_port, pin=pin, port_fallback=fallback)
    invite = None
    if daemon.session.settings.mode != "network":  # the page's Invite: host a network game from here
        from boardctl.network.page_invite import enable

        invite = enable(server, daemon, cfg)
    await server.start()
    daemon.web_url = server.url
    if invite is not None:
        invite.resume(fresh=fresh, command=command)  # a network game the page hosted before a restart
    return server
