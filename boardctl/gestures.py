"""Human-like switch events for a move: the orders, slides, brushes and pauses real hands make.

Used by the tests (every generated game must come back exactly), the benchmarks and demos.
Timings are drawn so that a completed move is always released for longer than the settle time,
and brushes and passing touches always last less than the brush time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from boardctl.core.geometry import Geometry, Square, squares_of
from boardctl.core.rules import GameBoard, Move, Variant
from boardctl.events import PROMOTION_BUTTONS, Button, ButtonPressed, Event, SquareChanged
from boardctl.tracker import DEFAULT_TIMING, Policy, Timing
from boardctl.variants import get_variant

_BUTTON_FOR_PIECE = {piece: button for button, piece in PROMOTION_BUTTONS.items()}

#: Pieces carried along a line, so a hand may slide them over the empty squares between.
SLIDERS = frozenset({"bishop", "rook", "queen", "chariot", "cannon"})


def _between(geometry: Geometry, start: Square, end: Square) -> list[Square]:
    """The squares strictly between two squares on one rank, file or diagonal (else none),
    nearest to ``start`` first."""
    df = geometry.file_of(end) - geometry.file_of(start)
    dr = geometry.rank_of(end) - geometry.rank_of(start)
    steps = max(abs(df), abs(dr))
    if steps < 2 or (df and dr and abs(df) != abs(dr)):
        return []
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    f, r = geometry.file_of(start), geometry.rank_of(start)
    return [geometry.square(f + sf * i, r + sr * i) for i in range(1, steps)]


def _castling_parts(board: GameBoard, move: Move) -> tuple[Square, Square, Square] | None:
    """A move of two pieces (chess castling): where the king lands, and the rook's from and to."""
    king_to = board.landing_square(move)
    mask = board.move_mask(move) & ~(1 << move.from_square | 1 << king_to | 1 << move.to_square)
    if mask.bit_count() != 2 or not mask & board.occupied:
        return None
    rook_from = (mask & board.occupied & -(mask & board.occupied)).bit_length() - 1
    rook_to = next(sq for sq in squares_of(mask) if sq != rook_from)
    return king_to, rook_from, rook_to


def _adopt(board: GameBoard | None, variant: Variant | None) -> GameBoard:
    variant = variant or get_variant("chess")
    return variant.adopt(board) if board is not None else variant.board()


@dataclass
class Hand:
    """Makes events for moves, keeping the clock and the occupancy it has produced so far."""

    rng: random.Random
    timing: Timing = DEFAULT_TIMING
    policy: Policy = Policy.STRICT
    t: float = 0.0
    brushes: bool = True
    adjusts: bool = True
    #: Blitz: the reply's first lift follows the last placement after 0 to 0.35 s (no brushes,
    #: no adjustments in between); see :func:`events_for_game` for overlapping hands.
    blitz: bool = False
    #: Let captures push their victim off (the square never reads empty), completed by a blink,
    #: the clock button or waiting, and confirmed on the board when two victims were possible.
    pushes: bool = False

    def _pause(self, low: float, high: float) -> None:
        self.t += self.rng.uniform(low, high)

    def _lift(self, out: list[Event], square: Square) -> None:
        out.append(SquareChanged(round(self.t, 4), square, False))

    def _place(self, out: list[Event], square: Square) -> None:
        out.append(SquareChanged(round(self.t, 4), square, True))

    def _contact(self) -> float:
        return self.rng.uniform(0.01, self.timing.brush * 0.8)

    def _released(self) -> None:
        """Wait past the settle time, so the last placement counts as released (in blitz, the
        opponent's next lift shows it instead, after any gap from 0 s)."""
        if self.blitz:
            self.t += 0.0 if self.rng.random() < 0.2 else self.rng.uniform(0.0, 0.35)
            return
        self._pause(self.timing.settle + 0.02, self.timing.settle + 0.9)

    def _in_hand(self) -> None:
        # A blitz hand never holds a piece near the mismatch delay (a held piece that could have
        # captured is then read as a capture that pushed its victim off).
        self._pause(self.timing.brush + 0.05, 0.5 if self.blitz else 0.8)

    def brush(self, board: GameBoard, out: list[Event]) -> None:
        """Knock a piece for a moment; it never leaves its square for longer than the brush time."""
        square = self.rng.choice(list(squares_of(board.occupied)))
        self._lift(out, square)
        self._pause(0.005, self.timing.brush * 0.8)
        self._place(out, square)
        self._pause(0.05, 0.3)

    def adjust(self, out: list[Event], square: Square) -> None:
        """Lift a piece past the brush time and set it back within the settle time: its owner
        straightening it. (Kept off longer, FIDE 4.3 would make the side to move capture it.)"""
        self._lift(out, square)
        self._pause(self.timing.brush + 0.02, self.timing.settle - 0.03)
        self._place(out, square)
        self._released()

    def _travel(self, out: list[Event], board: GameBoard, start: Square, end: Square) -> None:
        """Carry the piece from ``start`` to ``end``, sliding over empty squares when it is a slider."""
        path = _between(board.geometry, start, end) if board.piece_name(start) in SLIDERS else []
        if path and not any(board.occupied >> sq & 1 for sq in path) and self.rng.random() < 0.5:
            for square in path:
                self._pause(0.01, 0.06)
                self._place(out, square)
                self._pause(0.01, self.timing.brush * 0.8)
                self._lift(out, square)
            self._pause(0.01, 0.06)
        else:
            self._in_hand()

    def move(self, board: GameBoard, move: Move, *, promote_by: str = "choose") -> list[Event]:
        """Events that make ``move`` on ``board`` (not pushed). ``promote_by`` picks the promotion gesture.
        A plain python-chess ``Board`` is taken as a chess game (copied once)."""
        if getattr(board, "geometry", None) is None:
            board = get_variant("chess").adopt(board)
        out: list[Event] = []
        rng = self.rng
        if self.brushes and not self.blitz and rng.random() < 0.15:
            self.brush(board, out)
        if self.adjusts and not self.blitz and rng.random() < 0.1:
            theirs = board.occupied_by(not board.turn)
            self.adjust(out, rng.choice(list(squares_of(theirs))))
        victim = board.capture_square(move)
        castling = _castling_parts(board, move)
        if castling is not None:
            self._castle(out, move, castling)
        elif victim is not None and victim != move.to_square:  # en passant
            if rng.random() < 0.5:
                self._lift(out, victim)
                self._in_hand()
                self._lift(out, move.from_square)
                self._in_hand()
                self._place(out, move.to_square)
            else:
                self._lift(out, move.from_square)
                self._in_hand()
                self._place(out, move.to_square)
                self._pause(0.02, 0.8)
                self._lift(out, victim)
        elif board.choice_of(move) is not None:
            self._promote(out, board, move, promote_by)
            return out
        elif victim is not None and self.pushes and rng.random() < 0.5:
            self._push_off(out, board, move)
            return out
        elif victim is not None:
            if rng.random() < 0.5:
                self._lift(out, move.to_square)
                self._in_hand()
                self._lift(out, move.from_square)
            else:
                self._lift(out, move.from_square)
                self._in_hand()
                self._lift(out, move.to_square)
            self._in_hand()
            self._place(out, move.to_square)
        else:
            self._lift(out, move.from_square)
            self._travel(out, board, move.from_square, move.to_square)
            self._place(out, move.to_square)
        self._released()
        if self.adjusts and not self.blitz and rng.random() < 0.1:
            self.adjust(out, move.to_square)  # the mover straightens the piece it just set down
        return out

    def _push_off(self, out: list[Event], board: GameBoard, move: Move) -> None:
        """The capturer shoves its victim off: the target's switch never opens (or only blinks)."""
        rng = self.rng
        targets = {m.to_square for m in board.generate_legal_moves(1 << move.from_square, board.occupied_by(not board.turn))}
        self._lift(out, move.from_square)
        self._in_hand()
        how = rng.choice(["blink", "clock", "wait"])
        if how == "blink":
            self._lift(out, move.to_square)
            self._pause(0.005, self.timing.brush * 0.8)
            self._place(out, move.to_square)
            self._pause(self.timing.settle + 0.02, self.timing.settle + 0.5)
            return
        if how == "clock":
            self._pause(0.05, 0.2)
            out.append(ButtonPressed(round(self.t, 4), Button.CLOCK))
        else:
            self._pause(self.timing.settle + self.timing.mismatch_delay + 0.05, self.timing.settle + self.timing.mismatch_delay + 0.4)
        if len(targets) > 1:  # which-capture: lift the capturer from where it stands and put it back
            self._pause(0.1, 0.5)
            self._lift(out, move.to_square)
            self._pause(self.timing.brush + 0.02, self.timing.settle - 0.03)
            self._place(out, move.to_square)
        self._pause(self.timing.settle + 0.02, self.timing.settle + 0.5)

    def _castle(self, out: list[Event], move: Move, parts: tuple[Square, Square, Square]) -> None:
        king_to, rook_from, rook_to = parts
        rook_first = self.policy is Policy.CASUAL and self.rng.random() < 0.5
        order = [(rook_from, rook_to), (move.from_square, king_to)] if rook_first else [(move.from_square, king_to), (rook_from, rook_to)]
        for index, (start, end) in enumerate(order):
            self._lift(out, start)
            self._in_hand()
            self._place(out, end)
            if index == 0:
                self._pause(0.02, 0.25 if self.blitz else 0.8)  # blitz: one motion, no rest between

    def _promote(self, out: list[Event], board: GameBoard, move: Move, promote_by: str) -> None:
        rng = self.rng
        capture = board.capture_square(move) is not None
        victim_first = capture and rng.random() < 0.5
        if victim_first:
            self._lift(out, move.to_square)
            self._in_hand()
        self._lift(out, move.from_square)
        self._in_hand()
        if capture and not victim_first:
            self._lift(out, move.to_square)
            self._in_hand()
        swap = rng.random() < 0.5
        self._place(out, move.to_square)  # the pawn set down first, or the new piece straight away
        if swap:
            self._pause(self.timing.settle + 0.05, 0.8)
            self._lift(out, move.to_square)
            self._in_hand()
            self._place(out, move.to_square)
        piece = board.choice_of(move)
        cycle = board.choices()
        assert piece is not None
        if piece != cycle[0]:
            self._pause(0.1, self.timing.settle)
            if promote_by == "cycle":
                for _ in range(cycle.index(piece)):
                    out.append(ButtonPressed(round(self.t, 4), Button.PROMOTE))
                    self._pause(0.1, 0.4)
            else:
                out.append(ButtonPressed(round(self.t, 4), _BUTTON_FOR_PIECE[piece]))
        # Leave the window to close by itself, or let the next move close it.
        if rng.random() < 0.5:
            self._pause(self.timing.settle + self.timing.promotion_window + 0.05, self.timing.settle + self.timing.promotion_window + 0.5)
        else:
            self._released()


def random_game(
    rng: random.Random, *, max_plies: int = 80, bias: bool = True, board: GameBoard | None = None,
    variant: Variant | None = None,
) -> list[Move]:
    """A random legal game (chess unless ``variant``), biased towards moves of several pieces
    (castling, en passant), promotions, pawn moves and captures."""
    board = _adopt(board, variant)
    moves: list[Move] = []
    while len(moves) < max_plies and board.outcome() is None:
        legal = list(board.generate_legal_moves())
        weights = []
        for move in legal:
            weight = 1.0
            if bias:
                if board.move_mask(move).bit_count() > 2:
                    weight = 60.0
                elif board.choice_of(move) is not None:
                    weight = 40.0
                elif board.piece_name(move.from_square) in ("pawn", "soldier"):
                    weight = 4.0
                elif board.capture_square(move) is not None:
                    weight = 3.0
            weights.append(weight)
        move = rng.choices(legal, weights)[0]
        moves.append(move)
        board.push(move)
    return moves


def events_for_game(
    moves: list[Move], hand: Hand, *, board: GameBoard | None = None, overlap: float = 0.0,
    variant: Variant | None = None,
) -> list[Event]:
    """Events for a whole game, each move made by ``hand`` in one of its human orders.

    ``overlap``: how often (0..1) the reply's first lift comes before the previous move's last
    placement, by up to 0.29 s (hands overlapping in blitz), where the squares allow it.
    """
    board = _adopt(board, variant)
    out: list[Event] = []
    previous: tuple[GameBoard, Move, list[Event]] | None = None
    own: list[Event] = []  # the events of the move before the previous one: the replier's own move
    floor = float("-inf")  # the end of that move
    for move in moves:
        promote_by = hand.rng.choice(["choose", "cycle"]) if not hand.blitz else "choose"
        events = hand.move(board, move, promote_by=promote_by)
        if previous is not None and hand.blitz:
            events = _after_release(hand, previous, events, own)
        if previous is not None and overlap and hand.rng.random() < overlap:
            events = _overlapped(hand, previous, events, floor)
        out.extend(events)
        if previous is not None and previous[2]:
            floor = max(e.t for e in previous[2])
            own = previous[2]
        previous = (board.copy(stack=False), move, events)
        board.push(move)
    return sorted(out, key=lambda e: e.t)


def _after_release(
    hand: Hand, previous: tuple[GameBoard, Move, list[Event]], events: list[Event], earlier: list[Event]
) -> list[Event]:
    """A hand cannot take a piece up within the brush time of its landing (that reads as a blink):
    a reply that starts on a square the previous move (or the replier's own, ``earlier``) just
    filled waits a little longer."""
    _, _, before = previous
    if not events or not before or not isinstance(events[0], SquareChanged):
        return events
    last = {e.square: e.t for e in [*earlier, *before] if isinstance(e, SquareChanged)}
    landed = last.get(events[0].square)
    wait = 0.0 if landed is None else landed + hand.timing.brush + 0.05 - events[0].t
    if wait <= 0:
        return events
    hand.t += wait
    return [replace(e, t=round(e.t + wait, 4)) for e in events]


def _overlapped(
    hand: Hand, previous: tuple[GameBoard, Move, list[Event]], events: list[Event], floor: float
) -> list[Event]:
    """Move the reply's first lift before the previous move's last placement, if it is a plain
    lift of a square the previous move did not touch."""
    board, move, before = previous
    places = [e for e in before if isinstance(e, SquareChanged) and e.occupied]
    if not events or not places or not isinstance(events[0], SquareChanged) or events[0].occupied or before[-1] is not places[-1]:
        return events  # nothing to overlap, or the move ends with a lift (an e.p. victim taken last)
    if board.choice_of(move) is not None or any(isinstance(e, ButtonPressed) for e in before):
        return events  # a promotion's choice must be made before the reply starts
    first = events[0]
    touched = {e.square for e in before if isinstance(e, SquareChanged)} | set(squares_of(board.move_mask(move)))
    if first.square in touched or board.color_at(first.square) == board.turn:
        return events  # only the replying side's own piece, on a square the move leaves alone
    when = round(places[-1].t - hand.rng.uniform(0.0, 0.29), 4)
    earlier = [e.t for e in before if e.t < places[-1].t]
    if when <= max(before[0].t, floor + hand.timing.brush + 0.05, *earlier[-1:]):
        # Not before the mover's hand began, nor during a slide (it reads as set down there), nor
        # within the brush time of the replier's own last placement (a piece set down and taken
        # up again that fast is a piece passing over, as the tracker reads it).
        return events
    return [SquareChanged(when, first.square, False), *events[1:]]
