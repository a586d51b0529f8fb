"""Resolving a lesson file with the rules: an illegal move names the file, the line and the move."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.learning.lessons import LessonError
from boardctl.variants.chess.lessons import load_file, load_lesson

BASE = """
title = "T"
eco = "C20"
[main]
name = "King's Pawn Game"
moves = [["e4", "first"], ["e5", "second"], ["{third}", "third"]]
[[variation]]
name = "V"
moves = "{variation}"
"""


@pytest.mark.parametrize(
    ("third", "variation", "fragment"),
    [
        ("Ke3", "e4 e5", "main.moves: move 2. 'Ke3' is not legal after e4 e5"),
        ("Nf3", "e4 e5 Nf3 Nf3", "variation[0].moves: move 2... 'Nf3' is not legal after e4 e5 Nf3"),
        ("Nf3", "e4 e5 Nf3", "variation[0]: the same moves as"),
        ("Nf3", "e4 e5 Qxf7", "move 2. 'Qxf7' is not legal"),
        ("O-O", "e4", "'O-O' is not legal"),
    ],
)
def test_illegal_moves_are_named(tmp_path: Path, third: str, variation: str, fragment: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(BASE.format(third=third, variation=variation), encoding="utf-8")
    with pytest.raises(LessonError) as info:
        load_file(path)
    assert fragment in str(info.value)
    assert str(info.value).startswith("t.toml")


def test_san_is_made_canonical(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(BASE.format(third="Nf3", variation="e4 e5 Qh5 Nc6 Bc4 Nf6 Qf7"), encoding="utf-8")
    lesson = load_file(path)
    assert lesson.variations[0].moves[-1].san == "Qxf7#"
    assert lesson.variations[0].moves[-1].uci == "h5f7"


def test_unknown_lesson_lists_the_choices() -> None:
    with pytest.raises(LessonError, match="choose one of evans, four-knights"):
        load_lesson("sicilian")


_token = st.text(alphabet="KQRBNabcdefgh12345678xO-=+#", min_size=1, max_size=7)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(_token, min_size=1, max_size=6))
def test_hostile_moves_give_one_clear_error(tmp_path: Path, tokens: list[str]) -> None:
    path = tmp_path / "h.toml"
    path.write_text(BASE.format(third="Nf3", variation="e4 e5 " + " ".join(tokens)), encoding="utf-8")
    try:
        lesson = load_file(path)
    except LessonError as exc:
        assert str(exc).startswith("h.toml")
    else:
        assert len(lesson.variations[0].moves) == 2 + len(tokens)
