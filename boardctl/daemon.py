"""The daemon: one asyncio event loop, sensors -> tracker -> session -> engine -> LEDs.

Everything that changes the game runs on the loop's thread: board events (delivered from the
backend's threads through ``asyncio_callback``), web actions, engine replies and the other side's
input (:meth:`Daemon.remote_input`). The engine thinks in its own process and is awaited as a
task, so the loop never blocks on it. Every input answers with the session's ``Effects``, carried
out in one place (:meth:`Daemon._after`): saved (``boardctl.saving``), the LEDs and sounds, the
coach and the speaker, the engine asked, and a state line to every subscriber (stdio printer, web
page). SIGTERM ends the loop with the game saved.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

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
from boardctl.core.geometry import CHESS_8X8
from boardctl.core.rules import Variant
from boardctl.engine_turn import Engine as Engine  # re-exported: the daemon's engine
from boardctl.engine_turn import EngineTurn
from boardctl.errors import TimerError
from boardctl.events import ButtonPressed, Code, Event, SquareChanged, format_event
from boardctl.learning.coach import Coach, CoachWatcher, Verdict
from boardctl.learning.speech import Speaker, SpeechEvent, SpeechWatcher
from boardctl.reply import Reply
from boardctl.saving import STORAGE_RETRY_INTERVAL as STORAGE_RETRY_INTERVAL  # re-exported
from boardctl.saving import Keeper, corner_squares
from boardctl.session import Effects, EngineRequest, RemoteInput, Session, Settings
from boardctl.storage import GameRecord, GameStore, StorageError

log = logging.getLogger(__name__)

#: State lines kept for a subscriber that is not reading (a stalled browser tab).
SUBSCRIBER_BACKLOG = 256

#: How often time is advanced in real-time mode (settle windows, clock flags).
TICK_INTERVAL = 0.05

#: The corners of the chess board, where the ``storage`` warning shows.
STORAGE_SQUARES = corner_squares(CHESS_8X8)


def new_game_settings(action: NewGameAction, session: Session) -> tuple[Settings, Mapping[str, str] | None]:
    """The settings of the new game ``action`` asks for, and the engine options its opponent
    needs (None: the engine's stay as they are). Leaving a lesson or a replay started from the
    page, it starts from the settings before it."""
    settings = getattr(session.guide, "settings_before", None) or session.settings
    if action.color:
        settings = replace(settings, color=action.color)
    if action.level:
        settings = replace(settings, level=action.level)
    if action.time_control is not None:
        settings = replace(settings, time_control=action.time_control)
    if action.opponent is None:
        return settings, None
    from boardctl.learning.characters import opponent_settings

    return opponent_settings(settings, action.opponent)  # a character, or "" for the plain engine


def spoken(speech: SpeechWatcher, session: Session, effects: Effects) -> list[SpeechEvent]:
    """What changed in the game since ``speech`` last looked, as the events to say aloud."""
    geometry = session.variant.geometry
    return speech.observe(
        game=session.record.id,
        board=session.board,
        pending=session.pending,
        violations=[(v.code, v.detail) for v in session.record.violations],
        result=session.record.result,
        touched=[geometry.square_name(i.square) for i in effects.leds if i.why == Code.TOUCH_MOVE],
    )


class Daemon:
    """Owns the session, the subscribers and the state line last published, the LEDs shown (the
    game's or a face's), the answers not carried out yet (``direct`` boards) and this board's
    requests for the other side of a network game; saving is its ``keeper``'s, asking the engine
    its ``turn``'s."""

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
        guided: Callable[[Daemon, LessonAction | StepAction], Effects] | None = None,
    ) -> None:
        """``board``: a ``boardctl.hw`` board (LEDs, buzzer, events) or None (stdio);
        ``virtual_board``: accept square events from the web; ``virtual_time``: time is the
        session's, moved only by the events fed (so engine replies take no time); otherwise
        ``clock`` tells it (``boardctl.stdio.InputClock`` lets the first input line decide);
        ``direct``: the board delivers on the loop's thread (the stdio sim), see :meth:`feed`;
        ``guided``: what starts a lesson or a replay asked for from the page (the commands give
        boardctl.commands.guided.start_guided; None: not offered by this daemon)."""
        self.session = session
        self.store = store
        self.board = board
        self.virtual_board = virtual_board
        self.virtual_time = virtual_time
        self._clock = clock
        self._subscribers: list[asyncio.Queue[dict[str, Any]]] = []
        self.turn = EngineTurn(engine, replied=self._engine_replied, failed=self._engine_failed)
        self.keeper = Keeper(store, current=lambda: self.session.record, failed=self._storage_failed,
                             recovered=lambda: self._after(Code.STORAGE))
        self._state: dict[str, Any] = {}
        self._last_compared: dict[str, Any] = {}
        self._closed = False
        self._owed: Effects | None = None  # answers of inputs fed directly, not carried out yet
        self._leds = tuple(session.leds())  # the game's LEDs, as the last answer said
        self._requests: list[str] = []  # this board's requests for the other side, not yet taken
        #: True when the board calls ``feed`` on the loop's thread (stdio), False when it queues.
        self.direct = direct
        #: The page's address once the web server listens (None: no page).
        self.web_url: str | None = None
        #: Called with each game record once it is on disk (play --opponent rates finished games).
        self.on_record_saved: list[Callable[[GameRecord], object]] = self.keeper.on_record_saved
        #: Keys added to every state line by a part outside the session (``invite``, ``network``).
        self.extra_state: dict[str, Any] = {}
        #: Modes a command offers the page (``app-mode``: on or off), set by the command, not by a face.
        self.switches: dict[str, Callable[[bool], Awaitable[None]]] = {}
        #: LEDs a face shows in place of the game's (``show_face_leds``), or None: the game's.
        self._face_leds: tuple[events.LedIntent, ...] | None = None
        #: Awaited before a new game, a lesson or a replay from the page (the page's Invite stops hosting).
        self.before_new_game: list[Callable[[], Awaitable[None]]] = []
        #: The practice coach and the spoken moves (boardctl.learning), when on.
        self.coach = CoachWatcher(coach, deliver=self._coach_delivered) if coach is not None else None
        self.speaker = speaker
        self.guided = guided
        self._speech = SpeechWatcher(speaker.words, language=speaker.options.language) if speaker is not None else None
        self._publish(None)

    @property
    def engine(self) -> Engine | None:
        return self.turn.engine

    @property
    def storage_error(self) -> str | None:
        """Why saving fails now (shown on the page and the LEDs), or None."""
        return self.keeper.error

    @property
    def save_after_publish(self) -> bool:
        """Save a millisecond after the state line (network games: the other board first)."""
        return self.keeper.after_publish

    @save_after_publish.setter
    def save_after_publish(self, value: bool) -> None:
        self.keeper.after_publish = value

    def storage_failed(self, exc: OSError) -> None:
        """Saving failed outside the daemon (the command's check of the games folder): as its own."""
        self.keeper.failed(exc)

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
            self._after(Code.NEW_GAME, self.guided(self, action))
        else:
            await self.new_game(action)

    async def new_game(self, action: NewGameAction) -> None:
        """Start a new game with the checked settings of ``action`` (None keeps the current one)."""
        for hook in self.before_new_game:
            await hook()
        if self.session.local_color() is not None:  # a network game: both boards must agree (a rematch)
            self._after(Code.NEW_GAME, self.session.ask_new_game(self.now()))
            return
        settings, options = new_game_settings(action, self.session)
        set_options = getattr(self.engine, "set_options", None)
        if options is not None and set_options is not None:
            await set_options(options)
        if self.engine is not None and settings.level != self.engine.level:
            await self.engine.set_level(settings.level)
        self.session.guide = None  # a new game from the page leaves a lesson or a replay
        effects = self.session.new_game(self.now(), fen=action.fen, settings=settings)
        if action.note:  # e.g. only the final position of an uploaded PGN is kept
            self.session.warning = action.note
        self._after(Code.NEW_GAME, effects)

    # -- the loop ---------------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """The board's callback when it delivers on the loop's thread (``direct``): no state line
        yet; the answer is carried out with the next one (:meth:`flush`)."""
        self.keeper.board_seen = True
        self._owe(self.session.feed(event))

    def handle(self, event: Event, *, reason: str | None = None) -> dict[str, Any]:
        """Feed one event; returns (and publishes) the state line that answers it."""
        self.keeper.board_seen = True
        return self._after(reason, self.session.feed(event))

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
        self._after(Code.CLOCK, self.session.tick(self.now()), only_if_changed=True)

    @contextlib.contextmanager
    def remote_input(self, reason: str | None = "network", *, only_if_changed: bool = False) -> Iterator[RemoteInput]:
        """The only way the other side's input (network link, Lichess) reaches the game: answered as
        one, carried out on leaving with a state line (``reason``, which the block may change)."""
        with RemoteInput(self.session, reason) as game:
            yield game
        self._after(game.reason, game.effects, only_if_changed=only_if_changed)

    def take_requests(self) -> list[str]:
        """This board's requests for the other side since the last call, for the link that sends them."""
        requests, self._requests = self._requests, []
        return requests

    def refresh(self, reason: str | None = None) -> dict[str, Any]:
        """A face's own part of the state line changed (``extra_state``: connected, an invite), or
        the daemon's session was replaced: carry out and publish a state line with ``reason``."""
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
        shown = self._leds if self._face_leds is None else self._face_leds
        self.board.show([*shown, *self.keeper.leds(self.variant.geometry)])

    def _owe(self, effects: Effects) -> None:
        self._owed = effects if self._owed is None else self._owed.then(effects)

    def _after(self, reason: str | None, effects: Effects | None = None, *, only_if_changed: bool = False,
               error: str | None = None) -> dict[str, Any]:
        """Carry out the session's answer (``effects``; None: asked for now), after any owed, in
        this order: save, light and sound, the coach and the speaker, the engine, the state line."""
        effects = self.session.answer() if effects is None else effects
        if self._owed is not None:
            effects, self._owed = self._owed.then(effects), None
        self.keeper.keep(effects)
        self._leds = effects.leds
        if self.board is not None:
            self._show_leds()
            for code in effects.sounds:
                self.board.play(code)
        self._learning(effects)
        self._requests.extend(effects.requests)
        self.turn.ask(effects.engine)
        return self._publish(reason, only_if_changed=only_if_changed, error=error)

    def _learning(self, effects: Effects) -> None:
        """The coach looks at the player's new move; what changed is said aloud (both queue only)."""
        session = self.session
        if self.coach is not None and session.is_coached():
            self.coach.observe(session.board, human=session.human_color(), variant=self.variant.name,
                               over=session.is_over(), pending=session.pending)
        if self.speaker is not None and self._speech is not None:
            for event in spoken(self._speech, session, effects):
                self.speaker.say(event)

    def _coach_delivered(self, verdict: Verdict | None, ply: int, move: str) -> None:
        if self._closed:
            return
        effects = self.session.coach_verdict(verdict, ply, move)
        if effects.changed:
            self._after(Code.COACH, effects)

    def _publish(self, reason: str | None, *, only_if_changed: bool = False, error: str | None = None) -> dict[str, Any]:
        line = self.session.state_line()
        line.setdefault("variant", self.variant.name)  # the game on the board: chess or xiangqi
        line.update(self.extra_state)
        if self._face_leds is not None:
            line["leds"] = [intent.to_json(self.variant.geometry) for intent in self._face_leds]
        if self.storage_error is not None:
            line["warning"] = "; ".join(filter(None, [f"storage: {self.storage_error}", line.get("warning")]))
            line["leds"] = [*line["leds"], *(i.to_json(self.variant.geometry) for i in self.keeper.leds(self.variant.geometry))]
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

    def _storage_failed(self, first: bool) -> None:
        """Saving failed: the buzzer the first time, and the current state (web page, /api/state) says it at once."""
        if first and self.board is not None:
            with contextlib.suppress(Exception):
                self.board.play(Code.STORAGE)
        if not str(self._state.get("warning") or "").startswith("storage:"):
            self._publish(None)

    def _engine_replied(self, request: EngineRequest, reply: Reply) -> None:
        effects = self.session.engine_replied(request, reply, self.now())
        self._after(Code.ENGINE_MOVE if request.kind == "move" else Code.HINT, effects)

    def _engine_failed(self, request: EngineRequest, message: str) -> None:
        self._after(Code.ENGINE_ERROR, self.session.engine_failed(request, message))

    async def idle(self) -> None:
        """Wait until the engine has answered what it was asked (virtual time: replies take no time)."""
        await self.turn.idle()

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
            self._save_all()
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
        self.keeper.stop()
        await self.turn.stop()
        if self.coach is not None:
            await self.coach.close()
        if self.speaker is not None:
            self.speaker.close()
        self._save_all()
        saved = self.keeper.close(self.session.record)
        reason = self.keeper.reason
        if not saved:
            log.error("the game could NOT be saved in %s (%s); here it is, to keep by hand:\n%s",
                      self.store.root, reason, self.session.record.pgn_text())
        if self.engine is not None:
            await self.engine.close()
        if not saved:
            raise StorageError(f"the game could not be saved in {self.store.root} ({reason}); its PGN is printed above")

    def _save_all(self) -> None:
        """Save what the session has to save now, at once (the run ends): no LEDs, no state line."""
        effects = self.session.answer()
        if self._owed is not None:
            effects, self._owed = self._owed.then(effects), None
        self.keeper.keep(effects)
