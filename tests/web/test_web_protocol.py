"""The page's messages are validated before the daemon sees them, with messages naming the field."""

from __future__ import annotations

import dataclasses
import json

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.actions import ButtonAction, NewGameAction, SquareAction
from boardctl.errors import BoardctlError
from boardctl.events import Button
from boardctl.web.protocol import (
    MAX_MESSAGE_BYTES,
    WebInputError,
    action_to_json,
    fen_from_pgn,
    parse_client_message,
    validate_action,
    validate_fen,
)


def replace_note(action: object) -> object:
    """A PGN upload's note is not part of the action's JSON (the FEN it set up is)."""
    return dataclasses.replace(action, note=None) if isinstance(action, NewGameAction) else action


def test_square_event_round_trips() -> None:
    msg = parse_client_message('{"id": 3, "pin": "0042", "action": {"event": {"square": "e2", "occupied": false}}}')
    assert msg.id == 3
    assert msg.pin == "0042"
    assert msg.action == SquareAction(chess.E2, False)
    assert action_to_json(msg.action) == {"event": {"square": "e2", "occupied": False}}


@pytest.mark.parametrize("button", list(Button))
def test_every_board_button_is_accepted(button: Button) -> None:
    assert validate_action({"button": button.value}) == ButtonAction(button)


@pytest.mark.parametrize(
    ("action", "needle"),
    [
        ({"event": {"square": "e9", "occupied": True}}, "event.square"),
        ({"event": {"square": "e2", "occupied": "yes"}}, "event.occupied"),
        ({"event": {"square": "e2"}}, "event:"),
        ({"event": {"square": "e2", "occupied": True, "t": 1}}, "event:"),
        ({"button": "self-destruct"}, "unknown button 'self-destruct'"),
        ({"button": "hint", "event": {}}, "exactly one"),
        ({}, "exactly one"),
        ({"teleport": 1}, "unknown kind 'teleport'"),
        ({"new-game": {"color": "green"}}, "new-game.color"),
        ({"new-game": {"level": "grandmaster!"}}, "new-game.level"),
        ({"new-game": {"level": True}}, "new-game.level"),
        ({"new-game": {"time-control": "forever"}}, "new-game.time-control"),
        ({"new-game": {"time-control": "15"}}, "new-game.time-control"),
        ({"new-game": {"fen": "not a fen"}}, "new-game.fen: not a valid FEN"),
        ({"new-game": {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}}, "new-game.fen: impossible position"),
        ({"new-game": {"fen": chess.STARTING_FEN, "pgn": "1. e4 *"}}, "either fen or pgn"),
        ({"new-game": {"pgn": "1. e4 e5 2. Ke3 *"}}, "new-game.pgn"),
        ({"new-game": {"castle": True}}, "unknown field(s) castle"),
        ({"new-game": "now"}, "new-game: expected an object"),
    ],
)
def test_bad_actions_name_the_field(action: dict[str, object], needle: str) -> None:
    with pytest.raises(WebInputError) as info:
        validate_action(action)
    assert needle in str(info.value)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, BoardctlError)


def test_new_game_is_normalised() -> None:
    action = validate_action(
        {"new-game": {"color": "black", "level": 1500, "time-control": " 15+10 ", "fen": "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"}}
    )
    assert action == NewGameAction(color="black", level="1500", time_control="15+10",
                                   fen="8/8/8/4k3/8/8/4P3/4K3 w - - 0 1")
    # An empty time control means "no clock" and is passed on; an empty level means "default".
    assert validate_action({"new-game": {"time-control": "", "level": ""}}) == NewGameAction(time_control="")
    # Level names go through the one level rule (engine/levels.py): case, spaces and Chinese names.
    assert validate_action({"new-game": {"level": " Beginner "}}) == NewGameAction(level="beginner")
    assert validate_action({"new-game": {"level": "大师"}}) == NewGameAction(level="master")


def test_pgn_upload_sets_up_the_final_position() -> None:
    fen = fen_from_pgn('[Event "x"]\n\n1. e4 e5 2. Nf3 Nc6 *\n')
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6"):
        board.push_san(san)
    assert fen == board.fen()
    action = validate_action({"new-game": {"pgn": "1. d4 *"}})
    assert isinstance(action, NewGameAction) and action.fen is not None
    assert action.fen.startswith("rnbqkbnr/pppppppp/8/8/3P4/")


def test_pgn_without_moves_or_fen_is_refused() -> None:
    with pytest.raises(WebInputError, match="no moves"):
        fen_from_pgn('[Event "empty"]\n\n*\n')


def test_validate_fen_normalises_spacing() -> None:
    assert validate_fen("  " + chess.STARTING_FEN + " ") == chess.STARTING_FEN


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("{", "not valid JSON"),
        ("[1, 2]", "expected a JSON object, got list"),
        ('{"action": {"button": "hint"}, "admin": true}', "unknown key(s) admin"),
        ('{"id": "x", "action": {"button": "hint"}}', "message.id"),
        ('{"id": true, "action": {"button": "hint"}}', "message.id"),
        ('{"pin": [1], "action": {"button": "hint"}}', "message.pin"),
        ('{"id": 1}', "missing 'action'"),
    ],
)
def test_bad_envelopes(text: str, needle: str) -> None:
    with pytest.raises(WebInputError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        parse_client_message(text)


def test_oversized_message_is_refused_before_parsing() -> None:
    big = json.dumps({"action": {"new-game": {"pgn": "1. e4 " * (MAX_MESSAGE_BYTES // 4)}}})
    with pytest.raises(WebInputError, match="larger than"):
        parse_client_message(big)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)


@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_arbitrary_text_is_rejected_cleanly_or_parsed(text: str | bytes) -> None:
    try:
        msg = parse_client_message(text)
    except WebInputError:
        return
    assert isinstance(msg.action, SquareAction | ButtonAction | NewGameAction)


@given(
    st.dictionaries(
        st.sampled_from(["id", "pin", "action", "x"]),
        json_values
        | st.fixed_dictionaries(
            {},
            optional={
                "event": json_values,
                "button": json_values | st.sampled_from([b.value for b in Button]),
                "new-game": st.dictionaries(
                    st.sampled_from(["color", "level", "time-control", "fen", "pgn", "zz"]), json_values, max_size=4
                ),
            },
        ),
        max_size=4,
    )
)
def test_structured_garbage_never_escapes_as_another_error(obj: dict[str, object]) -> None:
    try:
        msg = parse_client_message(json.dumps(obj))
    except WebInputError as exc:
        assert str(exc)
        return
    # Whatever passed is exactly one known action, re-validating to itself.
    assert validate_action(action_to_json(msg.action)) == replace_note(msg.action)


@pytest.mark.parametrize(("text", "games"), [
    ('[Event "a"]\n\n1. e4 *\n\n[Event "b"]\n\n1. d4 *\n', 2),
    ("1. e4 e5 *\n\n1. d4 d5 *\n\n1. c4 *\n", 3),
])
def test_pgn_upload_of_several_games_is_refused_with_the_count(text: str, games: int) -> None:
    with pytest.raises(WebInputError, match=f"holds {games} games; upload a file with the one game"):
        validate_action({"new-game": {"pgn": text}})


def test_pgn_upload_says_only_the_final_position_is_kept() -> None:
    action = validate_action({"new-game": {"pgn": '[White "Ann"]\n[Black "Bob"]\n\n1. e4 e5 2. Nf3 *\n'}})
    assert isinstance(action, NewGameAction) and action.note is not None
    note = action.note
    assert "(Ann - Bob)" in note and "after 3 half-moves" in note and "without those moves" in note


@pytest.mark.parametrize(
    ("action", "needle"),
    [
        ({"new-game": {"level": "300"}}, "new-game.level: must be one of"),
        ({"new-game": {"level": 3300}}, "from 400 to 3200"),
        ({"new-game": {"level": "１５００"}}, "new-game.level"),  # full-width digits are not an Elo
        ({"new-game": {"time-control": "0+5"}}, "new-game.time-control: needs a positive number of minutes"),
        ({"new-game": {"color": "red"}}, "expected one of white, black, random"),
    ],
)
def test_one_rule_for_levels_and_clocks_at_the_edge(action: dict[str, object], needle: str) -> None:
    """What the daemon would refuse is refused here, with the rule's own words (it is not checked twice)."""
    with pytest.raises(WebInputError, match=needle):
        validate_action(action)


def test_xiangqi_actions_use_its_points_and_sides() -> None:
    from boardctl.variants import get_variant

    xiangqi = get_variant("xiangqi")
    assert validate_action({"event": {"square": "e0", "occupied": False}}, variant=xiangqi) == SquareAction(4, False)
    assert validate_action({"event": {"square": "i9", "occupied": True}}, variant=xiangqi) == SquareAction(89, True)
    with pytest.raises(WebInputError, match=r"event\.square"):
        validate_action({"event": {"square": "e0", "occupied": False}})  # no e0 in chess
    with pytest.raises(WebInputError, match=r"event\.square"):
        validate_action({"event": {"square": "j1", "occupied": False}}, variant=xiangqi)
    assert validate_action({"new-game": {"color": "red"}}, variant=xiangqi) == NewGameAction(color="red")
    with pytest.raises(WebInputError, match="expected one of red, black, random"):
        validate_action({"new-game": {"color": "white"}}, variant=xiangqi)
