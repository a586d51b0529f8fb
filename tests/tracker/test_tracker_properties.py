"""Property tests: human-like event streams for whole games must come back exactly.

Games come from a biased random walk (castling, en passant, promotion), from the CC0 opening
lines packaged in boardctl/data (from shared/data/openings), and hands make
every move in one of its human orders with random timings, brushes and adjustments.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.events import Button, ButtonPressed, Code, Event, SquareChanged, Tick
from boardctl.gestures import Hand, events_for_game, random_game
from boardctl.tracker import (
    GameStarted,
    MoveMade,
    MoveTakenBack,
    Policy,
    TakebackMode,
    Tracker,
    Violation,
)

#: The CC0 Lichess opening lines, as packaged for the daemon (a Pi has no ../shared).
OPENINGS = [Path(__file__).resolve().parents[2] / "boardctl" / "data" / "openings.tsv"]


def run(events: list[Event], *, policy: Policy, board: chess.Board | None = None) -> tuple[list[chess.Move], list[Violation]]:
    tracker = Tracker(board, policy=policy)
    moves: list[chess.Move] = []
    violations: list[Violation] = []
    for event in [*events, Tick(events[-1].t + 60.0)] if events else []:
        for out in tracker.feed(event).outputs:
            if isinstance(out, MoveMade):
                moves.append(out.move)
            elif isinstance(out, MoveTakenBack):
                moves.pop()
            elif isinstance(out, Violation):
                violations.append(out)
    return moves, violations


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), policy=st.sampled_from(list(Policy)))
def test_random_games_come_back_exactly(seed: int, policy: Policy) -> None:
    rng = random.Random(seed)
    moves = random_game(rng, max_plies=rng.randint(1, 120))
    events = events_for_game(moves, Hand(rng, policy=policy))
    got, violations = run(events, policy=policy)
    assert got == moves
    assert violations == []


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_promotion_heavy_endgames(seed: int) -> None:
    rng = random.Random(seed)
    board = chess.Board("4k3/PPP2PPP/8/8/8/8/ppp2ppp/4K3 w - - 0 1")
    moves = random_game(rng, max_plies=40, board=board)
    events = events_for_game(moves, Hand(rng), board=board)
    got, violations = run(events, policy=Policy.FIDE, board=board)
    assert got == moves
    assert violations == []


def _opening_lines(limit: int) -> list[list[str]]:
    lines: list[list[str]] = []
    for path in OPENINGS:
        with path.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                lines.append(row["pgn"].split())
    random.Random(7).shuffle(lines)
    return lines[:limit]


def test_opening_lines_come_back_exactly() -> None:
    rng = random.Random(11)
    for tokens in _opening_lines(300):
        board = chess.Board()
        moves = []
        for token in tokens:
            if token[0].isdigit():
                continue
            moves.append(board.push_san(token))
        policy = rng.choice(list(Policy))
        events = events_for_game(moves, Hand(rng, policy=policy))
        got, violations = run(events, policy=policy)
        assert got == moves, " ".join(tokens)
        assert violations == []


def _touch_violation(hand: Hand, board: chess.Board, touched: chess.Square, other: chess.Move) -> list[Event]:
    """Touch ``touched`` deliberately, put it back, make ``other`` instead, then undo ``other``."""
    out: list[Event] = []
    hand._lift(out, touched)
    hand._in_hand()
    if not board.move_stack:
        hand.t += 0.3  # before the first move a piece put back within the settle time is straightened
    hand._place(out, touched)
    hand._released()
    out.extend(hand.move(board, other))
    hand._lift(out, other.to_square)
    hand._in_hand()
    hand._place(out, other.from_square)
    hand._released()
    return out


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_touch_move_violation_is_flagged_and_the_game_still_comes_back(seed: int) -> None:
    rng = random.Random(seed)
    moves = random_game(rng, max_plies=rng.randint(2, 60))
    hand = Hand(rng, brushes=True, adjusts=False)
    board = chess.Board()
    events: list[Event] = []
    injected = []
    for move in moves:
        others = [
            m for m in board.legal_moves
            if m.from_square != move.from_square and not board.is_capture(m) and not board.is_castling(m)
            and m.promotion is None and board.piece_type_at(m.from_square) != chess.KING
        ]
        if others and rng.random() < 0.3:
            other = rng.choice(others)
            injected.append((len(board.move_stack) + 1, board.turn))
            events.extend(_touch_violation(hand, board, move.from_square, other))
        events.extend(hand.move(board, move))
        board.push(move)
    got, violations = run(events, policy=Policy.FIDE)
    assert got == moves
    assert [(v.code, v.ply, v.color) for v in violations] == [(Code.TOUCH_MOVE, ply, color) for ply, color in injected]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_brushes_are_never_flagged(seed: int) -> None:
    rng = random.Random(seed)
    moves = random_game(rng, max_plies=30)
    hand = Hand(rng, brushes=False, adjusts=False)
    board = chess.Board()
    events: list[Event] = []
    for move in moves:
        for _ in range(rng.randint(0, 3)):
            hand.brush(board, events)
        events.extend(hand.move(board, move))
        board.push(move)
    got, violations = run(events, policy=Policy.FIDE)
    assert got == moves
    assert violations == []


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_takebacks_in_a_row(seed: int) -> None:
    rng = random.Random(seed)
    moves = random_game(rng, max_plies=20, bias=False)
    if not moves:
        return
    hand = Hand(rng, brushes=False, adjusts=False)
    events = events_for_game(moves, hand)
    board = chess.Board()
    for move in moves:
        board.push(move)
    undo = rng.randint(1, len(moves))
    # After mate or stalemate moving pieces is clearing up, not a takeback: the game stays whole.
    expected = list(board.move_stack) if board.is_checkmate() or board.is_stalemate() else None
    for _ in range(undo):
        move = board.pop()
        if board.is_castling(move) or board.is_en_passant(move) or move.promotion or board.is_capture(move):
            board.push(move)
            undo -= 1
            break
        hand.t += 0.5
        events.append(SquareChanged(hand.t, move.to_square, False))
        hand.t += 0.4
        events.append(SquareChanged(hand.t, move.from_square, True))
        hand.t += 0.5
    got, violations = run(events, policy=Policy.FIDE)
    assert got == (board.move_stack if expected is None else expected)
    assert violations == []


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(
        st.tuples(
            st.floats(0.0, 1.5, allow_nan=False),
            st.one_of(st.integers(0, 63), st.sampled_from(list(Button))),
        ),
        max_size=80,
    ),
    policy=st.sampled_from(list(Policy)),
    takeback=st.sampled_from(list(TakebackMode)),
)
def test_arbitrary_hands_never_crash_and_only_legal_moves_come_out(
    steps: list[tuple[float, int | Button]], policy: Policy, takeback: TakebackMode
) -> None:
    """Toddler test: any sequence of lifts, places and buttons; the game stays a legal game."""
    tracker = Tracker(policy=policy, takeback=takeback, arbiter=True, show_legal_moves=True)
    shadow = chess.Board()
    t = 0.0
    for gap, what in steps:
        t += gap
        if isinstance(what, Button):
            event: Event = ButtonPressed(t, what)
        else:
            event = SquareChanged(t, what, not tracker.occupancy & chess.BB_SQUARES[what])
        for out in tracker.feed(event).outputs:
            if isinstance(out, MoveMade):
                assert out.move in shadow.legal_moves
                shadow.push(out.move)
            elif isinstance(out, MoveTakenBack):
                assert shadow.pop() == out.move
            elif isinstance(out, GameStarted):
                shadow = chess.Board(out.fen)
        assert tracker.board.move_stack == shadow.move_stack
        for led in tracker.leds():
            assert 0 <= led.square < 64


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), policy=st.sampled_from(list(Policy)), overlap=st.sampled_from([0.0, 0.3, 1.0]))
def test_blitz_games_with_zero_gaps_and_overlapping_hands_come_back_exactly(seed: int, policy: Policy, overlap: float) -> None:
    """Each reply starts 0 to 0.35 s after the last placement, or up to 0.29 s before it."""
    rng = random.Random(seed)
    moves = random_game(rng, max_plies=rng.randint(1, 100))
    events = events_for_game(moves, Hand(rng, policy=policy, blitz=True), overlap=overlap)
    got, violations = run(events, policy=policy)
    assert got == moves
    assert violations == []


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), policy=st.sampled_from(list(Policy)))
def test_captures_that_push_the_victim_off_come_back_exactly(seed: int, policy: Policy) -> None:
    rng = random.Random(seed)
    moves = random_game(rng, max_plies=rng.randint(1, 100))
    events = events_for_game(moves, Hand(rng, policy=policy, pushes=True))
    got, violations = run(events, policy=policy)
    assert got == moves
    assert violations == []
