"""Pairings from CSV and FIDE TRF-16 files."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.broadcast.pairings import board_key, parse_csv, parse_trf, read_pairings
from boardctl.broadcast.schema import BroadcastError
from boardctl.learning.pairings import DutchEntry, Played, trf_text


def test_csv_with_rounds_and_board_names(tmp_path: Path) -> None:
    path = tmp_path / "round3.csv"
    path.write_text("Board,White,Black,Round\n1,\"Carlsen, Magnus\",Nakamura,3\nb2,Ann,Bob,3\n\n", encoding="utf-8")
    pairings = read_pairings(path)
    assert pairings["1"].white == "Carlsen, Magnus" and pairings["2"].black == "Bob" and pairings["2"].round == "3"


def test_xiangqi_csv_names_red() -> None:
    assert parse_csv("board,red,black\n1,Xu,Lü\n")["1"].white == "Xu"


@pytest.mark.parametrize(("text", "said"), [
    ("", "empty"),
    ("board,white\n1,Ann\n", "missing black"),
    ("board,white,black\n1,Ann\n", "2 columns"),
    ("board,white,black\n1,Ann,Bob\n01,Cid,Dan\n", "paired twice"),
    ("board,white,black\n,Ann,Bob\n", "no board"),
])
def test_bad_csv(text: str, said: str) -> None:
    with pytest.raises(BroadcastError, match=said):
        parse_csv(text)


def test_board_keys_meet() -> None:
    assert board_key("board-07") == board_key("b7") == board_key("7") == "7"


def _entries() -> list[DutchEntry]:
    # Round 1: 1 (w) - 3, 4 (w) - 2; round 2: 2 (w) - 1, 3 (w) - 4
    games = {1: [(3, True, 1.0), (2, False, 0.5)], 2: [(4, False, 0.0), (1, True, 0.5)],
             3: [(1, False, 0.0), (4, True, 1.0)], 4: [(2, True, 1.0), (3, False, 0.0)]}
    return [DutchEntry(number=n, rating=2000 - n, rounds=tuple(Played(o, w, p) for o, w, p in games[n]))
            for n in range(1, 5)]


def test_trf_as_boardctl_tournament_writes_it() -> None:
    text = trf_text(_entries(), total_rounds=3)
    last = parse_trf(text)
    assert [(p.board, p.white, p.black, p.round) for p in last.values()] == [
        ("1", "Player 2", "Player 1", "2"), ("2", "Player 3", "Player 4", "2")]
    first = parse_trf(text, round_no=1)
    assert [(p.white, p.black) for p in first.values()] == [("Player 1", "Player 3"), ("Player 4", "Player 2")]
    with pytest.raises(BroadcastError, match="round 3 has no pairings"):
        parse_trf(text, round_no=3)


def test_trf_without_players() -> None:
    with pytest.raises(BroadcastError, match="no TRF-16 player lines"):
        parse_trf("012 nothing\n")


def test_a_boardctl_tournament_file(tmp_path: Path) -> None:
    import json

    from boardctl.learning.tournament import Format, Tournament

    entrants = [("Ann", 1800, True), ("Bob", 1700, False), ("Cid", 1600, False), ("Dan", 1500, False),
                ("Eve", 1400, False)]
    t = Tournament.new(entrants, tournament_id="club", format=Format.ROUND_ROBIN).pair_next_round()
    path = tmp_path / "club.json"
    path.write_text(json.dumps(t.to_json()), encoding="utf-8")
    pairings = read_pairings(path)
    names = {p.number: p.name for p in t.players}
    games = [g for g in t.games if g.round == 1 and g.black is not None]
    assert [(p.board, p.white, p.black, p.round) for p in pairings.values()] == [
        (str(i), names[g.white], names[g.black or 0], "1") for i, g in enumerate(games, start=1)]
    assert len(pairings) == 2  # five players: one has the bye
    with pytest.raises(BroadcastError, match="round 2 has no games"):
        read_pairings(path, round_no=2)
    path.write_text('{"id": 3}', encoding="utf-8")
    with pytest.raises(BroadcastError, match="not a boardctl tournament file"):
        read_pairings(path)
