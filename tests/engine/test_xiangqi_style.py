"""Xiangqi playing styles (engine/xq_style.py): the chess styles' options scale the xiangqi
evaluation, a repertoire of xiangqi lines is the book, and contempt scores the search's draws
(issue 35, finding 11: the characters need the xiangqi engine to have styles)."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest

from engine import xq_evaluate as ev
from engine.searcher import Limits
from engine.style import Style, StyleError
from engine.uci import UciProtocol
from engine.xq_movegen import ADVISOR, CANNON, ELEPHANT, EVW, HORSE, KING, PAWN, PST, ROOK
from engine.xq_position import XqBoard, tables
from engine.xq_searcher import XqSearcher
from engine.xq_style import XqRepertoire, xq_style_tables

ALL_TYPES = (PAWN, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, KING)


def style(**scales: int) -> Style:
    names = {"material": "Style Material", "mobility": "Style Mobility", "soldiers": "Style PawnStructure",
             "attack": "Style KingAttack", "safety": "Style KingSafety"}
    return Style(scales=tuple((names[k], v) for k, v in scales.items()))


def pst(tb: np.ndarray, colour: int, ptype: int) -> np.ndarray:
    pc = colour * 7 + ptype
    return np.asarray(tb[PST + pc * 90:PST + pc * 90 + 90])


def weight(tb: np.ndarray, slot: int) -> int:
    return int(tb[EVW + slot])


def test_the_neutral_style_is_the_engines_own_evaluation() -> None:
    assert np.array_equal(xq_style_tables(style(material=100, mobility=100), 0), tables())
    assert np.array_equal(xq_style_tables(Style(), 1), tables())


# (style, the piece types whose squares change, the EVW slots that change) for the engine as Red
CASES = [
    (style(material=150), set(ALL_TYPES) - {KING}, set()),
    (style(mobility=200), {HORSE, ROOK, CANNON}, {ev.W_HORSE_MOB}),
    (style(mobility=0), {HORSE, ROOK, CANNON}, {ev.W_HORSE_MOB}),
    (style(soldiers=250), {PAWN}, set()),
    (style(attack=300), set(), {ev.W_GUARDS + 1, ev.W_OPEN_FILE + 1}),
    (style(safety=40), {KING}, {ev.W_GUARDS, ev.W_OPEN_FILE}),
]


@pytest.mark.parametrize(("chosen", "types", "slots"), CASES)
@pytest.mark.parametrize("side", [0, 1])
def test_each_option_scales_only_its_own_terms(chosen: Style, types: set[int], slots: set[int], side: int) -> None:
    base, styled = tables(), xq_style_tables(chosen, side)
    changed_types = {(colour, t) for colour in (0, 1) for t in ALL_TYPES
                     if not np.array_equal(pst(base, colour, t), pst(styled, colour, t))}
    sided = chosen.is_sided
    # the own general's placement is the engine's colour's; everything else is both colours'
    expected_types = {(c, t) for c in (0, 1) for t in types if not (t == KING and sided and c != side)}
    assert changed_types == expected_types
    changed_slots = {s for s in range(7) if weight(base, s) != weight(styled, s)}
    if sided and side == 1:  # Black's own general: the slots swap colours
        slots = {s + (1 if s in (ev.W_GUARDS, ev.W_OPEN_FILE) else -1) if s != ev.W_HORSE_MOB else s for s in slots}
    assert changed_slots == slots
    assert np.array_equal(styled[:PST], base[:PST])  # the move tables are untouched


def test_material_scales_piece_values_not_placement() -> None:
    styled = xq_style_tables(style(material=200), 0)
    for ptype, value in ((ROOK, ev.VALUE[ROOK]), (HORSE, ev.VALUE[HORSE]), (ADVISOR, ev.VALUE[ADVISOR])):
        diff = pst(styled, 0, ptype) - pst(tables(), 0, ptype)
        assert set(diff.tolist()) == {value}  # the whole value once more, on every square
        assert set((pst(styled, 1, ptype) - pst(tables(), 1, ptype)).tolist()) == {-value}  # Black's, negative


def _eval(tb: np.ndarray, fen: str) -> int:
    from engine.xq_evaluate import evaluate, psq_total

    board = XqBoard(fen)
    pos = board.pos.copy()
    pos.st[ev.PSQ] = psq_total(tb, pos.mb)
    return int(evaluate(tb, pos.mb, pos.st))


# Red is a chariot up (both sides keep their guards); Red's palace is bare against Black's chariot across the river
UP = "2bakab2/9/9/9/9/9/9/9/4A4/R1BK1AB2 w - - 0 1"
EXPOSED = "3k5/4a4/9/9/9/9/2r6/9/9/4K4 w - - 0 1"


def test_styles_move_the_score_the_way_they_say() -> None:
    neutral = tables()
    assert _eval(xq_style_tables(style(material=200), 0), UP) > _eval(neutral, UP) + 400
    assert _eval(xq_style_tables(style(material=50), 0), UP) < _eval(neutral, UP) - 200
    # Red's own general in danger: a careless style (safety 0) worries less than a careful one
    careless = _eval(xq_style_tables(style(safety=0, attack=100), 0), EXPOSED)
    careful = _eval(xq_style_tables(style(safety=300, attack=100), 0), EXPOSED)
    assert careless > _eval(neutral, EXPOSED) > careful


def test_the_incremental_score_follows_the_styled_tables_through_a_search() -> None:
    # a search from a styled position must score as a fresh set-up of the position it reaches
    searcher = XqSearcher(hash_mb=4, seed=3)
    searcher.set_style(style(material=180, mobility=60, attack=250, safety=50), 0)
    board = XqBoard()
    for uci in ["h2e2", "h9g7", "h0g2", "i9h9"]:
        board.push_uci(uci)
    result = searcher.search(board, Limits(depth=4))
    assert result.best is not None
    pos = searcher._position(board)
    from engine.xq_evaluate import psq_total

    assert int(pos.st[ev.PSQ]) == psq_total(searcher.tb, pos.mb)
    searcher.set_style(Style(), 0)
    assert np.array_equal(searcher.tb[:ev.EVW + 8], tables()[:ev.EVW + 8])  # the neutral evaluation again


def uci_lines(commands: list[str]) -> list[str]:
    """What the engine says to ``commands``, waiting up to 120 s for a ``go``'s bestmove."""
    out: list[str] = []
    protocol = UciProtocol(out.append, warm=False)
    for command in commands:
        protocol.handle(command)
    deadline = time.monotonic() + 120
    while commands[-1].startswith("go") and not any(ln.startswith("bestmove") for ln in out):
        assert time.monotonic() < deadline, out[-3:]
        time.sleep(0.01)
    return out


def _score(lines: list[str]) -> int:
    last = [ln for ln in lines if ln.startswith("info depth")][-1].split()
    return int(last[last.index("cp") + 1])


def test_a_style_changes_the_xiangqi_engines_judgement_over_uci() -> None:
    start = ["setoption name UCI_Variant value xiangqi", "setoption name OwnBook value false",
             f"position fen {UP}"]
    neutral = _score(uci_lines([*start, "go depth 3"]))
    greedy = _score(uci_lines([*start, "setoption name Style Material value 300", "go depth 3"]))
    assert greedy > neutral + 500


@pytest.mark.parametrize("contempt", [-200, 0, 200])
def test_contempt_scores_xiangqi_draws(contempt: int) -> None:
    # bare generals and an advisor each: level; Red's f0f1 brings about a position for the third
    # time (a draw unless a side varies): worth +200 to a drawish Red, -200 to an ambitious one
    fen = "3k5/4a4/9/9/9/9/9/9/4A4/5K3 w - - 0 1"
    board = XqBoard.from_moves(fen, ["f0f1", "d9d8", "f1f0", "d8d9"] * 2)
    searcher = XqSearcher(hash_mb=4, seed=1)
    searcher.contempt = contempt
    result = searcher.search(board, Limits(depth=4))
    assert result.best is not None and result.info is not None and result.info.score_cp is not None
    if contempt < 0:
        assert result.info.score_cp == -contempt  # a draw it likes, and takes
    elif contempt == 0:
        assert abs(result.info.score_cp) < 50
    else:
        assert result.best.uci() != "f0f1" and result.info.score_cp > -contempt  # it plays on


LINES = "h2e2 h9g7 h0g2; h2e2 b9c7; c3c4 g6g5"


def test_a_repertoire_of_xiangqi_lines_is_the_book() -> None:
    book = XqRepertoire.from_text(LINES)
    assert book.lines == 3
    rng = random.Random(1)
    first = {book.pick(XqBoard(), rng).uci() for _ in range(40)}  # type: ignore[union-attr]
    assert first == {"h2e2", "c3c4"}
    after = XqBoard()
    after.push_uci("h2e2")
    assert {book.pick(after, rng).uci() for _ in range(40)} == {"h9g7", "b9c7"}  # type: ignore[union-attr]
    off = XqBoard()
    off.push_uci("b0c2")
    assert book.pick(off, rng) is None


@pytest.mark.parametrize(("text", "words"), [
    ("h2e2 h9g7 h0h9", "'h0h9' is not legal after 2 plies"),
    ("h2e2; zz", "book line 2 'zz': 'zz' is not a xiangqi move"),
    ("e2e4", "'e2e4' is not legal after 0 plies"),
])
def test_a_bad_xiangqi_line_is_named(text: str, words: str) -> None:
    with pytest.raises(StyleError, match="book line") as caught:
        XqRepertoire.from_text(text)
    assert words in str(caught.value)


def test_book_lines_in_xiangqi_are_played_over_uci_and_bad_lines_name_both_games() -> None:
    lines = uci_lines(["setoption name UCI_Variant value xiangqi", f"setoption name Book Lines value {LINES}",
                           "position startpos", "go depth 2"])
    assert any("book move" in ln and "(repertoire)" in ln for ln in lines), lines
    assert lines[-1] in ("bestmove h2e2", "bestmove c3c4")
    errors = uci_lines(["setoption name Book Lines value 1. e4 zz"])
    assert any("as chess" in ln and "as xiangqi" in ln for ln in errors), errors
