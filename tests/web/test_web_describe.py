"""The page's plain words about the pieces (boardctl.web.describe), the check square, promotion."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.tracker import occupancy_after
from boardctl.web.describe import (
    MAX_LISTED,
    can_promote,
    check_square,
    describe_board,
    logical_occupancy,
)

BB = chess.BB_SQUARES
SQ = chess.parse_square


def moved(bb: int, *changes: str) -> int:
    """``"-e1"`` empties e1, ``"+g1"`` fills g1."""
    for change in changes:
        square = BB[SQ(change[1:])]
        bb = bb | square if change[0] == "+" else bb & ~square
    return bb


CASTLE = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R {} KQkq - 0 1"


@pytest.mark.parametrize(
    ("fen", "changes", "expected"),
    [
        (CASTLE.format("w"), ("-e1", "+g1"), "Complete castling: move the rook h1\u2192f1."),
        (CASTLE.format("w"), ("-e1", "+c1"), "Complete castling: move the rook a1\u2192d1."),
        (CASTLE.format("b"), ("-e8", "+g8"), "Complete castling: move the rook h8\u2192f8."),
        (CASTLE.format("b"), ("-e8", "+c8"), "Complete castling: move the rook a8\u2192d8."),
        ("4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1", ("-d5", "+e6"), "Complete en passant: take the pawn on e5 off the board."),
        ("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1", ("-d4", "+e3"), "Complete en passant: take the pawn on e4 off the board."),
        # Nothing to say: a piece in the hand, a capture under way, a move about to settle.
        (chess.STARTING_FEN, ("-g1",), None),
        ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", ("-e4", "-d5"), None),
        (chess.STARTING_FEN, ("-e2", "+e4"), None),
        (CASTLE.format("w"), ("-e1", "+g1", "-h1", "+f1"), None),
        (chess.STARTING_FEN, (), None),
        # The board differs in a way no move explains: what to put back, what to take off.
        (chess.STARTING_FEN, ("-d1", "-e1"), "The board differs from the game: put back queen d1, king e1."),
        (chess.STARTING_FEN, ("+e4",), "The board differs from the game: take the pieces off e4."),
        (chess.STARTING_FEN, ("-e2", "+e5"), "The board differs from the game: put back pawn e2; take the pieces off e5."),
    ],
)
def test_describe_board(fen: str, changes: tuple[str, ...], expected: str | None) -> None:
    board = chess.Board(fen)
    assert describe_board(board, moved(board.occupied, *changes)) == expected


def test_a_long_difference_is_cut_short() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    text = describe_board(board, chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_7 | chess.BB_RANK_8)
    assert text is not None
    extra = 32 - 3
    assert text.endswith(f"and {extra - MAX_LISTED} more.")
    assert text.count(",") == MAX_LISTED - 1


@st.composite
def positions(draw: st.DrawFn) -> chess.Board:
    board = chess.Board()
    for _ in range(draw(st.integers(0, 60))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(draw(st.sampled_from(moves)))
    return board


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(positions())
def test_a_matching_board_or_a_finished_move_needs_no_words(board: chess.Board) -> None:
    assert describe_board(board, board.occupied) is None
    for move in board.legal_moves:
        assert describe_board(board, occupancy_after(board, move)) is None
    for move in board.generate_castling_moves():
        king_to = chess.square(6 if board.is_kingside_castling(move) else 2, chess.square_rank(move.from_square))
        text = describe_board(board, moved(board.occupied, "-" + chess.square_name(move.from_square), "+" + chess.square_name(king_to)))
        assert text is not None and text.startswith("Complete castling: move the rook")


@pytest.mark.parametrize(
    ("fen", "check", "promote"),
    [
        (chess.STARTING_FEN, None, False),
        ("4k3/8/8/8/8/8/8/4K2R b K - 0 1", None, False),
        ("4k2R/8/8/8/8/8/8/4K3 b - - 0 1", "e8", False),
        ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", None, True),
        ("4k3/P7/8/8/8/8/8/4K3 b - - 0 1", None, False),  # White's pawn, Black to move
        ("n3k3/P7/8/8/8/8/8/4K3 w - - 0 1", None, False),  # blocked
        ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", None, True),  # only by capturing
        ("4k3/8/8/8/8/8/p7/4K3 b - - 0 1", None, True),
        ("4k3/8/8/8/8/8/8/r3K3 w - - 0 1", "e1", False),
    ],
)
def test_check_square_and_can_promote(fen: str, check: str | None, promote: bool) -> None:
    board = chess.Board(fen)
    assert check_square(board) == check
    assert can_promote(board) is promote


@pytest.mark.parametrize(
    ("occupancy", "flipped", "expected"),
    [
        ("ffff00000000ffff", False, 0xFFFF00000000FFFF),
        ("0000000000000001", True, 1 << 63),
        ("0000000000000081", True, (1 << 63) | (1 << 56)),
        (5, False, 5),
        ("zz", False, None),
        (None, False, None),
        ("1" + "0" * 16, False, None),
    ],
)
def test_logical_occupancy(occupancy: str | int | None, flipped: bool, expected: int | None) -> None:
    assert logical_occupancy(occupancy, flipped=flipped) == expected
