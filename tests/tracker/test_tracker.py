"""The tracker, case by case: each test is a short script of what hands do on the board."""

from __future__ import annotations

import chess
import pytest

from boardctl.events import Button, ButtonPressed, Code, Event, Snapshot, SquareChanged
from boardctl.tracker import (
    START_OCCUPANCY,
    Forfeit,
    GameStarted,
    Matched,
    MoveMade,
    MoveTakenBack,
    Output,
    Policy,
    TakebackMode,
    TakebackOffered,
    Timing,
    Tracker,
    Violation,
    occupancy_after,
)

S = chess.parse_square


class Script:
    """Drive a tracker with a tiny language: ``lift("e2")``, ``place("e4")``, ``wait(0.5)``."""

    def __init__(self, tracker: Tracker, t: float = 1.0) -> None:
        self.tracker = tracker
        self.t = t
        self.outputs: list[Output] = []

    def _feed(self, event: Event) -> Script:
        step = self.tracker.feed(event)
        self.outputs.extend(step.outputs)
        self.leds = step.leds
        return self

    def lift(self, square: str, after: float = 0.2) -> Script:
        self.t += after
        return self._feed(SquareChanged(self.t, S(square), False))

    def place(self, square: str, after: float = 0.2) -> Script:
        self.t += after
        return self._feed(SquareChanged(self.t, S(square), True))

    def press(self, button: Button, after: float = 0.1) -> Script:
        self.t += after
        return self._feed(ButtonPressed(self.t, button))

    def wait(self, seconds: float = 0.5) -> Script:
        self.t += seconds
        step = self.tracker.tick(self.t)
        self.outputs.extend(step.outputs)
        self.leds = step.leds
        return self

    def move(self, a: str, b: str) -> Script:
        if self.tracker.occupancy & chess.BB_SQUARES[S(b)]:
            self.lift(b)  # a capture: the victim comes off first
        return self.lift(a).place(b).wait()

    @property
    def moves(self) -> list[str]:
        return [o.move.uci() for o in self.outputs if isinstance(o, MoveMade)]

    @property
    def violations(self) -> list[Violation]:
        return [o for o in self.outputs if isinstance(o, Violation)]

    def lit(self, why: Code | None = None) -> set[str]:
        return {chess.square_name(led.square) for led in self.leds if why is None or led.why is why}


def play(*moves: str, fen: str | None = None, **kwargs: object) -> Script:
    board = chess.Board(fen) if fen else chess.Board()
    tracker = Tracker(board, **kwargs)  # type: ignore[arg-type]
    script = Script(tracker)
    for uci in moves:
        script.move(uci[:2], uci[2:4])
    return script


def test_normal_move_completes_only_after_settle() -> None:
    s = play()
    s.lift("e2").place("e4")
    assert s.moves == []
    s.wait(0.29)
    assert s.moves == []
    s.wait(0.02)
    assert s.moves == ["e2e4"]
    assert s.tracker.board.move_stack == [chess.Move.from_uci("e2e4")]


def test_settle_needs_an_event_or_tick_at_or_after_the_settle_time() -> None:
    s = play()
    s.lift("g1").place("f3")
    placed = s.t
    s.wait(0.3 - 1e-9)
    assert s.moves == []
    s.tracker.tick(placed + 0.3)
    assert s.tracker.board.move_stack == [chess.Move.from_uci("g1f3")]


@pytest.mark.parametrize("victim_first", [True, False])
def test_capture_with_victim_lifted_first_or_second(victim_first: bool) -> None:
    s = play("e2e4", "d7d5")
    if victim_first:
        s.lift("d5").wait(0.5).lift("e4")
    else:
        s.lift("e4").lift("d5")
    s.place("d5").wait()
    assert s.moves[-1] == "e4d5"
    assert s.violations == []


def test_bishop_slid_over_empty_squares_completes_only_at_its_destination() -> None:
    s = play("e2e4", "e7e5")
    s.lift("f1")
    for square in ("e2", "d3", "c4"):
        s.place(square, after=0.02).lift(square, after=0.08)
    s.place("b5", after=0.02).wait()
    assert s.moves[-1] == "f1b5"
    assert s.violations == []


def test_slide_resting_on_the_way_for_the_settle_time_is_a_completed_move() -> None:
    s = play("e2e4", "e7e5")
    s.lift("f1").place("d3", after=0.05).wait(0.4)
    assert s.moves[-1] == "f1d3"


def test_kingside_castling_king_first() -> None:
    s = play("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6")
    s.lift("e1").place("g1").wait(1.0).lift("h1").place("f1").wait()
    assert s.moves[-1] == "e1g1"
    assert s.violations == []


def test_castling_rook_first_is_refused_under_fide() -> None:
    s = play("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6")
    s.lift("h1").place("f1", after=0.1).lift("e1", after=0.1).place("g1").wait()
    assert [v.code for v in s.violations] == [Code.CASTLING_ROOK_FIRST]
    assert s.moves[-1] == "g8f6"
    assert s.lit(Code.CASTLING_ROOK_FIRST) == {"e1", "f1", "g1", "h1"}
    # Put back and move the rook, as Article 4.4b requires.
    s.lift("g1").place("e1").lift("f1").place("h1").wait()
    assert any(isinstance(o, Matched) for o in s.outputs)
    s.move("h1", "f1")
    assert s.moves[-1] == "h1f1"


def test_castling_after_a_settled_rook_move_is_flagged_and_the_rook_move_stands() -> None:
    s = play("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6")
    s.move("h1", "f1")
    s.lift("e1").place("g1").wait()
    assert s.moves[-1] == "h1f1"
    assert [v.code for v in s.violations] == [Code.CASTLING_ROOK_FIRST]
    assert s.lit(Code.CASTLING_ROOK_FIRST) == {"e1", "g1"}


@pytest.mark.parametrize("settled", [False, True])
def test_casual_castling_in_either_order(settled: bool) -> None:
    s = play("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", policy=Policy.CASUAL)
    s.lift("h1").place("f1", after=0.1)
    if settled:
        s.wait(0.5)
    s.lift("e1", after=0.1).place("g1").wait()
    assert s.tracker.board.move_stack[-1] == chess.Move.from_uci("e1g1")
    assert s.violations == []


@pytest.mark.parametrize("victim_first", [True, False])
def test_en_passant_with_the_pawn_removed_before_or_after(victim_first: bool) -> None:
    s = play("e2e4", "a7a6", "e4e5", "d7d5")
    if victim_first:
        s.lift("d5").wait(0.6).lift("e5").place("d6").wait()
    else:
        s.lift("e5").place("d6").wait(0.8).lift("d5").wait()
    assert s.moves[-1] == "e5d6"
    assert s.violations == []


PROMO = "8/1P5k/8/8/8/8/6K1/8 w - - 0 1"


def test_promotion_pawn_set_down_then_swapped_gives_a_queen() -> None:
    s = play(fen=PROMO)
    s.lift("b7").place("b8").wait(0.5)
    assert s.moves == []  # the promotion window is open
    assert s.lit(Code.PROMOTION) == {"b8"}
    s.lift("b8").place("b8", after=1.0).wait(0.5)
    assert s.moves == []
    s.wait(2.5)
    assert s.moves == ["b7b8q"]


def test_promotion_taken_straight_off_gives_a_queen_by_default() -> None:
    s = play(fen=PROMO)
    s.lift("b7").wait(1.0).place("b8").wait(3.0)
    assert s.moves == ["b7b8q"]


@pytest.mark.parametrize(("button", "presses", "piece"), [
    (Button.PROMOTE_KNIGHT, 1, "n"), (Button.PROMOTE_ROOK, 1, "r"),
    (Button.PROMOTE, 1, "r"), (Button.PROMOTE, 2, "b"), (Button.PROMOTE, 3, "n"), (Button.PROMOTE, 4, "q"),
])
def test_under_promotion_is_chosen_with_the_promote_buttons(button: Button, presses: int, piece: str) -> None:
    s = play(fen=PROMO)
    s.lift("b7").place("b8").wait(0.5)
    for _ in range(presses):
        s.press(button)
    s.wait(3.0)
    assert s.moves == ["b7b8" + piece]


def test_promotion_choice_is_final_once_the_window_closes() -> None:
    s = play(fen=PROMO)
    s.lift("b7").place("b8").wait(3.0)
    assert s.moves == ["b7b8q"]
    s.press(Button.PROMOTE_KNIGHT)
    assert s.tracker.board.peek() == chess.Move.from_uci("b7b8q")


def test_the_opponent_moving_closes_the_promotion_window() -> None:
    s = play(fen=PROMO)
    s.lift("b7").place("b8").wait(0.5)
    s.lift("h7").place("h6").wait()
    assert s.moves == ["b7b8q", "h7h6"]


def test_opponent_capturing_the_new_piece_at_once_is_not_a_swap() -> None:
    s = play(fen="k7/1P6/8/8/8/8/6K1/8 w - - 0 1")
    s.lift("b7").place("b8").wait(0.5)
    s.lift("b8").lift("a8").place("b8").wait()
    assert s.moves == ["b7b8q", "a8b8"]


def test_promoting_capture() -> None:
    s = play(fen="2r4k/1P6/8/8/8/8/6K1/8 w - - 0 1")
    s.lift("c8").lift("b7").place("c8").press(Button.PROMOTE_BISHOP).wait(3.0)
    assert s.moves == ["b7c8b"]


def test_brushed_piece_is_not_a_touch() -> None:
    s = play()
    s.lift("d2").place("d2", after=0.05).move("e2", "e4")
    assert s.moves == ["e2e4"]
    assert s.violations == []


def test_touch_move_obliges_moving_the_touched_piece() -> None:
    s = play()
    s.lift("d2").place("d2", after=0.4).wait()
    assert s.lit(Code.TOUCH_MOVE) == {"d2"}
    s.move("e2", "e4")
    assert s.moves == []
    [violation] = s.violations
    assert (violation.code, violation.ply, violation.color) == (Code.TOUCH_MOVE, 1, chess.WHITE)
    assert s.lit(Code.TOUCH_MOVE) >= {"e2", "e4", "d2"}
    s.move("e4", "e2")
    s.move("d2", "d4")
    assert s.moves == ["d2d4"]


def test_touched_piece_without_a_legal_move_obliges_nothing() -> None:
    s = play()
    s.lift("a1").place("a1", after=0.4).move("e2", "e4")
    assert s.moves == ["e2e4"]
    assert s.violations == []


def test_adjust_button_lets_a_piece_be_straightened() -> None:
    s = play()
    s.press(Button.ADJUST).lift("d2").place("d2", after=0.4).move("e2", "e4")
    assert s.moves == ["e2e4"]
    assert s.violations == []


def test_casual_allows_putting_a_piece_back() -> None:
    s = play(policy=Policy.CASUAL)
    s.lift("d2").place("d2", after=0.4).move("e2", "e4")
    assert s.moves == ["e2e4"]
    assert s.violations == []


def test_opponent_piece_lifted_and_put_back_is_its_owners_adjustment() -> None:
    s = play("e2e4")
    s.lift("e4").place("e4", after=0.5).wait()  # white straightens its pawn on black's turn
    s.lift("d7").place("d7", after=0.5).wait()  # ...and the other way round is black's own touch
    s.move("d7", "d5")
    assert s.moves == ["e2e4", "d7d5"]
    assert s.violations == []


def test_adjusting_after_a_completed_move_is_not_a_move() -> None:
    s = play()
    s.move("e2", "e4").lift("e4").place("e4", after=0.4).wait()
    assert s.moves == ["e2e4"]
    assert s.tracker.is_matching()


def test_opponent_piece_kept_off_must_be_captured() -> None:
    s = play("e2e4", "d7d5")
    s.lift("d5").wait(1.0).move("g1", "f3")
    assert s.moves == ["e2e4", "d7d5"]
    assert [v.code for v in s.violations] == [Code.TOUCH_MOVE]


@pytest.mark.parametrize(("policy", "off"), [(Policy.CASUAL, 0.5), (Policy.FIDE, 0.2)])
def test_phantom_capture_never_turns_a_later_move_into_one(policy: Policy, off: float) -> None:
    # Under fide the pawn is back within the settle time: an adjustment, not a capture obligation.
    s = play("e2e4", "d7d5", policy=policy)
    s.lift("d5").place("d5", after=off)  # emptied and refilled before the mover is lifted
    s.lift("e4").wait(1.0)  # the pawn is in the hand (held above d5)
    assert s.moves == ["e2e4", "d7d5"]
    s.place("e5").wait()
    assert s.moves == ["e2e4", "d7d5", "e4e5"]


def test_illegal_move_is_refused_counted_and_restored() -> None:
    s = play()
    s.move("e2", "e5")
    [violation] = s.violations
    assert violation.code is Code.ILLEGAL_MOVE
    assert s.tracker.illegal_counts[chess.WHITE] == 1
    assert s.lit(Code.ILLEGAL_MOVE) == {"e2", "e5"}
    s.move("e5", "e4")  # replaced with a legal move of the same piece
    assert s.moves == ["e2e4"]


def test_arbiter_second_illegal_move_loses() -> None:
    s = play(arbiter=True)
    s.move("e2", "e5").move("e5", "e2").wait()
    s.move("e2", "e6")
    assert [v.code for v in s.violations] == [Code.ILLEGAL_MOVE, Code.ILLEGAL_MOVE]
    [forfeit] = [o for o in s.outputs if isinstance(o, Forfeit)]
    assert (forfeit.loser, forfeit.result) == (chess.WHITE, "0-1")


def test_arbiter_second_illegal_move_draws_when_the_opponent_cannot_mate() -> None:
    s = play(fen="4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", arbiter=True)
    s.move("e2", "e5").move("e5", "e2").wait()
    s.move("e2", "e6")
    [forfeit] = [o for o in s.outputs if isinstance(o, Forfeit)]
    assert forfeit.result == "1/2-1/2"


def test_mismatch_shows_exactly_the_squares_that_differ_and_play_resumes() -> None:
    s = play("e2e4")
    s.lift("a8").lift("h8", after=0.1).wait(0.5)  # two rooks knocked off
    assert s.lit(Code.MISMATCH) == set()
    s.wait(1.0)
    assert s.lit(Code.MISMATCH) == {"a8", "h8"}
    assert [v.code for v in s.violations] == [Code.MISMATCH]
    s.place("a8").place("h8").wait()
    assert any(isinstance(o, Matched) for o in s.outputs)
    assert s.lit() == set()
    s.move("e7", "e5")
    assert s.moves == ["e2e4", "e7e5"]


@pytest.mark.parametrize("order", [("e4", "e2"), ("e2", "e4")])
def test_takeback_in_any_order(order: tuple[str, str]) -> None:
    s = play("e2e4", "e7e5")
    s.lift("e5").place("e7").wait()
    assert [o.move.uci() for o in s.outputs if isinstance(o, MoveTakenBack)] == ["e7e5"]
    s.lift("e4").place("e2").wait()
    assert s.tracker.board.move_stack == []
    del order


def test_takeback_of_a_capture_needs_the_captured_piece_back() -> None:
    s = play("e2e4", "d7d5", "e4d5")
    s.lift("d5").place("e4").wait()
    assert len(s.tracker.board.move_stack) == 3
    s.place("d5").wait()
    assert len(s.tracker.board.move_stack) == 2


def test_takeback_offer_is_confirmed_with_the_button() -> None:
    s = play("e2e4", takeback=TakebackMode.OFFER)
    s.lift("e4").place("e2").wait()
    assert any(isinstance(o, TakebackOffered) for o in s.outputs)
    assert len(s.tracker.board.move_stack) == 1
    assert s.lit(Code.TAKEBACK) == {"e2", "e4"}
    s.press(Button.TAKEBACK)
    assert s.tracker.board.move_stack == []


def test_start_position_reached_by_moves_is_not_a_new_game() -> None:
    s = play("g1f3", "g8f6", "f3g1", "f6g8")
    assert s.tracker.occupancy == START_OCCUPANCY
    assert not any(isinstance(o, GameStarted) for o in s.outputs)
    assert len(s.tracker.board.move_stack) == 4


def test_cleared_board_then_start_position_is_a_new_game() -> None:
    s = play("e2e4", "e7e5")
    for square in chess.SquareSet(s.tracker.occupancy):
        s.lift(chess.square_name(square), after=0.15)
    s.wait(2.0)
    assert s.violations == []
    for square in chess.SquareSet(START_OCCUPANCY):
        s.place(chess.square_name(square), after=0.15)
    s.wait()
    assert any(isinstance(o, GameStarted) for o in s.outputs)
    assert s.tracker.board.move_stack == []


def test_finished_game_then_start_position_is_a_new_game() -> None:
    s = play("f2f3", "e7e5", "g2g4", "d8h4")
    assert s.tracker.board.is_checkmate()
    s.tracker.finish()  # the session records the result; from now on moving back is clearing up
    s.move("h4", "d8").move("g4", "g2").move("f3", "f2").move("e5", "e7")
    assert [o for o in s.outputs if isinstance(o, GameStarted)]
    assert s.tracker.board.move_stack == []


def test_new_game_button() -> None:
    s = play("e2e4")
    s.press(Button.NEW_GAME)
    assert [o for o in s.outputs if isinstance(o, GameStarted)]
    assert s.lit(Code.SETUP) == {"e2", "e4"}
    s.move("e4", "e2")
    assert s.tracker.is_matching()
    assert any(isinstance(o, Matched) for o in s.outputs)


def test_setup_from_fen_waits_for_the_occupancy() -> None:
    tracker = Tracker()
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    step = tracker.new_game(1.0, board)
    assert {led.why for led in step.leds} == {Code.SETUP}
    s = Script(tracker, t=1.0)
    for square in chess.SquareSet(chess.BB_ALL & ~board.occupied & START_OCCUPANCY):
        s.lift(chess.square_name(square), after=0.05)
    s.wait()
    assert tracker.is_matching()
    s.move("e2", "e4")
    assert s.moves == ["e2e4"]


def test_engine_move_pending_accepts_only_that_move_and_lights_it() -> None:
    s = play("e2e4")
    step = s.tracker.expect(chess.Move.from_uci("e7e5"), s.t)
    assert {chess.square_name(led.square) for led in step.leds if led.why is Code.ENGINE_MOVE} == {"e7", "e5"}
    s.lift("d7").place("d7", after=0.5)  # touching another piece is no touch-move here
    s.move("c7", "c5")
    assert [v.code for v in s.violations] == [Code.ILLEGAL_MOVE]
    assert s.tracker.illegal_counts[chess.BLACK] == 0  # a legal move, only not the engine's
    s.move("c5", "c7").move("e7", "e5")
    assert s.moves == ["e2e4", "e7e5"]


def test_engine_castling_lights_every_square_to_touch() -> None:
    s = play("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6")
    step = s.tracker.expect(chess.Move.from_uci("e1g1"), s.t)
    assert {chess.square_name(led.square) for led in step.leds} == {"e1", "g1", "h1", "f1"}


def test_snapshot_is_compared_never_replayed_as_moves() -> None:
    tracker = Tracker()
    after = occupancy_after(tracker.board, chess.Move.from_uci("e2e4"))
    tracker.feed(Snapshot(1.0, after))
    step = tracker.tick(5.0)
    assert tracker.board.move_stack == []
    assert {chess.square_name(led.square) for led in step.leds if led.why is Code.MISMATCH} == {"e2", "e4"}


def test_clock_button_completes_the_move_at_once() -> None:
    s = play()
    s.lift("e2").place("e4", after=0.1).press(Button.CLOCK, after=0.01)
    assert s.moves == ["e2e4"]


def test_resume_onto_a_board_that_does_not_match() -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    tracker = Tracker(board, occupancy=START_OCCUPANCY)
    assert {chess.square_name(led.square) for led in tracker.leds()} == {"e2", "e4"}
    s = Script(tracker)
    s.move("e2", "e4")
    assert tracker.is_matching()
    s.move("e7", "e5")
    assert s.moves == ["e7e5"]


def test_legal_move_leds_for_the_lifted_piece() -> None:
    s = play(show_legal_moves=True)
    s.lift("g1").wait(0.5)
    assert s.lit(Code.LEGAL_MOVES) == {"f3", "h3"}


def test_time_must_not_go_backwards() -> None:
    tracker = Tracker()
    tracker.tick(5.0)
    with pytest.raises(ValueError, match="backwards"):
        tracker.tick(4.0)


def test_timing_is_validated() -> None:
    with pytest.raises(ValueError):
        Timing(settle=0.1, brush=0.2)


def test_a_piece_in_the_hand_lights_nothing_but_once_put_back_it_must_move() -> None:
    s = play()
    s.lift("e2").wait(0.5)
    assert s.lit() == set()
    s.place("e2").wait()
    assert s.lit(Code.TOUCH_MOVE) == {"e2"}


def test_slow_slide_with_overlapping_contacts_is_one_move() -> None:
    """A magnet straddling two squares closes the next switch before the last one opens."""
    s = play("e2e4", "e7e5")
    s.lift("d1")
    s.place("e2", after=0.05)
    for here, nxt in (("e2", "f3"), ("f3", "g4")):
        s.place(nxt, after=0.12).lift(here, after=0.06)  # 180-250 ms on each square, overlapping
    s.place("h5", after=0.12).lift("g4", after=0.05).wait()
    assert s.moves[-1] == "d1h5"
    assert s.violations == []


#: After a takeback by the button (the session's, or a lesson's wrong move), the pieces are carried
#: back; a piece may pass its home square within a brush and go straight on to its next move.
#: (moves before, plies taken back, what the hands do as (square, occupied, seconds after the last),
#: the moves wanted after, the squares still lit for the takeback)
PASSED_HOME = [
    # the lesson's case: Nh3 taken back, the knight set on g1 for 10-100 ms and played to f3
    *[(("e2e4", "e7e5", "g1h3"), 1, [("h3", False, 0.2), ("g1", True, 0.1), ("g1", False, gap), ("f3", True, 0.1)],
       ["e2e4", "e7e5", "g1f3"], set()) for gap in (0.01, 0.05, 0.1, 0.2)],
    # slid over its home square without stopping
    (("d2d4", "d7d5", "c1g5"), 1, [("g5", False, 0.2), ("c1", True, 0.3), ("c1", False, 0.02), ("f4", True, 0.3)],
     ["d2d4", "d7d5", "c1f4"], set()),
    # a pawn put back and pushed two squares instead of one
    (("e2e4", "e7e5", "d2d3"), 1, [("d3", False, 0.2), ("d2", True, 0.1), ("d2", False, 0.05), ("d4", True, 0.1)],
     ["e2e4", "e7e5", "d2d4"], set()),
    # two plies back (the engine's reply and the human's move): the reply first, then the move on
    (("e2e4", "e7e5", "g1h3", "b8c6"), 2,
     [("c6", False, 0.2), ("b8", True, 0.3), ("h3", False, 0.3), ("g1", True, 0.1), ("g1", False, 0.05), ("f3", True, 0.1)],
     ["e2e4", "e7e5", "g1f3"], set()),
    # Bxf7 taken back, the bishop passes c4 on to b5: no move while the pawn is not back on f7
    (("e2e4", "e7e5", "f1c4", "d7d6", "c4f7"), 1,
     [("f7", False, 0.2), ("c4", True, 0.1), ("c4", False, 0.05), ("b5", True, 0.1)],
     ["e2e4", "e7e5", "f1c4", "d7d6"], {"c4", "b5", "f7"}),
    # not a move: the knight goes on to a square it cannot reach, the takeback stays lit
    (("e2e4", "e7e5", "g1h3"), 1, [("h3", False, 0.2), ("g1", True, 0.1), ("g1", False, 0.05), ("g4", True, 0.1)],
     ["e2e4", "e7e5"], {"g1", "g4"}),
    # the piece left on its way: nothing is played until it is set down
    (("e2e4", "e7e5", "g1h3"), 1, [("h3", False, 0.2), ("g1", True, 0.1), ("g1", False, 0.05)],
     ["e2e4", "e7e5"], {"g1"}),
]


@pytest.mark.parametrize(("before", "plies", "hands", "after", "lit"), PASSED_HOME)
def test_a_piece_put_back_may_pass_its_home_square_and_play_on(
    before: tuple[str, ...], plies: int, hands: list[tuple[str, bool, float]], after: list[str], lit: set[str]
) -> None:
    s = play(*before)
    s.tracker.take_back(plies, s.t + 0.1)
    s.t += 0.1
    for square, occupied, gap in hands:
        (s.place if occupied else s.lift)(square, after=gap)
    s.wait(2.0)
    assert [m.uci() for m in s.tracker.board.move_stack] == after
    assert s.lit(Code.TAKEBACK) | s.lit(Code.MISMATCH) == lit
