"""boardctl.variants.xiangqi.reading: the xiangqi reader shaped for boardctl.records (the page's
upload, games open): one game, a ply limit, RecordError and SeveralGames."""

from __future__ import annotations

import pytest

from boardctl.records import MAX_PLIES, RecordError, SeveralGames
from boardctl.variants import get_variant
from boardctl.variants.xiangqi import STARTING_FEN, export
from boardctl.variants.xiangqi.reading import read_record as read_xiangqi
from tests.variants.xiangqi.xqf_writer import Keys, write_xqf

XIANGQI = get_variant("xiangqi")
LINE = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]
SETUP = "3akab2/9/4b4/p3p3p/2p6/6P2/P3P3P/4B4/4A4/2BAK4 b - - 0 20"


@pytest.mark.parametrize("notation", ["iccs", "wxf", "chinese"])
def test_pgn_text_and_bytes(notation: str) -> None:
    text = export(LINE, None, notation, tags={"Red": "红方", "Black": "黑方"}, result="1-0")
    for data in (text, text.encode("utf-8"), text.encode("gb18030")):
        game = read_xiangqi(data, max_plies=MAX_PLIES)
        assert game.moves == tuple(LINE) and game.fen == STARTING_FEN and not game.has_fen
        assert game.headers["Red"] == "红方" and game.headers["Result"] == "1-0"
        board = game.board_after(XIANGQI, 3)
        assert [m.uci() for m in board.move_stack] == LINE[:3]


def test_a_set_up_without_moves_is_a_game() -> None:
    game = read_xiangqi(export([], SETUP, "iccs"), max_plies=MAX_PLIES)
    assert game.has_fen and game.fen == SETUP and game.moves == ()


@pytest.mark.parametrize("version", [10, 18])
def test_xqf_bytes(version: int) -> None:
    keys = Keys(mask=0xFF, ors=(1, 2, 4, 8), total=5, xy=6, xyf=7, xyt=8) if version > 10 else None
    data = write_xqf(LINE, version=version, keys=keys, red="甲", black="乙", result="1-0")
    game = read_xiangqi(data, max_plies=MAX_PLIES)
    assert (
        game.moves == tuple(LINE)
        and game.headers["Red"] == "甲"
        and game.headers["Result"] == "1-0"
    )
    assert not game.has_fen


REFUSED = [
    ("", "no game in it"),
    (export(LINE, None, "iccs") + "\n" + export(LINE[:2], None, "iccs"), "2 games"),
    ('[Game "Chinese Chess"]\n\n1. H2-E2 H9-G7\n2. H2-E2\n', "line 4: move 3"),
    ('[Game "Chinese Chess"]\n[Red "x"]\n', "no moves and no FEN tag"),
    ('[Game "Chess"]\n\n1. e4\n', "not Chinese chess"),
    (b"XQ" + b"\0" * 100, "not a readable XQF record"),
    (b"\xff\xff\xfe", "not text in UTF-8 or GB18030"),
]


@pytest.mark.parametrize(("data", "fault"), REFUSED, ids=[f for _, f in REFUSED])
def test_faults_are_one_record_error(data: str | bytes, fault: str) -> None:
    with pytest.raises(RecordError) as info:
        read_xiangqi(data, max_plies=MAX_PLIES)
    assert fault in str(info.value)
    assert "/" not in str(info.value).split(":")[0]  # no temporary file's name leaks out


def test_several_games_and_the_ply_limit() -> None:
    two = export(LINE, None, "iccs") + "\n" + export(LINE[:2], None, "wxf")
    with pytest.raises(SeveralGames) as info:
        read_xiangqi(two, max_plies=MAX_PLIES)
    assert info.value.count == 2
    with pytest.raises(RecordError, match="more than 4 moves"):
        read_xiangqi(export(LINE, None, "iccs"), max_plies=4)
