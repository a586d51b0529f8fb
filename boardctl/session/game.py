"""The game around the tracker: the record, whose turn it is, the moves made and taken back, a
new game; the rest is done by the session's parts (see :class:`Session`).

The session is synchronous and does no I/O: the daemon feeds it events, times, the engine's replies
and the other side's input, and every input answers with one :class:`~boardctl.session.effects.Effects`
(LEDs, sounds, log entries, records to save, an engine request, requests for the other side) that
the daemon carries out; the state line is read with :meth:`Session.state_line`.

Squares: events and LEDs are *physical* (the board's wiring); the tracker, the FEN and the moves
are *logical* (White on ranks 1-2, Red on ranks 0-4). With the board turned round (``flipped``) a
square maps to ``points - 1 - square`` (``63 - square`` in chess), both ways.

The game is the settings' ``variant`` (chess by default); everything here speaks only the core
rules interface (:mod:`boardctl.core.rules`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec

from boardctl.clock import Clock
from boardctl.core.rules import Color, GameBoard, Move, Variant
from boardctl.events import (
    Button,
    ButtonPressed,
    EngineReplied,
    Event,
    GameDecided,
    GameHeader,
    LedIntent,
    RemoteTakeback,
    Tick,
)
from boardctl.learning.verdicts import CoachNotes, Verdict
from boardctl.reply import Reply
from boardctl.session.buttons import Buttons
from boardctl.session.coaching import Coaching
from boardctl.session.display import Display
from boardctl.session.effects import NOTHING, Effects
from boardctl.session.engine import EngineTurns
from boardctl.session.log import GameLog
from boardctl.session.model import (
    EngineRequest,
    LocalMove,
    Settings,
    legal,
    new_record,
    resume_notice,
)
from boardctl.session.referee import Referee
from boardctl.session.remote import RemotePlay
from boardctl.session.starts import NewGames
from boardctl.session.takebacks import Takebacks
from boardctl.session.timing import Timekeeper
from boardctl.session.turning import Turning
from boardctl.storage import GameRecord
from boardctl.tracker import (
    Forfeit,
    GameStarted,
    Matched,
    MoveMade,
    MoveTakenBack,
    Output,
    Policy,
    Step,
    TakebackMode,
    TakebackOffered,
    Timing,
    Tracker,
)
from boardctl.tracker import Violation as TrackerViolation
from boardctl.variants import get_variant

if TYPE_CHECKING:
    from boardctl.guide import Guide

log = logging.getLogger(__name__)

_P = ParamSpec("_P")


def _answers(method: Callable[Concatenate[Session, _P], None]) -> Callable[Concatenate[Session, _P], Effects]:
    """An input of the session: it answers with the effects of everything it did. An input made
    while another is applied (a guide's takeback or reply) answers :data:`NOTHING`: the outer
    input's answer holds its effects, so none is lost or carried out twice."""

    def answer(self: Session, /, *args: _P.args, **kwargs: _P.kwargs) -> Effects:
        self._inputs += 1
        try:
            method(self, *args, **kwargs)
        finally:
            self._inputs -= 1
        return self.answer() if self._inputs == 0 else NOTHING

    answer.__name__, answer.__qualname__, answer.__doc__ = method.__name__, method.__qualname__, method.__doc__
    return answer


def _changes(method: Callable[Concatenate[Session, _P], None]) -> Callable[Concatenate[Session, _P], Effects]:
    """An input that always changes the game (a new game, a result): answers ``changed``."""

    def change(self: Session, /, *args: _P.args, **kwargs: _P.kwargs) -> None:
        self._changed = True
        method(self, *args, **kwargs)

    change.__name__, change.__qualname__, change.__doc__ = method.__name__, method.__qualname__, method.__doc__
    return _answers(change)


class Session:
    """A game in progress. Its parts, one module each in boardctl/session/, own their own state:
    ``turning`` (orientation, the readings), ``game_log``, ``timing`` (the clock), ``referee``
    (results, claims, draws, illegal moves), ``engine`` (engine turns), ``remote`` (network play),
    ``coaching``, ``display`` (LEDs, sounds, the state line), ``starts`` (new games),
    ``takebacks`` and ``buttons``. The session owns the settings, the record, the tracker, the
    time ``t``, the game's ``serial``, the ``warning`` and ``notice`` shown, the ``guide`` and
    whether the record changed; it turns the tracker's outputs over to the parts. Its public
    methods are the daemon's, the faces' and the guides' whole interface (the parts call its
    ``_apply``, ``_after`` and ``_advance`` and set ``_dirty``). Every input (``feed``, ``tick``,
    ``engine_replied``, the other side's ``remote_*``, …) answers with one :class:`Effects`."""

    def __init__(
        self,
        settings: Settings,
        *,
        record: GameRecord | None = None,
        occupancy: int | None = None,
        fen: str | None = None,
        observer: Callable[[Output], None] | None = None,
        variant: Variant | None = None,
    ) -> None:
        """A new game (``fen``) or, with ``record``, a resumed one; ``occupancy`` is what the
        switches show now (physical), default: the game's position. ``observer`` sees every
        tracker output (``boardctl replay`` prints its warnings from them). The game is
        ``variant``, else the record's, else the settings' (chess by default)."""
        if variant is not None and variant.name != settings.variant:
            settings = replace(settings, variant=variant.name)
        self.settings = settings
        if variant is None:
            variant = get_variant(record.variant if record is not None else settings.variant)
        self.variant: Variant = variant.configure(rules=settings.xiangqi_rules, move_limit=settings.xiangqi_move_limit)
        self.geometry = self.variant.geometry
        self.resumed = record is not None
        #: Guided mode (boardctl learn, boardctl games step): judges the moves made, lights the
        #: expected one, may play the other side; None in play and record (boardctl.guide).
        self.guide: Guide | None = None
        self.record = record if record is not None else self._new_record(fen or self.variant.starting_fen)
        self.turning = Turning(self)
        board = self.record.board()
        if occupancy is not None:
            occupancy = self.turning.logical_bb(occupancy)
        self.tracker = self._make_tracker(board, occupancy)
        self.turning.begin()
        self.timing = Timekeeper(self)
        self.serial = 0  # bumped whenever the game changes under a pending engine request
        self.observer = observer
        self.warning: str | None = None
        self.notice: str | None = resume_notice(self.record) if self.resumed else None
        self.t = 0.0
        self.display = Display(self)
        self.engine = EngineTurns(self)
        self.game_log = GameLog(self)
        self.referee = Referee(self)
        self.remote = RemotePlay(self)
        self.coaching = Coaching(self)
        self.starts = NewGames(self)
        self.takebacks = Takebacks(self)
        self.buttons = Buttons(self)
        self._dirty = True
        self._started = False
        self._inputs = 0  # inputs being applied (one inside another: a guide's takeback)
        self._changed = False  # the game changed since the last answer, not only the time
        self._answered_leds: tuple[LedIntent, ...] = ()  # the LEDs of the last answer
        pending = legal(board, self.record.pending) if self.record.pending else None
        self._resume_pending: Move | None = None
        if pending is not None and (self.is_engine_turn() or self.is_remote_turn()) and not self.is_over():
            self._resume_pending = pending  # shown again on the LEDs once time starts (resume)
        else:
            self.engine.schedule(0.0)

    def _new_record(self, fen: str) -> GameRecord:
        # a lesson's or a replay's own mode (boardctl.guide)
        return new_record(self.settings, self.variant, fen, getattr(self.guide, "record_mode", None))

    def _make_tracker(self, board: GameBoard, occupancy: int | None) -> Tracker:
        settings = self.settings
        return Tracker(
            board,
            policy=Policy(settings.policy),
            timing=Timing(settle=settings.settle),
            takeback=TakebackMode(settings.takeback),
            arbiter=settings.arbiter,
            occupancy=occupancy,
            show_legal_moves=settings.legal_moves,
            variant=self.variant,
        )

    # -- the game's state, as its parts hold it ----------------------------------------------------

    @property
    def board(self) -> GameBoard:
        return self.tracker.board

    @property
    def pending(self) -> Move | None:
        """The engine's move shown but not yet made on the board (the tracker holds it)."""
        return self.tracker.expected

    @property
    def hint_move(self) -> Move | None:
        """The hint shown until the next move (the tracker holds it)."""
        return self.tracker.hint_move

    @property
    def flipped(self) -> bool | None:
        """The board turned round (None: not known yet; the first move tells)."""
        return self.turning.flipped

    @property
    def clock(self) -> Clock | None:
        return self.timing.clock

    @property
    def draw_offer(self) -> bool:
        return self.referee.draw_offer

    @property
    def coach_notes(self) -> CoachNotes:
        return self.coaching.notes

    @property
    def remote_offer(self) -> str | None:
        """Network games: the other side's offer waiting for an answer here ("draw", "takeback", "rematch")."""
        return self.remote.offer

    @property
    def rematch_offered(self) -> bool:
        """Network games: this board offered a rematch and awaits the other side's answer."""
        return self.remote.rematch_offered

    @rematch_offered.setter
    def rematch_offered(self, value: bool) -> None:
        self.remote.rematch_offered = value

    @property
    def rematch_advice(self) -> str | None:
        """Network games whose other side cannot start a rematch (Lichess): what to tell a player
        who asks for a new game after the result, instead of offering one."""
        return self.remote.rematch_advice

    @rematch_advice.setter
    def rematch_advice(self, value: str | None) -> None:
        self.remote.rematch_advice = value

    def is_over(self) -> bool:
        return self.record.result != "*"

    def human_color(self) -> Color | None:
        """The human's side in play, None in record mode."""
        if self.settings.mode != "play" or self.record.human is None:
            return None
        return self.record.human == self.variant.color_names[0]

    def is_engine_turn(self) -> bool:
        human = self.human_color()
        return human is not None and self.board.turn != human

    def physical_occupancy(self) -> int:
        """Where the game's pieces stand, in the board's wiring (what a matching board senses)."""
        return self.turning.logical_bb(self.board.occupied)

    # -- input ------------------------------------------------------------------------------------

    @_answers
    def feed(self, event: Event) -> None:
        """One sensed event (physical squares). Game-log lines (header, engine) sense nothing: ignored."""
        if isinstance(event, GameHeader | EngineReplied | GameDecided | RemoteTakeback):
            return
        self._changed = True
        if event.t < self.t:
            # Stamped before a timer tick that ran first (events queue up between threads).
            event = replace(event, t=self.t)
        self._advance(event.t)
        if self.turning.readings is not None:
            self.turning.feed(event)
            return
        logical = self.turning.to_logical(event)
        self.game_log.entry(logical)
        self.game_log.snapshot_first(event.t, self.tracker.occupancy)
        if isinstance(logical, ButtonPressed) and logical.button == Button.NEW_GAME and self.local_color() is not None:
            self._apply(self.tracker.tick(logical.t))  # not the tracker's own new game: both boards must agree
            self.remote.ask_new_game(logical.t)
        else:
            self._apply(self.tracker.feed(logical))
        self._after(event.t)

    @_answers
    def tick(self, t: float) -> None:
        """Time passes (settle windows, clock flags, delayed engine requests)."""
        t = max(t, self.t)
        self._advance(t)
        game, result = self.record, self.record.result
        if self.turning.readings is not None:
            self.turning.tick(t)
            return
        step = self.tracker.tick(t)
        self._apply(step)
        self._after(t)
        if step.outputs or self.record is not game or self.record.result != result:
            self._changed = True
            self.game_log.add(game.id, Tick(t))  # a tick that changed the game: replay needs it

    def _advance(self, t: float) -> None:
        self.t = max(self.t, t)
        if not self._started:
            self._started = True
            self.game_log.header(t)  # stamped with the time the session starts
            self.timing.on_start()
            if self._resume_pending is not None:
                self.turning.assumed()
                self._apply(self.tracker.expect(self._resume_pending, t))
                self._resume_pending = None
            self.engine.not_before(t)

    def _after(self, t: float) -> None:
        self.timing.start_when_matching(t)
        self.referee.decide_end(t)
        if self.guide is not None:
            self.guide.after(self, t)

    # -- tracker outputs --------------------------------------------------------------------------

    def _apply(self, step: Step) -> None:
        self.display.tracker_leds = step.leds
        for out in step.outputs:
            if self.observer is not None:
                self.observer(out)
            match out:
                case MoveMade():
                    self._on_move(out)
                case MoveTakenBack():
                    self.takebacks.taken_back(out)
                case GameStarted():
                    self.starts.started(out.fen, out.t)
                case TrackerViolation():
                    self.referee.violation(out)
                case TakebackOffered():
                    self.warning = f"takeback of {out.move.uci()} offered: press takeback to confirm"
                case Matched():
                    if not self.is_over():
                        self.warning = None
                case Forfeit():
                    self.referee.decide_end(out.t, forfeit=out)
                case ButtonPressed():
                    self.buttons.pressed(out.button, out.t)

    def _on_move(self, out: MoveMade) -> None:
        if self.is_over():
            log.warning("move %s after the game ended (%s); not recorded", out.san, self.record.result)
            return
        # From the record, not the tracker's board: later outputs of the same step may have moved it on.
        start_turn = self.variant.board(self.record.fen).turn
        mover = start_turn if len(self.record.moves) % 2 == 0 else not start_turn
        shown = self.human_color() not in (None, mover) or self.local_color() not in (None, mover)
        self.referee.draw_offer = False
        self.remote.offer = None
        self.warning = None
        self.display.light([])
        self.serial += 1
        self.notice = None
        clock_left = self.timing.moved(mover, shown, out.t)
        self.record.moves.append(out.move.uci())
        self.record.clocks.append(None if clock_left is None else round(clock_left, 3))
        self._dirty = True
        if not self.referee.decide_end(out.t):
            self.referee.show_notice()
            self.engine.schedule(out.t)

    @_changes
    def new_game(self, t: float, *, fen: str | None = None, settings: Settings | None = None) -> None:
        """Start a new game now (button or web); the tracker waits for the board to match."""
        self.starts.new_game(t, fen=fen, settings=settings)

    @_changes
    def take_back(self, t: float) -> None:
        """One takeback: against the engine the engine's reply and the human's move together."""
        self.takebacks.take_back(t)

    # -- the engine (boardctl.session.engine) and the coach (boardctl.session.coaching) ------------

    def engine_request(self) -> EngineRequest | None:
        """What the engine should be asked now (every answer's ``engine`` says it too)."""
        return self.engine.next()

    @_answers
    def engine_replied(self, request: EngineRequest, reply: Reply, t: float) -> None:
        """The engine answered ``request``; stale answers (the game moved on) are dropped."""
        self.engine.replied(request, reply, t)

    @_changes
    def engine_failed(self, request: EngineRequest, message: str) -> None:
        """The engine could not answer even after restarts: say so, and ask again a little later."""
        self.engine.failed(request, message)

    def is_coached(self) -> bool:
        """A coach judges the human's moves (:meth:`Coaching.is_coached`)."""
        return self.coaching.is_coached()

    @_answers
    def coach_verdict(self, verdict: Verdict | None, ply: int, move: str) -> None:
        """The coach's answer about ``move`` at ``ply``; ``changed`` when the LEDs and the page change."""
        if self.coaching.verdict(verdict, ply, move):
            self._changed = True

    # -- network games (boardctl.session.remote) --------------------------------------------------

    def local_color(self) -> Color | None:
        """This board's colour in a ``network`` game (None in other modes)."""
        return self.remote.local_color()

    def is_remote_turn(self) -> bool:
        """A ``network`` game with the other side to move (its move is awaited or lit)."""
        return self.remote.is_remote_turn()

    def network_moves(self) -> list[str]:
        return self.remote.moves()

    def network_clocks(self) -> list[float | None]:
        return self.remote.clocks()

    def local_moves(self, since: int = 0) -> list[LocalMove]:
        return self.remote.local_moves(since)

    def set_players(self, white: str, black: str) -> None:
        """The players' names (a command before the daemon starts, or the other side's input):
        the record is saved with the next answer."""
        self.remote.set_players(white, black)

    @_answers
    def remote_move(self, ply: int, uci: str, t: float, *, clock: float | None = None) -> None:
        """The other side's move ``ply``; ``changed`` unless it was applied already (sent twice)."""
        if self.remote.move(ply, uci, t, clock=clock):
            self._changed = True

    @_answers
    def sync_clock(self, remaining: dict[str, float], running: str | None, t: float) -> None:
        self.timing.sync(remaining, running, t)

    @_answers
    def set_move_clocks(self, clocks: list[float | None]) -> None:
        self.remote.set_move_clocks(clocks)

    @_changes
    def remote_end(self, result: str, termination: str, t: float) -> None:
        self.remote.end(result, termination, t)

    @_changes
    def remote_takeback(self, moves: int, t: float) -> None:
        self.remote.takeback(moves, t)

    @_changes
    def remote_request(self, kind: str, t: float) -> None:
        self.remote.request(kind, t)

    @_changes
    def ask_new_game(self, t: float) -> None:
        self.remote.ask_new_game(t)

    @_changes
    def start_rematch(self, t: float, *, color: str, white: str, black: str, fen: str | None = None) -> None:
        self.remote.start_rematch(t, color=color, white=white, black=black, fen=fen)

    # -- output (boardctl.session.display) ---------------------------------------------------------

    def leds(self) -> list[LedIntent]:
        """The LEDs to light now, physical squares, tracker's first then the session's."""
        return self.display.leds()

    def state_line(self) -> dict[str, Any]:
        """The state everyone sees (stdio, web page); keys documented in docs/events.md."""
        return self.display.state_line()

    def answer(self) -> Effects:
        """Everything to carry out since the last answer (each input returns it itself; the daemon
        asks for it when it changed the session between inputs: a guide, a warning, a new game)."""
        leds = tuple(self.display.leds())
        sounds = self.display.take_sounds() + (self.guide.take_sounds() if self.guide is not None else [])
        effects = Effects(leds=leds, sounds=tuple(sounds), log=tuple(self.game_log.take()),
                          finished=tuple(self.starts.take_finished()), record=self.record if self._take_dirty() else None,
                          engine=self.engine.next(), requests=tuple(self.remote.take_requests()))
        changed = self._changed or leds != self._answered_leds or bool(
            effects.sounds or effects.log or effects.finished or effects.record or effects.requests)
        self._changed, self._answered_leds = False, leds
        return replace(effects, changed=changed) if changed else effects

    def _take_dirty(self) -> bool:
        """Whether the record changed since the last answer (brought up to date: pending, clock)."""
        dirty, self._dirty = self._dirty, False
        if dirty:
            self.record.pending = None if self.pending is None else self.pending.uci()
            if self.clock is not None:
                self.record.clock = self.clock.to_json(self.t)
        return dirty
