"""``record_rated_game``: the call every rated game makes (tournament games, ``play --opponent``).

Elo from 1200, K = 40 for the first 30 games and 20 after, the history kept, each game once, in
``$XDG_DATA_HOME/boardctl/rating.json`` (the file ``play --opponent`` rates in too), and a power
cut at the write leaves the previous rating."""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import pytest

from boardctl.learning.rating import (
    K_ESTABLISHED,
    K_NEW,
    START,
    RatingError,
    RatingStore,
    default_path,
    default_store,
    expected_score,
    record_rated_game,
)


def test_a_first_game_from_1200(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    after = record_rated_game(1400, 1.0, opponent="Ann", game_id="g1")
    assert after.history[0].before == START == 1200
    assert after.value == pytest.approx(1200 + 40 * (1 - expected_score(1200, 1400)))
    assert default_store().path == tmp_path / "boardctl" / "rating.json"
    assert default_store().load() == after


def test_k_is_40_for_30_games_then_20(tmp_path: Path) -> None:
    rng = random.Random(7)
    store = RatingStore(tmp_path / "r.json")
    value = START
    for i in range(45):
        opponent, score = rng.randint(800, 2000), rng.choice([0.0, 0.5, 1.0])
        k = K_NEW if i < 30 else K_ESTABLISHED
        value += k * (score - expected_score(value, opponent))
        rating = record_rated_game(opponent, score, game_id=f"g{i}", store=store, when="2026-12-01T00:00:00Z")
        assert rating.value == pytest.approx(value)
        assert rating.history[-1].k == k and rating.games == i + 1
    history = store.load().history
    assert [g.game_id for g in history] == [f"g{i}" for i in range(45)]
    assert all(a.after == b.before for a, b in itertools.pairwise(history))


def test_the_same_game_counts_once(tmp_path: Path) -> None:
    store = RatingStore(tmp_path / "r.json")
    first = record_rated_game(1500, 0.5, game_id="same", store=store)
    again = record_rated_game(1500, 0.5, game_id="same", store=store)
    assert again == first and store.load().games == 1
    other = record_rated_game(1500, 0.5, store=store)  # no id: the time names it
    assert other.games == 2


@pytest.mark.parametrize(("rating", "score"), [(1500, 2.0), (1500, -1.0), (-5, 1.0), (9000, 0.0), (float("nan"), 1.0)])
def test_bad_games_are_refused(tmp_path: Path, rating: float, score: float) -> None:
    with pytest.raises(RatingError):
        record_rated_game(rating, score, game_id="x", store=RatingStore(tmp_path / "r.json"))
    assert not (tmp_path / "r.json").exists()


def test_a_power_cut_at_the_write_keeps_the_last_rating(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RatingStore(tmp_path / "r.json")
    record_rated_game(1300, 1.0, game_id="a", store=store)
    saved = store.path.read_text()

    def cut(src: object, dst: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", cut)
    with pytest.raises(OSError):
        record_rated_game(1300, 1.0, game_id="b", store=store)
    monkeypatch.undo()
    assert store.path.read_text() == saved
    assert record_rated_game(1300, 1.0, game_id="b", store=store).games == 2  # the retry counts it


def test_one_file_for_every_rated_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """play --opponent rates in characters.rating_file(): the same file, so a tournament game that
    both report counts once."""
    from boardctl.learning.characters import rating_file

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_path() == rating_file() == tmp_path / "boardctl" / "rating.json"
    record_rated_game(1200, 0.5, game_id="d")
    assert RatingStore(rating_file()).load().games == 1
