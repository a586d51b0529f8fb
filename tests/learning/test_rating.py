"""Elo with K = 40 for the first 30 games and 20 after, from 1200, saved with its history."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.learning.atomic import StateFileError
from boardctl.learning.rating import (
    START,
    Rating,
    RatingError,
    RatingStore,
    expected_score,
    k_factor,
)

WHEN = "2026-12-01T18:00:00Z"


@pytest.mark.parametrize(
    ("rating", "opponent", "expected"),
    [
        (1200, 1200, 0.5),
        (1600, 1200, 10 / 11),
        (1200, 1600, 1 / 11),
        (1000, 1400, 1 / 11),
        (1200, 1400, 1 / (1 + 10**0.5)),
        (2000, 1200, 1 / (1 + 10**-2)),
    ],
)
def test_expected_score(rating: float, opponent: float, expected: float) -> None:
    assert expected_score(rating, opponent) == pytest.approx(expected)


@pytest.mark.parametrize(("games", "k"), [(0, 40), (1, 40), (29, 40), (30, 20), (31, 20), (500, 20)])
def test_k_factor(games: int, k: int) -> None:
    assert k_factor(games) == k


@pytest.mark.parametrize(
    ("before", "games", "opponent", "score", "after"),
    [
        (1200, 0, 1200, 1.0, 1220.0),
        (1200, 0, 1200, 0.0, 1180.0),
        (1200, 0, 1200, 0.5, 1200.0),
        (1200, 0, 1600, 1.0, 1200 + 40 * 10 / 11),
        (1200, 0, 1600, 0.5, 1200 + 40 * (0.5 - 1 / 11)),
        (1200, 0, 800, 0.0, 1200 - 40 * 10 / 11),
        (1500, 29, 1500, 1.0, 1520.0),  # the 30th game still at K 40
        (1500, 30, 1500, 1.0, 1510.0),  # the 31st at K 20
        (1500, 30, 1900, 0.5, 1500 + 20 * (0.5 - 1 / 11)),
        (1500, 100, 1100, 0.0, 1500 - 20 * 10 / 11),
    ],
)
def test_one_game(before: float, games: int, opponent: float, score: float, after: float) -> None:
    rating = Rating(value=before)
    for i in range(games):  # draws against equals leave the value where it is
        rating = rating.after_game(game_id=f"g{i}", opponent="x", opponent_rating=before, score=0.5, when=WHEN)
    assert rating.value == pytest.approx(before)
    new = rating.after_game(game_id="last", opponent="Nina", opponent_rating=opponent, score=score, when=WHEN)
    assert new.value == pytest.approx(after)
    assert new.games == games + 1
    last = new.history[-1]
    assert (last.before, last.opponent, last.k) == (pytest.approx(before), "Nina", k_factor(games))


def test_a_game_is_counted_once() -> None:
    rating = Rating().after_game(game_id="a", opponent="x", opponent_rating=1200, score=1, when=WHEN)
    assert rating.after_game(game_id="a", opponent="x", opponent_rating=1200, score=1, when=WHEN) is rating


@pytest.mark.parametrize(("opponent", "score"), [(1200, 2), (1200, -1), (1200, 0.25), (-5, 1), (99999, 1), (float("nan"), 1)])
def test_bad_games_are_refused(opponent: float, score: float) -> None:
    with pytest.raises(RatingError):
        Rating().after_game(game_id="a", opponent="x", opponent_rating=opponent, score=score, when=WHEN)


@given(st.lists(st.tuples(st.integers(800, 2800), st.sampled_from([0.0, 0.5, 1.0])), max_size=60))
def test_each_change_is_k_times_the_surprise(games: list[tuple[int, float]]) -> None:
    """Each change is K * (score - expectation): bounded by K and signed like the surprise."""
    rating = Rating()
    for i, (opp, score) in enumerate(games):
        new = rating.after_game(game_id=str(i), opponent="x", opponent_rating=opp, score=score, when=WHEN)
        change = new.value - rating.value
        k = k_factor(i)
        assert abs(change) <= k
        e = expected_score(rating.value, opp)
        assert change == pytest.approx(k * (score - e))
        rating = new
    assert rating.games == len(games)


def test_store_round_trip(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "rating.json")
    assert store.load() == Rating(value=START)
    r1 = store.record(game_id="g1", opponent="Ann", opponent_rating=1400, score=1.0, when=WHEN)
    r2 = store.record(game_id="g2", opponent="Bob", opponent_rating=1000, score=0.0, when=WHEN)
    store.record(game_id="g2", opponent="Bob", opponent_rating=1000, score=0.0, when=WHEN)  # replayed
    loaded = RatingStore(tmp_path / "rating.json").load()
    assert loaded == r2
    assert loaded.games == 2
    assert loaded.history[0].after == r1.value
    assert [g.opponent for g in loaded.history] == ["Ann", "Bob"]


def test_a_crash_before_the_rename_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RatingStore(tmp_path / "rating.json")
    store.record(game_id="g1", opponent="Ann", opponent_rating=1400, score=1.0, when=WHEN)
    saved = (tmp_path / "rating.json").read_text()

    def power_cut(src: object, dst: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(OSError):
        store.record(game_id="g2", opponent="Bob", opponent_rating=1000, score=0.0, when=WHEN)
    monkeypatch.undo()
    assert (tmp_path / "rating.json").read_text() == saved
    assert not [p for p in tmp_path.iterdir() if p.name != "rating.json"]
    assert store.load().games == 1


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda d: d.update(version=9), "version 9"),
        (lambda d: d.update(rating="high"), "rating: expected int/float"),
        (lambda d: d.update(rating=1234.0), "not the last game's result"),
        (lambda d: d["history"][0].update(score=0.3), "score 0.3"),
        (lambda d: d["history"][0].update(k=33), "K 33"),
        (lambda d: d["history"][0].pop("opponent"), "history[0]: missing 'opponent'"),
        (lambda d: d["history"][0].update(before=-3), "history[0].before: out of range"),
        (lambda d: d["history"][0].update(after=10**400), "history[0].after: too large"),
        (lambda d: d.update(rating=10**400), "rating: too large"),
    ],
)
def test_bad_files_are_named(tmp_path: Path, edit: object, fragment: str) -> None:
    path = tmp_path / "rating.json"
    RatingStore(path).record(game_id="g1", opponent="Ann", opponent_rating=1400, score=1.0, when=WHEN)
    data = json.loads(path.read_text())
    edit(data)  # type: ignore[operator]
    path.write_text(json.dumps(data))
    with pytest.raises(StateFileError) as info:
        RatingStore(path).load()
    assert fragment in str(info.value) and str(path) in str(info.value)
