"""The session's ``network`` mode in-process: remote moves lit and made by hand, numbering, clocks,
requests, takeback and the end of the game (the interface ``host``/``join`` and Lichess use)."""

from __future__ import annotations

import chess
import pytest
from test_daemon_support import move_events

from boardctl.events import Button, ButtonPressed, SquareChanged
from boardctl.session import Effects, LocalMove, RemoteMoveError, Session, Settings


class Hands:
    """A hand on the board, and the daemon's part: every answer of the session is kept in order
    (``answers``), whoever gave the input (the hand, or the test as the other side)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.t = 0.0
        self.answers: list[Effects] = []
        self._requests = 0
        answer = session.answer

        def kept() -> Effects:
            effects = answer()
            self.answers.append(effects)
            return effects

        session.answer = kept  # type: ignore[method-assign]
        session.tick(0.0)

    def take_requests(self) -> list[str]:
        """This board's requests for the other side since the last call, as the daemon passes them on."""
        requests = [kind for effects in self.answers for kind in effects.requests]
        taken, self._requests = requests[self._requests:], len(requests)
        return taken

    def move(self, uci: str) -> None:
        board = chess.Board(self.session.board.fen())
        for square, occupied in move_events(board, chess.Move.from_uci(uci)):
            self.t += 0.1
            self.session.feed(SquareChanged(self.t, chess.parse_square(square), occupied))
        self.t += 0.5
        self.session.tick(self.t)

    def press(self, button: Button) -> None:
        self.t += 0.1
        self.session.feed(ButtonPressed(self.t, button))

    def later(self, seconds: float) -> float:
        self.t += seconds
        return self.t


def leds(session: Session, why: str) -> set[str]:
    return {led["square"] for led in session.state_line()["leds"] if led["why"] == why}


def network(color: str = "black", tc: str = "") -> tuple[Session, Hands]:
    session = Session(Settings(mode="network", color=color, time_control=tc, takeback="off"))
    return session, Hands(session)


def test_remote_move_is_lit_as_remote_move_and_made_by_hand() -> None:
    session, hands = network("black")
    assert session.is_remote_turn() and session.local_color() is False
    assert session.remote_move(0, "e2e4", hands.later(1.0)).changed is True
    line = session.state_line()
    assert line["pending"] == "e2e4" and line["mode"] == "network" and line["human"] == "black"
    assert leds(session, "remote-move") == {"e2", "e4"} and not leds(session, "engine-move")
    assert session.network_moves() == ["e2e4"] and session.record.moves == []
    hands.move("e2e4")
    assert session.record.moves == ["e2e4"] and session.pending is None and not leds(session, "remote-move")
    hands.move("e7e5")
    assert session.local_moves(0) == [LocalMove(1, "e7e5", None)]
    assert session.local_moves(2) == []


def test_a_move_sent_twice_is_applied_once() -> None:
    session, hands = network("black")
    assert session.remote_move(0, "e2e4", hands.later(1.0)).changed
    assert session.remote_move(0, "e2e4", hands.later(0.1)).changed is False  # lit already
    hands.move("e2e4")
    assert session.remote_move(0, "e2e4", hands.later(0.1)).changed is False  # made already
    assert session.record.moves == ["e2e4"]


@pytest.mark.parametrize(("ply", "uci", "why"), [
    (0, "e7e5", "not a legal move"),   # the right number, but Black's move on White's turn
    (1, "e7e5", "a move is missing"),  # a gap
    (0, "e2e5", "not a legal move"),
    (0, "zz", "not a legal move"),
])
def test_wrong_remote_moves_are_refused_without_harm(ply: int, uci: str, why: str) -> None:
    session, hands = network("black")
    with pytest.raises(RemoteMoveError, match=why):
        session.remote_move(ply, uci, hands.later(1.0))
    assert session.pending is None and session.network_moves() == []


def test_the_remote_side_cannot_move_for_this_board() -> None:
    session, hands = network("white")
    with pytest.raises(RemoteMoveError, match="this board's turn"):
        session.remote_move(0, "e2e4", hands.later(1.0))
    hands.move("e2e4")
    with pytest.raises(RemoteMoveError, match="differs"):
        session.remote_move(0, "d2d4", hands.later(1.0))


def test_another_move_than_the_remote_one_is_refused_as_for_the_engine() -> None:
    session, hands = network("black")
    session.remote_move(0, "e2e4", hands.later(1.0))
    hands.move("d2d4")
    line = session.state_line()
    assert line["moves"] == [] and "illegal-move" in {led["why"] for led in line["leds"]}
    assert "your opponent's" in (line["warning"] or "")
    assert session.record.violations == []  # one record on both boards


def test_clock_runs_from_the_moment_the_remote_move_is_lit() -> None:
    session, hands = network("black", tc="5+0")
    hands.later(1.0)
    session.sync_clock({"white": 300.0, "black": 300.0}, "white", hands.t)
    session.remote_move(0, "e2e4", hands.later(2.0), clock=297.5)
    clock = session.state_line()["clock"]
    assert clock["running"] == "black" and clock["white"] == 297.5
    session.tick(hands.later(3.0))
    assert session.state_line()["clock"]["black"] == pytest.approx(297.0, abs=0.01)
    hands.move("e2e4")
    assert session.record.clocks == [297.5]
    hands.move("e7e5")
    assert session.record.clocks[1] is not None and session.record.clocks[1] < 297.0
    session.set_move_clocks([297.5, 296.25])
    assert session.record.clocks == [297.5, 296.25]


def test_buttons_become_requests_and_remote_offers_are_answered() -> None:
    session, hands = network("black")
    hands.press(Button.DRAW)
    assert hands.take_requests() == ["draw"] and not session.is_over()
    session.remote_request("draw", hands.later(0.1))
    assert session.state_line()["draw_offer"] is True
    hands.press(Button.DRAW)
    assert hands.take_requests() == ["accept"]
    assert session.record.result == "1/2-1/2" and session.record.termination == "draw agreed"


def test_resignation_ends_the_game_and_is_reported() -> None:
    session, hands = network("black")
    hands.press(Button.RESIGN)
    assert hands.take_requests() == ["resign"]
    assert session.record.result == "1-0" and session.record.termination == "black resigned"


def test_remote_end_and_takeback() -> None:
    session, hands = network("black")
    session.remote_move(0, "e2e4", hands.later(1.0))
    hands.move("e2e4")
    hands.move("e7e5")
    session.remote_takeback(1, hands.later(0.5))
    assert session.record.moves == ["e2e4"] and leds(session, "takeback")
    session.remote_end("0-1", "white resigned", hands.later(0.5))
    assert session.is_over() and session.record.termination == "white resigned"
    session.remote_end("0-1", "white lost on time", hands.later(0.5))  # the host's word is final
    assert session.record.termination == "white lost on time"


def test_a_resumed_game_lights_the_remote_move_again() -> None:
    session, hands = network("black")
    assert session.remote_move(0, "e2e4", hands.later(1.0)).record is session.record  # saved with its pending move
    assert session.record.pending == "e2e4"
    again = Session(session.settings, record=session.record)
    again.tick(0.0)
    assert again.pending is not None and again.pending.uci() == "e2e4"
    assert leds(again, "remote-move") == {"e2", "e4"}


def test_xiangqi_remote_moves_are_lit_on_points() -> None:
    session = Session(Settings(mode="network", color="black", variant="xiangqi", takeback="off"))
    session.tick(0.0)
    assert session.local_color() is False and session.is_remote_turn()
    assert session.remote_move(0, "h2e2", 1.0).changed is True  # Red's cannon to the centre
    line = session.state_line()
    assert line["variant"] == "xiangqi" and line["pending"] == "h2e2"
    assert {led["square"] for led in line["leds"] if led["why"] == "remote-move"} >= {"h2", "e2"}
    with pytest.raises(RemoteMoveError):
        session.remote_move(1, "h9g7", 1.5)  # Black's move while Red's is still only lit: not legal yet


def test_a_claim_is_checked_on_this_board() -> None:
    session, hands = network("white")
    hands.press(Button.CLAIM)
    assert hands.take_requests() == ["claim"]
    assert session.record.result == "*" and "no draw to claim" in (session.warning or "")


def _replayed(session: Session, hands: Hands) -> tuple[str, str, list[str]]:
    """The game as boardctl replay makes it of the log the session wrote (docs/events.md)."""
    from boardctl.events import format_event
    from boardctl.replay import read_events, replay

    lines = [format_event(entry) for effects in hands.answers for game, entry in effects.log if game == session.record.id]
    games, _ = replay(read_events(lines, name="log"))
    record = games[-1].record
    return record.result, record.termination, record.moves


@pytest.mark.parametrize(("ending", "result", "termination"), [
    ("the host resigned", "0-1", "white resigned"),
    ("the host's flag: this board lost on time", "1-0", "black lost on time"),
    ("the host found the guest's claim good", "1/2-1/2", "draw claimed: threefold repetition"),
    ("this board accepted the other's draw offer", "1/2-1/2", "draw agreed"),
    ("the host accepted this board's draw offer", "1/2-1/2", "draw agreed"),
    ("a takeback agreed, then the host resigned", "0-1", "white resigned"),
    ("the server aborted it", "*", "abandoned"),
])
def test_results_from_the_other_side_are_in_the_log_and_replay(ending: str, result: str, termination: str) -> None:
    session, hands = network("black", tc="5+0")
    for ply, uci in enumerate(["e2e4", "e7e5", "g1f3", "b8c6"]):
        if ply % 2 == 0:
            session.remote_move(ply, uci, hands.later(1.0))
        hands.move(uci)
    t = hands.later(1.0)
    if ending == "the host resigned":
        session.remote_end("0-1", "white resigned", t)
    elif ending.startswith("the host's flag"):
        session.remote_end("1-0", "black lost on time", t)
    elif ending.startswith("the host found"):
        session.remote_end("1/2-1/2", "draw claimed: threefold repetition", t)
    elif ending.startswith("this board accepted"):
        session.remote_request("draw", t)
        hands.press(Button.DRAW)
        assert hands.take_requests() == ["accept"]
    elif ending.startswith("the host accepted"):
        hands.press(Button.DRAW)
        assert hands.take_requests() == ["draw"] and not session.is_over()
        session.remote_end("1/2-1/2", "draw agreed", hands.later(2.0))
    elif ending.startswith("a takeback"):
        session.remote_takeback(2, t)  # g1f3 and b8c6 are gone (their pieces not yet put back)
        assert session.record.moves == ["e2e4", "e7e5"]
    else:
        session.remote_end("*", "abandoned", t)
    if ending.startswith("a takeback"):
        session.remote_end("0-1", "white resigned", hands.later(1.0))
    assert (session.record.result, session.record.termination) == (result, termination)
    assert _replayed(session, hands) == (result, termination, session.record.moves)


def test_a_new_game_is_refused_during_the_game_and_a_rematch_offer_after_it() -> None:
    session, hands = network("black")
    session.remote_move(0, "e2e4", hands.later(1.0))
    hands.move("e2e4")
    game = session.record.id
    hands.press(Button.NEW_GAME)  # mid-game: refused, the game goes on
    assert "cannot start during a network game" in str(session.warning)
    assert session.record.id == game and session.record.moves == ["e2e4"] and hands.take_requests() == []
    hands.move("e7e5")
    assert session.record.moves == ["e2e4", "e7e5"]
    session.remote_end("0-1", "white resigned", hands.later(1.0))
    hands.press(Button.NEW_GAME)  # after the result: a rematch offered, nothing started here
    assert hands.take_requests() == ["rematch"] and session.record.id == game
    assert "rematch offered" in str(session.warning)
    hands.press(Button.NEW_GAME)  # asked again: not sent twice
    assert hands.take_requests() == []
    # The pieces set up for the start: the same offer, no local game.
    for uci in ("e5e7", "e4e2"):
        hands.move(uci)
    assert session.record.id == game and session.record.result == "0-1" and hands.take_requests() == []
    # The other side's offer is accepted by this board's new-game; the host then starts it.
    session.rematch_offered = False
    session.remote_request("rematch", hands.later(1.0))
    assert "offers a rematch" in str(session.warning)
    hands.press(Button.NEW_GAME)
    assert hands.take_requests() == ["accept"] and session.record.id == game
    session.start_rematch(hands.later(1.0), color="white", white="Guest", black="Host")
    assert session.record.id != game and session.record.human == "white" and session.record.moves == []
    assert (session.record.white, session.record.black) == ("Guest", "Host") and not session.is_over()


@pytest.mark.parametrize("placed", [12.3456786, 12.3456784, 20.0000006])
def test_a_mate_made_by_hand_replays_whatever_the_rounding_of_times(placed: float) -> None:
    """The other side's mating move, made here by hand: the log's result line must not come
    before the move settles in a replay (times are logged to the microsecond)."""
    session, hands = network("white")
    for ply, uci in enumerate(["f2f3", "e7e5", "g2g4"]):
        if ply % 2:
            session.remote_move(ply, uci, hands.later(1.0))
        hands.move(uci)
    session.remote_move(3, "d8h4", placed - 1.0)
    session.feed(SquareChanged(placed - 0.2, chess.D8, False))
    session.feed(SquareChanged(placed, chess.H4, True))
    session.tick(placed + session.settings.settle + 0.002)  # the settle timer's tick
    assert (session.record.result, session.record.termination) == ("0-1", "checkmate")
    assert _replayed(session, hands) == ("0-1", "checkmate", ["f2f3", "e7e5", "g2g4", "d8h4"])
