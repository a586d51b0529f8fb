"""Xiangqi openings and book; the level rules both games share."""

from __future__ import annotations

import random

import pytest

from engine import levels
from engine.xq_book import book, openings, pick
from engine.xq_position import START_FEN, XqBoard


def test_openings_cover_the_mainstream_systems_and_are_legal() -> None:
    names = {o.chinese for o in openings()}
    for wanted in ("中炮对屏风马", "顺炮", "列炮", "飞相对进卒", "仙人指路对卒", "起马对进卒"):
        assert wanted in names
    assert len(book()) > 20  # replaying every line checked its legality
    for o in openings():
        assert XqBoard.from_moves(START_FEN, list(o.moves)).moves


def test_book_picks_listed_moves_and_varies() -> None:
    rng = random.Random(1)
    firsts = {o.moves[0] for o in openings()}
    seen = set()
    for _ in range(60):
        move = pick(XqBoard(), rng)
        assert move is not None and move.uci() in firsts
        seen.add(move.uci())
    assert len(seen) >= 4
    assert pick(XqBoard.from_moves(START_FEN, ["a3a4", "a6a5"]), rng) is None


@pytest.mark.parametrize(("given", "canonical"), [("初级", "beginner"), ("中级", "intermediate"),
                                                   ("高级", "advanced"), ("大师", "master"),
                                                   ("master", "master"), ("1500", "1500"), (2000, "2000")])
def test_levels_accept_the_chinese_names(given: object, canonical: str) -> None:
    assert levels.check_level(given) == canonical
    assert levels.chinese_name(canonical) in (None, *levels.CHINESE_NAMES)


def test_one_source_for_the_limits() -> None:
    from boardctl import config

    for bad in ("grandmaster", "399", "3201", True, "初"):
        with pytest.raises(ValueError):
            levels.check_level(bad)
        with pytest.raises(ValueError):
            config.check_level(bad)
    assert config.check_level("大师") == "master"
    assert levels.chinese_name("beginner") == "初级"
