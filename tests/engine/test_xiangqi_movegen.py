"""Xiangqi move generation: exact perft, the rules piece by piece, and two independent references."""

from __future__ import annotations

import pytest
from xq_testlib import FAIRY, fairy_perft, names, needs_fairy, random_boards

from engine.xq_judge import legal_moves as judge_moves
from engine.xq_position import START_FEN, XiangqiError, XqBoard, divide, perft


@pytest.mark.parametrize(("depth", "count"), [(1, 44), (2, 1_920), (3, 79_666), (4, 3_290_240)])
def test_perft_from_the_start(depth: int, count: int) -> None:
    assert perft(XqBoard(), depth) == count


def test_perft_counts_every_leaf_the_same_way_without_bulk_counting() -> None:
    board = XqBoard.from_moves(START_FEN, ["h2e2", "h9g7"])
    assert perft(board, 3, bulk=False) == perft(board, 3)
    assert sum(divide(board, 2).values()) == perft(board, 2)


# (fen, moves that must be legal, moves that must not): one rule each
RULES = [
    # palace: advisors stay inside; the king too (and here e0d0 would face the other king)
    ("3k5/9/9/9/9/9/9/9/9/3AK4 w - - 0 1", ["d0e1"], ["d0c1"]),
    ("3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1", ["e0f0", "e1d2"], ["e1e2", "e0e1", "e0d0"]),
    # river: elephants stay home; soldiers move sideways only across it, never back
    ("3k5/9/9/9/9/2B6/9/9/9/4K4 w - - 0 1", ["c4a2", "c4e2"], ["c4a6", "c4e6"]),
    ("3k5/9/9/9/2P3P2/9/9/9/9/4K4 w - - 0 1", ["c5c6", "c5b5", "c5d5", "g5f5"], ["c5c4"]),
    ("3k5/9/9/9/9/2P6/9/9/9/4K4 w - - 0 1", ["c4c5"], ["c4b4", "c4d4", "c4c3"]),
    # the elephant's eye (d3 blocks c4-e2) and the horse's leg (b1 blocks b0-a2 and b0-c2)
    ("3k5/9/9/9/9/2B6/3p5/9/9/4K4 w - - 0 1", ["c4a2"], ["c4e2"]),
    ("3k5/9/9/9/9/9/9/9/1P7/1N2K4 w - - 0 1", ["b0d1"], ["b0a2", "b0c2"]),
    # cannon: slides to empty squares, captures only over exactly one screen
    ("3k5/9/9/9/1r7/9/1p7/9/9/1C2K4 w - - 0 1", ["b0b1", "b0b2", "b0b5"], ["b0b3", "b0b4", "b0b6", "b0b7"]),
    # flying generals: the king may not face the other king on an open file, nor unblock it
    ("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1", ["d0d1"], ["d0e0"]),
    ("4k4/9/9/9/9/9/9/9/4C4/4K4 w - - 0 1", ["e1e5", "e1e8"], ["e1d1", "e1a1", "e1e9"]),
]


@pytest.mark.parametrize(("fen", "legal", "illegal"), RULES)
def test_each_rule(fen: str, legal: list[str], illegal: list[str]) -> None:
    got = set(names(XqBoard(fen).legal_moves()))
    assert set(legal) <= got
    assert not set(illegal) & got
    assert sorted(got) == sorted(judge_moves(fen, []))


def test_stalemate_has_no_moves_and_is_a_loss() -> None:
    from engine.xq_position import LOSS, ruling

    board = XqBoard("3k5/R8/9/9/4R4/9/9/9/9/4K4 b - - 0 1")  # king d9 boxed in, not in check
    assert not board.is_check() and board.legal_moves() == []
    assert ruling(board) == (LOSS, False)


@pytest.mark.parametrize(
    "bad",
    [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9 w - - 0 1",  # nine ranks
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w - - 0 1",  # short rank
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1",  # side
        "rnbaqabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",  # a queen, no king
        "3k5/9/9/9/9/9/9/9/9/K8 w - - 0 1",  # king outside the palace
        "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",  # the side not to move is in check (facing kings)
    ],
)
def test_bad_fens_are_refused_with_the_reason(bad: str) -> None:
    with pytest.raises(XiangqiError):
        XqBoard(bad)


def test_red_may_be_written_r() -> None:
    assert XqBoard(START_FEN.replace(" w ", " r ")).fen() == START_FEN


def test_illegal_and_garbled_moves_are_refused() -> None:
    board = XqBoard()
    for bad in ("h2e3", "e0e2", "z9z9", "h2", "a10a9"):
        with pytest.raises(XiangqiError):
            board.push_uci(bad)


# middle games and endgames (Fairy-Stockfish's perft is the reference)
FSF_POSITIONS = [
    ("r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1CN1C1N2/9/R1BAKABR1 w - - 4 5", 3),
    ("r2akab1r/9/1cn1b1n2/p1p1p1p1p/9/2P3c2/P3P1P1P/1CN1C1N2/9/R1BAKABR1 w - - 6 7", 3),
    ("2bakab2/9/2n1c1n2/p3p1p1p/2r6/2P1P4/P5P1P/2N1C4/4A4/2BAK1BR1 w - - 0 15", 3),
    ("3ak4/4a4/4b4/p3p3p/9/2P6/P3P3P/4B4/4A4/2BAK4 w - - 0 30", 4),
    ("4ka3/4a4/9/9/4N4/9/9/9/4A4/3AK4 w - - 0 40", 4),
    ("3k5/9/9/9/4R4/9/9/9/9/4K4 w - - 0 50", 4),
    ("2ba1k3/4a4/4b4/9/2p6/9/4P4/4B4/4A4/2BAK1c2 b - - 0 45", 4),
    ("r3kab2/4a4/2n1b1c2/p1p1C3p/6p2/2P3P2/P3P3P/2N1B1N2/4A4/R2AK1B1c w - - 0 20", 3),
    ("4k4/4a4/4c4/9/9/9/9/4C4/4A4/4K4 w - - 0 60", 4),
    ("2bak4/4a4/4b4/4N4/9/9/9/9/3pA4/4K4 b - - 0 70", 4),
]


@pytest.mark.slow
@needs_fairy
@pytest.mark.parametrize(("fen", "depth"), FSF_POSITIONS)
def test_perft_matches_fairy_stockfish(fen: str, depth: int) -> None:
    assert FAIRY is not None
    assert perft(XqBoard(fen), depth) == fairy_perft(fen, depth)


@pytest.mark.slow
@needs_fairy
def test_perft_matches_fairy_stockfish_in_random_middle_games() -> None:
    for board in random_boards(60, seed=3)[20::10]:
        assert perft(board, 3) == fairy_perft(board.fen(), 3), board.fen()


@pytest.mark.slow
def test_legal_moves_match_pyffish_on_1000_random_positions() -> None:
    boards = random_boards(1000, seed=7)
    assert len(boards) == 1000
    for board in boards:
        fen = board.fen()
        assert names(board.legal_moves()) == sorted(judge_moves(fen, [])), fen
