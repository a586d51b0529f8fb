"""What the saved PGN says: standard Termination values, rule violations only, readable back by python-chess."""

from __future__ import annotations

import io
import random

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.storage import PGN_VIOLATIONS, GameRecord, Violation, pgn_termination

#: The Termination values of the PGN standard (section 9.8.1).
STANDARD = {"abandoned", "adjudication", "death", "emergency", "normal", "rules infraction", "time forfeit",
            "unterminated"}

#: Every detailed reason the session writes (boardctl/session/), with the standard value it maps to.
TERMINATIONS = [
    ("1-0", "checkmate", "normal"),
    ("1/2-1/2", "stalemate", "normal"),
    ("1/2-1/2", "insufficient material", "normal"),
    ("1/2-1/2", "seventyfive moves", "normal"),
    ("1/2-1/2", "fivefold repetition", "normal"),
    ("1/2-1/2", "draw claimed: threefold repetition", "normal"),
    ("1/2-1/2", "draw claimed: fifty-move rule", "normal"),
    ("1/2-1/2", "draw agreed", "normal"),
    ("0-1", "white resigned", "normal"),
    ("1-0", "black resigned", "normal"),
    ("0-1", "white lost on time", "time forfeit"),
    ("1-0", "black lost on time", "time forfeit"),
    ("1/2-1/2", "white ran out of time; opponent cannot mate", "time forfeit"),
    ("0-1", "white forfeits: second illegal move", "rules infraction"),
    ("1/2-1/2", "black forfeits: second illegal move", "rules infraction"),
    ("*", "abandoned", "abandoned"),
    ("*", "", "unterminated"),
]

MOVES = ["e2e4", "e7e5", "g1f3", "b8c6"]


def record(**kw: object) -> GameRecord:
    fields: dict[str, object] = {"id": "20260101-120000-000001", "mode": "play", "white": "Human",
                                 "black": "boardctl-engine (beginner)", "human": "white", "moves": list(MOVES),
                                 "clocks": [None] * len(MOVES)}
    fields.update(kw)
    return GameRecord(**fields)  # type: ignore[arg-type]


def read(rec: GameRecord) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(rec.pgn_text()))
    assert game is not None and not game.errors, game and game.errors
    return game


@pytest.mark.parametrize(("result", "detail", "standard"), TERMINATIONS)
def test_termination_is_a_standard_value_with_the_detail_after_the_last_move(result: str, detail: str,
                                                                             standard: str) -> None:
    assert pgn_termination(result, detail) == standard
    game = read(record(result=result, termination=detail))
    assert game.headers["Termination"] == standard in STANDARD
    assert game.headers["Result"] == result
    last = game.end()
    expected = {"": None, "abandoned": "abandoned for a new game"}.get(detail, detail)
    if expected is None:
        assert last.comment == ""
    else:
        assert last.comment.endswith(expected)
    assert [m.uci() for m in game.mainline_moves()] == MOVES


def test_the_state_line_keeps_the_detailed_termination() -> None:
    from boardctl.session import Session, Settings

    session = Session(Settings(mode="record"), record=record(mode="record", human=None, result="0-1",
                                                             termination="white resigned"))
    assert session.state_line()["termination"] == "white resigned"


VIOLATIONS = [
    (Violation(1, "illegal-move", "black", "d7d5 instead of e7e5"), True),
    (Violation(2, "touch-move", "white", "g1 was touched and must move"), True),
    (Violation(3, "castling-rook-first", "black", "rook h8 touched before the king"), True),
    (Violation(0, "mismatch", "white", "empty f1,g1,e2"), False),
    (Violation(0, "setup", "white", "set up the lit squares"), False),
    (Violation(2, "takeback", "white", "put back e4"), False),
    (Violation(4, "lifted", "black", "piece lifted from c6 and held"), False),
]


def test_rule_violations_stay_as_comments_and_setup_noise_goes() -> None:
    rec = record(violations=[v for v, _ in VIOLATIONS])
    text = rec.pgn_text()
    game = read(rec)
    comments = " ".join(node.comment for node in game.mainline()) + game.comment
    for violation, kept in VIOLATIONS:
        assert (violation.detail in comments) == kept, violation
        assert (violation.detail in text) == kept, violation
    assert {v.code for v, kept in VIOLATIONS if kept} == set(PGN_VIOLATIONS)
    # the state file keeps everything
    assert GameRecord.from_json(rec.to_json(), where="test").violations == [v for v, _ in VIOLATIONS]


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 80), st.sampled_from(TERMINATIONS),
       st.lists(st.tuples(st.integers(0, 80), st.sampled_from([v for v, _ in VIOLATIONS])), max_size=6))
def test_any_saved_game_reads_back_whole(seed: int, plies: int, ending: tuple[str, str, str],
                                         noise: list[tuple[int, Violation]]) -> None:
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    result, detail, standard = ending
    violations = [Violation(min(ply, len(board.move_stack)), v.code, v.color, v.detail) for ply, v in noise]
    rec = record(moves=[m.uci() for m in board.move_stack], clocks=[round(rng.uniform(0, 300), 1)] * len(board.move_stack),
                 result=result, termination=detail, violations=violations, time_control="5+3")
    game = read(rec)
    assert game.headers["Termination"] == standard
    assert [m.uci() for m in game.mainline_moves()] == rec.moves
    assert all(node.clock() is not None for node in game.mainline())
    assert "mismatch" not in rec.pgn_text() and "setup" not in rec.pgn_text()
