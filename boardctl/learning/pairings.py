"""Pairings: round robins by the FIDE Berger tables, Swiss rounds by the FIDE Dutch system.

Berger tables (FIDE Handbook C.05, Annex 1) are arithmetic, so they are computed here: for ``n``
players (``n`` even; an odd field gets a dummy ``n + 1`` whose opponent has the bye), in round
``r`` player ``n`` meets the player ``a`` with ``2a = r + 1 (mod n - 1)``, with Black in odd
rounds; the other tables pair ``a + b = r + 1 (mod n - 1)`` with White on the player whose
distance to the other, counted upwards mod ``n - 1``, is odd. Tables after the first run from
``n``'s opponent + 1 upwards. tests/learning/test_pairings.py checks this against the printed
tables for 4, 6, 8 and 10 players.

Swiss rounds are paired by ``py4swiss`` (its Dutch engine, FIDE C.04.3, tested by its authors
against bbpPairings, the FIDE-endorsed Dutch program), not by a home-made pairer:
:func:`dutch_round` writes the tournament so far as a FIDE TRF-16 file, the format every pairing
program reads, and reads its pairing back. ``caissify-pairings`` (:func:`swiss_round`) was the
first choice and is kept for comparison only: checked against the rules it allocates colours
against C.04.3 E.4 (docs/learning.md and tests/learning/test_pairings_fide.py say where).
"""

from __future__ import annotations

import importlib.util
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from boardctl.errors import BoardctlError


class PairingError(BoardctlError, ValueError):
    """A round cannot be paired (too few players, all rounds played, the library refused)."""


@dataclass(frozen=True)
class Pairing:
    """One board of a round, by pairing numbers (1-based). ``black`` None: ``white`` has the bye."""

    white: int
    black: int | None

    @property
    def is_bye(self) -> bool:
        return self.black is None


def berger_round(players: int, round_number: int) -> list[Pairing]:
    """Round ``round_number`` (1-based) of the Berger table for ``players`` (2 or more)."""
    if players < 2:
        raise PairingError(f"a round robin needs at least 2 players, not {players}")
    n = players + players % 2  # an odd field plays with a dummy, whose opponent has the bye
    if not 1 <= round_number <= n - 1:
        raise PairingError(f"a round robin of {players} players has rounds 1 to {n - 1}, not {round_number}")
    m = n - 1
    target = (round_number + 1) % m  # a + b = round + 1 (mod n - 1) on every table

    def number(x: int) -> int:  # residues 0..m-1 as player numbers 1..m
        return (x - 1) % m + 1

    # n's opponent a: 2a = round + 1 (mod m); m is odd, so 2 has the inverse (m + 1) / 2
    first = number(target * (m + 1) // 2)
    tables = [(n, first) if round_number % 2 == 0 else (first, n)]
    for i in range(1, n // 2):
        a = number(first + i)
        b = number(target - a)
        tables.append((a, b) if (b - a) % m % 2 == 1 else (b, a))
    return [
        Pairing(w, b) if w <= players and b <= players else Pairing(b if w > players else w, None)
        for w, b in tables
    ]


def berger_schedule(players: int) -> list[list[Pairing]]:
    """Every round of the single round robin for ``players``."""
    n = players + players % 2
    return [berger_round(players, r) for r in range(1, n)]


# --------------------------------------------------------------------------- Swiss


@dataclass(frozen=True)
class SwissEntry:
    """What the Dutch system needs to know about one player before a round."""

    number: int  # pairing number: 1 = highest rated
    rating: int
    score: float
    colors: tuple[str, ...]  # per past round: "white", "black" or "none" (bye, absent)
    floats: tuple[str, ...]  # per past round: "up", "down" or "none"
    byes: int


def swiss_round(
    entries: Sequence[SwissEntry],
    *,
    previous: set[tuple[int, int]],
    round_number: int,
    total_rounds: int,
) -> list[Pairing]:
    """The next Swiss round by the FIDE Dutch system (caissify-pairings), board order kept."""
    from caissify_pairings import generate_pairings  # the library is only needed for Swiss events

    if len(entries) < 2:
        raise PairingError("a Swiss round needs at least 2 players")
    players = [
        {
            "id": e.number,
            "name": str(e.number),
            "score": float(e.score),
            "rating": e.rating,
            "starting_number": e.number,
            "color_hist": list(e.colors),
            "float_history": list(e.floats),
            "bye_count": e.byes,
        }
        for e in entries
    ]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the float-history warning: floats are always passed
            rows = generate_pairings(
                system="dutch",
                players=players,
                previous_pairings=set(previous),
                round_number=round_number,
                total_rounds=total_rounds,
            )
    except Exception as exc:  # the library's own errors are plain exceptions
        raise PairingError(f"round {round_number} cannot be paired: {exc}") from exc
    rows = sorted(rows, key=lambda r: int(r["table"]))
    return [Pairing(int(r["white_id"]), None if r.get("black_id") is None else int(r["black_id"])) for r in rows]


@dataclass(frozen=True)
class Played:
    """One player's round: the opponent (None: the pairing-allocated bye, a full point), colour, points."""

    opponent: int | None
    is_white: bool
    points: float


@dataclass(frozen=True)
class DutchEntry:
    """A player and the rounds played so far, as the Dutch system (and a TRF file) sees them."""

    number: int  # pairing number: 1 = highest rated
    rating: int
    rounds: tuple[Played, ...]

    @property
    def score(self) -> float:
        return sum(r.points for r in self.rounds)


_RESULT_CODES = {1.0: "1", 0.5: "=", 0.0: "0"}


def trf_text(entries: Sequence[DutchEntry], *, total_rounds: int) -> str:
    """The tournament so far as FIDE TRF-16 (player lines and the ``XXR``/``XXC`` extensions
    that pairing programs read): top seed White in round 1, as in :func:`swiss_round`."""
    lines = ["012 boardctl tournament", f"XXR {total_rounds}", "XXC white1"]
    for e in entries:
        blocks = ""
        for r in e.rounds:
            if r.opponent is None:
                blocks += "  0000 - U"
            else:
                blocks += f"  {r.opponent:>4} {'w' if r.is_white else 'b'} {_RESULT_CODES[r.points]}"
        name = f"Player {e.number}"
        lines.append(
            f"001 {e.number:>4} m    {name:<33} {e.rating:>4} XXX {0:>11} 2000/00/00 {e.score:>4.1f} {e.number:>4}" + blocks
        )
    return "\n".join(lines) + "\n"


def has_py4swiss() -> bool:
    """Whether py4swiss is installed: it is published only as x86_64 wheels, so a Raspberry Pi
    (aarch64) pairs Swiss rounds with :func:`dutch_round_portable` instead."""
    return importlib.util.find_spec("py4swiss") is not None


def dutch_round(entries: Sequence[DutchEntry], *, total_rounds: int) -> list[Pairing]:
    """The next Swiss round by the FIDE Dutch system: py4swiss where it is installed, else
    :func:`dutch_round_portable` (the same pairs and colours in every case tested against it)."""
    if not has_py4swiss():
        return dutch_round_portable(entries, total_rounds=total_rounds)
    return dutch_round_py4swiss(entries, total_rounds=total_rounds)


def dutch_round_py4swiss(entries: Sequence[DutchEntry], *, total_rounds: int) -> list[Pairing]:
    """The next Swiss round by the FIDE Dutch system (py4swiss), highest board first."""
    from py4swiss.engines import DutchEngine  # only Swiss events need the library
    from py4swiss.trf import TrfParser

    if len(entries) < 2:
        raise PairingError("a Swiss round needs at least 2 players")
    round_number = len(entries[0].rounds) + 1
    try:
        with tempfile.TemporaryDirectory(prefix="boardctl-trf-") as folder:
            path = Path(folder) / "tournament.trf"
            path.write_text(trf_text(entries, total_rounds=total_rounds), encoding="utf-8")
            rows = DutchEngine.generate_pairings(TrfParser.parse(path, strict=True))
    except Exception as exc:  # the library's own errors are plain exceptions
        raise PairingError(f"round {round_number} cannot be paired: {exc}") from exc
    return [Pairing(r.white, r.black) if r.white and r.black else Pairing(r.white or r.black, None) for r in rows]


# ----------------------------------------------------------- portable (no py4swiss)


def dutch_round_portable(entries: Sequence[DutchEntry], *, total_rounds: int) -> list[Pairing]:
    """The next Swiss round by the FIDE Dutch system without py4swiss (any machine, a Raspberry
    Pi included): caissify-pairings chooses who meets whom (its brackets, floats and quality
    criteria agreed with py4swiss on every pair in the tests), and :func:`allocate_colours`
    gives the colours by C.04.3 E.1-E.5, where caissify breaks E.4 (module docstring)."""
    if len(entries) < 2:
        raise PairingError("a Swiss round needs at least 2 players")
    by_number = {e.number: e for e in entries}
    rows = swiss_round(
        swiss_entries(entries),
        previous={(e.number, r.opponent) for e in entries for r in e.rounds if r.opponent is not None},
        round_number=len(entries[0].rounds) + 1,
        total_rounds=total_rounds,
    )
    out = []
    for p in rows:
        if p.black is None:
            out.append(p)
            continue
        a, b = by_number[p.white], by_number[p.black]
        out.append(Pairing(a.number, b.number) if allocate_colours(a, b) else Pairing(b.number, a.number))
    return out


def swiss_entries(entries: Sequence[DutchEntry]) -> list[SwissEntry]:
    """The same history as caissify-pairings' inputs: colours, floats (against the opponent's
    score before that round; a bye is a down-float) and byes per player."""
    by_number = {e.number: e for e in entries}

    def score_before(number: int, round_index: int) -> float:
        return sum(r.points for r in by_number[number].rounds[:round_index])

    out = []
    for e in entries:
        colors: list[str] = []
        floats: list[str] = []
        for i, r in enumerate(e.rounds):
            if r.opponent is None:
                colors.append("none")
                floats.append("down")
                continue
            colors.append("white" if r.is_white else "black")
            mine, theirs = score_before(e.number, i), score_before(r.opponent, i)
            floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
        byes = sum(r.opponent is None for r in e.rounds)
        out.append(SwissEntry(e.number, e.rating, e.score, tuple(colors), tuple(floats), byes))
    return out


ABSOLUTE, STRONG, MILD, NONE = 3, 2, 1, 0  # colour preference strengths, C.04.3 A.6


def colour_preference(entry: DutchEntry) -> tuple[int, bool | None]:
    """C.04.3 A.6: (strength, True for White / False for Black / None) from the games played
    (byes left out). Absolute: a colour difference beyond +-1 or the same colour in the last
    two games; strong: a difference of +-1; mild: 0, alternating from the last game."""
    played = [r.is_white for r in entry.rounds if r.opponent is not None]
    if not played:
        return NONE, None
    difference = 2 * sum(played) - len(played)
    if difference > 1 or difference < -1:
        return ABSOLUTE, difference < 0
    if len(played) >= 2 and played[-1] == played[-2]:
        return ABSOLUTE, not played[-1]
    if difference:
        return STRONG, difference < 0
    return MILD, not played[-1]


def allocate_colours(a: DutchEntry, b: DutchEntry) -> bool:
    """Whether ``a`` has White against ``b``, by C.04.3 E (initial colour White):
    E.1 grant both preferences; E.2 grant the stronger (both absolute: the wider colour
    difference); E.3 alternate from the latest round in which they had different colours;
    E.4 grant the higher ranked player's preference (score, then pairing number);
    E.5 the higher ranked player has White with an odd pairing number, else Black."""
    (sa, pa), (sb, pb) = colour_preference(a), colour_preference(b)
    if pa is not None and pb is not None and pa != pb:  # E.1
        return pa
    if pa is None and pb is not None:
        return not pb
    if pb is None and pa is not None:
        return pa
    if pa is not None and pb is not None:  # the same colour wanted
        if sa != sb:  # E.2
            return pa if sa > sb else not pb
        if sa == ABSOLUTE:
            da, db = (abs(_colour_difference(e)) for e in (a, b))
            if da != db:
                return pa if da > db else not pb
    for ra, rb in zip(reversed(a.rounds), reversed(b.rounds), strict=False):  # E.3
        if ra.opponent is not None and rb.opponent is not None and ra.is_white != rb.is_white:
            return not ra.is_white
    a_higher = (-a.score, a.number) < (-b.score, b.number)
    higher, preference = (a, pa) if a_higher else (b, pb)
    if preference is not None:  # E.4
        return preference if a_higher else not preference
    higher_white = higher.number % 2 == 1  # E.5
    return higher_white if a_higher else not higher_white


def _colour_difference(entry: DutchEntry) -> int:
    played = [r.is_white for r in entry.rounds if r.opponent is not None]
    return 2 * sum(played) - len(played)
