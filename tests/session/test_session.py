"""The session around the real tracker, in-process: engine turns, takeback, clock, orientation, draws, hints."""

from __future__ import annotations

import chess
from test_daemon_support import move_events

from boardctl.engine_client import Reply
from boardctl.events import Button, ButtonPressed, SquareChanged
from boardctl.session import Session, Settings


class Hands:
    """Moves pieces on a session's board at virtual times."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.t = 0.0
        session.tick(0.0)

    def move(self, uci: str, *, flipped: bool = False) -> None:
        board = self.session.board
        for square, occupied in move_events(board, chess.Move.from_uci(uci), flipped=flipped):
            self.t += 0.1
            self.session.feed(SquareChanged(self.t, chess.parse_square(square), occupied))
        self.t += 0.5
        self.session.tick(self.t)

    def press(self, button: Button) -> None:
        self.t += 0.1
        self.session.feed(ButtonPressed(self.t, button))

    def engine_answers(self, uci: str, score: int | None = 0) -> None:
        request = self.session.engine_request()
        assert request is not None and request.kind == "move"
        self.session.engine_replied(request, Reply(chess.Move.from_uci(uci), score), self.t)


def leds(session: Session, why: str) -> set[str]:
    return {led["square"] for led in session.state_line()["leds"] if led["why"] == why}


def test_engine_move_is_shown_then_carried_out() -> None:
    session = Session(Settings(mode="play", color="white"))
    hands = Hands(session)
    assert session.engine_request() is None  # the human's turn
    hands.move("e2e4")
    request = session.engine_request()
    assert request is not None and request.board.fen() == session.board.fen()
    hands.engine_answers("e7e5")
    assert session.state_line()["pending"] == "e7e5"
    assert leds(session, "engine-move") == {"e7", "e5"}
    hands.move("e7e5")
    line = session.state_line()
    assert line["pending"] is None and line["moves"] == ["e2e4", "e7e5"] and not leds(session, "engine-move")


def test_stale_engine_reply_is_dropped() -> None:
    session = Session(Settings(mode="play", color="white", takeback="apply"))
    hands = Hands(session)
    hands.move("e2e4")
    request = session.engine_request()
    assert request is not None
    hands.press(Button.TAKEBACK)  # the human takes the move back while the engine thinks
    assert session.record.moves == []
    session.engine_replied(request, Reply(chess.Move.from_uci("e7e5"), 0), hands.t)
    assert session.pending is None


def test_one_takeback_removes_engine_reply_and_human_move() -> None:
    session = Session(Settings(mode="play", color="white"))
    hands = Hands(session)
    hands.move("e2e4")
    hands.engine_answers("e7e5")
    hands.move("e7e5")
    hands.move("g1f3")
    hands.engine_answers("b8c6")
    hands.press(Button.TAKEBACK)  # while the engine's move is still pending: only the human's move goes
    assert session.record.moves == ["e2e4", "e7e5"] and session.pending is None
    assert leds(session, "takeback") == {"g1", "f3"}
    hands.move("f3g1")
    assert session.tracker.is_matching()
    hands.press(Button.TAKEBACK)  # now two plies: the engine's reply and the human's move
    assert session.record.moves == []
    assert leds(session, "takeback") == {"e2", "e4", "e7", "e5"}


def test_flipped_board_maps_squares_both_ways() -> None:
    session = Session(Settings(mode="record", orientation="flipped"))
    hands = Hands(session)
    hands.move("e2e4", flipped=True)  # physically d7 -> d5
    assert session.record.moves == ["e2e4"]
    session.tracker.hint(chess.Move.from_uci("e7e5"))
    session.tick(hands.t + 0.1)
    assert leds(session, "hint") == {"d2", "d4"}  # turned round: logical e7/e5 sit on the wiring's d2/d4


def test_loss_on_time_and_draw_when_the_opponent_cannot_mate() -> None:
    session = Session(Settings(mode="record", time_control="0.05+0"))  # three seconds each
    hands = Hands(session)
    hands.move("e2e4")
    session.tick(hands.t + 2.0)
    assert session.record.result == "*"
    session.tick(hands.t + 3.5)
    assert session.record.result == "1-0" and session.record.termination == "black lost on time"
    assert leds(session, "result") == {"e1"}

    bare = Session(Settings(mode="record", time_control="0.05+0"), fen="4k3/8/8/8/8/8/8/4K2Q w - - 0 1")
    bare.tick(0.0)
    bare.tick(3.1)
    assert bare.record.result == "1/2-1/2" and "cannot mate" in bare.record.termination


def test_clock_records_times_and_increment() -> None:
    session = Session(Settings(mode="record", time_control="1+2"))
    hands = Hands(session)
    hands.move("e2e4")
    hands.move("e7e5")
    assert session.record.clocks[0] is not None and 61 < session.record.clocks[0] <= 62.0
    clock = session.state_line()["clock"]
    assert clock["running"] == "white" and clock["black"] == session.record.clocks[1]


def test_draw_offer_to_the_engine_and_blunder_warning() -> None:
    session = Session(Settings(mode="play", color="white", blunder_warning=True))
    hands = Hands(session)
    hands.move("e2e4")
    hands.engine_answers("e7e5", score=-20)
    hands.move("e7e5")
    hands.move("d1h5")
    hands.engine_answers("g7g6", score=-30)
    hands.move("g7g6")
    hands.move("h5h4")
    hands.engine_answers("b8c6", score=400)  # the engine now thinks it is much better: h5h4 was a blunder
    assert "blunder" in (session.warning or "") and leds(session, "blunder") == {"h5", "h4"}
    hands.move("b8c6")
    hands.press(Button.DRAW)
    assert session.record.result == "*" and "declines" in (session.warning or "")


def test_hint_lights_the_suggested_move() -> None:
    session = Session(Settings(mode="play", color="white"))
    hands = Hands(session)
    hands.press(Button.HINT)
    request = session.engine_request()
    assert request is not None and request.kind == "hint"
    session.engine_replied(request, Reply(chess.Move.from_uci("d2d4"), 30), hands.t)
    assert leds(session, "hint") == {"d2", "d4"} and session.state_line()["hint"] == "d2d4"
    hands.move("e2e4")
    assert not leds(session, "hint")


def test_hint_on_the_engines_turn_keeps_its_move_request() -> None:
    """Pressing hint while the engine thinks once replaced its move request: the game stalled."""
    session = Session(Settings(mode="play", color="white"))
    hands = Hands(session)
    hands.move("e2e4")
    request = session.engine_request()
    assert request is not None and request.kind == "move"
    hands.press(Button.HINT)
    hands.press(Button.HINT)
    assert session.engine_request() is request
    assert "engine is to move" in (session.warning or "")
    session.engine_replied(request, Reply(chess.Move.from_uci("e7e5"), 0), hands.t)
    assert session.state_line()["pending"] == "e7e5"


def test_resign_against_the_engine_and_new_game_with_other_settings() -> None:
    session = Session(Settings(mode="play", color="white"))
    hands = Hands(session)
    hands.move("e2e4")
    hands.engine_answers("e7e5")
    hands.move("e7e5")
    hands.press(Button.RESIGN)
    assert session.record.result == "0-1" and session.record.termination == "white resigned"
    old = session.record
    effects = session.new_game(hands.t + 1, settings=Settings(mode="play", color="black", level="practice2"))
    assert session.record is not old and session.record.human == "black" and session.record.level == "practice2"
    assert effects.finished == ()  # the old game was finished, already saved as such
    assert effects.record is session.record  # the new one is to save
    # The board still shows the old game: the tracker waits for the start position.
    assert not session.tracker.is_matching()


def test_takeback_by_hand_against_the_engine_waits_for_the_second_move() -> None:
    session = Session(Settings(mode="play", color="white", takeback="apply"))
    hands = Hands(session)
    hands.move("e2e4")
    hands.engine_answers("e7e5")
    hands.move("e7e5")
    hands.move("e5e7")  # the engine's reply put back by hand
    assert session.record.moves == ["e2e4"] and session.is_engine_turn()
    assert session.engine_request() is None  # a grace period: the human may take back more
    hands.move("e4e2")
    assert session.record.moves == [] and not session.is_engine_turn()
    hands.t += 5.0
    session.tick(hands.t)
    assert session.engine_request() is None
    # Only one ply back, then nothing more: after the grace period the engine moves again.
    hands.move("e2e4")
    hands.engine_answers("c7c5")
    hands.move("c7c5")
    hands.move("c5c7")
    hands.t += 1.0
    session.tick(hands.t)
    assert session.engine_request() is None
    hands.t += 1.5
    session.tick(hands.t)
    request = session.engine_request()
    assert request is not None and request.kind == "move" and request.board.move_stack == [chess.Move.from_uci("e2e4")]


def test_only_the_engines_move_is_accepted_while_it_is_lit() -> None:
    session = Session(Settings(mode="play", color="white"))
    hands = Hands(session)
    hands.move("e2e4")
    hands.engine_answers("e7e5")
    hands.move("d7d5")  # a different (legal) black move
    line = session.state_line()
    assert line["moves"] == ["e2e4"] and line["pending"] == "e7e5"
    assert "illegal-move" in (line["warning"] or "")
    assert session.record.violations[-1].code == "illegal-move"
    assert {"d7", "d5"} <= {led["square"] for led in line["leds"]}
    hands.move("d5d7")  # put it back, then make the engine's move
    hands.move("e7e5")
    assert session.record.moves == ["e2e4", "e7e5"] and session.pending is None


def test_arbiter_gives_two_minutes_then_forfeits_on_the_second_illegal_move() -> None:
    session = Session(Settings(mode="record", arbiter=True, time_control="5+0"))
    hands = Hands(session)
    hands.move("e2e4")
    black_before = session.clock.remaining(chess.BLACK, hands.t) if session.clock else 0.0
    assert session.clock is not None and session.clock.remaining(chess.WHITE, hands.t) < 300.0
    for square, occupied in (("e7", False), ("e3", True)):  # a pawn three squares forward: illegal
        hands.t += 0.1
        session.feed(SquareChanged(hands.t, chess.parse_square(square), occupied))
    hands.t += 1.0
    session.tick(hands.t)
    assert session.record.violations and session.record.violations[-1].code == "illegal-move"
    white_after = session.clock.remaining(chess.WHITE, hands.t)
    assert white_after > 300.0 - 1.0 + 100.0  # the opponent (White) got two minutes
    assert session.clock.remaining(chess.BLACK, hands.t) < black_before
    for square, occupied in (("e3", False), ("e7", True)):  # put it back
        hands.t += 0.1
        session.feed(SquareChanged(hands.t, chess.parse_square(square), occupied))
    hands.t += 1.0
    session.tick(hands.t)
    assert session.tracker.is_matching() and session.record.result == "*"
    for square, occupied in (("e7", False), ("e3", True)):  # the second completed illegal move
        hands.t += 0.1
        session.feed(SquareChanged(hands.t, chess.parse_square(square), occupied))
    hands.t += 1.0
    session.tick(hands.t)
    assert session.record.result == "1-0" and "forfeits" in session.record.termination


def test_several_takebacks_in_a_row_with_the_button() -> None:
    session = Session(Settings(mode="record"))
    hands = Hands(session)
    for uci in ("e2e4", "e7e5", "g1f3", "b8c6"):
        hands.move(uci)
    hands.press(Button.TAKEBACK)
    hands.press(Button.TAKEBACK)
    hands.press(Button.TAKEBACK)
    assert session.record.moves == ["e2e4"]
    assert leds(session, "takeback") == {"e5", "e7", "f3", "g1", "c6", "b8"}
    for source, target in (("c6", "b8"), ("f3", "g1"), ("e5", "e7")):  # the pieces back, by hand
        for square, occupied in ((source, False), (target, True)):
            hands.t += 0.1
            session.feed(SquareChanged(hands.t, chess.parse_square(square), occupied))
    hands.t += 1.0
    session.tick(hands.t)
    assert session.tracker.is_matching() and not leds(session, "takeback")
    assert session.state_line()["turn"] == "black"


def test_auto_orientation_from_the_humans_first_move_against_the_engine() -> None:
    session = Session(Settings(mode="play", color="white", orientation="auto"))
    assert session.record.orientation == "auto"
    hands = Hands(session)
    hands.move("e2e4", flipped=True)  # White sits on the board's far side
    assert session.record.orientation == "flipped" and session.record.moves == ["e2e4"]
    hands.engine_answers("e7e5")
    assert leds(session, "engine-move") == {"d2", "d4"}  # shown on the human's side of the wiring
    black = Session(Settings(mode="play", color="black", orientation="auto"))
    assert black.record.orientation == "normal"  # the engine moves first: no move to learn from


def test_engine_thinking_time_follows_its_clock() -> None:
    session = Session(Settings(mode="play", color="white", time_control="1+2"))
    hands = Hands(session)
    hands.move("e2e4")
    request = session.engine_request()
    assert request is not None and request.budget is not None
    assert abs(request.budget - (60 / 40 + 1.0)) < 0.1
    assert session.engine_request() is request  # asked once
    untimed = Session(Settings(mode="play", color="white"))
    hands = Hands(untimed)
    hands.move("e2e4")
    request = untimed.engine_request()
    assert request is not None and request.budget is None


def test_eval_is_the_engines_last_score_from_whites_side() -> None:
    session = Session(Settings(mode="play", color="white"))
    hands = Hands(session)
    assert session.state_line()["eval"] is None
    hands.move("e2e4")
    hands.engine_answers("e7e5", score=-35)  # black, the engine, thinks it is 0.35 worse
    assert session.state_line()["eval"] == {"cp": 35}
    hands.move("e7e5")
    hands.move("d1h5")
    hands.engine_answers("b8c6", score=-9997)  # the engine is mated in 3
    assert session.state_line()["eval"] == {"mate": 3}


def test_eval_with_the_engine_as_white() -> None:
    session = Session(Settings(mode="play", color="black"))
    hands = Hands(session)
    hands.engine_answers("e2e4", score=20)
    assert session.state_line()["eval"] == {"cp": 20}
    assert Session(Settings(mode="record")).state_line()["eval"] is None


def test_clearing_the_board_after_mate_is_neither_takeback_nor_illegal_move() -> None:
    session = Session(Settings(mode="record"))
    hands = Hands(session)
    for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):
        hands.move(uci)
    assert session.record.result == "0-1" and session.record.termination == "checkmate"
    for square in chess.SquareSet(session.tracker.occupancy):
        hands.t += 0.15
        session.feed(SquareChanged(hands.t, square, False))
    session.tick(hands.t + 3.0)
    assert session.record.moves == ["f2f3", "e7e5", "g2g4", "d8h4"] and session.record.violations == []
    assert session.state_line()["leds"] == [] or all(led["why"] == "result" for led in session.state_line()["leds"])


def test_pending_and_hint_are_the_trackers() -> None:
    session = Session(Settings(mode="play", color="white"))
    hands = Hands(session)
    hands.move("e2e4")
    hands.engine_answers("e7e5")
    assert session.pending == session.tracker.expected == chess.Move.from_uci("e7e5")
    session.tracker.hint(chess.Move.from_uci("g1f3"))
    assert session.state_line()["hint"] == "g1f3"
