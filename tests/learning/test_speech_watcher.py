"""What the daemon says: the watcher turns game changes into speech events; xiangqi's words."""

from __future__ import annotations

import pytest

from boardctl.learning.speech import (
    EventKind,
    SpeechEvent,
    SpeechWatcher,
    move_text,
    phrase,
    words_for,
)
from boardctl.variants import get_variant
from boardctl.variants.xiangqi.spoken import XiangqiWords, english

XQ = get_variant("xiangqi")
CHESS = get_variant("chess")


@pytest.mark.parametrize(
    ("moves", "zh", "en"),
    [
        ([], "炮二平五", "Cannon 2 across 5"),  # h2e2
        (["h2e2"], "马8进7", "Horse 8 forward 7"),  # h9g7
    ],
)
def test_xiangqi_moves_in_words(moves: list[str], zh: str, en: str) -> None:
    board = XQ.board()
    for uci in moves:
        board.push(board.parse_uci(uci))
    nxt = board.parse_uci("h2e2" if not moves else "h9g7")
    words = XiangqiWords()
    assert words.notation(board, nxt, "zh") == zh
    assert words.notation(board, nxt, "en") == en


def test_xiangqi_check_is_said() -> None:
    # the chariot runs up the a-file to the enemy's back rank: check
    board = XQ.board("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1")
    move = board.parse_uci("a0a9")
    assert XiangqiWords().notation(board, move, "zh") == "车九进九，将军"
    assert XiangqiWords().notation(board, move, "en") == "Chariot 9 forward 9, check"
    quiet = board.parse_uci("a0a1")
    assert XiangqiWords().notation(board, quiet, "zh") == "车九进一"


def test_english_wxf() -> None:
    assert english("R+.3") == "front Chariot across 3"
    assert english("C2.5") == "Cannon 2 across 5"
    assert english("P-+1") == "rear Soldier forward 1"


def test_result_words_for_xiangqi() -> None:
    words = words_for("xiangqi")
    assert phrase(SpeechEvent.from_result("1-0"), language="zh", words=words) == "红方胜"
    assert phrase(SpeechEvent.from_result("0-1"), language="en", words=words) == "Black wins"


def test_watcher_follows_a_game() -> None:
    watcher = SpeechWatcher(words_for("chess"), language="en")
    board = CHESS.board()

    def look(**kw: object) -> list[SpeechEvent]:
        args: dict[str, object] = dict(game="g1", board=board, pending=None, violations=[], result="*")
        args.update(kw)
        return watcher.observe(**args)  # type: ignore[arg-type]

    assert look() == []
    board.push(board.parse_uci("g1f3"))
    assert look() == [SpeechEvent.from_move("Nf3")]
    assert look() == []  # said once
    # the engine's reply is said when it is shown, not again when it is made
    pending = board.parse_uci("d7d5")
    assert look(pending=pending) == [SpeechEvent.from_move("d5")]
    board.push(pending)
    assert look() == []
    # a touch-move reminder and an illegal move, as the rules flag them
    events = look(violations=[("touch-move", "x"), ("illegal-move", "y"), ("mismatch", "z")], touched=["b1"])
    assert events == [SpeechEvent.from_touch_move("b1"), SpeechEvent.from_illegal()]
    assert look(violations=[("touch-move", "x"), ("illegal-move", "y"), ("mismatch", "z")]) == []
    # a touched piece put back lights a reminder: said when it lights, not again while lit
    kept = [("touch-move", "x"), ("illegal-move", "y"), ("mismatch", "z")]
    assert look(violations=kept, touched=["g1"]) == [SpeechEvent.from_touch_move("g1")]
    assert look(violations=kept, touched=["g1"]) == []
    assert look(violations=kept) == []
    # a takeback, then another move
    board.pop()
    board.pop()
    assert look(violations=[]) == []
    board.push(board.parse_uci("e2e4"))
    assert [e.san for e in look()] == ["e4"]
    assert look(result="1-0") == [SpeechEvent.from_result("1-0")]
    assert look(result="1-0") == []
    # a new game starts from a clean slate
    fresh = CHESS.board()
    assert watcher.observe(game="g2", board=fresh, pending=None, violations=[], result="*") == []


def test_move_text_is_san_for_chess_and_words_for_xiangqi() -> None:
    chess_board = CHESS.board()
    assert move_text(words_for("chess"), chess_board, chess_board.parse_uci("e2e4"), "zh") == "e4"
    xq = XQ.board()
    assert move_text(words_for("xiangqi"), xq, xq.parse_uci("h2e2"), "zh") == "炮二平五"
    assert {k.value for k in EventKind} >= {"move", "result", "touch-move", "illegal"}
