"""boardctl.stepper in-process: records read for replay (chess and xiangqi, hostile bytes), and the
StepGuide on a real Session in both ways of following a game."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import BoardctlError, GameFileError
from boardctl.events import Button, ButtonPressed, SquareChanged
from boardctl.session import Session, Settings
from boardctl.stepper import ReplayGame, StepGuide, read_game_file
from boardctl.variants import get_variant

XIANGQI = ('[Game "Chinese Chess"]\n[Red "Li"]\n[Black "Wang"]\n[Result "*"]\n[Format "ICCS"]\n\n'
           "1. H2-E2 H9-G7 2. H0-G2 I9-H9 3. I0-H0 B9-C7 *\n")
CHINESE = '[Game "Chinese Chess"]\n[Format "Chinese"]\n\n1. 炮二平五 马8进7 2. 马二进三 车9平8 *\n'
FROM_FEN = ('[SetUp "1"]\n[FEN "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"]\n\n1. a8=N Kd7 2. Nb6+ Kc6 *\n')


@pytest.mark.parametrize(
    ("text", "variant", "moves", "first"),
    [
        (XIANGQI, "xiangqi", ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"], "red"),
        (CHINESE, "xiangqi", ["h2e2", "h9g7", "h0g2", "i9h9"], "red"),
        (FROM_FEN, "chess", ["a7a8n", "e8d7", "a8b6", "d7c6"], "white"),
        ("1. d4 d5 2. c4 e6 *\n", "chess", ["d2d4", "d7d5", "c2c4", "e7e6"], "white"),
    ],
    ids=["xiangqi-iccs", "xiangqi-chinese", "chess-fen", "chess-bare"],
)
def test_records_are_read_for_replay(tmp_path: Path, text: str, variant: str, moves: list[str], first: str) -> None:
    path = tmp_path / "g.pgn"
    path.write_text(text, encoding="utf-8")
    game = read_game_file(path)
    assert game.variant == variant and list(game.moves) == moves
    guide = StepGuide(game, get_variant(variant), watch=True)
    assert len(guide.sans) == len(moves) and guide.positions[-1].fen() != game.fen
    assert get_variant(variant).color_name(guide.positions[0].turn) == first


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=300).map(lambda s: s.encode("utf-8")))
def test_any_bytes_are_a_game_or_one_clear_error(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "x.pgn"
    path.write_bytes(data)
    try:
        game = read_game_file(path)
    except BoardctlError as exc:
        assert isinstance(exc, GameFileError) and "x.pgn" in str(exc)
    else:
        assert game.moves and StepGuide(game, get_variant(game.variant)).plies == len(game.moves)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["1.", "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O", "??", "{c}", "(", ")", "*",
                                 "1-0", "[White", '"x"]', "exd5", "=Q", "\n"]), max_size=30))
def test_pgn_shaped_noise_is_a_game_or_one_clear_error(tmp_path_factory: pytest.TempPathFactory,
                                                        tokens: list[str]) -> None:
    path = tmp_path_factory.mktemp("noise") / "n.pgn"
    path.write_text(" ".join(tokens), encoding="utf-8")
    try:
        game = read_game_file(path)
    except GameFileError as exc:
        assert "n.pgn" in str(exc)
    else:
        board = chess.Board(game.fen)
        for uci in game.moves:
            board.push_uci(uci)


def test_xiangqi_is_stepped_on_the_board_and_watched() -> None:
    variant = get_variant("xiangqi")
    game = ReplayGame("xiangqi", variant.starting_fen, ("h2e2", "h9g7", "h0g2"), {"Red": "Li"}, "xq")
    geometry = variant.geometry
    for watch in (False, True):
        session = Session(Settings(mode="record", variant="xiangqi"))
        session.guide = StepGuide(game, variant, watch=watch)
        session.tick(0.0)
        t = 0.0
        shown = session.state_line()
        assert shown["step"]["set_up"] and shown["leds"] == []
        t += 1
        session.feed(ButtonPressed(t, Button.HINT))
        line = session.state_line()
        assert {led["square"] for led in line["leds"] if led["why"] == "step-move"} == {"h2", "e2"}
        if watch:
            assert line["moves"] == ["h2e2"] and line["occupancy"] is None
            continue
        assert line["moves"] == []  # lit, to be made
        for square, occupied in (("h2", False), ("e2", True)):
            t += 0.1
            session.feed(SquareChanged(t, geometry.parse(square), occupied))
        t += 1
        session.tick(t)
        assert session.state_line()["moves"] == ["h2e2"]
        assert session.state_line()["step"]["ply"] == 1

