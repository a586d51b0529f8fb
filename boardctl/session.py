"""The game around the tracker: record, clock, engine turns, hints, game end, takeback, orientation.

The session is synchronous and does no I/O: the daemon feeds it events and times, asks it what the
engine should be asked (:meth:`Session.engine_request`), hands back replies
(:meth:`Session.engine_replied`) and reads back state lines, LEDs, sounds and log entries.

Squares: events and LEDs are *physical* (the board's wiring); the tracker, the FEN and the moves
are *logical* (White on ranks 1-2, Red on ranks 0-4). With the board turned round (``flipped``) a
square maps to ``points - 1 - square`` (``63 - square`` in chess), both ways.

The game is the settings' ``variant`` (chess by default); everything here speaks only the core
rules interface (:mod:`boardctl.core.rules`).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from boardctl.clock import Clock, TimeControl
from boardctl.core.geometry import CHESS_8X8, Geometry, Square
from boardctl.core.rules import Color, GameBoard, Move, Variant
from boardctl.errors import BoardctlError
from boardctl.events import (
    Button,
    ButtonPressed,
    Code,
    EngineReplied,
    Event,
    GameDecided,
    GameHeader,
    LedIntent,
    RemoteTakeback,
    Snapshot,
    SquareChanged,
    Tick,
)
from boardctl.learning.verdicts import CoachNotes, Verdict
from boardctl.levels import PRACTICE_LEVELS
from boardctl.orientation import Readings
from boardctl.reply import MATE_SCORE, Reply
from boardctl.storage import GameRecord, Violation
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
    loss_result,
)
from boardctl.tracker import Violation as TrackerViolation
from boardctl.variants import get_variant

if TYPE_CHECKING:
    from boardctl.guide import Guide

log = logging.getLogger(__name__)

#: After a takeback made by hand leaves the engine to move, wait this long for more takebacks.
TAKEBACK_GRACE = 2.0
#: After the engine failed for good (restarts included), wait this long before asking again.
ENGINE_RETRY = 5.0
#: Seconds the opponent gets for a first illegal move with ``arbiter`` and a clock (FIDE 7.5.5).
ARBITER_BONUS = 120.0
#: A move that loses this many centipawns (by the engine's judgement) gets a blunder warning.
BLUNDER_CP = 200
#: The version of the game log's header line (docs/events.md).
HEADER_VERSION = 1


@dataclass(frozen=True)
class Settings:
    """What a game is played with; the parts that matter for resuming are saved in the record."""

    mode: Literal["play", "record", "network"] = "play"
    color: str = "white"  # the human's colour in play (white, black or random); this board's in network
    level: str = "intermediate"
    orientation: str = "auto"  # auto, normal or flipped
    time_control: str = ""
    policy: str = "fide"
    arbiter: bool = False
    takeback: str = "apply"
    settle: float = 0.3
    legal_moves: bool = False
    blunder_warning: bool = False
    engine_name: str = "boardctl engine"
    variant: str = "chess"  # boardctl.variants.NAMES
    #: Xiangqi's repetition rulings: ``chinese`` (the 棋例) or ``asian`` (pyffish); its move limit.
    xiangqi_rules: str = "chinese"
    xiangqi_move_limit: int = 60
    opponent: str = ""  # the character played (play --opponent), as named in the PGN: "Ilya Inferno (2000)"
    #: A full-strength coach judges the human's moves: True (``--coach``) or False (``--no-coach``)
    #: whatever the level; None, the default, at the practice levels only.
    coach: bool | None = None


@dataclass(frozen=True)
class LocalMove:
    """A move completed on this board in a ``network`` game, to send to the other side: ``ply``
    counts from 0 (the game's first move), ``clock`` is the mover's time left (None: no clock)."""

    ply: int
    uci: str
    clock: float | None


class RemoteMoveError(BoardctlError, ValueError):
    """A remote move that cannot be applied (wrong number, not the remote side's turn, illegal)."""


#: Requests a ``network`` game's buttons send to the other side (docs/network-protocol.md).
NETWORK_REQUESTS = ("draw", "takeback", "resign", "claim", "accept", "decline")


@dataclass(frozen=True)
class EngineRequest:
    """Ask the engine about ``board``; the reply is used only if the game is still at ``serial``."""

    kind: Literal["move", "hint"]
    board: GameBoard
    serial: int
    not_before: float = 0.0
    #: Seconds the engine may spend by its clock (None: no clock).
    budget: float | None = None


def resume_notice(record: GameRecord) -> str:
    """What to tell the user when an unfinished game is taken up again (page, terminal, log)."""
    board = record.board()
    date = record.started[:10] or "an earlier day"
    fields = board.fen().split()
    number = fields[5] if len(fields) > 5 else "1"
    if record.mode == "play" and record.human in record.rules().color_names:
        who = f"you play {record.human.capitalize()}"
    else:
        who = "recording two players"
    return (
        f"Resuming your unfinished game of {date}, move {number}, {who}. "
        "New game: the New game button on the page, or start with --new."
    )


def rotate(bb: int, geometry: Geometry = CHESS_8X8) -> int:
    """A bitboard turned round (square ``s`` -> ``points - 1 - s``)."""
    return geometry.turn_mask(bb)


def _side_index(color: str) -> int | None:
    """0 for the side that moves first (``white``, ``red``), 1 for ``black``, None otherwise."""
    return {"white": 0, "red": 0, "black": 1}.get(color)


class Session:
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
        self.record = record if record is not None else self._new_record(fen or self.variant.starting_fen)
        self.flipped: bool | None = {"normal": False, "flipped": True}.get(self.record.orientation)
        board = self.record.board()
        if occupancy is not None:
            occupancy = self._logical_bb(occupancy)
        self.tracker = self._make_tracker(board, occupancy)
        #: Auto orientation before the first move: both readings of the board (boardctl.orientation).
        self._readings: Readings | None = self._make_readings() if self.flipped is None else None
        self.clock = self._make_clock()
        self.serial = 0  # bumped whenever the game changes under a pending engine request
        self.observer = observer
        self.draw_offer: bool = False
        self.warning: str | None = None
        self.t = 0.0
        self._tracker_leds: tuple[LedIntent, ...] = ()
        self._extra_leds: list[LedIntent] = []
        self._request: EngineRequest | None = None
        self._engine_score: int | None = None  # engine's view (its own side) at its last move
        self._sounds: list[Code] = []
        self._log: list[tuple[str, Event]] = []
        self._header: dict[str, Any] | None = self._header_now()  # logged once time starts
        self._dirty = True
        self._need_snapshot_log = self.resumed
        self._started = False
        self._shown_left: float | None = None
        self._to_save: list[GameRecord] = []
        self._game_started = False
        self._illegal_seen = dict(self.tracker.illegal_counts)
        self._engine_pv: str | None = None  # the engine's last principal variation, SAN
        self._engine_book = False  # the engine's last move came from its opening book
        self.coach_notes = CoachNotes()  # the coach's verdicts (boardctl.learning.coach)
        #: A clock waits for the board to match the game before it starts (a new game being set
        #: up, a resumed game whose pieces are not back yet): nobody's time runs meanwhile.
        self._clock_waits = False
        self.notice: str | None = resume_notice(self.record) if self.resumed else None
        #: Network games: requests from this board's buttons for the other side, and the other
        #: side's offer waiting for an answer here ("draw" or "takeback").
        self._requests: list[str] = []
        self.remote_offer: str | None = None
        #: Network games: this board offered a rematch and awaits the other side's answer.
        self.rematch_offered = False
        #: Network games whose other side cannot start a rematch (Lichess): what to tell a player
        #: who asks for a new game after the result, instead of offering one.
        self.rematch_advice: str | None = None
        self._agreed_start = False  # in new_game(): the tracker's GameStarted is wanted
        self._restoring = False  # putting the tracker back on the running game after an unwanted start
        #: Guided mode (boardctl learn, boardctl games step): judges the moves made, lights the
        #: expected one, may play the other side; None in play and record (boardctl.guide).
        self.guide: Guide | None = None
        pending = self._legal(board, self.record.pending) if self.record.pending else None
        self._resume_pending: Move | None = None
        if pending is not None and (self.is_engine_turn() or self.is_remote_turn()) and not self.is_over():
            self._resume_pending = pending  # shown again on the LEDs once time starts (resume)
        else:
            self._schedule_engine(0.0)

    # -- records and settings ---------------------------------------------------------------------

    @staticmethod
    def _legal(board: GameBoard, uci: str) -> Move | None:
        """The legal move written ``uci`` on ``board``, or None."""
        try:
            return board.parse_uci(uci)
        except ValueError:
            return None

    def _human_color(self) -> Color | None:
        if self.settings.mode != "play" or self.record.human is None:
            return None
        return self.record.human == self.variant.color_names[0]

    def _new_record(self, fen: str) -> GameRecord:
        s = self.settings
        names = self.variant.color_names
        human: str | None = None
        white, black = names[0].capitalize(), names[1].capitalize()
        if s.mode == "network":
            side = _side_index(s.color)
            human = names[0 if side is None else side]
        if s.mode == "play":
            side = _side_index(s.color)
            human = random.choice(names) if side is None else names[side]
            engine = s.opponent or f"{s.engine_name} ({s.level})"
            white, black = ("Human", engine) if human == names[0] else (engine, "Human")
        orientation = s.orientation
        if orientation == "auto" and (fen != self.variant.starting_fen or human == names[1]):
            orientation = "normal"  # only White's first move from the start tells the sides apart
        return GameRecord(
            id=GameRecord.new_id(),
            # a lesson's or a replay's own mode (boardctl.guide); the first record comes before any guide
            mode=getattr(getattr(self, "guide", None), "record_mode", None) or s.mode,
            white=white,
            black=black,
            fen=fen,
            human=human,
            level=s.level if s.mode == "play" else None,
            orientation=orientation,
            time_control=s.time_control,
            variant=self.variant.name,
        )

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

    def _make_readings(self, t: float | None = None) -> Readings:
        """The board read as it stands (``self.tracker``) and turned round, from the same position.
        While the pieces are being set up for a new game, the turned reading waits for its own
        set-up too: set-up changes read turned round must never count as moves."""
        board = self.tracker.board
        turned = self._make_tracker(board.copy(), self.geometry.turn_mask(self.tracker.occupancy))
        if t is not None and self.tracker.is_setting_up():
            turned.new_game(t, board.copy())
        return Readings(self.geometry, self.tracker, turned)

    def _orientation_told(self, flipped: bool) -> None:
        """The first move told which way round the board stands: keep that reading, and log the
        events sensed so far in game orientation."""
        readings = self._readings
        assert readings is not None
        self._readings = None
        self.flipped = flipped
        self.record.orientation = "flipped" if flipped else "normal"
        self.tracker = readings.turned if flipped else readings.normal
        for event in readings.unlogged:
            self._log_entry(self._to_logical(event))
            if self._need_snapshot_log:  # a resumed game: what the switches showed, first
                start = self._logical_bb(readings.normal_start)
                self._log.insert(len(self._log) - 1, (self.record.id, Snapshot(event.t, start)))
                self._need_snapshot_log = False
        self._dirty = True

    def _orientation_assumed(self) -> None:
        """Something other than a move (a takeback, the engine, the result) needs one reading
        before a move told: the board as it stands."""
        if self._readings is not None:
            self._orientation_told(False)

    def _make_clock(self) -> Clock | None:
        control = TimeControl.from_string(self.record.time_control)
        if control is None:
            return None
        names = self.variant.color_names
        if self.record.clock is not None:
            return Clock.from_json(control, self.record.clock, names=names)
        return Clock(control, names=names)

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

    # -- the game log -----------------------------------------------------------------------------

    def _header_now(self) -> dict[str, Any]:
        """The header line's content: all a replay needs to judge the events as this session does."""
        return {
            "version": HEADER_VERSION,
            "settings": asdict(self.settings),
            "record": self.record.to_json(),
            "occupancy": self.geometry.to_hex(self.tracker.occupancy),
        }

    def _log_header(self, t: float) -> None:
        if self._header is not None:
            self._log.append((self.record.id, GameHeader(t, self._header)))
            self._header = None

    def _log_entry(self, entry: Event) -> None:
        if self._readings is not None:
            # Something other than a sensed event before any move told the orientation (the
            # engine's move, a network result): the board as it stands, and the events sensed
            # so far logged first, so that the log's times never go back.
            self._orientation_assumed()
        self._log_header(entry.t)
        self._log.append((self.record.id, entry))

    def is_over(self) -> bool:
        return self.record.result != "*"

    def is_engine_turn(self) -> bool:
        human = self._human_color()
        return human is not None and self.board.turn != human

    # -- network games: the other side's moves come in, this board's go out ----------------------

    def local_color(self) -> Color | None:
        """This board's colour in a ``network`` game (None in other modes)."""
        if self.settings.mode != "network" or self.record.human not in self.variant.color_names:
            return None
        return self.record.human == self.variant.color_names[0]

    def is_remote_turn(self) -> bool:
        """A ``network`` game with the other side to move (its move is awaited or lit)."""
        local = self.local_color()
        return local is not None and self.board.turn != local

    def set_players(self, white: str, black: str) -> None:
        """The names in the record (both boards of a network game write the same)."""
        if (self.record.white, self.record.black) != (white, black):
            self.record.white, self.record.black = white, black
            self._dirty = True

    def network_moves(self) -> list[str]:
        """The game's moves as the network sees them: the record's, then the remote move lit here
        and not yet made by hand (it is already the other side's move)."""
        moves = list(self.record.moves)
        if self.pending is not None and self.is_remote_turn():
            moves.append(self.pending.uci())
        return moves

    def network_clocks(self) -> list[float | None]:
        """The ``[%clk]`` of each of :meth:`network_moves` (the lit remote move's: its mover's time)."""
        clocks = list(self.record.clocks)
        if self.pending is not None and self.is_remote_turn():
            clocks.append(self._shown_left)
        return clocks

    def local_moves(self, since: int = 0) -> list[LocalMove]:
        """Moves completed on this board by its own colour from ply ``since`` on (to send)."""
        local = self.local_color()
        if local is None:
            return []
        start = self.variant.board(self.record.fen).turn
        out = []
        for ply in range(max(0, since), len(self.record.moves)):
            mover = start if ply % 2 == 0 else not start
            if mover == local:
                out.append(LocalMove(ply, self.record.moves[ply], self.record.clocks[ply]))
        return out

    def remote_move(self, ply: int, uci: str, t: float, *, clock: float | None = None) -> bool:
        """The other side's move number ``ply`` (from 0): lit as ``remote-move`` for this board's
        player to make by hand, whose time runs from now. True if it is new, False if it was
        applied already (sent twice); RemoteMoveError if it cannot be this game's move ``ply``.
        ``clock``: the mover's time left as the authoritative side counts it."""
        self._advance(t)
        moves = self.network_moves()
        if ply < len(moves):
            if moves[ply] == uci:
                return False
            raise RemoteMoveError(f"move {ply + 1}: {uci} differs from the game's {moves[ply]}")
        if ply > len(moves):
            raise RemoteMoveError(f"move {ply + 1}: the game has only {len(moves)} moves; a move is missing")
        if self.is_over():
            raise RemoteMoveError(f"move {ply + 1}: the game is over ({self.record.result})")
        if not self.is_remote_turn():
            raise RemoteMoveError(f"move {ply + 1}: it is this board's turn, not the other side's")
        move = self._legal(self.board, uci)
        if move is None:
            raise RemoteMoveError(f"move {ply + 1}: {uci!r} is not a legal move in {self.board.fen()}")
        self._log_entry(EngineReplied(t, move, None))  # a replay shows it as the daemon did
        self.draw_offer = False
        self.remote_offer = None
        self._extra_leds = []
        self.warning = None
        self.serial += 1
        self._dirty = True
        if self.clock is not None:
            mover = self.board.turn
            left = self.clock.moved(mover, t) if clock is None else clock
            if clock is not None:
                self.clock.stop(t)
                self.clock.take_back(mover, clock)
            self._shown_left = round(left, 3)
            self._clock_waits = False
            self.clock.start(not mover, t)  # this board's time runs from the moment it is lit
        self._orientation_assumed()
        self._apply(self.tracker.expect(move, t))
        self._after(t)
        return True

    def sync_clock(self, remaining: dict[str, float], running: str | None, t: float) -> None:
        """Set both clocks to the authoritative side's times (``remaining`` by colour name)."""
        if self.clock is None or self.is_over():
            return
        names = self.variant.color_names
        self.clock.stop(t)
        for color, name in ((True, names[0]), (False, names[1])):
            if name in remaining:
                self.clock.take_back(color, float(remaining[name]))
        if running in names:
            self.clock.start(running == names[0], t)
            self._clock_waits = False

    def set_move_clocks(self, clocks: list[float | None]) -> None:
        """The authoritative side's ``[%clk]`` per move, for the moves both have."""
        changed = False
        for ply, value in enumerate(clocks[: len(self.record.clocks)]):
            if self.record.clocks[ply] != value:
                self.record.clocks[ply] = value
                changed = True
        if changed:
            self._dirty = True

    def remote_end(self, result: str, termination: str, t: float) -> None:
        """The authoritative side ended the game (resignation, agreement, flag, claim), or with
        ``*`` aborted it (no result; ``termination`` says why, ``abandoned`` is not resumed)."""
        self._advance(t)
        if result == "*":
            if (self.record.result, self.record.termination) != (result, termination):
                self.record.result, self.record.termination = result, termination
                self._log_entry(GameDecided(t, result, termination))
                self._dirty = True
            return
        if result not in ("1-0", "0-1", "1/2-1/2"):
            return
        if not self.is_over():
            self._end(result, termination, t)
        elif (self.record.result, self.record.termination) != (result, termination):
            self.record.result, self.record.termination = result, termination  # the host's word is final
            self._log_entry(GameDecided(t, result, termination))
            self._dirty = True

    def remote_takeback(self, moves: int, t: float) -> None:
        """The authoritative game is ``moves`` long now: take back what this board has beyond it."""
        self._advance(t)
        lit = self.pending is not None and self.is_remote_turn() and len(self.record.moves) >= moves
        plies = len(self.record.moves) - moves
        if lit or plies > 0:
            self._log_entry(RemoteTakeback(t, moves))  # replay cannot tell it from this board's events
        if lit:
            self._orientation_assumed()
            self._apply(self.tracker.expect(None, t))
        if plies > 0:
            self.remote_offer = None
            self._orientation_assumed()
            self._apply(self.tracker.take_back(plies, t))
            if self.is_over():
                self.record.result, self.record.termination = "*", ""

    def remote_request(self, kind: str, t: float) -> None:
        """The other side offers a draw or asks for a takeback (this board's button answers:
        the same button accepts), or declined this side's offer."""
        self._advance(t)
        if kind in ("draw", "takeback") and not self.is_over():
            self.remote_offer = kind
            self.draw_offer = kind == "draw"
            self.warning = f"your opponent offers a {kind}: press {kind} to accept, or move to decline" if kind == "draw" \
                else "your opponent asks to take back a move: press takeback to accept"
            if kind == "draw":
                self._extra_leds = [LedIntent(sq, Code.DRAW_OFFER) for sq in self._king_squares()]
                self._sounds.append(Code.DRAW_OFFER)
        elif kind == "rematch" and self.is_over():
            if self.rematch_offered:  # both asked: the host starts it
                self.warning = "rematch agreed: it starts on both boards"
            else:
                self.remote_offer = kind
                self.warning = "your opponent offers a rematch (colours swapped): press new-game to accept"
        elif kind == "decline":
            self.rematch_offered = False
            self.warning = "your opponent declined"
            self.draw_offer = False
            self._extra_leds = []

    def ask_new_game(self, t: float) -> None:
        """A new game asked for in a network game (the new-game button, the page's New game, the
        start position set up after the result): refused while the game runs; after the result
        a rematch is offered to the other side (or its offer accepted). Neither board starts it
        alone: the host starts it on both once agreed (docs/network-protocol.md, "Rematch")."""
        self._advance(t)
        if not self.is_over():
            self.warning = ("a new game cannot start during a network game: resign, offer a draw or claim first; "
                            "after the result, new-game offers your opponent a rematch")
        elif self.rematch_advice is not None:
            self.warning = self.rematch_advice
        elif self.remote_offer == "rematch":
            self.remote_offer = None
            self._requests.append("accept")
            self.warning = "rematch accepted: it starts on both boards (colours swapped)"
        elif self.rematch_offered:
            self.warning = "rematch offered: waiting for your opponent to press new-game"
        else:
            self.rematch_offered = True
            self._requests.append("rematch")
            self.warning = "rematch offered (colours swapped): waiting for your opponent to press new-game"

    def start_rematch(self, t: float, *, color: str, white: str, black: str, fen: str | None = None) -> None:
        """Begin the agreed rematch on this board: ``color`` is this board's colour in it."""
        self.rematch_offered = False
        self.remote_offer = None
        self.new_game(t, fen=fen, settings=replace(self.settings, color=color))
        self.set_players(white, black)
        self.warning = f"rematch: you play {color}; set the pieces up"

    def take_requests(self) -> list[str]:
        """This board's requests for the other side since the last call (:data:`NETWORK_REQUESTS`)."""
        requests, self._requests = self._requests, []
        return requests

    def _network_button(self, button: Button, t: float) -> None:
        """Resign, draw, takeback and claim in a network game: passed to the other side."""
        local = self.local_color()
        assert local is not None
        if button == Button.RESIGN:
            self._requests.append("resign")
            self._end("0-1" if local else "1-0", f"{self.variant.color_name(local)} resigned", t)
        elif button == Button.CLAIM:
            self._requests.append("claim")
            self._claim(t)
        elif button in (Button.DRAW, Button.TAKEBACK):
            kind = "draw" if button == Button.DRAW else "takeback"
            if self.remote_offer == kind:
                self._requests.append("accept")
                self.remote_offer = None
                if kind == "draw":
                    self._end("1/2-1/2", "draw agreed", t)
                self.warning = None if kind == "takeback" else self.warning
            else:
                self._requests.append(kind)
                self.warning = f"{kind} {'offered' if kind == 'draw' else 'asked'}: waiting for your opponent"

    # -- orientation ------------------------------------------------------------------------------

    def _logical_sq(self, square: Square) -> Square:
        return self.geometry.turned(square) if self.flipped else square

    def _logical_bb(self, bb: int) -> int:
        return self.geometry.turn_mask(bb) if self.flipped else bb

    def physical_occupancy(self) -> int:
        """Where the game's pieces stand, in the board's wiring (what a matching board senses)."""
        return self._logical_bb(self.board.occupied)

    def _to_logical(self, event: Event) -> Event:
        if isinstance(event, SquareChanged):
            return replace(event, square=self._logical_sq(event.square))
        if isinstance(event, Snapshot):
            return replace(event, occupancy=self._logical_bb(event.occupancy))
        return event

    # -- input ------------------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """One sensed event (physical squares). Game-log lines (header, engine) sense nothing: ignored."""
        if isinstance(event, GameHeader | EngineReplied | GameDecided | RemoteTakeback):
            return
        if event.t < self.t:
            # Stamped before a timer tick that ran first (events queue up between threads).
            event = replace(event, t=self.t)
        self._advance(event.t)
        if self._readings is not None:
            self._feed_both(event)
            return
        self._feed_one(event)

    def _feed_both(self, event: Event) -> None:
        """Auto orientation before the first move: both readings take the event."""
        readings = self._readings
        assert readings is not None
        readings.unlogged.append(event)
        flipped, step = readings.feed(event)
        if flipped is not None:
            self._orientation_told(flipped)
        self._apply(step)
        self._after(event.t)

    def _feed_one(self, event: Event) -> None:
        logical = self._to_logical(event)
        self._log_entry(logical)
        if self._need_snapshot_log:
            self._log.insert(len(self._log) - 1, (self.record.id, Snapshot(event.t, self.tracker.occupancy)))
            self._need_snapshot_log = False
        if isinstance(logical, ButtonPressed) and logical.button == Button.NEW_GAME and self.local_color() is not None:
            self._apply(self.tracker.tick(logical.t))  # not the tracker's own new game: both boards must agree
            self.ask_new_game(logical.t)
        else:
            self._apply(self.tracker.feed(logical))
        self._after(event.t)

    def tick(self, t: float) -> None:
        """Time passes (settle windows, clock flags, delayed engine requests)."""
        t = max(t, self.t)
        self._advance(t)
        game, result = self.record, self.record.result
        readings = self._readings
        if readings is not None:
            flipped, step = readings.tick(t)
            if step.outputs:
                readings.unlogged.append(Tick(t))  # a tick that changed something: replay needs it
            if flipped is not None:
                self._orientation_told(flipped)
            self._apply(step)
            self._after(t)
            return
        step = self.tracker.tick(t)
        self._apply(step)
        self._after(t)
        if step.outputs or self.record is not game or self.record.result != result:
            self._log.append((game.id, Tick(t)))  # a tick that changed the game: replay needs it

    def _advance(self, t: float) -> None:
        self.t = max(self.t, t)
        if not self._started:
            self._started = True
            self._log_header(t)  # stamped with the time the session starts
            if self.clock is not None and not self.is_over() and self.clock.running is None:
                self._clock_waits = True  # started by _start_clock_when_matching
            if self._resume_pending is not None:
                self._orientation_assumed()
                self._apply(self.tracker.expect(self._resume_pending, t))
                self._resume_pending = None
            if self._request is not None:
                self._request = replace(self._request, not_before=t)

    def _start_clock_when_matching(self, t: float) -> None:
        """Start the waiting clock once the pieces stand as the game says (not while setting up)."""
        if not self._clock_waits or self.clock is None:
            return
        if self.is_over():
            self._clock_waits = False
            return
        if not self.tracker.is_matching():
            return
        self._clock_waits = False
        if self.pending is not None:  # resumed with the engine's move on the LEDs: the human's time
            self._shown_left = self.clock.remaining(self.board.turn, t)
            self.clock.start(not self.board.turn, t)
        else:
            self.clock.start(self.board.turn, t)

    def _after(self, t: float) -> None:
        self._start_clock_when_matching(t)
        self._decide_end(t)
        if self.guide is not None:
            self.guide.after(self, t)

    def _decide_end(self, t: float, forfeit: Forfeit | None = None) -> bool:
        """Mate, stalemate, a dead position, a forfeit or a fallen flag: the one place a game ends
        by itself (buttons end it in :meth:`_on_button`). True if it ended now."""
        if self.is_over():
            return False
        board = self.board
        outcome = board.outcome(claim_draw=False)
        flagged = self.clock.flagged(t) if self.clock is not None else None
        if forfeit is not None:
            result, why = forfeit.result, f"{self.variant.color_name(forfeit.loser)} forfeits: second illegal move"
        elif outcome is not None:
            result, why = outcome.result(), outcome.reason
        elif flagged is not None:
            result = loss_result(board, flagged)
            name = self.variant.color_name(flagged)
            why = f"{name} lost on time" if result != "1/2-1/2" else f"{name} ran out of time; opponent cannot mate"
        else:
            return False
        self._end(result, why, t)
        return True

    # -- tracker outputs --------------------------------------------------------------------------

    def _apply(self, step: Step) -> None:
        self._tracker_leds = step.leds
        for out in step.outputs:
            if self.observer is not None:
                self.observer(out)
            match out:
                case MoveMade():
                    self._on_move(out)
                case MoveTakenBack():
                    self._on_taken_back(out)
                case GameStarted():
                    self._on_game_started(out.fen, out.t)
                case TrackerViolation():
                    self._on_violation(out)
                case TakebackOffered():
                    self.warning = f"takeback of {out.move.uci()} offered: press takeback to confirm"
                case Matched():
                    if not self.is_over():
                        self.warning = None
                case Forfeit():
                    self._decide_end(out.t, forfeit=out)
                case ButtonPressed():
                    self._on_button(out.button, out.t)

    def _on_move(self, out: MoveMade) -> None:
        if self.is_over():
            log.warning("move %s after the game ended (%s); not recorded", out.san, self.record.result)
            return
        # From the record, not the tracker's board: later outputs of the same step may have moved it on.
        start_turn = self.variant.board(self.record.fen).turn
        mover = start_turn if len(self.record.moves) % 2 == 0 else not start_turn
        engine_move = self._human_color() not in (None, mover) or self.local_color() not in (None, mover)
        self.draw_offer = False
        self.remote_offer = None
        self.warning = None
        self._extra_leds = []
        self.serial += 1
        clock_left: float | None = None
        if self._clock_waits and self.clock is not None:
            self._clock_waits = False
            self.clock.start(mover, out.t)
        self.notice = None
        if self.clock is not None:
            if engine_move:
                clock_left = self._shown_left  # switched when the move was shown
            else:
                clock_left = self.clock.moved(mover, out.t)
                self.clock.start(not mover, out.t)  # an engine's time runs while it thinks
        self._shown_left = None
        self.record.moves.append(out.move.uci())
        self.record.clocks.append(None if clock_left is None else round(clock_left, 3))
        self._dirty = True
        if not self._decide_end(out.t):
            self._show_notice()
            self._schedule_engine(out.t)

    def _show_notice(self) -> None:
        """What the rules call for while the game goes on (xiangqi's 必须变着, a repetition's draw
        to claim): the warning says it, the side's general (or both) lights."""
        notice = self.board.notice()
        if notice is None:
            return
        self.warning = notice.text
        if notice.must_vary is None:
            self._extra_leds = [LedIntent(sq, Code.DRAW_OFFER) for sq in self._king_squares()]
        elif (king := self.board.king(notice.must_vary)) is not None:
            self._extra_leds = [LedIntent(king, Code.MUST_VARY)]
            self._sounds.append(Code.MUST_VARY)

    def _on_taken_back(self, out: MoveTakenBack) -> None:
        if self.record.moves and self.record.moves[-1] == out.move.uci():
            self.record.moves.pop()
            self.record.clocks.pop()
        self.record.violations = [v for v in self.record.violations if v.ply <= len(self.record.moves)]
        self.record.result, self.record.termination = "*", ""
        self.coach_notes.trim(len(self.record.moves))
        self._extra_leds = []
        # The engine's line, score and book flag belonged to a position taken back: shown no more
        # (a stale "9...h5 10. Qh3" with White to move) until the engine answers again.
        self._engine_pv, self._engine_score, self._engine_book = None, None, False
        self.serial += 1
        self._dirty = True
        self._restore_clocks(out.t)
        # By hand, more takebacks may follow; only then may the engine move again.
        self._schedule_engine(out.t, delay=TAKEBACK_GRACE)

    def _restore_clocks(self, t: float) -> None:
        if self.clock is None:
            return
        board = self.variant.board(self.record.fen)
        left = {True: self.clock.control.initial, False: self.clock.control.initial}
        for uci, clk in zip(self.record.moves, self.record.clocks, strict=True):
            if clk is not None:
                left[board.turn] = clk
            board.push(board.parse_uci(uci))
        self.clock.stop(t)
        for color, value in left.items():
            self.clock.take_back(color, value)
        self.clock.start(self.board.turn, t)

    def _on_game_started(self, fen: str, t: float) -> None:
        if self._restoring:
            return
        if self.local_color() is not None and not self._agreed_start:
            self._keep_network_game(t)
            return
        old = self.record
        self.record = self._new_record(fen)
        if not old.moves and not old.is_finished():
            self.record.id = old.id  # nothing worth keeping: the same files are reused
        elif not old.is_finished():
            old.termination = "abandoned"
            self._to_save.append(old)
            if self._agreed_start and self._started:
                # Abandoned from outside the board's events (the page's New game): its log says so.
                self._log.append((old.id, GameDecided(t, "*", "abandoned")))
        if self.flipped is not None and self.settings.orientation == "auto":
            self.record.orientation = "flipped" if self.flipped else "normal"  # the board stays where it is
        self.flipped = {"normal": False, "flipped": True}.get(self.record.orientation)
        # A new game: the first move tells again, or, when the orientation is known, one reading
        # (the last game's turned reading must never read this game's set-up as moves).
        self._readings = self._make_readings(t) if self.flipped is None else None
        self.clock = self._make_clock()
        self._clock_waits = self.clock is not None  # starts once the pieces are set up
        self.notice = None
        self.draw_offer = False
        self.remote_offer = None
        self.rematch_offered = False
        self.warning = None
        self._shown_left = None
        self._extra_leds = []
        self._engine_score = None
        self._engine_pv = None
        self._engine_book = False
        self.coach_notes.clear()
        self._illegal_seen = {True: 0, False: 0}
        self._game_started = True
        self.serial += 1
        self._dirty = True
        self._header = self._header_now()
        self._log_header(t)  # at once: later entries go to the new game's own log
        self._schedule_engine(t)

    def _keep_network_game(self, t: float) -> None:
        """The tracker began a game by itself in a network game (the start position set up after
        the result, or a cleared board set up): that asks for a rematch; the game stays."""
        if self.is_over():
            self._orientation_assumed()
            self.tracker.finish()  # the pieces now stand for the next game; no move counts until agreed
        else:
            lit = self._legal(self.record.board(), self.record.pending) if self.record.pending else None
            self._restoring = True
            try:
                self._orientation_assumed()
                self._apply(self.tracker.new_game(t, self.record.board()))
                if lit is not None and self.is_remote_turn():
                    self._apply(self.tracker.expect(lit, t))
            finally:
                self._restoring = False
        self._tracker_leds = self.tracker.leds()
        self.ask_new_game(t)

    def _on_violation(self, out: TrackerViolation) -> None:
        counted = self.tracker.illegal_counts[out.color]
        if self.settings.arbiter and self.clock is not None and counted == 1 and self._illegal_seen[out.color] == 0:
            # FIDE 7.5.5: the first completed illegal move gives the opponent two minutes.
            self.clock.add(not out.color, ARBITER_BONUS)
        self._illegal_seen[out.color] = counted
        color = self.variant.color_name(out.color)
        detail = out.detail
        if self.local_color() is not None:  # one record on both boards: a refused attempt stays local
            detail = detail.replace("the engine's", "your opponent's")
        else:
            self.record.violations.append(Violation(len(self.record.moves), str(out.code), color, out.detail))
        self.warning = f"{color}: {out.code}: {detail}"
        self._sounds.append(out.code)
        self._dirty = True

    # -- buttons ----------------------------------------------------------------------------------

    def _on_button(self, button: Button, t: float) -> None:
        if self.local_color() is not None and button in (Button.RESIGN, Button.CLAIM, Button.DRAW, Button.TAKEBACK):
            if self.is_over():  # one record on both boards: its result is final (no takeback either)
                self.warning = f"the game is over ({self.record.result})"
            else:
                self._network_button(button, t)
            return
        if self.guide is not None and self.guide.on_button(self, button, t):
            return  # the guide's own meaning of the button (a lesson's hint, a replay's step)
        if button == Button.NEW_GAME:
            pass  # the tracker has started the new game itself (GameStarted follows)
        elif button == Button.TAKEBACK:
            self.take_back(t)
        elif self.is_over():
            self.warning = f"the game is over ({self.record.result}); press new-game"
        elif button == Button.HINT:
            if self.settings.mode == "play" and self.is_engine_turn():
                # The engine's own move is being asked for or shown: a hint would replace that
                # request, and the game would wait for a move nobody asks for any more.
                self.warning = "a hint is for your own move; the engine is to move"
            elif self.settings.mode == "play":
                self._request = EngineRequest("hint", self.board.copy(), self.serial, t)
            else:
                self.warning = "hints come from the engine: only in boardctl play"
        elif button == Button.RESIGN:
            loser = self._human_color()
            loser = self.board.turn if loser is None else loser
            self._end("0-1" if loser else "1-0", f"{self.variant.color_name(loser)} resigned", t)
        elif button == Button.CLAIM:
            self._claim(t)
        elif button == Button.DRAW:
            self._draw(t)

    def _claim(self, t: float) -> None:
        # Only the position on the board counts: a button cannot announce a move to be made.
        claim = self.board.claimable_draw()
        if claim is not None:
            self._end("1/2-1/2", f"draw claimed: {claim}", t)
        elif self.variant.name == "chess":
            self.warning = "no draw to claim (neither threefold repetition nor the fifty-move rule)"
        elif self.variant.name == "xiangqi":
            self.warning = ("no draw to claim in xiangqi: only a cycle kept by both sides (双方不变作和) under the Chinese "
                            "rules, at its third occurrence; the Asian rules and the move limit rule by themselves")
        else:
            self.warning = f"no draw to claim in {self.variant.name}"

    def _draw(self, t: float) -> None:
        if self.settings.mode == "play":
            # The engine accepts when it does not think itself better.
            if self._engine_score is not None and self._engine_score <= 0:
                self._end("1/2-1/2", "draw agreed", t)
            else:
                self.warning = "the engine declines the draw"
        elif self.draw_offer:
            self._end("1/2-1/2", "draw agreed", t)
        else:
            # One button for both players: a second press accepts, a move declines.
            self.draw_offer = True
            self.warning = "draw offered: press draw again to accept, or move to decline"
            self._extra_leds = [LedIntent(sq, Code.DRAW_OFFER) for sq in self._king_squares()]

    def new_game(self, t: float, *, fen: str | None = None, settings: Settings | None = None) -> None:
        """Start a new game now (button or web); the tracker waits for the board to match."""
        if settings is not None:
            self.settings = settings
        board = self.variant.board(fen) if fen else None
        self._game_started = False
        self._agreed_start = True  # asked for: not a start the tracker saw on the board by itself
        try:
            self._apply(self.tracker.new_game(t, board))
            if not self._game_started:
                self._on_game_started(board.fen() if board else self.variant.starting_fen, t)
        finally:
            self._agreed_start = False
        self._after(t)

    def take_back(self, t: float) -> None:
        """One takeback: against the engine the engine's reply and the human's move together."""
        if self.pending is not None:
            self._orientation_assumed()
            self._apply(self.tracker.expect(None, t))
        plies = 1
        if self.settings.mode == "play" and not self.is_engine_turn() and len(self.record.moves) >= 2:
            plies = 2
        plies = min(plies, len(self.board.move_stack))
        if plies == 0:
            self.warning = "nothing to take back"
            return
        self._request = None
        self._orientation_assumed()
        self._apply(self.tracker.take_back(plies, t))
        self._request = None  # the human moves next (or the engine, after the board matches)
        self._schedule_engine(t, delay=TAKEBACK_GRACE)

    # -- game end ---------------------------------------------------------------------------------

    def _king_squares(self) -> list[Square]:
        return [sq for c in (True, False) if (sq := self.board.king(c)) is not None]

    def _end(self, result: str, termination: str, t: float) -> None:
        self.record.result = result
        self.record.termination = termination
        if self.local_color() is not None:
            # A network game's result may rest on the other side's word (its resignation, its
            # acceptance of this board's offer, the host's flag): logged so replay ends it here too.
            self._log_entry(GameDecided(max(t, self.t), result, termination))
            # Any end withdraws the offers still open (a draw, a takeback): nothing can accept them now.
            self.remote_offer = None
            self.draw_offer = False
        self._request = None
        self._orientation_assumed()
        self.tracker.finish()  # from now on pieces moved are cleared up (the pending move goes too)
        self._tracker_leds = self.tracker.leds()
        if self.clock is not None:
            self.clock.stop(t)
        kings = {"1-0": [self.board.king(True)], "0-1": [self.board.king(False)]}.get(
            result, [self.board.king(True), self.board.king(False)]
        )
        self._extra_leds = [LedIntent(sq, Code.RESULT) for sq in kings if sq is not None]
        self._sounds.append(Code.RESULT)
        self._save_review()
        self.warning = f"game over: {result} ({termination})"
        self._dirty = True
        log.info("game %s over: %s (%s)", self.record.id, result, termination)

    # -- the engine -------------------------------------------------------------------------------

    def _schedule_engine(self, t: float, *, delay: float = 0.0) -> None:
        self._request = None
        if not self.is_over() and self.is_engine_turn():
            self._request = EngineRequest("move", self.board.copy(), self.serial, t + delay)

    def engine_request(self) -> EngineRequest | None:
        """What the engine should be asked now (the daemon starts it once per request)."""
        request = self._request
        if request is None or request.not_before > self.t or not self._started:
            return None
        if self.guide is not None and not self.guide.may_ask_engine(self, request.kind):
            return None  # the guide plays this move itself (a lesson's reply)
        if request.kind == "move" and not self.tracker.is_matching():
            return None  # wait until the board shows the game (after a takeback, resume or setup)
        if request.kind == "move" and self.clock is not None and request.budget is None:
            # A fortieth of the time left plus half the increment: never flag for thinking.
            left = self.clock.remaining(self.board.turn, self.t)
            request = replace(request, budget=left / 40 + self.clock.control.increment / 2)
            self._request = request
        return request

    def engine_replied(self, request: EngineRequest, reply: Reply, t: float) -> None:
        """The engine answered ``request``; stale answers (the game moved on) are dropped."""
        self._advance(t)
        if request is not self._request or request.serial != self.serial or self.is_over():
            log.info("dropping stale engine reply %s", reply.move.uci())
            return
        self._request = None
        # The reply as this game's own move (a log's engine line is only text until here).
        move = self._legal(self.board, reply.move.uci())
        if request.kind == "hint":
            self.tracker.hint(move)
            if self._readings is not None:
                self._readings.turned.hint(move)
            self._tracker_leds = self.tracker.leds()
            return
        if move is None:
            raise ValueError(f"expected move {reply.move.uci()} is not legal in {self.board.fen()}")
        self._log_entry(EngineReplied(t, move, reply.score))
        self._check_blunder(reply.score)
        self._engine_score = reply.score
        self._engine_book = reply.book
        self._engine_pv = self._pv_text(request.board, reply.pv) if reply.pv else None
        self._dirty = True  # saved, so that a restart shows the same move
        if self.clock is not None:
            engine_color = self.board.turn
            self._shown_left = round(self.clock.moved(engine_color, t), 3)
            self.clock.start(not engine_color, t)  # the human's time runs from the moment it is shown
        self._orientation_assumed()
        self._apply(self.tracker.expect(move, t))
        self._after(t)

    @staticmethod
    def _pv_text(board: GameBoard, pv: tuple[Move, ...] | list[Move]) -> str | None:
        """The engine's line in the game's notation, as far as it is legal from ``board``."""
        probe = board.copy(stack=False)
        moves = []
        for step in pv:
            move = Session._legal(probe, step.uci())
            if move is None:
                break
            moves.append(move)
            probe.push(move)
        return board.variation_san(moves) if moves else None

    def _check_blunder(self, score: int | None) -> None:
        if not self.settings.blunder_warning or self.is_coached() or score is None or self._engine_score is None:
            return
        if score - self._engine_score >= BLUNDER_CP and self.board.move_stack:
            move = self.board.peek()
            self.warning = f"blunder warning: {self.board.move_stack[-1].uci()} loses about {(score - self._engine_score) / 100:.1f} pawns"
            self._extra_leds = [LedIntent(move.from_square, Code.BLUNDER), LedIntent(move.to_square, Code.BLUNDER)]
            self._sounds.append(Code.BLUNDER)

    def engine_failed(self, request: EngineRequest, message: str) -> None:
        """The engine could not answer even after restarts: say so, and ask again a little later."""
        if request is self._request:
            self._request = replace(request, not_before=self.t + ENGINE_RETRY)
        self.warning = f"engine failed: {message}"

    # -- the coach (boardctl.learning.coach) -----------------------------------------------------

    def is_coached(self) -> bool:
        """A coach judges the human's moves: asked for (``--coach``), or at a practice level
        unless turned off (``--no-coach``)."""
        if self.settings.mode != "play":
            return False
        if self.settings.coach is not None:
            return self.settings.coach
        return self.settings.level in PRACTICE_LEVELS

    def human_color(self) -> Color | None:
        """The human's side in play, None in record mode."""
        return self._human_color()

    def coach_verdict(self, verdict: Verdict | None, ply: int, move: str) -> bool:
        """The coach's answer about the move ``move`` at ``ply``; True when the LEDs and the page
        change (the better move lit with ``coach``, replacing the blunder warning)."""
        if not self.is_coached() or not self.coach_notes.accept(verdict, ply=ply, move=move, moves=self.record.moves):
            return False
        assert verdict is not None
        board = self.variant.board(self.record.fen)
        for uci in self.record.moves[:ply]:
            board.push(board.parse_uci(uci))
        better = self._legal(board, verdict.best)
        if better is not None:
            self._extra_leds = [LedIntent(better.from_square, Code.COACH), LedIntent(better.to_square, Code.COACH)]
            self._sounds.append(Code.COACH)
        if self.is_over():
            self._save_review()
        return True

    def _coach_line(self) -> dict[str, Any] | None:
        current = self.coach_notes.current
        if current is None or not self.is_coached() or current.ply >= len(self.record.moves):
            return None
        return current.to_json()

    def _save_review(self) -> None:
        if self.is_coached():
            self.record.review = self.coach_notes.annotations()
            self._dirty = True

    # -- output -----------------------------------------------------------------------------------

    def leds(self) -> list[LedIntent]:
        """The LEDs to light now, physical squares, tracker's first then the session's."""
        seen: set[tuple[int, str]] = set()
        out: list[LedIntent] = []
        network = self.settings.mode == "network"
        intents = [*self._tracker_leds, *self._extra_leds]
        if self.guide is not None:
            intents = self.guide.leds(self, intents)
        for intent in intents:
            why = Code.REMOTE_MOVE if network and intent.why is Code.ENGINE_MOVE else intent.why
            phys = LedIntent(self._logical_sq(intent.square), why)
            if (phys.square, phys.why) not in seen:
                seen.add((phys.square, phys.why))
                out.append(phys)
        return out

    def state_line(self) -> dict[str, Any]:
        """The state everyone sees (stdio, web page); keys documented in docs/events.md."""
        human = self.record.human
        line: dict[str, Any] = {
            "fen": self.board.fen(),
            "start_fen": self.record.fen,
            "occupancy": self.geometry.to_hex(self._logical_bb(self.tracker.occupancy)),
            "pending": None if self.pending is None else self.pending.uci(),
            "promotion": None if self.tracker.promotion is None else self.tracker.promotion.uci(),
            "moves": [move.uci() for move in self.tracker.moves],
            "leds": [intent.to_json(self.geometry) for intent in self.leds()],
            "result": self.record.result,
            "termination": self.record.termination or None,
            "turn": self.variant.color_name(self.board.turn),
            "variant": self.variant.name,
            "mode": self.settings.mode,
            "human": human,
            "level": self.record.level,
            "orientation": self.record.orientation,
            "clock": None if self.clock is None else self.clock.to_json(self.t),
            "hint": None if self.hint_move is None else self.hint_move.uci(),
            "eval": self._eval(),
            "book": self._engine_book,
            "pv": self._engine_pv,
            "draw_offer": self.draw_offer,
            "matching": self.tracker.is_matching(),
            "thinking": self._request is not None and self._request.kind == "move",
            "warning": self.warning,
            "game": self.record.id,
            "notice": self.notice,
            "opponent": self.settings.opponent or self._network_opponent(),
            "coach": self._coach_line(),
            "review": [v.to_json() for v in self.coach_notes.review()] if self.is_over() and self.is_coached() else None,
        }
        if self.guide is not None:
            line.update(self.guide.state(self))
        return line

    def _network_opponent(self) -> str | None:
        """In a network game, the other board's player as the record names them (``Guest``)."""
        if self.settings.mode != "network" or self.record.human not in self.variant.color_names:
            return None
        theirs = self.record.black if self.record.human == self.variant.color_names[0] else self.record.white
        return theirs or None

    def _eval(self) -> dict[str, int] | None:
        """The engine's last score, from White's side: ``{"cp": n}`` or ``{"mate": n}``."""
        human = self._human_color()
        if human is None or self._engine_score is None:
            return None
        score = self._engine_score if not human else -self._engine_score
        if abs(score) >= MATE_SCORE - 500:
            moves = MATE_SCORE - abs(score)
            return {"mate": moves if score > 0 else -moves}
        return {"cp": score}

    def take_dirty(self) -> bool:
        """Whether the record changed since the last call (the daemon saves it then)."""
        dirty, self._dirty = self._dirty, False
        if dirty:
            self.record.pending = None if self.pending is None else self.pending.uci()
            if self.clock is not None:
                self.record.clock = self.clock.to_json(self.t)
        return dirty

    def take_finished(self) -> list[GameRecord]:
        """Earlier records to save once more (a game abandoned for a new one)."""
        records, self._to_save = self._to_save, []
        return records

    def take_sounds(self) -> list[Code]:
        sounds, self._sounds = self._sounds, []
        if self.guide is not None:
            sounds += self.guide.take_sounds()
        return sounds

    def take_log(self) -> list[tuple[str, Event]]:
        """Log entries since the last call, each with the id of the game whose ``.jsonl`` it belongs to."""
        entries, self._log = self._log, []
        return entries
