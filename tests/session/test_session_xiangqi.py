"""The session plays xiangqi as it plays chess: engine turns, red/black, orientation, records, resume."""

from __future__ import annotations

import json

import pytest

from boardctl.engine_client import Reply
from boardctl.events import Button, ButtonPressed, SquareChanged, UciMove
from boardctl.session import Session, Settings
from boardctl.storage import GameRecord
from boardctl.variants import get_variant

XQ = get_variant("xiangqi")
G = XQ.geometry


class Hands:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.t = 0.0
        session.tick(0.0)

    def move(self, uci: str) -> None:
        session = self.session
        move = session.board.parse_uci(uci)
        turn = (lambda s: G.turned(s)) if session.flipped else (lambda s: s)
        if session.board.occupied >> move.to_square & 1:
            self.t += 0.2
            session.feed(SquareChanged(self.t, turn(move.to_square), False))
        for square, occupied in ((move.from_square, False), (move.to_square, True)):
            self.t += 0.2
            session.feed(SquareChanged(self.t, turn(square), occupied))
        self.t += 0.6
        session.tick(self.t)

    def press(self, button: Button) -> None:
        self.t += 0.1
        self.session.feed(ButtonPressed(self.t, button))

    def engine_answers(self, uci: str, score: int | None = 0) -> None:
        request = self.session.engine_request()
        assert request is not None and request.kind == "move"
        # As a log's engine line is read back: only text, made the game's move by the session.
        self.session.engine_replied(request, Reply(UciMove.from_uci(uci, geometry=G), score), self.t)


def test_state_line_speaks_xiangqi() -> None:
    session = Session(Settings(mode="record", orientation="normal"), variant=XQ)
    hands = Hands(session)
    hands.move("h2e2")
    line = session.state_line()
    assert line["variant"] == "xiangqi" and session.settings.variant == "xiangqi"
    assert line["moves"] == ["h2e2"] and line["turn"] == "black"
    assert line["fen"].split()[0] == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR"
    assert len(line["occupancy"]) == 23 and G.from_hex(line["occupancy"]) == session.board.occupied


def test_engine_plays_black_and_its_move_is_lit_on_points() -> None:
    session = Session(Settings(mode="play", color="red", variant="xiangqi"))
    hands = Hands(session)
    assert session.record.human == "red" and session.record.white == "Human"
    hands.move("b2e2")
    hands.engine_answers("h9g7")
    line = session.state_line()
    assert line["pending"] == "h9g7"
    assert {led["square"] for led in line["leds"] if led["why"] == "engine-move"} == {"h9", "g7"}
    hands.move("h9g7")
    assert session.state_line()["moves"] == ["b2e2", "h9g7"] and session.state_line()["pending"] is None


def test_human_black_in_xiangqi_is_played_from_the_far_side() -> None:
    session = Session(Settings(mode="play", color="black", variant="xiangqi"))
    hands = Hands(session)
    assert session.record.human == "black" and session.record.orientation == "normal"
    hands.engine_answers("h2e2")
    hands.move("h2e2")
    assert session.record.moves == ["h2e2"] and session.state_line()["turn"] == "black"


def test_auto_orientation_from_the_first_lift_turns_90_points() -> None:
    session = Session(Settings(mode="record", orientation="auto", variant="xiangqi"))
    hands = Hands(session)
    # Red's cannon lifted on what the wiring calls b7: the board stands turned round.
    hands.t += 0.2
    session.feed(SquareChanged(hands.t, G.turned(G.parse("h2")), False))
    hands.t += 0.2
    session.feed(SquareChanged(hands.t, G.turned(G.parse("e2")), True))
    hands.t += 0.6
    session.tick(hands.t)
    assert session.flipped is True and session.record.moves == ["h2e2"]
    physical = G.from_hex(session.state_line()["occupancy"])
    assert physical == G.turn_mask(session.board.occupied)


@pytest.mark.parametrize(("button", "result", "words"), [
    (Button.RESIGN, "0-1", "red resigned"),
])
def test_buttons_name_red_and_black(button: Button, result: str, words: str) -> None:
    session = Session(Settings(mode="record", orientation="normal", variant="xiangqi"))
    hands = Hands(session)
    hands.press(button)
    assert (session.record.result, session.record.termination) == (result, words)


def test_no_draw_to_claim_in_xiangqi() -> None:
    session = Session(Settings(mode="record", orientation="normal", variant="xiangqi"))
    hands = Hands(session)
    hands.press(Button.CLAIM)
    assert session.record.result == "*" and session.warning == (
        "no draw to claim in xiangqi: only a cycle kept by both sides (双方不变作和) under the Chinese rules, at its "
        "third occurrence; the Asian rules and the move limit rule by themselves")


def test_clock_uses_red_and_black() -> None:
    session = Session(Settings(mode="record", orientation="normal", variant="xiangqi", time_control="5+0"))
    hands = Hands(session)
    hands.move("h2e2")
    clock = session.state_line()["clock"]
    assert set(clock) == {"red", "black", "running"} and clock["running"] == "black"


def test_record_round_trips_and_resumes_with_its_game() -> None:
    session = Session(Settings(mode="record", orientation="normal", variant="xiangqi"))
    hands = Hands(session)
    for uci in ("h2e2", "h9g7", "h0g2"):
        hands.move(uci)
    data = json.loads(json.dumps(session.record.to_json()))
    record = GameRecord.from_json(data, where="test")
    assert record.variant == "xiangqi" and record.moves == ["h2e2", "h9g7", "h0g2"]
    resumed = Session(Settings(mode="record"), record=record)  # the record says which game
    assert resumed.variant is XQ and resumed.board.fen() == session.board.fen()
    text = record.pgn_text()
    assert text.startswith('[Game "Chinese Chess"]\n') and '[Red "Red"]' in text and '[Format "ICCS"]' in text
    assert "1. H2-E2 H9-G7 2. H0-G2" in text


def test_a_record_with_an_illegal_xiangqi_move_is_refused() -> None:
    data = GameRecord(id="x", mode="record", white="Red", black="Black", fen=XQ.starting_fen,
                      moves=["h2h5", "a3b3"], variant="xiangqi").to_json()
    from boardctl.errors import GameFileError

    with pytest.raises(GameFileError, match="not a valid game state file"):
        GameRecord.from_json(data, where="g.json")


# -- the 棋例 in a game (docs/xiangqi-rules.md) ------------------------------------------------------

ONE_CHECK_ONE_CHASE = ("3k5/9/1n6R/9/9/9/9/9/9/5K3 w - - 0 1", ["i7i9", "d9d8", "i9i7", "d8d9"])
CHECK_AND_IDLE = ("3k5/9/9/9/9/9/9/9/9/r3K4 w - - 0 1", ["e0e1", "a0a2", "e1e0", "a2a0"])


def _leds(session: Session, why: str) -> set[str]:
    return {led["square"] for led in session.state_line()["leds"] if led["why"] == why}


def _xq_session(fen: str, **options: object) -> tuple[Session, Hands]:
    session = Session(Settings(mode="record", orientation="normal", variant="xiangqi", **options), fen=fen)  # type: ignore[arg-type]
    return session, Hands(session)


def test_a_forbidden_cycle_is_warned_then_lost() -> None:
    fen, cycle = ONE_CHECK_ONE_CHASE
    session, hands = _xq_session(fen)
    for uci in cycle:
        hands.move(uci)
    assert session.record.result == "*"
    assert session.warning is not None and session.warning.startswith("Red must vary (必须变着)")
    assert _leds(session, "must-vary") == {"f0"}  # Red's general
    for uci in cycle:
        hands.move(uci)
    assert (session.record.result, session.record.termination) == ("0-1", "check and chase (一将一捉判负)")


def test_the_asian_rules_draw_the_same_cycle_by_themselves() -> None:
    fen, cycle = ONE_CHECK_ONE_CHASE
    session, hands = _xq_session(fen, xiangqi_rules="asian")
    for uci in cycle * 2:
        hands.move(uci)
    assert (session.record.result, session.record.termination) == ("1/2-1/2", "repetition")


def test_an_allowed_cycle_offers_the_draw_and_either_player_claims_it() -> None:
    fen, cycle = CHECK_AND_IDLE
    session, hands = _xq_session(fen)
    for uci in cycle * 2:
        hands.move(uci)
    assert session.record.result == "*"  # offered, not imposed
    assert session.warning is not None and "双方不变作和" in session.warning
    assert _leds(session, "draw-offer") == {"e0", "d9"}
    hands.press(Button.CLAIM)
    assert (session.record.result, session.record.termination) == ("1/2-1/2", "draw claimed: repetition (双方不变作和)")


def test_an_allowed_cycle_goes_on_when_a_player_varies() -> None:
    fen, cycle = CHECK_AND_IDLE
    session, hands = _xq_session(fen)
    for uci in [*cycle * 2, "e0e1", "a0a3", "e1e0", "a3b3"]:
        hands.move(uci)
    assert session.record.result == "*" and session.record.moves[-1] == "a3b3"
    hands.press(Button.CLAIM)
    assert session.record.result == "*" and session.warning is not None
    assert session.warning.startswith("no draw to claim in xiangqi")


def test_a_lower_move_limit_draws_sooner() -> None:
    session, hands = _xq_session("r3k4/9/9/9/9/9/9/9/9/R2K5 w - - 79 80", xiangqi_move_limit=40)
    hands.move("d0d1")
    assert (session.record.result, session.record.termination) == ("1/2-1/2", "move limit (40回合自然限着作和)")
