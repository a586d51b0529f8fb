"""``boardctl tournament new|next|standings``: opponents around your rating, your game played on
the sim board through the play path (``--stdio``), its result entered and rated, a cut-off game
taken up again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl import cli
from boardctl.commands.tournament import standings_text
from boardctl.learning.characters import load_characters
from boardctl.learning.rating import RatingStore, default_store
from boardctl.learning.tournament import Format, TournamentStore
from boardctl.learning.tournament_runner import new_tournament, tournaments_folder


def _store(games: Path) -> TournamentStore:
    return TournamentStore(tournaments_folder(games))


@pytest.mark.parametrize(
    ("argv", "fmt", "players", "rounds"),
    [
        (["--players", "8", "--format", "round-robin"], Format.ROUND_ROBIN, 8, 7),
        (["--players", "6", "--format", "swiss", "--rounds", "3"], Format.SWISS, 6, 3),
        (["--players", "9", "--format", "swiss"], Format.SWISS, 9, 5),
        (["--players", "5"], Format.ROUND_ROBIN, 5, 5),
    ],
)
def test_new_picks_the_characters_around_your_rating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str], fmt: Format,
    players: int, rounds: int
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    games = tmp_path / "games"
    default_store().save(RatingStore(tmp_path / "x").load().after_game(
        game_id="g", opponent="o", opponent_rating=1900, score=1.0, when="2026-12-01T00:00:00Z"))
    mine = default_store().load().rounded  # 1200 + 40 * (1 - E(1200, 1900)) = 1239
    assert cli.main(["tournament", "new", *argv, "--no-background", "--games-dir", str(games),
                     "--time-control", "10+5"]) == 0
    out = capsys.readouterr().out
    [tid] = _store(games).ids()
    t = _store(games).load(tid)
    assert (t.format, len(t.players), t.rounds, t.time_control) == (fmt, players, rounds, "10+5")
    assert t.current_round == 1 and f"your rating {mine}" in out
    user = t.user()
    assert user is not None and (user.name, user.rating) == ("You", mine)
    chosen = sorted(abs(p.rating - mine) for p in t.players if not p.is_user)
    others = sorted(abs(c.rating - mine) for c in load_characters())
    assert chosen == others[: players - 1]  # the closest ones
    for g in t.round_games(1):
        assert t.player(g.white).name in out


def test_standings_and_bad_requests(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    games = tmp_path / "games"
    assert cli.main(["tournament", "standings", "--games-dir", str(games)]) == 2
    assert "no tournament yet" in capsys.readouterr().err
    assert cli.main(["tournament", "new", "--players", "99", "--no-background", "--games-dir", str(games)]) == 2
    assert "--players: 2 to 64" in capsys.readouterr().err
    assert cli.main(["tournament", "new", "--time-control", "fast", "--no-background", "--games-dir", str(games)]) == 2
    assert "MINUTES+INCREMENT" in capsys.readouterr().err
    store = _store(games)
    t = new_tournament(store, 1200, players=4, format=Format.ROUND_ROBIN, rounds=None, time_control="15+10",
                       pool=[("Ann", 1500), ("Bob", 1250), ("Cid", 1000), ("Far", 2000)], tournament_id="club")
    for g in t.pending():
        t = store.record("club", 1, g.white, "1-0")
    assert cli.main(["tournament", "standings", "--games-dir", str(games)]) == 0
    out = capsys.readouterr().out
    assert out == standings_text(store.load("club"))
    assert "Far" not in out
    head = out.splitlines()[1].split()
    assert head == ["Rk", "Name", "Elo", "Points", "Buchholz", "Sonneborn-Berger"]
    t = store.load("club")
    for s in t.standings():  # every row: rank, points and both tie-breaks as the table has them
        [line] = [x for x in out.splitlines() if x.startswith(f"{s.rank:>2}. {s.player.name} ")]
        numbers = line.split()[-4:] if not s.player.is_user else line.split()[-5:-1]
        assert numbers == [str(s.player.rating), f"{s.points:.1f}", f"{s.buchholz:.1f}", f"{s.sonneborn_berger:.2f}"]
    assert out.count("(you)") == 1
    assert t.crosstable_text() in out


def _boardctl(tmp: Path, *args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config")}
    return subprocess.run([sys.executable, "-m", "boardctl", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=180)


E2E4 = '{"t": 0}\n{"t": 1, "square": "e2", "occupied": false}\n{"t": 1.2, "square": "e4", "occupied": true}\n{"t": 2}\n'
RESIGN = '{"t": 0}\n{"t": 1, "button": "resign"}\n'


@pytest.mark.slow
def test_next_plays_your_game_on_the_board_and_rates_it(tmp_path: Path) -> None:
    """You (1200) against the weakest character: you are number 1, White; you make a move, the power
    goes (end of input), next takes the same game up again and you resign."""
    games = tmp_path / "games"
    store = _store(games)
    weakest = min(load_characters(), key=lambda c: c.rating)
    assert weakest.rating < 1200
    new_tournament(store, 1200, players=2, format=Format.ROUND_ROBIN, rounds=None, time_control="15+10",
                   pool=[(weakest.name, weakest.rating)], tournament_id="duel")
    flags = ["tournament", "next", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games)]
    first = _boardctl(tmp_path, *flags, stdin=E2E4)
    assert first.returncode == 0, first.stderr
    assert f"you play white against {weakest.name} ({weakest.rating}), 15+10" in first.stderr
    assert all(line.startswith("{") for line in first.stdout.splitlines())  # stdout: state lines only
    game = store.load("duel").user_game()
    assert game is not None and game.result is None and game.game_id
    saved = json.loads((games / f"{game.game_id}.json").read_text())
    assert saved["moves"][0] == "e2e4" and saved["human"] == "white" and saved["time_control"] == "15+10"
    assert saved["level"] == weakest.level  # the character's level

    second = _boardctl(tmp_path, *flags, stdin=RESIGN)
    assert second.returncode == 0, second.stderr
    after = store.load("duel")
    done = after.round_games(1)[0]
    assert done.game_id == game.game_id  # the same game, taken up again
    record = json.loads((games / f"{game.game_id}.json").read_text())
    assert record["moves"][0] == "e2e4" and record["result"] in ("1-0", "0-1")
    assert done.result == record["result"] and after.is_finished()
    rating = RatingStore(tmp_path / "data" / "boardctl" / "rating.json").load()
    assert rating.games == 1 and rating.history[0].game_id == game.game_id
    assert rating.history[0].opponent == weakest.name and rating.history[0].opponent_rating == weakest.rating
    score = 1.0 if record["result"] == "1-0" else 0.0
    assert rating.history[0].score == score and (rating.value > 1200) == (score == 1.0)

    third = _boardctl(tmp_path, *flags, stdin=RESIGN)
    assert third.returncode == 0 and "The tournament is over" in third.stderr
    assert RatingStore(tmp_path / "data" / "boardctl" / "rating.json").load().games == 1  # counted once


@pytest.mark.slow
def test_next_waits_for_the_characters_games_then_pairs_the_next_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Your round-1 game is done, the characters' is not: next starts their runner (once), waits,
    and once their result is in pairs round 2 and hands you its game."""
    import io
    import threading

    from boardctl.commands import tournament as tournament_cmd
    from boardctl.learning import npc_games

    started: list[str] = []

    def start_background(store: TournamentStore, tid: str, **_: object) -> int:
        started.append(tid)
        return 4242

    monkeypatch.setattr(npc_games, "start_background", start_background)
    store = _store(tmp_path / "games")
    t = new_tournament(store, 1200, players=4, format=Format.ROUND_ROBIN, rounds=None, time_control="15+10",
                       pool=[("Ann", 1500), ("Bob", 1300), ("Cid", 1000)], tournament_id="club")
    user = t.user()
    assert user is not None
    [mine] = [g for g in t.pending() if user.number in (g.white, g.black)]
    [theirs] = [g for g in t.pending() if g is not mine]
    store.record("club", 1, mine.white, "1/2-1/2")

    def runner() -> None:  # stands in for the background games
        import time

        time.sleep(0.5)
        store.record("club", 1, theirs.white, "1-0")

    thread = threading.Thread(target=runner)
    thread.start()
    out = io.StringIO()
    job = tournament_cmd.prepare_next(store, "club", out=out)
    thread.join()
    assert job is not None and job.round == 2
    assert "waiting for 1 game(s) between characters" in out.getvalue() and "Round 2:" in out.getvalue()
    assert started.count("club") >= 1  # the runner was (re)started for the waiting round and round 2
    t2 = store.load("club")
    assert t2.current_round == 2 and t2.round_games(1)[0].result is not None


def test_next_says_when_the_next_round_cannot_be_paired(tmp_path: Path) -> None:
    import io
    from dataclasses import replace

    from boardctl.commands import tournament as tournament_cmd
    from boardctl.learning.tournament import Game, Tournament

    # {1, 2, 3} each met all of {4, 5, 6}: the games left form two triangles (test_tournament.py)
    t = Tournament.new([(f"P{i}", 2400 - 37 * i, False) for i in range(6)], tournament_id="dead",
                       format=Format.SWISS, rounds=4)
    boards = [(1, 4), (5, 2), (3, 6), (5, 1), (2, 6), (4, 3), (1, 6), (4, 2), (3, 5)]
    store = _store(tmp_path / "games")
    store.save(replace(t, games=tuple(Game(i // 3 + 1, w, b, "1/2-1/2") for i, (w, b) in enumerate(boards))))
    out = io.StringIO()
    assert tournament_cmd.prepare_next(store, "dead", out=out) is None
    assert "Round 4 cannot be paired without a rematch: the tournament ends after round 3" in out.getvalue()
    assert store.load("dead").is_finished()
