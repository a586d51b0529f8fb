"""Berger tables against FIDE's printed tables; Swiss (caissify-pairings) against published and
hand-derived FIDE Dutch pairings, and the absolute criteria over many simulated events."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from boardctl.learning.pairings import (
    Pairing,
    PairingError,
    SwissEntry,
    berger_round,
    berger_schedule,
    swiss_round,
)
from boardctl.learning.tournament import Format, Tournament

# FIDE Handbook C.05 (General regulations for competitions), Annex 1: Berger tables for round-robin
# tournaments, as printed ("Rd 1: 1-4, 2-3" is White-Black by table).
FIDE_BERGER = {
    4: [
        "1-4 2-3",
        "4-3 1-2",
        "2-4 3-1",
    ],
    6: [
        "1-6 2-5 3-4",
        "6-4 5-3 1-2",
        "2-6 3-1 4-5",
        "6-5 1-4 2-3",
        "3-6 4-2 5-1",
    ],
    8: [
        "1-8 2-7 3-6 4-5",
        "8-5 6-4 7-3 1-2",
        "2-8 3-1 4-7 5-6",
        "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4",
        "4-8 5-3 6-2 7-1",
    ],
    10: [
        "1-10 2-9 3-8 4-7 5-6",
        "10-6 7-5 8-4 9-3 1-2",
        "2-10 3-1 4-9 5-8 6-7",
        "10-7 8-6 9-5 1-4 2-3",
        "3-10 4-2 5-1 6-9 7-8",
        "10-8 9-7 1-6 2-5 3-4",
        "4-10 5-3 6-2 7-1 8-9",
        "10-9 1-8 2-7 3-6 4-5",
        "5-10 6-4 7-3 8-2 9-1",
    ],
}


def _parse(row: str) -> list[Pairing]:
    return [Pairing(int(w), int(b)) for w, b in (t.split("-") for t in row.split())]


@pytest.mark.parametrize("n", sorted(FIDE_BERGER))
def test_berger_matches_the_fide_tables(n: int) -> None:
    assert berger_schedule(n) == [_parse(row) for row in FIDE_BERGER[n]]


@pytest.mark.parametrize("n", [4, 6, 8, 10, 12, 14, 16, 20])
def test_berger_agrees_with_caissify(n: int) -> None:
    from caissify_pairings.engines.round_robin import berger_schedule as theirs

    assert [[(p.white, p.black) for p in rnd] for rnd in berger_schedule(n)] == theirs(n)


@pytest.mark.parametrize("n", [3, 5, 7, 9, 11])
def test_odd_fields_use_the_next_table_with_a_bye(n: int) -> None:
    schedule = berger_schedule(n)
    assert len(schedule) == n
    even = berger_schedule(n + 1)
    byes = Counter()
    for ours, full in zip(schedule, even, strict=True):
        assert sum(p.is_bye for p in ours) == 1
        for p, q in zip(ours, full, strict=True):
            if p.is_bye:
                assert n + 1 in (q.white, q.black)
                byes[p.white] += 1
            else:
                assert p == q
    assert byes == Counter(range(1, n + 1))  # each player sits out exactly once


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 16])
def test_round_robin_properties(n: int) -> None:
    met = Counter()
    colours = Counter()
    for rnd in berger_schedule(n):
        seen = [x for p in rnd for x in (p.white, p.black) if x is not None]
        assert sorted(seen) == list(range(1, n + 1))  # everyone once a round
        for p in rnd:
            if p.black is not None:
                met[frozenset((p.white, p.black))] += 1
                colours[p.white] += 1
                colours[p.black] -= 1
    assert len(met) == n * (n - 1) // 2 and set(met.values()) == {1}
    assert all(abs(c) <= 1 for c in colours.values())


@pytest.mark.parametrize(("players", "rnd"), [(1, 1), (4, 0), (4, 4), (5, 6)])
def test_berger_refuses_impossible_rounds(players: int, rnd: int) -> None:
    with pytest.raises(PairingError):
        berger_round(players, rnd)


# ---------------------------------------------------------------------- Swiss (FIDE Dutch)


def _fresh(n: int) -> list[SwissEntry]:
    return [SwissEntry(i, 2600 - 10 * i, 0.0, (), (), 0) for i in range(1, n + 1)]


def _pairs(rows: list[Pairing]) -> list[tuple[int, int | None]]:
    return [(p.white, p.black) for p in rows]


#: Round 1 of Mario Held's worked Dutch example ("The Dutch system", 2014 tutorial, 14 players
#: Alice..Robert, initial colour White), as reconstructed in r-moeritz/swissdutch
#: tests/test_swiss.py: 1-8, 9-2, 3-10, 11-4, 5-12, 13-6, 7-14.
HELD_ROUND_1 = [(1, 8), (9, 2), (3, 10), (11, 4), (5, 12), (13, 6), (7, 14)]


def test_held_tutorial_round_one() -> None:
    assert sorted(_pairs(swiss_round(_fresh(14), previous=set(), round_number=1, total_rounds=5))) == sorted(
        HELD_ROUND_1
    )


#: FIDE C.04.3 round 1 (rules B.1 and E, initial colour White): top half against bottom half,
#: White alternating from the top seed's; an odd field gives the lowest-ranked player the
#: pairing-allocated bye (C.04.1 c, C.04.3 C.2).
@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (2, [(1, 2)]),
        (4, [(1, 3), (4, 2)]),
        (6, [(1, 4), (5, 2), (3, 6)]),
        (7, [(1, 4), (5, 2), (3, 6), (7, None)]),
        (8, [(1, 5), (6, 2), (3, 7), (8, 4)]),
        (9, [(1, 5), (6, 2), (3, 7), (8, 4), (9, None)]),
        (10, [(1, 6), (7, 2), (3, 8), (9, 4), (5, 10)]),
    ],
)
def test_round_one_by_the_rules(n: int, expected: list[tuple[int, int | None]]) -> None:
    assert sorted(_pairs(swiss_round(_fresh(n), previous=set(), round_number=1, total_rounds=5)), key=str) == sorted(
        expected, key=str
    )


def test_round_two_prefers_the_transposition_that_gives_colours() -> None:
    """Derived by hand from C.04.3: after 1-5, 6-2, 3-7, 8-4 all won by the top half, the 1-point
    bracket {1,2,3,4} pairs S1={1,2} with S2={3,4}; 1-3 and 2-4 would deny two colour preferences
    (1 and 3 both due Black, 2 and 4 both due White), the transposition S2={4,3} denies none
    (C.12 outranks the transposition order), giving 4-1 and 2-3; likewise 5-8 and 7-6."""
    results = {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 0.0, 6: 0.0, 7: 0.0, 8: 0.0}
    colours = {1: "white", 2: "black", 3: "white", 4: "black", 5: "black", 6: "white", 7: "black", 8: "white"}
    floats = ("none",)
    entries = [SwissEntry(i, 2600 - 10 * i, results[i], (colours[i],), floats, 0) for i in range(1, 9)]
    rows = swiss_round(entries, previous={(1, 5), (6, 2), (3, 7), (8, 4)}, round_number=2, total_rounds=5)
    assert sorted(_pairs(rows)) == sorted([(4, 1), (2, 3), (5, 8), (7, 6)])


def _play(t: Tournament, rng: random.Random) -> Tournament:
    for g in t.pending():
        edge = (t.player(g.black).rating - t.player(g.white).rating) / 400 if g.black else 0
        p_white = 1 / (1 + 10**edge)
        x = rng.random()
        result = "1-0" if x < p_white * 0.8 else "1/2-1/2" if x < p_white * 0.8 + 0.2 else "0-1"
        t = t.with_result(g.round, g.white, result)
    return t


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("n", "rounds"), [(8, 5), (9, 5), (12, 6)])
def test_swiss_keeps_the_absolute_criteria(seed: int, n: int, rounds: int) -> None:
    """C.04.1: no rematch, at most one bye each, colour difference within 2 and never three of
    one colour in a row (the last round's topscorer exception aside); everyone plays each round."""
    rng = random.Random(seed)
    entrants = [(f"P{i}", rng.randint(800, 2400), i == 0) for i in range(n)]
    t = Tournament.new(entrants, tournament_id="t", format=Format.SWISS, rounds=rounds)
    while not t.is_finished():
        t = _play(t.pair_next_round(), rng)
    met = Counter(frozenset((g.white, g.black)) for g in t.games if g.black is not None)
    assert set(met.values()) == {1}
    byes = Counter(g.white for g in t.games if g.is_bye)
    assert all(c == 1 for c in byes.values())
    assert sum(byes.values()) == (rounds if n % 2 else 0)
    for p in t.players:
        seq = []
        for r in range(1, rounds + 1):
            mine = [g for g in t.round_games(r) if p.number in (g.white, g.black)]
            assert len(mine) == 1
            g = mine[0]
            seq.append("" if g.is_bye else "W" if g.white == p.number else "B")
        played = [c for c in seq[:-1] if c]
        assert abs(played.count("W") - played.count("B")) <= 2, (p, seq)
        assert "WWW" not in "".join(played) and "BBB" not in "".join(played), (p, seq)


def test_a_swiss_round_needs_two_players() -> None:
    with pytest.raises(PairingError):
        swiss_round(_fresh(1), previous=set(), round_number=1, total_rounds=1)
