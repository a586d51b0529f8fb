"""Swiss pairings against FIDE C.04.3 (Dutch system) examples, table-driven, through the pairer the
tournament uses (py4swiss) and, for comparison, caissify-pairings.

Each case is a history (the players' rounds, as TRF would give them) and the next round's
pairing, with where it comes from: a published example (Mario Held's worked 14-player tutorial,
2014, round 1, as reconstructed in r-moeritz/swissdutch's tests), or derived by hand from the rules
(the derivation in the case's note). caissify-pairings agrees on all but one: it gives the colour
preference to the player with the lower pairing number where E.4 gives it to the higher *ranked*
one (by score first), which is why the tournament does not use it for Swiss rounds.
"""

from __future__ import annotations

import warnings

import pytest

from boardctl.learning.pairings import (
    DutchEntry,
    Pairing,
    Played,
    SwissEntry,
    dutch_round,
    swiss_round,
    trf_text,
)


def _entries(rows: dict[int, str], ratings: dict[int, int] | None = None) -> list[DutchEntry]:
    """Players from TRF-like rounds: ``"4w= 6b= 5w1"`` (opponent, colour, result), ``"-U"`` a bye."""
    out = []
    for number, text in sorted(rows.items()):
        rounds = []
        for token in text.split():
            if token == "-U":
                rounds.append(Played(None, False, 1.0))
            else:
                opponent, colour, result = int(token[:-2]), token[-2], token[-1]
                rounds.append(Played(opponent, colour == "w", {"1": 1.0, "=": 0.5, "0": 0.0}[result]))
        rating = (ratings or {}).get(number, 2600 - 10 * number)
        out.append(DutchEntry(number, rating, tuple(rounds)))
    return out


def _fresh(n: int) -> dict[int, str]:
    return {i: "" for i in range(1, n + 1)}


#: Round 1 for 2 to 10 players: (players, the pairing).
ROUND_ONE: list[tuple[int, list[tuple[int, int | None]]]] = [
    (2, [(1, 2)]),
    (4, [(1, 3), (4, 2)]),
    (6, [(1, 4), (5, 2), (3, 6)]),
    (7, [(1, 4), (5, 2), (3, 6), (7, None)]),
    (8, [(1, 5), (6, 2), (3, 7), (8, 4)]),
    (9, [(1, 5), (6, 2), (3, 7), (8, 4), (9, None)]),
    (10, [(1, 6), (7, 2), (3, 8), (9, 4), (5, 10)]),
]
# (name, history, total rounds, expected next round as (white, black|None), source)
Case = tuple[str, dict[int, str], int, list[tuple[int, int | None]], str]
CASES: list[Case] = [
    *[
        (f"round 1, {n} players", _fresh(n), 5, expected,
         "C.04.3 B.1/E.5 (initial colour White): top half against bottom half, White alternating from the top "
         "seed; an odd field's lowest-ranked player has the pairing-allocated bye")
        for n, expected in ROUND_ONE
    ],
    ("Held's tutorial, round 1 (14 players)", _fresh(14), 5,
     [(1, 8), (9, 2), (3, 10), (11, 4), (5, 12), (13, 6), (7, 14)],
     "Mario Held, The Dutch system (2014), round 1, via r-moeritz/swissdutch tests/test_swiss.py"),
    ("round 2, colours choose the transposition",
     {1: "5w1", 2: "6b1", 3: "7w1", 4: "8b1", 5: "1b0", 6: "2w0", 7: "3b0", 8: "4w0"}, 5,
     [(4, 1), (2, 3), (5, 8), (7, 6)],
     "by hand: bracket {1,2,3,4}, S1={1,2} S2={3,4}; 1-3 and 2-4 deny two colour preferences (1, 3 due "
     "Black; 2, 4 due White), S2={4,3} none: C.04.3 C.12 outranks the transposition order"),
    ("round 2, both preferences granted (E.1)",
     {1: "3w1", 2: "4b1", 3: "1b0", 4: "2w0"}, 3,
     [(2, 1), (3, 4)],
     "by hand: 1 and 2 meet (1 point each), 1 had White so is due Black, 2 had Black so is due White; "
     "likewise 3 (Black) takes White against 4"),
    ("round 4, equal preferences go to the higher ranked by score (E.4)",
     {1: "4w= 6b= 5w1", 2: "5b1 7w1 3b0", 3: "6w1 4b1 2w1", 4: "1b= 3w0 7b=", 5: "2w0 -U 1b0",
      6: "3b0 1w= -U", 7: "-U 2b0 4w="}, 5,
     [(1, 3), (2, 6), (5, 7), (4, None)],
     "by hand: 1 (2 points) meets 3 (3 points); both played W B W, so both strongly prefer Black (E.2 "
     "cannot decide), they never had different colours in a round (E.3 cannot), E.4 gives the preference "
     "to the higher ranked, 3 on score: 3 Black. 2 (B W B) takes White against 6 (B W, mild Black); "
     "5 (W, bye, B: mild White) against 7 (bye, B, W: mild Black); 4 has not had the bye"),
]

IDS = [c[0] for c in CASES]


def _pairs(rows: list[Pairing]) -> list[tuple[int, int | None]]:
    return sorted(((p.white, p.black) for p in rows), key=str)


@pytest.mark.parametrize(("name", "history", "rounds", "expected", "source"), CASES, ids=IDS)
def test_dutch_pairer_meets_the_examples(
    name: str, history: dict[int, str], rounds: int, expected: list[tuple[int, int | None]], source: str
) -> None:
    assert _pairs(dutch_round(_entries(history), total_rounds=rounds)) == sorted(expected, key=str), source


def _as_caissify(entries: list[DutchEntry]) -> tuple[list[SwissEntry], set[tuple[int, int]]]:
    scores_before = {e.number: [sum(r.points for r in e.rounds[:i]) for i in range(len(e.rounds))] for e in entries}
    out = []
    previous: set[tuple[int, int]] = set()
    for e in entries:
        colours, floats = [], []
        for i, r in enumerate(e.rounds):
            if r.opponent is None:
                colours.append("none")
                floats.append("down")
                continue
            colours.append("white" if r.is_white else "black")
            mine, theirs = scores_before[e.number][i], scores_before[r.opponent][i]
            floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
            if r.is_white:
                previous.add((e.number, r.opponent))
        out.append(SwissEntry(e.number, e.rating, e.score, tuple(colours), tuple(floats),
                              sum(r.opponent is None for r in e.rounds)))
    return out, previous


def _caissify(history: dict[int, str], rounds: int) -> list[tuple[int, int | None]]:
    entries, previous = _as_caissify(_entries(history))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = swiss_round(entries, previous=previous, round_number=len(_entries(history)[0].rounds) + 1,
                           total_rounds=rounds)
    return _pairs(rows)


@pytest.mark.parametrize(("name", "history", "rounds", "expected", "source"), CASES[:-1], ids=IDS[:-1])
def test_caissify_agrees_on_the_others(
    name: str, history: dict[int, str], rounds: int, expected: list[tuple[int, int | None]], source: str
) -> None:
    assert _caissify(history, rounds) == sorted(expected, key=str), source


def test_caissify_breaks_e4_where_the_tournament_would_use_it() -> None:
    """Why the tournament does not pair Swiss rounds with caissify-pairings 0.5.0: it gives 1 Black
    against 3 (the same pairs, the colours the other way round), against E.4. If an upgrade fixes
    it, this test says so."""
    _name, history, rounds, expected, _ = CASES[-1]
    got = _caissify(history, rounds)
    assert got != sorted(expected, key=str)
    assert (3, 1) in got and {frozenset((w, b)) for w, b in got if b} == {frozenset((w, b)) for w, b in expected if b}


def test_trf_lines_are_fixed_width() -> None:
    text = trf_text(_entries({1: "2w1", 2: "1b0", 3: "-U"}), total_rounds=3)
    lines = text.splitlines()
    assert lines[1:3] == ["XXR 3", "XXC white1"]
    assert lines[3].startswith("001    1 m    Player 1") and lines[3].endswith("     2 w 1")
    assert lines[5].endswith("  0000 - U")
    assert len({len(line) for line in lines[3:]}) == 1
