"""A xiangqi game is named after the opening it follows (issue 35, finding 11: the page's opening
row stayed "–"): the engine book's list of openings (engine/data/xiangqi_openings.tsv), as
played or mirrored, once a move each has been made; no name for a set-up or before the reply."""

from __future__ import annotations

import pytest

from boardctl.openings import classify
from boardctl.storage import GameRecord
from boardctl.variants import get_variant
from boardctl.web.server import Annotator

XQ = get_variant("xiangqi")
SETUP = "3k5/4a4/4b4/9/2p6/9/4P4/4B4/4A4/3AK4 w - - 0 1"

#: (moves from the start, the opening's Chinese name, or None)
NAMED = [
    ([], None),
    (["h2e2"], None),  # Red's first move alone names no opening
    (["h2e2", "h9g7"], "中炮对屏风马"),
    (["b2e2", "b9c7"], "中炮对屏风马"),  # 炮八平五 马２进３: the same opening, mirrored
    (["h2e2", "h9g7", "h0g2", "b9c7", "i0h0", "i9h9", "h0h6", "h7i7"], "中炮过河车对屏风马"),
    (["h2e2", "h9g7", "h0g2", "b9c7", "i0h0", "i9h9", "c3c4", "g6g5", "b0a2"], "五七炮对屏风马"),
    (["h2e2", "b9c7", "h0g2", "h9i7"], "中炮对单提马"),
    (["h2e2", "h7e7"], "顺炮"),
    (["h2e2", "b7e7"], "列炮"),
    (["g0e2", "g6g5"], "飞相对进卒"),
    (["g0e2", "b7e7"], "飞相对左中炮"),
    (["c3c4", "g6g5"], "仙人指路对卒"),
    (["c3c4", "b7c7"], "仙人指路对卒底炮"),
    (["c3c4", "c9e7"], "仙人指路对飞象"),
    (["b0c2", "g6g5"], "起马对进卒"),
    (["b0c2", "b9c7"], "起马对挺马"),
    (["h2d2", "h9g7"], "过宫炮"),
    (["h2f2", "b9c7"], "士角炮"),
    (["a0a1", "a9a8"], None),  # no listed opening
]


def _board(moves: list[str], fen: str | None = None):  # type: ignore[no-untyped-def]
    board = XQ.board(fen or XQ.starting_fen)
    for uci in moves:
        board.push(board.parse_uci(uci))
    return board


@pytest.mark.parametrize(("moves", "chinese"), NAMED, ids=[" ".join(m) or "start" for m, _ in NAMED])
def test_a_xiangqi_game_is_named_after_its_opening(moves: list[str], chinese: str | None) -> None:
    found = classify(_board(moves))
    if chinese is None:
        assert found is None
    else:
        assert found is not None and found.eco == "" and found.name.split(" ", 1)[0] == chinese


def test_a_set_up_has_no_opening() -> None:
    assert classify(_board(["e3e4"], SETUP)) is None


def test_the_page_and_the_saved_game_name_it() -> None:
    out = Annotator().annotate({"variant": "xiangqi", "start_fen": XQ.starting_fen, "moves": ["h2e2", "h7e7"],
                                "pending": None, "hint": None})
    assert out["opening"] == "顺炮 same-direction cannons"
    record = GameRecord(id="x", mode="record", white="a", black="b", variant="xiangqi", fen=XQ.starting_fen,
                        moves=["h2e2", "h7e7"])
    headers = record.to_pgn().headers
    assert headers.get("Opening") == "顺炮 same-direction cannons" and "ECO" not in headers
