"""bench/sprt.py: the GSPRT's figures against fishtest's own, and stopping and resuming a test."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from bench import sprt

# (counts, elo0, elo1, LLR) as fishtest's LLRcalc.LLR_logistic computes them
FISHTEST_LLR = [
    ((461, 16_726, 36_723, 16_920, 514), 0.0, 2.0, -2.421220130461109),
    ((82, 2_646, 5_623, 2_507, 70), 0.0, 2.0, -4.9326113547089845),
    ((12, 40, 60, 30, 8), -10.0, 10.0, -2.0579732004260216),
    ((30, 40, 50), 0.0, 20.0, 1.4333717997704136),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), FISHTEST_LLR)
def test_llr_matches_fishtest(counts: tuple[int, ...], elo0: float, elo1: float, expected: float) -> None:
    assert sprt.llr_logistic(elo0, elo1, counts) == pytest.approx(expected, abs=1e-7)


def test_bounds_for_alpha_beta_005() -> None:
    lower, upper = sprt.bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.9444389791664403, abs=1e-12)
    assert upper == pytest.approx(2.9444389791664403, abs=1e-12)


@pytest.mark.parametrize("counts", [(5, 30, 60, 30, 5), (10, 20, 40, 25, 5), (8, 25, 60, 30, 7), (48, 50, 52)])
def test_llr_is_close_to_the_normal_approximation(counts: tuple[int, ...]) -> None:
    """Small elo gaps: the exact GSPRT and fishtest's LLR_alt2 agree within a few percent."""
    n, pdf = sprt._pdf(counts)
    s, var = sprt._stats(pdf)
    s0, s1 = sprt.logistic_score(0), sprt.logistic_score(5)
    approx = n * (s1 - s0) * (2 * s - s0 - s1) / var / 2
    assert sprt.llr_logistic(0, 5, counts) == pytest.approx(approx, rel=0.05, abs=0.02)


def test_llr_sign_and_emptiness() -> None:
    assert sprt.llr_logistic(0, 5, (0, 0, 0, 0, 0)) == 0.0
    assert sprt.llr_logistic(0, 5, (10, 20, 40, 20, 10)) < 0  # equal strength favours H0
    assert sprt.llr_logistic(0, 5, (2, 10, 40, 30, 18)) > 0
    with pytest.raises(ValueError):
        sprt.llr_logistic(0, 5, (1, 2, 3, 4))


def test_elo_estimate() -> None:
    elo, lo, hi = sprt.elo_estimate([10, 20, 40, 20, 10])
    assert elo == pytest.approx(0.0, abs=1e-9)
    assert lo < 0 < hi
    elo, lo, hi = sprt.elo_estimate([0, 0, 10, 20, 10])  # 75%
    assert elo == pytest.approx(-400 * math.log10(1 / 0.75 - 1))


class FakePlayer:
    """Deterministic games: the new build wins with White on even openings, draws otherwise."""

    def __init__(self) -> None:
        self.openings: list[tuple[str, ...]] = []

    def __call__(self, white: sprt.Build, black: sprt.Build, opening: Sequence[str], control: sprt.Control) -> float:
        self.openings.append(tuple(opening))
        new_white = white.rev == "new"
        if new_white and len(self.openings) % 4 == 1:
            return 1.0
        return 0.5


def _state(max_games: int = 40) -> tuple[sprt.State, sprt.Build, sprt.Build]:
    base, new = sprt.Build(rev="base", sha="b" * 40), sprt.Build(rev="new", sha="n" * 40)
    args = argparse.Namespace(tc=None, nodes=500, elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05, seed=3,
                              max_games=max_games)
    return sprt.State(name="t", config=sprt.make_config(args, base, new)), base, new


@pytest.mark.slow
def test_a_stopped_test_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    state, base, new = _state()
    whole = FakePlayer()
    reference = sprt.run(_state()[0], base, new, whole, tmp_path / "ref.json")
    assert reference.games == 40 and reference.status.startswith("inconclusive")

    first = FakePlayer()
    sprt.run(state, base, new, first, path, max_pairs=7)
    saved = json.loads(path.read_text())
    assert len(saved["pairs"]) == 7 and saved["status"] == "running"
    resumed = sprt.State.load_file(path)
    second = FakePlayer()
    second.openings = list(first.openings)  # the fake's parity continues as the real games would
    final = sprt.run(resumed, base, new, second, path)
    assert final.pairs == reference.pairs
    assert final.penta == reference.penta and final.wdl == reference.wdl
    assert second.openings == whole.openings  # the same openings, in the same order, none repeated
    assert len(set(whole.openings[::2])) == 20
    text = path.with_suffix(".md").read_text()
    assert "LLR" in text and f"+{final.wdl[0]} ={final.wdl[1]} -{final.wdl[2]}" in text


def test_a_test_stopped_by_hand_says_undecided_and_still_resumes(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    state, base, new = _state()
    sprt.run(state, base, new, FakePlayer(), path, max_pairs=3)
    sprt.mark_stopped(sprt.State.load_file(path), path)
    assert json.loads(path.read_text())["status"] == sprt.STOPPED
    assert "result: stopped undecided" in path.with_suffix(".md").read_text()
    resumed = sprt.run(sprt.State.load_file(path), base, new, FakePlayer(), path, max_pairs=1)
    assert resumed.status == "running" and len(resumed.pairs) == 4


@pytest.mark.slow
def test_the_test_stops_at_a_bound(tmp_path: Path) -> None:
    state, base, new = _state(max_games=4000)

    def always_new(white: sprt.Build, black: sprt.Build, opening: Sequence[str], control: sprt.Control) -> float:
        return 1.0 if white.rev == "new" else 0.0

    final = sprt.run(state, base, new, always_new, tmp_path / "w.json")
    assert final.status.startswith("H1")
    assert final.llr() >= final.bounds()[1]
    assert final.games < 1000


def test_openings_are_varied_and_reproducible() -> None:
    a = sprt.openings(50, 7)
    assert a == sprt.openings(50, 7)
    assert len({tuple(x) for x in a}) == 50
    assert len({x[0] for x in a}) >= 3  # several first moves
    assert len({tuple(x[:4]) for x in a}) >= 30  # and mostly different after four plies


@pytest.mark.parametrize(("scores", "ply", "verdict"), [
    ([800] * 6, 40, 1.0),
    ([-800] * 6, 40, 0.0),
    ([800] * 5 + [600], 40, None),  # one engine disagrees
    ([800] * 5, 40, None),  # too few moves
    ([None] + [800] * 5, 40, None),
    ([5, -3] * 6, 90, 0.5),
    ([5, -3] * 6, 60, None),  # too early for a draw
    ([5, -3] * 5 + [5, 40], 90, None),
])
def test_adjudication(scores: list[int | None], ply: int, verdict: float | None) -> None:
    assert sprt._adjudicate(scores, ply) == verdict


@pytest.mark.slow
def test_a_real_game_at_fixed_nodes() -> None:
    """The two engines of a pair speak UCI; a capped game ends with a score."""
    player = sprt.EnginePlayer()
    build = sprt.Build(rev=".", sha=sprt.resolve("."))
    try:
        score = sprt.play_game(player.engine(build), player.engine(build), ["e2e4", "e7e5"],
                               sprt.Control(nodes=300), max_plies=16, adjudicate=False)
    finally:
        player.close()
    assert score == 0.5  # 16 plies: scored a draw


def _seeded(seed: int, pairs: int, *, name: str) -> sprt.State:
    state = _state(max_games=4000)[0]
    state.name = name
    state.config["seed"] = seed
    for i in range(pairs):
        state.add_pair(1.0 if i % 3 else 0.5, 0.5 if i % 2 else 0.0)
    return state


def test_pooled_tests_count_as_one() -> None:
    a, b = _seeded(1, 30, name="a"), _seeded(2, 50, name="b")
    pooled = sprt.pool("ab", [a, b], code=lambda state: "same tree")
    assert pooled.pairs == a.pairs + b.pairs
    assert pooled.penta == [x + y for x, y in zip(a.penta, b.penta, strict=True)]
    assert pooled.wdl == [x + y for x, y in zip(a.wdl, b.wdl, strict=True)]
    assert pooled.llr() == pytest.approx(sprt.llr_logistic(0.0, 5.0, pooled.penta))
    assert pooled.llr() > max(a.llr(), b.llr())  # the same lean, more games: more evidence
    summary = pooled.summary()
    assert "seed 1, 2" in summary and "--pool a b --name ab" in summary
    assert pooled.status == "running"  # its tests may still be playing
    a.status = b.status = sprt.STOPPED
    assert sprt.pool("ab", [a, b], code=lambda state: "same tree").status.startswith("stopped undecided")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.config.update(seed=1), "different opening seeds"),
        (lambda s: s.config.update(elo1=10.0), "'elo1'"),
        (lambda s: s.config["control_args"].update(nodes=20_000), "'control_args'"),
        (lambda s: s.config["base_build"].update(sha="c" * 40), "'base_build'"),
        (lambda s: s.config["new_build"].update(sha="d" * 40), "other engine code"),
    ],
)
def test_only_the_same_question_on_other_openings_is_pooled(change: Callable[[sprt.State], object],
                                                            message: str) -> None:
    a, b = _seeded(1, 4, name="a"), _seeded(2, 4, name="b")
    b.config = json.loads(json.dumps(b.config))  # its own copy to change
    change(b)
    with pytest.raises(ValueError, match=message):
        sprt.pool("ab", [a, b], code=lambda state: state.config["new_build"]["sha"])


@pytest.mark.slow
def test_pooling_needs_two_tests_and_real_commits() -> None:
    with pytest.raises(ValueError, match="at least two"):
        sprt.pool("a", [_seeded(1, 2, name="a")])
    with pytest.raises(ValueError, match="not a commit"):
        sprt.engine_tree("abc+dirty")
    with pytest.raises(ValueError, match="not in this repository"):
        sprt.engine_tree("0" * 40)
    tree = sprt.engine_tree(sprt.resolve("HEAD"))
    assert len(tree) == 40 and tree == sprt.engine_tree(sprt.resolve("HEAD"))
