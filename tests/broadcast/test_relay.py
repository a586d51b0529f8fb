"""The relay's judgement of each message: applied once, duplicates counted, bad input refused with a note."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.broadcast.pairings import Pairing
from boardctl.broadcast.publisher import SeqFile
from boardctl.broadcast.relay import Relay
from boardctl.storage import Violation
from tests.broadcast.support import EVENT, OPENING, payload, record, snapshot, topic

NOW = 1_800_000_010.0


class Wall:
    def __init__(self, t: float = NOW) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def relay_with_opening(**kwargs: Any) -> Relay:
    relay = Relay(EVENT, wall=Wall(), **kwargs)
    assert relay.receive(topic(), payload(snapshot(record(), seq=5))) == "applied"
    return relay


def good(**changes: Any) -> bytes:
    """The next message after the opening (one more move), with ``changes`` to its JSON."""
    data = snapshot(record([*OPENING, "b5a4"]), seq=6).to_json()
    data.update(changes)
    return json.dumps(data).encode()


def _json(data: Any) -> bytes:
    return json.dumps(data).encode()


# (what, topic, payload, a piece of the note)
HOSTILE: list[tuple[str, str, bytes, str]] = [
    ("garbage bytes", topic(), b"\xff\xfe\x00garbage", "not a boardctl message"),
    ("not JSON", topic(), b"{moves: e2e4", "not a boardctl message"),
    ("a JSON array", topic(), b"[1, 2, 3]", "JSON object expected"),
    ("another version", topic(), good(v=2), "message version"),
    ("a huge message", topic(), b'{"v":1,"pad":"' + b"x" * 70_000 + b'"}', "bytes refused"),
    ("NaN", topic(), good().replace(b'"sent": 1800000000.0', b'"sent": NaN'), "NaN"),
    ("nested deep", topic(), b"[" * 100 + b"]" * 100, "nested"),
    ("someone else's topic", topic("8"), good(), "someone else's topic"),
    ("another event in the payload", topic(), good(event="other"), "someone else's topic"),
    ("a board name with a wildcard", "boardctl/club/a+b/game", good(), "not a board name"),
    ("a foreign topic", "boardctl/club/7/secrets", good(), "not a topic of event"),
    ("another event's topic", "boardctl/other/7/game", good(), "not a topic of event"),
    ("an illegal move", topic(), good(moves=[*OPENING, "e1e8"]), "not a legal move"),
    ("a move like no move", topic(), good(moves=[*OPENING, "zz99"]), "'moves' must be"),
    ("a replayed old message that disagrees", topic(), payload(snapshot(record(["d2d4"]), seq=3)), "does not agree"),
    ("an old message with other clocks", topic(),
     payload(snapshot(record(OPENING[:4], clocks=[1.0, 2.0, 3.0, 4.0]), seq=3)), "does not agree"),
    ("a number reused for other moves", topic(), good(seq=5), "does not agree"),
    ("a move's clock rewritten", topic(),
     payload(snapshot(record([*OPENING, "b5a4"], clocks=[900.0, 500.0, 893.0, 889.5, 886.0, 882.5, 879.0]), seq=6)),
     "clock after ply 2 changed"),
    ("an older game", topic(), payload(snapshot(record(game="20261205-180000-000001"), seq=4)), "older game"),
    ("seq not a number", topic(), good(seq="6"), "'seq'"),
    ("seq a boolean", topic(), good(seq=True), "'seq'"),
    ("a negative clock", topic(), good(clocks=[-1.0] * 7), "clock"),
    ("more clocks than moves", topic(), good(clocks=[1.0] * 9), "'clocks'"),
    ("a violation after the game", topic(), good(violations=[{"ply": 40, "code": "x", "color": "white",
                                                               "detail": "d"}]), "'ply'"),
    ("a result that is none", topic(), good(result="2-0"), "'result'"),
    ("an unknown game", topic(), good(variant="shogi"), "'variant'"),
    ("a position that is none", topic(), good(fen="rnbqkbnr/pppppppp/8/8 w - - 0 1", moves=[], clocks=[]),
     "not a chess position"),
    ("a name with a control character", topic(), good(white="Ann\x1b[2J"), "'white'"),
    ("sent not a time", topic(), good(sent="noon"), "'sent'"),
    ("a status of another board", topic("7", "status"),
     _json({"v": 1, "event": EVENT, "board": "9", "online": True, "seq": 1, "sent": NOW}), "published on"),
    ("a status without online", topic("7", "status"),
     _json({"v": 1, "event": EVENT, "board": "7", "online": "yes", "seq": 1, "sent": NOW}), "'online'"),
]


@pytest.mark.parametrize(("what", "where", "data", "said"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_hostile_input_is_refused_with_a_note_and_changes_no_game(what: str, where: str, data: bytes, said: str) -> None:
    relay = relay_with_opening()
    before = relay.boards["7"].snapshot
    pgn = relay.pgn()
    assert relay.receive(where, data) == "refused", what
    assert relay.boards["7"].snapshot is before
    assert relay.pgn() == pgn
    notes = relay.arbiter()["notes"]
    assert notes and said in notes[0]["text"], notes
    assert "8" not in relay.boards or relay.boards["8"].snapshot is None


def test_a_clock_running_backwards_is_not_believed_and_the_game_goes_on() -> None:
    relay = relay_with_opening()
    back = {"white": 895.0, "black": 870.0, "running": "white"}
    resigned = record(result="0-1")
    assert relay.receive(topic(), payload(snapshot(resigned, seq=6, clock=back))) == "applied"
    snap = relay.boards["7"].snapshot
    assert snap is not None and snap.result == "0-1" and snap.seq == 6
    assert snap.clock == {"white": 880.0, "black": 870.0, "running": "white"}  # as it was
    assert "white clock went back from 880 s to 895 s" in relay.arbiter()["notes"][0]["text"]


def test_moves_after_the_result_are_refused() -> None:
    relay = Relay(EVENT, wall=Wall())
    relay.receive(topic(), payload(snapshot(record(result="1-0"), seq=1)))
    assert relay.receive(topic(), payload(snapshot(record([*OPENING, "b5a4"], result="1-0"), seq=2))) == "refused"
    assert "after the result" in relay.arbiter()["notes"][0]["text"]


def test_a_duplicate_is_applied_once_and_counted_without_a_note() -> None:
    relay = relay_with_opening()
    again = payload(snapshot(record(), seq=5))
    assert relay.receive(topic(), again) == "duplicate"
    assert relay.receive(topic(), again) == "duplicate"
    assert relay.boards["7"].duplicates == 2
    assert relay.arbiter()["notes"] == []
    assert relay.counts == {"applied": 1, "duplicate": 2, "refused": 0, "status": 0}


def test_a_late_resend_of_an_earlier_state_is_ignored_silently() -> None:
    relay = relay_with_opening()
    assert relay.receive(topic(), payload(snapshot(record(OPENING[:4]), seq=3))) == "duplicate"
    assert relay.boards["7"].snapshot is not None and relay.boards["7"].snapshot.moves == tuple(OPENING)
    assert relay.arbiter()["notes"] == []


def test_a_flood_of_the_same_refusal_is_one_note() -> None:
    relay = relay_with_opening()
    for _ in range(50):
        relay.receive(topic(), b"garbage")
    assert len(relay.arbiter()["notes"]) == 1
    assert relay.boards["7"].refused == 50


def test_a_flood_on_many_made_up_topics_is_one_note() -> None:
    relay = relay_with_opening()
    for n in range(300):
        relay.receive(f"boardctl/{EVENT}/x{n}/nonsense", b"{}")
        relay.receive(f"boardctl/other{n}/7/game", b"{}")
    assert len(relay.arbiter()["notes"]) == 1
    assert relay.counts["refused"] == 600 and set(relay.boards) == {"7"}


def test_violations_reach_the_panel_once_each_as_they_happen() -> None:
    relay = relay_with_opening()
    touch = Violation(6, "touch-move", "white", "the bishop on b5 was touched first")
    rec = record([*OPENING, "b5a4"], violations=[touch])
    assert relay.receive(topic(), payload(snapshot(rec, seq=6))) == "applied"
    assert relay.receive(topic(), payload(snapshot(rec, seq=6))) == "duplicate"
    illegal = Violation(7, "illegal-move", "black", "Ke8-e6 is not legal")
    rec2 = record([*OPENING, "b5a4", "g8f6"], violations=[touch, illegal])
    relay.receive(topic(), payload(snapshot(rec2, seq=7)))
    codes = [v["code"] for v in relay.arbiter()["violations"]]
    assert codes == ["illegal-move", "touch-move"]  # newest first


def test_a_takeback_is_applied_and_noted_for_the_arbiter() -> None:
    relay = relay_with_opening()
    taken = record(OPENING[:4])
    assert relay.receive(topic(), payload(snapshot(taken, seq=6))) == "applied"
    assert relay.boards["7"].snapshot is not None and relay.boards["7"].snapshot.moves == tuple(OPENING[:4])
    assert "taken back" in relay.arbiter()["notes"][0]["text"]


@pytest.mark.parametrize(("game", "seq"), [
    ("20261205-180000-000001", 6),  # a board whose calendar went back (no clock battery): its number says
    ("20261205-200000-000001", 1),  # a board whose numbering started again (a new games folder): its id says
])
def test_the_boards_next_game_is_known_by_its_number_or_its_id(game: str, seq: int) -> None:
    relay = relay_with_opening()
    assert relay.receive(topic(), payload(snapshot(record(["d2d4"], game=game), seq=seq))) == "applied"
    assert relay.receive(topic(), payload(snapshot(record(["d2d4", "d7d5"], game=game), seq=seq + 1))) == "applied"
    assert relay.receive(topic(), payload(snapshot(record(), seq=5))) == "refused"  # the game before, replayed


def test_a_new_game_replaces_an_unfinished_one_with_a_note() -> None:
    relay = relay_with_opening()
    new = record(["d2d4"], game="20261205-200000-000001")
    assert relay.receive(topic(), payload(snapshot(new, seq=6))) == "applied"
    assert "left unfinished" in relay.arbiter()["notes"][0]["text"]
    assert relay.pgn().count("[Event ") == 1


def test_pgn_keeps_the_boards_movetext_under_the_events_tags() -> None:
    pairings = {"7": Pairing("7", "Carlsen, Magnus", "Nakamura, Hikaru", "3")}
    relay = Relay(EVENT, pairings=pairings, wall=Wall())
    rec = record()
    relay.receive(topic("board-07"), payload(snapshot(rec, seq=1, board="board-07")))
    text = relay.pgn()
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    assert game.headers["White"] == "Carlsen, Magnus" and game.headers["Round"] == "3"
    assert game.headers["Board"] == "7" and game.headers["Result"] == "*" and game.headers["Event"] == EVENT
    own = rec.pgn_text()
    assert text.split("\n\n", 1)[1].strip() == own.split("\n\n", 1)[1].strip()
    assert [node.clock() for node in game.mainline()] == rec.clocks


def test_pgn_of_several_boards_in_board_order() -> None:
    relay = Relay(EVENT, wall=Wall())
    for board in ("10", "2", "1"):
        relay.receive(topic(board), payload(snapshot(record(), seq=1, board=board)))
    assert [line for line in relay.pgn().splitlines() if line.startswith("[Board ")] == \
        ['[Board "1"]', '[Board "2"]', '[Board "10"]']


def test_flags_about_to_fall_and_silent_boards() -> None:
    wall = Wall()
    relay = Relay(EVENT, wall=wall, silent_after=20.0, flag_warning=30.0)
    low = {"white": 40.0, "black": 300.0, "running": "white"}
    relay.receive(topic("1"), payload(snapshot(record(), seq=1, board="1", clock=low, sent=NOW)))
    relay.receive(topic("2"), payload(snapshot(record(), seq=1, board="2", sent=NOW)))
    assert relay.arbiter()["flags"] == []
    wall.t = NOW + 15
    relay.receive(topic("2", "status"), _json({"v": 1, "event": EVENT, "board": "2", "online": True, "seq": 1,
                                               "sent": wall.t}))
    assert relay.arbiter()["flags"] == [{"board": "1", "side": "white", "left": 25.0}]
    wall.t = NOW + 25
    assert [s["board"] for s in relay.arbiter()["silent"]] == ["1"]
    relay.receive(topic("2", "status"), _json({"v": 1, "event": EVENT, "board": "2", "online": False, "seq": 1,
                                               "sent": wall.t}))
    assert [s["board"] for s in relay.arbiter()["silent"]] == ["1", "2"]


@given(st.binary(max_size=300), st.sampled_from([topic(), topic("x", "status"), "boardctl/club/7", "#"]))
def test_random_bytes_never_raise(data: bytes, where: str) -> None:
    relay = relay_with_opening()
    assert relay.receive(where, data) == "refused"


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                           max_leaves=8)


@given(st.dictionaries(st.sampled_from(["v", "seq", "event", "board", "game", "variant", "fen", "moves", "clocks",
                                        "result", "termination", "white", "black", "time_control", "clock",
                                        "violations", "sent"]), json_values, max_size=5))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_random_fields_over_a_real_message_never_raise_nor_change_the_game_wrongly(changes: dict[str, Any]) -> None:
    relay = relay_with_opening()
    data = snapshot(record([*OPENING, "b5a4"]), seq=6).to_json()
    data.update(changes)
    outcome = relay.receive(topic(), json.dumps(data).encode())
    snap = relay.boards["7"].snapshot
    assert snap is not None
    if outcome != "applied":
        assert snap.moves == tuple(OPENING)
    else:  # whatever was applied is a legal game of this board
        assert snap.board == "7" and snap.event == EVENT and snap.seq > 5


def test_a_boards_message_numbers_only_grow_across_restarts(tmp_path: Path) -> None:
    first = SeqFile(tmp_path / "club-7.seq")
    assert [first.next(), first.next(), first.next()] == [1, 2, 3]
    again = SeqFile(tmp_path / "club-7.seq")  # the board restarted
    assert again.next() == 4


def test_a_xiangqi_board_in_the_same_room() -> None:
    from boardctl.variants import get_variant

    xiangqi = get_variant("xiangqi")
    rec = record(["h2e2", "h9g7", "h0g2"], clocks=[600.0, 598.0, 590.5])
    rec.variant, rec.fen = "xiangqi", xiangqi.starting_fen
    relay = Relay(EVENT, pairings={"3": Pairing("3", "Xu Yinchuan", "Lü Qin", "1")}, wall=Wall())
    clock = {"red": 590.5, "black": 598.0, "running": "black"}
    assert relay.receive(topic("3"), payload(snapshot(rec, seq=1, board="3", clock=clock))) == "applied"
    text = relay.pgn()
    assert '[Red "Xu Yinchuan"]' in text and '[Board "3"]' in text
    assert text.split("\n\n", 1)[1].strip() == rec.pgn_text().split("\n\n", 1)[1].strip()
    assert relay.overview()[0]["clock"] == {"red": 590.5, "black": 588.0}  # 10 s of black's time since sent
    illegal = record(["h2e2", "h9g7", "h0h9"], clocks=[600.0, 598.0, 590.5])
    illegal.variant, illegal.fen = "xiangqi", xiangqi.starting_fen
    assert relay.receive(topic("3"), payload(snapshot(illegal, seq=2, board="3", clock=clock))) == "refused"
