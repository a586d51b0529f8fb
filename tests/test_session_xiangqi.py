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
