"""The daemon: one asyncio event loop, sensors -> tracker -> session -> engine -> LEDs.

Everything that changes the game runs on the loop's thread: board events (delivered from the
backend's threads through ``asyncio_callback``), web actions and engine replies. The engine thinks
in its own process and is awaited as a task, so the loop never blocks on it. After every handled
input the game is saved (if it changed), the LEDs are updated and a state line goes to every
subscriber (stdio printer, web page). SIGTERM ends the loop with the game saved.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import logging
import signal
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import chess

from boardctl import config as config_mod
from boardctl.config import Config
from boardctl.engine_client import EngineClient, resolve_command
from boardctl.errors import BoardctlError, ConfigError, EngineError
from boardctl.events import Button, ButtonPressed, Code, Event, SquareChanged, format_event
from boardctl.session import EngineRequest, Session, Settings
from boardctl.storage import EventLog, GameRecord, GameStore

log = logging.getLogger(__name__)

#: State lines kept for a subscriber that is not reading (a stalled browser tab).
SUBSCRIBER_BACKLOG = 256

#: How often time is advanced in real-time mode (settle windows, clock flags).
TICK_INTERVAL = 0.05


class ActionError(BoardctlError, ValueError):
    """A web (or other) action the daemon cannot carry out; the message says why."""


def settings_from_config(mode: str, cfg: Config) -> Settings:
    return Settings(
        mode="play" if mode == "play" else "record",
        color=cfg.game_color,
        level=cfg.engine_level,
        orientation=cfg.board_orientation,
        time_control=cfg.game_time_control,
        policy=cfg.game_policy,
        arbiter=cfg.game_arbiter,
        takeback=cfg.game_takeback,
        settle=cfg.board_settle,
        legal_moves=cfg.game_legal_moves,
        blunder_warning=cfg.game_blunder_warning,
    )


class Daemon:
    """Owns the session, the saved files, the engine task and the subscribers."""

    def __init__(
        self,
        session: Session,
        *,
        store: GameStore,
        engine: EngineClient | None = None,
        board: Any = None,
        virtual_board: bool = False,
        virtual_time: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``board``: a ``boardctl.hw`` board (LEDs, buzzer, events) or None (stdio);
        ``virtual_board``: accept square events from the web; ``virtual_time``: time moves only with
        the input (stdio ``t``), so no timer ticks and engine replies take no time."""
        self.session = session
        self.store = store
        self.engine = engine
        self.board = board
        self.virtual_board = virtual_board
        self.virtual_time = virtual_time
        self._clock = clock
        self._subscribers: list[asyncio.Queue[dict[str, Any]]] = []
        self._engine_task: asyncio.Task[None] | None = None
        self._engine_for: EngineRequest | None = None
        self._log: EventLog | None = None
        self._state: dict[str, Any] = {}
        self._last_compared: dict[str, Any] = {}
        self._closed = False
        #: True when the board calls ``feed`` on the loop's thread (stdio), False when it queues.
        self.direct = False
        #: The page's address once the web server listens (None: no page).
        self.web_url: str | None = None
        self._publish(None)

    # -- the web's view ---------------------------------------------------------------------------

    @property
    def games_dir(self) -> Path:
        return self.store.root

    def pgn(self) -> str:
        return self.session.record.pgn_text()

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=SUBSCRIBER_BACKLOG)
        self._subscribers.append(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        with contextlib.suppress(ValueError):
            self._subscribers.remove(queue)

    def state(self) -> dict[str, Any]:
        return dict(self._state)

    def now(self) -> float:
        return self.session.t if self.virtual_time else self._clock()

    async def submit(self, action: dict[str, Any]) -> None:
        """An action from the web page: ``event`` (virtual board only), ``button`` or ``new-game``."""
        if not isinstance(action, dict) or len(action) != 1:
            raise ActionError("action: expected exactly one of event, button, new-game")
        ((kind, value),) = action.items()
        if kind == "event":
            if not self.virtual_board:
                raise ActionError("event: only the simulated board takes events from the web")
            if not isinstance(value, dict) or set(value) != {"square", "occupied"}:
                raise ActionError('event: expected {"square": "e2", "occupied": true|false}')
            square, occupied = value["square"], value["occupied"]
            if square not in chess.SQUARE_NAMES or not isinstance(occupied, bool):
                raise ActionError(f"event: bad square {square!r} or occupied {occupied!r}")
            self.inject(SquareChanged(self.now(), chess.parse_square(square), occupied), reason=Code.WEB)
        elif kind == "button":
            try:
                button = Button(value)
            except ValueError:
                raise ActionError(f"button: unknown button {value!r}") from None
            self.handle(ButtonPressed(self.now(), button), reason=Code.WEB)
        elif kind == "new-game":
            await self.new_game(value or {})
        else:
            raise ActionError(f"action: unknown kind {kind!r} (one of event, button, new-game)")

    async def new_game(self, params: dict[str, Any]) -> None:
        unknown = set(params) - {"color", "level", "time-control", "fen"}
        if unknown:
            raise ActionError(f"new-game: unknown field(s) {', '.join(sorted(unknown))}")
        settings = self.session.settings
        try:
            if params.get("color"):
                settings = replace(settings, color=config_mod.KEY_BY_NAME["game.color"].check(params["color"]))
            if params.get("level"):
                settings = replace(settings, level=config_mod.check_level(params["level"]))
            if "time-control" in params and params["time-control"] is not None:
                settings = replace(settings, time_control=config_mod.check_time_control(params["time-control"]))
            fen = params.get("fen") or None
            if fen is not None:
                chess.Board(fen)
        except ValueError as exc:
            raise ActionError(f"new-game: {exc}") from None
        if self.engine is not None and settings.level != self.engine.level:
            await self.engine.set_level(settings.level)
        self.session.new_game(self.now(), fen=fen, settings=settings)
        self._after(Code.NEW_GAME)

    # -- the loop ---------------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """The board's callback when it delivers on the loop's thread (``direct``): no state line yet."""
        self.session.feed(event)

    def handle(self, event: Event, *, reason: str | None = None) -> dict[str, Any]:
        """Feed one event; returns (and publishes) the state line that answers it."""
        self.session.feed(event)
        return self._after(reason)

    def inject(self, event: Event, *, reason: str | None = None) -> dict[str, Any] | None:
        """An event made by hand on the sim board (stdio line, web drag): through the sim's wood rules.

        Returns the state line when the board delivers directly; raises ActionError for an
        impossible event (a lift from an empty square, a place on an occupied one).
        """
        board = self.board
        if board is None or not hasattr(board, "inject"):
            return self.handle(event, reason=reason)
        if not board.inject(event):
            self._after(reason, error=f"impossible on a real board, ignored: {format_event(event)}")
            raise ActionError(f"impossible on a real board: {format_event(event)}")
        return self._after(reason) if self.direct else None

    def tick(self) -> None:
        """Real time passes: publish only when something besides the clock changed."""
        self.session.tick(self.now())
        self._after(Code.CLOCK, only_if_changed=True)

    def flush(self, *, error: str | None = None) -> dict[str, Any]:
        """Publish the state line answering input already fed (or refused with ``error``)."""
        return self._after(None, error=error)

    def _after(self, reason: str | None, *, only_if_changed: bool = False, error: str | None = None) -> dict[str, Any]:
        self._save()
        if self.board is not None:
            self.board.show(self.session.leds())
            for code in self.session.take_sounds():
                self.board.play(code)
        else:
            self.session.take_sounds()
        self._start_engine()
        return self._publish(reason, only_if_changed=only_if_changed, error=error)

    def _publish(self, reason: str | None, *, only_if_changed: bool = False, error: str | None = None) -> dict[str, Any]:
        line = self.session.state_line()
        compared = {k: v for k, v in line.items() if k != "clock"}
        if only_if_changed and compared == self._last_compared:
            return line
        self._last_compared = compared
        if reason is not None:
            line["reason"] = str(reason)
        self._state = line
        if error is not None:
            line = {**line, "error": error}
        for queue in self._subscribers:
            if queue.full():
                queue.get_nowait()  # a stalled page: drop its oldest line; every line is a full state
            queue.put_nowait(line)
        return line

    def _save(self) -> None:
        session = self.session
        for old in session.take_finished():
            self.store.save(old)
        record = session.record
        if self._log is None or self._log.path != self.store.path(record.id, ".jsonl"):
            if self._log is not None:
                self._log.close()
            self._log = self.store.event_log(record.id)
        for event in session.take_log():
            self._log.append(event)
        if session.take_dirty():
            self.store.save(record)

    def _start_engine(self) -> None:
        request = self.session.engine_request()
        if request is None or request is self._engine_for or self.engine is None:
            return
        if self._engine_task is not None and not self._engine_task.done():
            self._engine_task.cancel()
        self._engine_for = request
        self._engine_task = asyncio.get_running_loop().create_task(self._ask_engine(request))

    async def _ask_engine(self, request: EngineRequest) -> None:
        assert self.engine is not None
        try:
            if request.kind == "move":
                reply = await self.engine.play(request.board, budget=request.budget)
            else:
                reply = await self.engine.hint(request.board)
        except asyncio.CancelledError:
            raise
        except EngineError as exc:
            log.error("%s", exc)
            self.session.engine_failed(request, str(exc))
            self._after(Code.ENGINE_ERROR)
            return
        self.session.engine_replied(request, reply, self.now())
        self._after(Code.ENGINE_MOVE if request.kind == "move" else Code.HINT)

    async def idle(self) -> None:
        """Wait until the engine has answered what it was asked (virtual time: replies take no time)."""
        while self._engine_task is not None and not self._engine_task.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._engine_task)

    async def run_board(self, stop: asyncio.Event) -> None:
        """Drive the session from ``self.board`` (and web actions) until ``stop`` is set."""
        from boardctl.hw.base import asyncio_callback

        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Event] = asyncio.Queue()
        self.board.start(asyncio_callback(loop, queue))
        self.tick()
        ticker = loop.create_task(self._ticker())
        getter: asyncio.Task[Event] | None = None
        stopper = loop.create_task(stop.wait())
        try:
            while not stop.is_set():
                getter = loop.create_task(queue.get())
                done, _ = await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    try:
                        self.handle(getter.result())
                    except Exception:  # one bad event must not take the board down; the game is saved
                        log.exception("failed to handle %r", getter.result())
                    getter = None
        finally:
            for task in (ticker, getter, stopper):
                if task is not None:
                    task.cancel()

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(TICK_INTERVAL)
            try:
                self.tick()
            except Exception:  # keep time moving; the game is saved after every move
                log.exception("timer tick failed")

    async def close(self) -> None:
        """Save and stop the engine; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._engine_task is not None:
            self._engine_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._engine_task
        self.session.take_dirty()
        self.store.save(self.session.record)
        if self._log is not None:
            self._log.close()
        if self.engine is not None:
            await self.engine.close()


# -- building it from the command line ------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser, *, mode: str) -> None:
    """The options of ``play``/``record``/``demo``; ``None`` defaults let the config files speak."""
    g = parser.add_argument_group("board")
    g.add_argument("--board", choices=["sim", "gpio", "serial"], help="board backend (board.backend)")
    g.add_argument("--serial-url", help="pyserial URL (board.serial_url)")
    g.add_argument("--orientation", choices=["auto", "normal", "flipped"], help="board.orientation")
    g.add_argument("--settle", type=float, help="seconds before a placed piece counts (board.settle)")
    g.add_argument("--debounce", type=float, help="gpio switch debounce, seconds (board.debounce)")
    g.add_argument("--pinout", help="gpio pin map file (board.pinout)")
    g.add_argument("--stdio", action="store_true", help="sim only: JSON-lines events on stdin, state lines on stdout")
    g.add_argument("--sim-setup", default="expected", metavar="expected|start|empty|FEN",
                   help="where the sim board's pieces start (default: where the game expects them)")
    g.add_argument("--no-terminal", dest="terminal", action="store_false",
                   help="sim without --stdio: do not show the terminal view")
    if mode == "play":
        e = parser.add_argument_group("engine")
        e.add_argument("--engine", help="UCI engine command (engine.path)")
        e.add_argument("--level", help="beginner|intermediate|advanced|master|practice1-5|ELO (engine.level)")
        e.add_argument("--movetime", type=float, help="engine seconds per move (engine.movetime)")
        e.add_argument("--color", choices=["white", "black", "random"], help="your colour (game.color)")
    gm = parser.add_argument_group("game")
    gm.add_argument("--time-control", help="e.g. 15+10 (game.time_control)")
    gm.add_argument("--policy", choices=["fide", "casual"], help="touch-move rules (game.policy)")
    gm.add_argument("--arbiter", action=argparse.BooleanOptionalAction, default=None, help="game.arbiter")
    gm.add_argument("--takeback", choices=["apply", "offer", "off"], help="game.takeback")
    gm.add_argument("--legal-moves", action=argparse.BooleanOptionalAction, default=None, help="game.legal_moves")
    gm.add_argument("--blunder-warning", action=argparse.BooleanOptionalAction, default=None, help="game.blunder_warning")
    gm.add_argument("--fen", help="start a new game from this position")
    gm.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    s = parser.add_argument_group("files and web")
    s.add_argument("--games-dir", help="storage.games_dir")
    s.add_argument("--config", type=Path, help="config file instead of ~/.config/boardctl/config.toml")
    s.add_argument("--no-web", dest="web", action="store_const", const=False, default=None, help="no web page")
    s.add_argument("--host", help="web page address (web.host, default 127.0.0.1)")
    s.add_argument("--port", type=int, help="web page port (web.port, default 8080)")


def config_from_args(args: argparse.Namespace) -> Config:
    cli = {
        "board.backend": args.board,
        "board.serial_url": args.serial_url,
        "board.orientation": args.orientation,
        "board.settle": args.settle,
        "board.debounce": args.debounce,
        "board.pinout": args.pinout,
        "engine.path": getattr(args, "engine", None),
        "engine.level": getattr(args, "level", None),
        "engine.movetime": getattr(args, "movetime", None),
        "game.color": getattr(args, "color", None),
        "game.time_control": args.time_control,
        "game.policy": args.policy,
        "game.arbiter": args.arbiter,
        "game.takeback": args.takeback,
        "game.legal_moves": args.legal_moves,
        "game.blunder_warning": args.blunder_warning,
        "storage.games_dir": args.games_dir,
        "web.enabled": args.web,
        "web.host": args.host,
        "web.port": args.port,
    }
    files = None
    if args.config is not None:
        if not args.config.exists():
            raise ConfigError(f"--config: no such file {args.config}")
        files = [config_mod.SYSTEM_FILE, args.config]
    return config_mod.load(cli, files=files)


def open_session(mode: str, cfg: Config, args: argparse.Namespace, store: GameStore, *, engine_name: str) -> Session:
    settings = replace(settings_from_config(mode, cfg), engine_name=engine_name)
    record: GameRecord | None = None
    if not args.new and not args.fen:
        record = store.unfinished(mode)
        if record is not None:
            log.info("resuming game %s after %d moves", record.id, len(record.moves))
            if record.level:
                settings = replace(settings, level=record.level)
    fen = chess.STARTING_FEN
    if args.fen:
        try:
            fen = chess.Board(args.fen).fen()
        except ValueError as exc:
            raise ConfigError(f"--fen: {exc}") from None
    return Session(settings, record=record, fen=fen)


def _preload_web(cfg: Config) -> None:
    if cfg.web_enabled:
        with contextlib.suppress(ImportError):
            importlib.import_module("boardctl.web.server")


async def _start_web(daemon: Daemon, cfg: Config, *, port_chosen: bool = False) -> Any:
    """The web page on ``web.port``; the documented default port gives way to a free one when it is
    taken, unless the user chose it (``port_chosen``: ``--port``)."""
    if not cfg.web_enabled:
        return None
    try:
        from boardctl.web.server import WebServer, is_loopback_host
    except ImportError as exc:
        log.warning("web page unavailable (%s)", exc)
        return None
    pin: str | None = cfg.web_pin or None
    if pin is None and not is_loopback_host(cfg.web_host):
        from boardctl.web.pin import load_or_create_pin

        pin = load_or_create_pin(config_mod.user_file())
    fallback = not port_chosen and cfg.web_port == config_mod.KEY_BY_NAME["web.port"].default
    server = WebServer(daemon, host=cfg.web_host, port=cfg.web_port, pin=pin, port_fallback=fallback)
    await server.start()
    daemon.web_url = server.url
    return server


async def serve(mode: str, args: argparse.Namespace) -> int:
    """Build everything from ``args`` and the config files, run until EOF/SIGTERM, save, clean up."""
    from boardctl.hw import open_board
    from boardctl.hw.sim import occupancy_for_setup

    cfg = config_from_args(args)
    if args.stdio and cfg.board_backend != "sim":
        raise ConfigError("--stdio: only with the sim board (--board sim)")
    store = GameStore(cfg.games_dir)
    store.ensure()
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    async with contextlib.AsyncExitStack() as stack:
        engine: EngineClient | None = None
        if mode == "play":
            command = resolve_command(cfg.engine_path)
            engine = EngineClient(command, level=cfg.engine_level, movetime=cfg.engine_movetime)
            stack.push_async_callback(engine.close)
            # The engine starts in its own process while this one imports the web server.
            await asyncio.gather(engine.start(), asyncio.to_thread(_preload_web, cfg))
        session = open_session(mode, cfg, args, store, engine_name=engine.name if engine else "")
        if engine is not None and session.settings.level != engine.level:
            await engine.set_level(session.settings.level)  # a resumed game keeps its level
        board = open_board(
            cfg.board_backend,
            url=cfg.board_serial_url,
            pinout=cfg.board_pinout or None,
            debounce=cfg.board_debounce,
            occupancy=occupancy_for_setup(args.sim_setup, expected=session.physical_occupancy()),
        )
        stack.callback(board.close)
        daemon = Daemon(session, store=store, engine=engine, board=board, virtual_board=cfg.board_backend == "sim")
        stack.push_async_callback(daemon.close)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
            stack.callback(loop.remove_signal_handler, sig)
        web = await _start_web(daemon, cfg, port_chosen=args.port is not None)
        if web is not None:
            stack.push_async_callback(web.close)
            if getattr(args, "open_browser", False):
                from boardctl.web.browser import open_page

                open_page(web.url)
        if args.stdio:
            from boardctl.stdio import run_stdio

            return await run_stdio(daemon, stop)
        if cfg.board_backend == "sim" and getattr(args, "terminal", False):
            _start_terminal(daemon, stack)
        await daemon.run_board(stop)
    return 0


def _start_terminal(daemon: Daemon, stack: contextlib.AsyncExitStack) -> None:
    """The sim's terminal view on this terminal: a thread reads commands; the board is redrawn
    when the engine moves or the game ends, with the moves so far."""
    import sys
    import threading

    from boardctl.hw.sim import run_terminal

    out = sys.stdout
    out.write("Type a square to lift or place a piece (e2), a move (e2e4), !hint, !takeback, !resign; '.' redraws.\n")
    threading.Thread(target=run_terminal, args=(daemon.board, sys.stdin, out), daemon=True).start()
    queue = daemon.subscribe()

    async def redraw() -> None:
        shown: tuple[Any, ...] = ()
        while True:
            line = await queue.get()
            key = (line["pending"], line["result"], len(line["moves"]), line["warning"])
            if key == shown or line.get("reason") is None:
                continue
            shown = key
            notes = [f"moves: {' '.join(line['moves']) or '-'}"]
            if line["pending"]:
                notes.append(f"engine plays {line['pending']}: make it on the board")
            if line["warning"]:
                notes.append(str(line["warning"]))
            out.write("\n" + daemon.board.render() + "\n" + "\n".join(notes) + "\n> ")
            out.flush()

    task = asyncio.get_running_loop().create_task(redraw())
    stack.callback(task.cancel)


def run_command(mode: str, args: argparse.Namespace) -> int:
    return asyncio.run(serve(mode, args))
