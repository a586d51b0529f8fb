"""The daemon: one asyncio event loop, sensors -> tracker -> session -> engine -> LEDs.

Everything that changes the game runs on the loop's thread: board events (delivered from the
backend's threads through ``asyncio_callback``), web actions and engine replies. The engine thinks
in its own process and is awaited as a task, so the loop never blocks on it. After every handled
input the game is saved (if it changed), the LEDs are updated and a state line goes to every
subscriber (stdio printer, web page). SIGTERM ends the loop with the game saved.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from boardctl import events
from boardctl.actions import (
    Action,
    AppModeAction,
    ButtonAction,
    LessonAction,
    NewGameAction,
    SquareAction,
    StepAction,
    validate_action,
)
from boardctl.actions import ActionError as ActionError  # re-exported: callers catch it here
from boardctl.core.geometry import CHESS_8X8, Geometry, Square
from boardctl.core.rules import Variant
from boardctl.errors import EngineError, TimerError
from boardctl.events import ButtonPressed, Code, Event, SquareChanged, format_event
from boardctl.learning.coach import Coach, CoachWatcher, Verdict
from boardctl.learning.speech import Speaker, SpeechWatcher
from boardctl.reply import Reply
from boardctl.session import EngineRequest, Session
from boardctl.storage import EventLog, GameRecord, GameStore, StorageError

log = logging.getLogger(__name__)

#: State lines kept for a subscriber that is not reading (a stalled browser tab).
SUBSCRIBER_BACKLOG = 256

#: How often time is advanced in real-time mode (settle windows, clock flags).
TICK_INTERVAL = 0.05

#: While saving fails, how often to try again besides on every move (seconds).
STORAGE_RETRY_INTERVAL = 5.0



def corner_squares(geometry: Geometry) -> tuple[Square, ...]:
    """Where the ``storage`` warning shows on the board: the four corners (a1 h1 a8 h8 in chess)."""
    files, points = geometry.files, geometry.points
    return (0, files - 1, points - files, points - 1)


#: The corners of the chess board, where the ``storage`` warning shows.
STORAGE_SQUARES = corner_squares(CHESS_8X8)


class Engine(Protocol):
    """What the daemon asks of its engine: ``EngineClient`` for every game, or a test's stand-in."""

    level: str

    async def set_level(self, level: str) -> None: ...

    async def play(self, board: Any, *, budget: float | None = None) -> Reply: ...

    async def hint(self, board: Any) -> Reply: ...

    async def close(self) -> None: ...


class Daemon:
    """Owns the session, the saved files, the engine task and the subscribers."""

    def __init__(
        self,
        session: Session,
        *,
        store: GameStore,
        engine: Engine | None = None,
        board: Any = None,
        virtual_board: bool = False,
        virtual_time: bool = False,
        clock: Callable[[], float] = time.monotonic,
        direct: bool = False,
        coach: Coach | None = None,
        speaker: Speaker | None = None,
        guided: Callable[[Daemon, LessonAction | StepAction], None] | None = None,
    ) -> None:
        """``board``: a ``boardctl.hw`` board (LEDs, buzzer, events) or None (stdio);
        ``virtual_board``: accept square events from the web; ``virtual_time``: time is the
        session's, moved only by the events fed (so engine replies take no time); otherwise
        ``clock`` tells it (``boardctl.stdio.InputClock`` lets the first input line decide);
        ``direct``: the board delivers on the loop's thread (the stdio sim), see :meth:`feed`;
        ``guided``: what starts a lesson or a replay asked for from the page (the commands give
        boardctl.guided_actions.start_guided; None: not offered by this daemon)."""
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
        # Saving: what is not on disk yet (kept in memory while the disk fails), and why it is not.
        self._unsaved_events: list[tuple[str, Event]] = []
        self._unsaved_records: dict[str, GameRecord] = {}
        self.storage_error: str | None = None
        self._storage_reason = ""
        self._storage_retry: asyncio.TimerHandle | None = None
        self._state: dict[str, Any] = {}
        self._last_compared: dict[str, Any] = {}
        self._closed = False
        self._board_seen = False  # any event from the board (or the page's virtual board) yet
        #: True when the board calls ``feed`` on the loop's thread (stdio), False when it queues.
        self.direct = direct
        #: The page's address once the web server listens (None: no page).
        self.web_url: str | None = None
        #: Called with each game record once it is on disk (play --opponent rates finished games).
        self.on_record_saved: list[Callable[[GameRecord], object]] = []
        #: Keys added to every state line by a part outside the session (``invite``, ``network``).
        self.extra_state: dict[str, Any] = {}
        #: Modes a command offers the page (``app-mode``: on or off), set by the command, not by a face.
        self.switches: dict[str, Callable[[bool], Awaitable[None]]] = {}
        #: LEDs a face shows in place of the game's (``show_face_leds``), or None: the game's.
        self._face_leds: tuple[events.LedIntent, ...] | None = None
        #: Awaited before a new game, a lesson or a replay from the page (the page's Invite stops hosting).
        self.before_new_game: list[Callable[[], Awaitable[None]]] = []
        #: Save a millisecond after the state line rather than before it (network games: the other
        #: board sees a move without waiting for this disk's fsyncs); closing always saves at once.
        self.save_after_publish = False
        self._save_soon: asyncio.TimerHandle | None = None
        #: The practice coach and the spoken moves (boardctl.learning), when on.
        self.coach = CoachWatcher(coach, deliver=self._coach_delivered) if coach is not None else None
        self.speaker = speaker
        self.guided = guided
        self._speech = SpeechWatcher(speaker.words, language=speaker.options.language) if speaker is not None else None
        self._publish(None)

    @property
    def variant(self) -> Variant:
        """The game being played: the session's."""
        return self.session.variant

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

    async def submit(self, action: Action | Any) -> None:
        """An action from the web page, checked by :func:`boardctl.actions.validate_action`:
        ``SquareAction`` (virtual board only), ``ButtonAction`` or ``NewGameAction``. Raw JSON is
        checked by that same function first; ActionError says what is wrong."""
        if not isinstance(action, SquareAction | ButtonAction | NewGameAction | LessonAction | StepAction | AppModeAction):
            try:
                action = validate_action(action, variant=self.variant)
            except ValueError as exc:
                raise ActionError(str(exc)) from None
        if isinstance(action, SquareAction):
            if not self.virtual_board:
                raise ActionError("event: only the simulated board takes events from the web")
            self.inject(SquareChanged(self.now(), action.square, action.occupied), reason=Code.WEB)
        elif isinstance(action, ButtonAction):
            self.handle(ButtonPressed(self.now(), action.button), reason=Code.WEB)
        elif isinstance(action, AppModeAction):
            switch = self.switches.get("app-mode")
            if switch is None:
                raise ActionError("app-mode: not offered here (boardctl play, record and demo on a chess board "
                                  "offer it; boardctl link is always in it)")
            await switch(action.on)
            self._after(Code.WEB)
        elif isinstance(action, LessonAction | StepAction):
            if self.session.settings.mode == "network":
                what = "a lesson" if isinstance(action, LessonAction) else "a replay"
                raise ActionError(f"{what} cannot start during a network game: boardctl host/join plays only that game")
            if self.guided is None:
                raise ActionError("lessons and replays are not offered by this command")
            for hook in self.before_new_game:
                await hook()
            self.guided(self, action)
            self._after(Code.NEW_GAME)
        else:
            await self.new_game(action)

    async def new_game(self, action: NewGameAction) -> None:
        """Start a new game with the checked settings of ``action`` (None keeps the current one)."""
        for hook in self.before_new_game:
            await hook()
        if self.session.local_color() is not None:  # a network game: both boards must agree (a rematch)
            self.session.ask_new_game(self.now())
            self._after(Code.NEW_GAME)
            return
        # Leaving a lesson or a replay started from the page: the settings from before it.
        settings = getattr(self.session.guide, "settings_before", None) or self.session.settings
        if action.color:
            settings = replace(settings, color=action.color)
        if action.level:
            settings = replace(settings, level=action.level)
        if action.time_control is not None:
            settings = replace(settings, time_control=action.time_control)
        if action.opponent is not None:  # a character, or "" for the plain engine (learning/characters.py)
            from boardctl.learning.characters import opponent_settings

            settings, options = opponent_settings(settings, action.opponent)
            set_options = getattr(self.engine, "set_options", None)
            if set_options is not None:
                await set_options(options)
        if self.engine is not None and settings.level != self.engine.level:
            await self.engine.set_level(settings.level)
        self.session.guide = None  # a new game from the page leaves a lesson or a replay
        self.session.new_game(self.now(), fen=action.fen, settings=settings)
        if action.note:  # e.g. only the final position of an uploaded PGN is kept
            self.session.warning = action.note
        self._after(Code.NEW_GAME)

    # -- the loop ---------------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """The board's callback when it delivers on the loop's thread (``direct``): no state line yet."""
        self._board_seen = True
        self.session.feed(event)

    def handle(self, event: Event, *, reason: str | None = None) -> dict[str, Any]:
        """Feed one event; returns (and publishes) the state line that answers it."""
        self._board_seen = True
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
            written = format_event(event, self.variant.geometry)
            self._after(reason, error=f"impossible on a real board, ignored: {written}")
            raise ActionError(f"impossible on a real board: {written}")
        return self._after(reason) if self.direct else None

    def tick(self) -> None:
        """Real time passes: publish only when something besides the clock changed."""
        self.session.tick(self.now())
        self._after(Code.CLOCK, only_if_changed=True)

    def refresh(self, reason: str | None = None) -> dict[str, Any]:
        """The session was changed from outside the board (a network move or message): save,
        show the LEDs and publish a state line with ``reason``."""
        return self._after(reason)

    def flush(self, *, error: str | None = None) -> dict[str, Any]:
        """Publish the state line answering input already fed (or refused with ``error``)."""
        return self._after(None, error=error)

    def show_face_leds(self, intents: Collection[events.LedIntent] | None) -> None:
        """A face lights the board itself (``boardctl link``: an app's ChessLink ``L``): ``intents``
        (squares in the board's own wiring) replace the game's LEDs at once, the ``storage``
        warning still shown; an empty collection darkens them; None gives them back to the game.
        State lines' ``leds`` say what is shown."""
        self._face_leds = None if intents is None else tuple(intents)
        self._show_leds()
        self._publish(None, only_if_changed=True)

    def _show_leds(self) -> None:
        if self.board is None:
            return
        shown = self.session.leds() if self._face_leds is None else list(self._face_leds)
        self.board.show([*shown, *self._storage_leds()])

    def _after(self, reason: str | None, *, only_if_changed: bool = False, error: str | None = None) -> dict[str, Any]:
        self._save()
        if self.board is not None:
            self._show_leds()
            for code in self.session.take_sounds():
                self.board.play(code)
        else:
            self.session.take_sounds()
        self._learning()
        self._start_engine()
        return self._publish(reason, only_if_changed=only_if_changed, error=error)

    def _learning(self) -> None:
        """The coach looks at the player's new move; what changed is said aloud (both queue only)."""
        session = self.session
        if self.coach is not None and session.is_coached():
            self.coach.observe(session.board, human=session.human_color(), variant=self.variant.name,
                               over=session.is_over(), pending=session.pending)
        if self.speaker is not None and self._speech is not None:
            geometry = self.variant.geometry
            said = self._speech.observe(
                game=session.record.id,
                board=session.board,
                pending=session.pending,
                violations=[(v.code, v.detail) for v in session.record.violations],
                result=session.record.result,
                touched=[geometry.square_name(i.square) for i in session.leds() if i.why == Code.TOUCH_MOVE],
            )
            for event in said:
                self.speaker.say(event)

    def _coach_delivered(self, verdict: Verdict | None, ply: int, move: str) -> None:
        if not self._closed and self.session.coach_verdict(verdict, ply, move):
            self._after(Code.COACH)

    def _publish(self, reason: str | None, *, only_if_changed: bool = False, error: str | None = None) -> dict[str, Any]:
        line = self.session.state_line()
        line.setdefault("variant", self.variant.name)  # the game on the board: chess or xiangqi
        line.update(self.extra_state)
        if self._face_leds is not None:
            line["leds"] = [intent.to_json(self.variant.geometry) for intent in self._face_leds]
        if self.storage_error is not None:
            line["warning"] = "; ".join(filter(None, [f"storage: {self.storage_error}", line.get("warning")]))
            line["leds"] = [*line["leds"], *(intent.to_json(self.variant.geometry) for intent in self._storage_leds())]
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
        """Take what changed from the session and write it; on failure keep it and warn (never raise)."""
        if self.save_after_publish and not self._closed:
            if self._save_soon is not None:
                return  # already due in a moment
            with contextlib.suppress(RuntimeError):  # no running loop: saved at once below
                self._save_soon = asyncio.get_running_loop().call_later(0.001, self._save_later)
                return
        if self._save_soon is not None:
            self._save_soon.cancel()
            self._save_soon = None
        self._save_now()

    def _save_later(self) -> None:
        self._save_soon = None
        self._save_now()

    def _save_now(self) -> None:
        session = self.session
        for old in session.take_finished():
            self._unsaved_records[old.id] = old
        record = session.record
        taken = session.take_log()  # (game id, entry): each entry to its own game's log
        self._unsaved_events.extend(taken)
        if session.take_dirty() and self._is_worth_saving(record):
            self._unsaved_records[record.id] = record
        elif self.storage_error is not None and not taken:
            return  # nothing new: the retry timer tries again, not every clock tick
        self._write_unsaved()

    def _write_unsaved(self) -> bool:
        """Write the kept events and records; True when nothing is left unsaved."""
        if not self._unsaved_events and not self._unsaved_records:
            return True
        try:
            while self._unsaved_events:
                game_id = self._unsaved_events[0][0]
                batch = [e for gid, e in self._unsaved_events if gid == game_id]
                if self._log is None or self._log.path != self.store.path(game_id, ".jsonl"):
                    if self._log is not None:
                        self._log.close()
                    self._log = self.store.event_log(game_id)
                self._log.extend(batch)
                self._unsaved_events = [(gid, e) for gid, e in self._unsaved_events if gid != game_id]
            for game_id, record in list(self._unsaved_records.items()):
                self.store.save(record)
                del self._unsaved_records[game_id]
                for hook in self.on_record_saved:
                    try:
                        hook(record)
                    except Exception:  # a hook must never stop saving
                        log.exception("after saving game %s", game_id)
        except OSError as exc:
            self.storage_failed(exc)
            return False
        if self.storage_error is not None:
            log.warning("saving works again: game %s saved in %s", self.session.record.id, self.store.root)
            self.storage_error = None
        return True

    def storage_failed(self, exc: OSError) -> None:
        """Keep the game in memory, warn once per distinct cause (LEDs, buzzer, state line, log), retry."""
        reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
        self._storage_reason = reason
        message = f"cannot save in {self.store.root} ({reason}); the game is kept in memory and saving is retried"
        if message != self.storage_error:
            log.error("cannot save the game: %s (moves so far: %s)", exc, " ".join(self.session.record.moves) or "none")
            if self.storage_error is None and self.board is not None:
                with contextlib.suppress(Exception):
                    self.board.play(Code.STORAGE)
        self.storage_error = message
        self._schedule_storage_retry()
        if not str(self._state.get("warning") or "").startswith("storage:"):
            self._publish(None)  # the current state (web page, /api/state) says it at once

    def _schedule_storage_retry(self) -> None:
        if self._closed or (self._storage_retry is not None and not self._storage_retry.cancelled()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._storage_retry = loop.call_later(STORAGE_RETRY_INTERVAL, self._retry_storage)

    def _retry_storage(self) -> None:
        self._storage_retry = None
        if self._closed or self.storage_error is None:
            return
        if self._write_unsaved():
            self._after(Code.STORAGE)  # the warning goes off the LEDs and the page
        else:
            self._schedule_storage_retry()

    def _storage_leds(self) -> list[events.LedIntent]:
        if self.storage_error is None:
            return []
        return [events.LedIntent(square, Code.STORAGE) for square in corner_squares(self.variant.geometry)]

    def _is_worth_saving(self, record: GameRecord) -> bool:
        """Not before the board has said anything: a board that never answered (a serial port
        waited for with ``serial_wait``) leaves no empty game behind."""
        return bool(self._board_seen or record.moves or self.store.path(record.id, ".json").exists())

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
        ticker = loop.create_task(self.run_ticker())
        getter: asyncio.Task[Event] | None = None
        stopper = loop.create_task(stop.wait())
        try:
            while not stop.is_set():
                getter = loop.create_task(queue.get())
                done, _ = await asyncio.wait({getter, stopper, ticker}, return_when=asyncio.FIRST_COMPLETED)
                if ticker in done:
                    ticker.result()  # raises TimerError: the game is saved, the run ends
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

    async def run_ticker(self) -> None:
        """Advance time every :data:`TICK_INTERVAL` (settle windows, clock flags) until cancelled.

        A tick that fails would fail again every tick, so the first failure ends it: the game is
        saved and :class:`TimerError` says in one line what failed and where the game is (the
        traceback only in the debug log, ``-vv``)."""
        while True:
            await asyncio.sleep(TICK_INTERVAL)
            try:
                self.tick()
            except Exception as exc:
                raise self._timer_failed(exc) from None

    def _timer_failed(self, exc: Exception) -> TimerError:
        log.debug("timer tick failed", exc_info=exc)
        record = self.session.record
        try:
            self._save()
        except Exception as again:  # the save is what failed: close() keeps trying and says so
            log.debug("saving after the timer failed", exc_info=again)
        kept = (f"game {record.id} ({len(record.moves)} plies) is saved in {self.store.root}"
                if self.storage_error is None else f"game {record.id} could not be saved yet ({self.storage_error})")
        return TimerError(f"the game's timer failed ({type(exc).__name__}: {exc}), so this run ends; {kept}")

    async def close(self) -> None:
        """Save and stop the engine; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._engine_task is not None:
            self._engine_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._engine_task
        if self._storage_retry is not None:
            self._storage_retry.cancel()
        if self.coach is not None:
            await self.coach.close()
        if self.speaker is not None:
            self.speaker.close()
        self._save()
        if self._is_worth_saving(self.session.record):
            self._unsaved_records[self.session.record.id] = self.session.record
        saved = self._write_unsaved()
        if not saved:
            log.error(
                "the game could NOT be saved in %s (%s); here it is, to keep by hand:\n%s",
                self.store.root, self._storage_reason, self.session.record.pgn_text(),
            )
        if self._log is not None:
            self._log.close()
        if self.engine is not None:
            await self.engine.close()
        if not saved:
            raise StorageError(
                f"the game could not be saved in {self.store.root} ({self._storage_reason}); its PGN is printed above"
            )
