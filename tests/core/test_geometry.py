"""Geometry: names, masks, hex and turning round agree with python-chess for chess and hold for 9x10."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.core.geometry import CHESS_8X8, GEOMETRIES, XIANGQI_9X10, Geometry


def test_chess_names_and_turning_match_python_chess() -> None:
    assert list(CHESS_8X8.names) == list(chess.SQUARE_NAMES)
    for s in range(64):
        assert CHESS_8X8.turned(s) == 63 - s
        assert CHESS_8X8.parse(chess.square_name(s)) == s


@given(st.integers(0, (1 << 64) - 1))
def test_chess_turn_mask_is_python_chess_rotation(bb: int) -> None:
    assert CHESS_8X8.turn_mask(bb) == chess.flip_vertical(chess.flip_horizontal(bb))


@pytest.mark.parametrize(
    ("name", "file", "rank"),
    [
        ("a0", 0, 0),
        ("i0", 8, 0),
        ("e0", 4, 0),
        ("a9", 0, 9),
        ("i9", 8, 9),
        ("h2", 7, 2),
        ("e4", 4, 4),
    ],
)
def test_xiangqi_points(name: str, file: int, rank: int) -> None:
    s = XIANGQI_9X10.parse(name)
    assert s == rank * 9 + file == XIANGQI_9X10.square(file, rank)
    assert (XIANGQI_9X10.file_of(s), XIANGQI_9X10.rank_of(s)) == (file, rank)
    assert XIANGQI_9X10.square_name(s) == name


@pytest.mark.parametrize("geometry", list(GEOMETRIES.values()))
@given(mask=st.integers(0, (1 << 90) - 1))
def test_hex_round_trip_and_turning_twice(geometry: Geometry, mask: int) -> None:
    mask &= geometry.all_mask
    text = geometry.to_hex(mask)
    assert len(text) == geometry.hex_digits
    assert geometry.from_hex(text) == mask
    assert geometry.turn_mask(geometry.turn_mask(mask)) == mask
    assert geometry.turn_mask(mask).bit_count() == mask.bit_count()
    assert list(geometry.squares_in(mask)) == [s for s in range(geometry.points) if mask >> s & 1]


def test_sizes() -> None:
    assert (CHESS_8X8.points, CHESS_8X8.hex_digits) == (64, 16)
    assert (XIANGQI_9X10.points, XIANGQI_9X10.hex_digits) == (90, 23)
    assert XIANGQI_9X10.rank_mask(9) == XIANGQI_9X10.mask(
        XIANGQI_9X10.parse(f"{f}9") for f in "abcdefghi"
    )


@pytest.mark.parametrize(
    ("geometry", "text"),
    [
        (CHESS_8X8, "ffff"),
        (CHESS_8X8, "ffff00000000ffffff"),
        (CHESS_8X8, "gfff00000000ffff"),
        (XIANGQI_9X10, "ffffffffffffffffffffffff"[:23]),  # bits 90..91 set
        (XIANGQI_9X10, " " * 23),
    ],
)
def test_from_hex_refuses(geometry: Geometry, text: str) -> None:
    with pytest.raises(ValueError, match=geometry.name):
        geometry.from_hex(text)


@pytest.mark.parametrize("bad", ["j0", "a10", "e", "", "E0", "a-1"])
def test_parse_refuses_with_board_named(bad: str) -> None:
    with pytest.raises(ValueError, match="xiangqi board"):
        XIANGQI_9X10.parse(bad)
    assert not XIANGQI_9X10.is_name(bad)
