"""The composition root: one place that builds a daemon and its faces from a command's options.

A command reads its options once (:mod:`boardctl.commands.options`, into :class:`Options`) and
hands them to :func:`run` with its :class:`Plug`, the few things only it does (a lesson's guide,
the host's invitation, finding a Lichess game). The root opens the store and the engine, opens or
resumes the game, the board, the daemon, and the faces asked for (the web page, the terminal view
or ``--stdio``, app mode, the broadcast, the command's own links), runs until EOF, SIGTERM or
SIGINT, saves, and closes them in the reverse order.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import logging
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from boardctl import config as config_mod
from boardctl.config import Config
from boardctl.core.rules import Variant
from boardctl.daemon import Daemon
from boardctl.engine_client import EngineClient, resolve_command
from boardctl.errors import ConfigError
from boardctl.positions import board_from_fen
from boardctl.session import Session, Settings
from boardctl.stdio import InputClock, run_stdio
from boardctl.storage import GameRecord, GameStore
from boardctl.tracker import Policy
from boardctl.variants import get_variant

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Options:
    """What the root builds from: the settings and the command's choices that are not settings,
    checked once by the command (``options.options_from_args``) before anything is opened."""

    #: The sub-command as typed (``games`` for ``games open``), for the messages' ``boardctl COMMAND --new``.
    command: str
    #: ``play`` (against the engine) or ``record``: the game's mode and whether an engine runs.
    mode: str
    cfg: Config
    #: ``--opponent``'s character (play only), or None: the engine at ``engine.level``.
    character: Any = None
    #: A new game even if one is unfinished (which is then marked abandoned).
    new: bool = False
    #: A new game from this position (checked), or None.
    fen: str | None = None
    #: The sim board's events and state lines as JSON lines on stdin and stdout.
    stdio: bool = False
    #: Where the sim board's pieces stand at start.
    sim_setup: str = "expected"
    #: The sim's face in this terminal (when stdin reads input and there is no ``--stdio``).
    terminal: bool = True
    #: ``--port`` given: the page takes that port or fails, never another.
    port_chosen: bool = False
    #: ``--games-dir`` given: the way back to a game left unfinished names the folder.
    games_dir_given: bool = False
    #: Open the page in a browser where there is a desktop (the demo).
    open_browser: bool = False
    #: Say where the games are saved (the demo).
    show_games_dir: bool = False
    #: A first message of the game (``games open``: where its position came from).
    note: str = ""

    def with_cfg(self, **changes: Any) -> Options:
        """These options with settings changed (e.g. a character's level)."""
        return replace(self, cfg=replace(self.cfg, **changes))

    @property
    def variant(self) -> Variant:
        return get_variant(self.cfg.game_variant)

    def command_line(self, store: GameStore) -> str:
        """The command as given, with ``--games-dir`` when it was given: the way back to a game."""
        line = f"boardctl {self.command}"
        return f"{line} --games-dir {store.root}" if self.games_dir_given else line


@dataclass
class Run:
    """What the root has built so far, handed to a :class:`Plug`'s hooks."""

    options: Options
    store: GameStore
    stop: asyncio.Event
    #: Everything opened, closed in reverse order when the run ends; a plug pushes its own closers.
    stack: contextlib.AsyncExitStack
    engine: EngineClient | None = None
    #: The character played (``--opponent``, or the resumed game's own), or None.
    character: Any = None
    #: Whether the sim's face is shown in this terminal.
    view_wanted: bool = False

    @property
    def cfg(self) -> Config:
        return self.options.cfg


class Plug:
    """A command's own part of the daemon the root builds. Every hook's default is what ``play``
    and ``record`` do; a command overrides the few it needs."""

    #: A game of this board alone, with the extras of one: the practice coach, speech, the page's
    #: lessons and replays, app mode, the broadcast, the rating, the resume notice. A game against
    #: another board or a Lichess player (``host``, ``join``, ``online``) has none of these.
    local = True
    #: The sim's face in this terminal when it is wanted (``online`` shows none).
    terminal_view = True

    async def open_session(self, run: Run) -> Session | None:
        """The game to run, or None when stopped before there was one (nothing is run)."""
        return await default_session(run)

    def prepare(self, session: Session) -> Session:
        """The session as the command wants it before the board opens (a lesson's guide)."""
        return session

    async def attach(self, daemon: Daemon, run: Run) -> None:
        """Once the daemon holds the game, before the page: the command's links and followers
        (their closers pushed on ``run.stack``)."""

    async def start_web(self, daemon: Daemon, run: Run) -> Any:
        """The web page, or None (``web.enabled`` off)."""
        return await start_web(daemon, run.cfg, port_chosen=run.options.port_chosen,
                               fresh=run.options.new or run.options.fen is not None,
                               command=run.options.command_line(run.store))

    async def started(self, daemon: Daemon, web: Any, run: Run) -> None:
        """Once the page is up, before the game runs."""

    def finished(self) -> None:
        """After everything is closed: a refusal that ended the run is raised here."""


class GuidePlug(Plug):
    """A guide on the session: a lesson's, or the replay of ``games step``."""

    def __init__(self, guide: Any) -> None:
        self.guide = guide

    def prepare(self, session: Session) -> Session:
        session.guide = self.guide
        return session


async def serve(options: Options, plug: Plug | None = None) -> int:
    """Build everything from ``options``, run until EOF/SIGTERM/SIGINT, save, clean up."""
    from boardctl.hw import open_board
    from boardctl.hw.sim import occupancy_for_setup

    plug = plug or Plug()
    cfg = options.cfg
    variant = options.variant
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    status = 0
    async with contextlib.AsyncExitStack() as stack:
        # A stop (Ctrl-C, SIGTERM) while starting ends quietly too, with nothing half-saved.
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
            stack.callback(loop.remove_signal_handler, sig)
        app_link = _open_app_link(options) if plug.local else None  # link.transport: apps served on the side
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
        run = Run(options, store, stop, stack, character=options.character,
                  view_wanted=plug.terminal_view and _wants_view(options))
        if options.mode == "play":
            # One UCI client for every game: it sets UCI_Variant from the boards it is given.
            character = options.character
            player = EngineClient(resolve_command(cfg.engine_path), level=cfg.engine_level,
                                  movetime=cfg.engine_movetime,
                                  options=character.uci_options if character is not None else None)
            run.engine = player
            stack.push_async_callback(player.close)
            # The engine starts in its own process while this one imports the web server.
            await asyncio.gather(player.start(), asyncio.to_thread(_preload_web, cfg))
            check_engine_plays(player, variant)
        if stop.is_set():
            return 0
        opened = await plug.open_session(run)
        if opened is None:
            return 0
        session = plug.prepare(opened)
        engine = run.engine
        if engine is not None and session.settings.level != engine.level:
            await engine.set_level(session.settings.level)  # a resumed game keeps its level
        # --stdio: the first input line decides the time base of the board and the daemon alike.
        input_clock = InputClock() if options.stdio else None
        clock = input_clock.now if input_clock is not None else time.monotonic
        geometry = session.variant.geometry
        board = open_board(
            cfg.board_backend,
            clock=clock,
            url=cfg.board_serial_url,
            pinout=cfg.board_pinout or None, pin_factory=cfg.board_pin_factory,
            debounce=cfg.board_debounce,
            occupancy=occupancy_for_setup(options.sim_setup, expected=session.physical_occupancy(), geometry=geometry),
            geometry=geometry,
        )
        stack.callback(board.close)
        daemon = _daemon(run, session, board, clock=clock, direct=input_clock is not None, local=plug.local)
        stack.push_async_callback(daemon.close)
        if storage_problem is not None:
            daemon.storage_failed(storage_problem)
        await plug.attach(daemon, run)
        if plug.local:
            await _local_faces(daemon, run, app_link)
        web = await plug.start_web(daemon, run)
        if web is not None:
            stack.push_async_callback(web.close)
        await plug.started(daemon, web, run)
        if input_clock is not None:
            if web is not None:
                log.warning("Open %s in a browser", web.url)
            status = await run_stdio(daemon, stop, clock=input_clock)
        else:
            await _run_board(daemon, web, run, local=plug.local)
    plug.finished()
    return status


def run(options: Options, plug: Plug | None = None) -> int:
    """:func:`serve` in its own event loop: what a command's ``run`` returns."""
    return asyncio.run(serve(options, plug))


def _daemon(run: Run, session: Session, board: Any, *, clock: Callable[[], float], direct: bool, local: bool) -> Daemon:
    """The daemon of ``session``; a local game's with the coach (play), speech and the page's lessons."""
    options, cfg = run.options, run.cfg
    if not local:
        return Daemon(session, store=run.store, engine=None, board=board, virtual_board=cfg.board_backend == "sim",
                      clock=clock, direct=direct)
    from boardctl.commands.guided import start_guided

    daemon = Daemon(session, store=run.store, engine=run.engine, board=board,
                    virtual_board=cfg.board_backend == "sim", clock=clock, direct=direct,
                    coach=make_coach(cfg) if options.mode == "play" else None,
                    speaker=make_speaker(cfg, session.variant), guided=start_guided)
    if options.mode == "play" and session.variant.capabilities.is_rated:
        daemon.on_record_saved.append(_rater())
    return daemon


async def _local_faces(daemon: Daemon, run: Run, app_link: Any) -> None:
    """App mode (chess, but under ``boardctl link``, which serves its own), the practice coach's
    engine, and the broadcast to a club's screen."""
    cfg, stack = run.cfg, run.stack
    if daemon.session.variant.capabilities.has_app_link and run.options.command != "link":
        from boardctl.chesslink.appmode import AppMode

        app_mode = AppMode(daemon, run.stop, transport=cfg.link_transport if cfg.link_transport != "off" else "tcp",
                           port=cfg.link_port or None, host=cfg.link_host, opened=app_link)
        daemon.switches["app-mode"] = app_mode.switch
        stack.push_async_callback(app_mode.close)
        if cfg.link_transport != "off":
            await app_mode.switch(True)
    if daemon.coach is not None and daemon.session.is_coached():
        await daemon.coach.coach.start()  # ready before the first move (it loads like the engine)
    if getattr(cfg, "broadcast_url", ""):  # the game live on a club's screen (docs/broadcast.md)
        from boardctl.broadcast.publisher import start_broadcast

        publisher = await start_broadcast(daemon, cfg.broadcast_url, state_dir=run.store.root / "broadcast")
        stack.push_async_callback(publisher.close)


async def _run_board(daemon: Daemon, web: Any, run: Run, *, local: bool) -> None:
    """The board's own events until stopped, with the sim's face in this terminal when wanted."""
    from boardctl.commands.games import resume_notice

    options, session = run.options, daemon.session
    view = _terminal_view(daemon, run.cfg) if run.view_wanted else None
    notes: list[str] = []
    if local and session.resumed:
        notes.append(resume_notice(session.record, command=f"boardctl {options.command} --new"))
    if web is not None:
        if view is not None:
            notes.append(f"Open {web.url} in a browser")
        else:
            log.warning("Open %s in a browser", web.url)
        if options.open_browser:
            from boardctl.web.browser import open_page

            open_page(web.url)
    if options.show_games_dir:
        notes.append(f"Games are saved in {run.store.root} (boardctl games list --demo lists them)")
    if view is not None:
        view.notes = tuple(notes)
        task = asyncio.get_running_loop().create_task(view.run(run.stop))
        run.stack.push_async_callback(_finish_view, view, task, daemon)
    await daemon.run_board(run.stop)


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


def check_game_ready(cfg: Config) -> Variant:
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


def start_fen(fen: str, variant: Variant) -> str:
    """``--fen``, checked as a position of ``variant`` to start from (PositionError names every fault)."""
    return board_from_fen(fen, where="--fen", variant=variant).fen()


async def default_session(run: Run) -> Session:
    """``play``'s and ``record``'s game: the unfinished one resumed (against its own opponent), or a new one."""
    engine = run.engine
    session = open_session(run.options, run.store, engine_name=engine.name if engine else "",
                           announce=logging.INFO if run.view_wanted else logging.WARNING,
                           opponent=_character_label(run.character))
    if engine is not None and session.settings.opponent != _character_label(run.character):
        run.character = await _resume_opponent(engine, session.settings.opponent, run.character)
    return session


def open_session(options: Options, store: GameStore, *, engine_name: str, announce: int = logging.WARNING,
                 opponent: str = "") -> Session:
    """A new game, or the newest unfinished one of the options' mode, announced in the log at level
    ``announce`` (INFO when the terminal view shows the announcement itself); ``opponent``: the
    character's label (play --opponent)."""
    from boardctl.commands.games import abandon_unfinished, resume_notice

    mode, cfg = options.mode, options.cfg
    settings = replace(settings_from_config(mode, cfg), engine_name=engine_name, opponent=opponent)
    variant = get_variant(cfg.game_variant)
    record: GameRecord | None = None
    if not options.new and not options.fen:
        record = store.unfinished(mode, variant=variant.name)  # this game's own: another variant's never
        other = store.unfinished(mode)
        if (other is not None and other.variant != variant.name and other.moves
                and (record is None or other.id > record.id)):
            # Said even above the terminal view: a newer game this command leaves, and the way back to it.
            log.warning("Left unfinished: the %s game %s (%d plies); this command plays %s. To return to it: %s "
                        "--variant %s", other.variant, other.id, len(other.moves), variant.name,
                        options.command_line(store), other.variant)
        if record is not None:
            log.log(announce, "%s", resume_notice(record, command=f"boardctl {options.command} --new"))
            if record.level:
                settings = replace(settings, level=record.level)
            if record.mode == "play" and record.human in ("white", "black"):  # it keeps its opponent too
                settings = replace(settings, opponent=_resumed_opponent(record))
    elif options.new:
        abandon_unfinished(store, mode, variant=variant.name)
    fen = start_fen(options.fen, variant) if options.fen else variant.starting_fen
    session = Session(settings, record=record, fen=fen)
    if options.note:  # boardctl games open: where the position came from
        session.warning = options.note
    return session


def _preload_web(cfg: Config) -> None:
    if cfg.web_enabled:
        with contextlib.suppress(ImportError):
            importlib.import_module("boardctl.web.server")


def _open_app_link(options: Options) -> Any:
    """App mode from the config (``link.transport``): the ChessLink transport, opened before the
    game so that a taken port is one line; None when off, under ``boardctl link`` itself (it opens
    its own), for BLE (started with its face) and for xiangqi (no app protocol: said in the log)."""
    cfg = options.cfg
    if cfg.link_transport == "off" or options.command == "link":
        return None
    if not get_variant(cfg.game_variant).capabilities.has_app_link:
        log.warning("link.transport: no app protocol exists for %s boards; no app is served", cfg.game_variant)
        return None
    from boardctl.chesslink.appmode import open_transport

    return open_transport(cfg.link_transport, cfg.link_port or None, cfg.link_host)


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


def _wants_view(options: Options) -> bool:
    """The sim's face in this terminal (boardctl.terminal), unless --stdio, --no-terminal, or there
    is no input to read (stdin is /dev/null, as under a service manager or in a test)."""
    from boardctl.terminal import reads_input

    return options.cfg.board_backend == "sim" and not options.stdio and options.terminal and reads_input(0)


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


async def start_web(daemon: Daemon, cfg: Config, *, port_chosen: bool = False, fresh: bool = False,
                    command: str = "boardctl play", ssl_context: Any = None) -> Any:
    """The web page on ``web.port``; the documented default port gives way to a free one when it is
    taken, unless the user chose it (``port_chosen``: ``--port``). A network game hosted from
    the page before a restart is taken up again unless the command names another game
    (``fresh``: a new one; ``command``: how to return to it, see ``PageInvite.resume``)."""
    server = web_server(daemon, cfg, port_chosen=port_chosen, ssl_context=ssl_context)
    if server is None:
        return None
    invite = None
    if daemon.session.settings.mode != "network":  # the page's Invite: host a network game from here
        from boardctl.network.page_invite import enable

        invite = enable(server, daemon, cfg)
    await server.start()
    daemon.web_url = server.url
    if invite is not None:
        invite.resume(fresh=fresh, command=command)  # a network game the page hosted before a restart
    return server


def web_server(daemon: Daemon, cfg: Config, *, port_chosen: bool, ssl_context: Any = None) -> Any:
    """The page's server, not started yet (None: ``web.enabled`` off, or the web extra missing):
    a PIN for any address but this machine's, and the documented port giving way to a free one."""
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
    return WebServer(daemon, host=cfg.web_host, port=cfg.web_port, pin=pin, port_fallback=fallback,
                     ssl_context=ssl_context)
