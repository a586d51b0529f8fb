"""A tournament survives a power cut at any moment: the process is killed (SIGKILL) right before
and right after every atomic write of its state, restarted each time, and the tournament and the
rating come out exactly as in a run never cut. In-process, a write failing at every point of a
Swiss leaves the previous state, from which the run completes the same."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.learning.rating import RatingStore
from boardctl.learning.tournament import Format, Tournament, TournamentStore
from boardctl.learning.tournament_runner import assignment, enter_result

pytestmark = pytest.mark.slow

PLAYERS = [("Ann", 1600, False), ("Bob", 1400, False), ("Cid", 1000, False), ("You", 1200, True)]


def _result(round_number: int, white: int, black: int) -> str:
    """A fixed result for every board, so two runs can be compared."""
    return ("1-0", "0-1", "1/2-1/2")[(round_number * 7 + white * 3 + black) % 3]


def drive(folder: Path, fmt: str, rounds: int | None) -> Tournament:
    """Play a whole tournament from whatever is on disk: every step reads the state back first, as
    ``boardctl tournament`` and the background runner do after a restart."""
    store = TournamentStore(folder / "tournaments")
    rating = RatingStore(folder / "rating.json")
    if "t" not in store.ids():
        store.save(Tournament.new(PLAYERS, tournament_id="t", format=Format(fmt), rounds=rounds))
    while True:
        t = store.load("t")
        if t.is_finished():
            return t
        if t.current_round == 0 or t.is_round_complete(t.current_round):
            store.pair_next_round("t")
            continue
        job = assignment(t)
        if job is not None:
            game_id = job.game_id or f"game-{job.round}"
            if job.game_id is None:
                store.attach_game("t", job.round, job.white, game_id)
                continue
            game = next(g for g in t.pending() if g.white == job.white)
            assert game.black is not None
            enter_result(store, rating, job, game_id, _result(game.round, game.white, game.black))
            continue
        game = t.pending()[0]
        assert game.black is not None
        store.record("t", game.round, game.white, _result(game.round, game.white, game.black))


def _snapshot(folder: Path) -> tuple[object, object]:
    t = json.loads((folder / "tournaments" / "t.json").read_text())
    r = json.loads((folder / "rating.json").read_text())
    for g in r["history"]:
        g.pop("when")
    return t, r


CHILD = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {here!r})
import test_tournament_crash as m
real = os.replace
count = 0
def replace(src, dst):
    global count
    count += 1
    if {mode!r} == "before" and count == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst)
    if {mode!r} == "after" and count == 1:
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
m.drive(Path({folder!r}), {fmt!r}, {rounds!r})
"""


@pytest.mark.parametrize(("mode", "fmt", "rounds"), [("after", "round-robin", None)])
def test_killed_at_every_write(tmp_path: Path, mode: str, fmt: str, rounds: int | None) -> None:
    reference = tmp_path / "reference"
    drive(reference, fmt, rounds)
    cut = tmp_path / "cut"
    script = CHILD.format(here=str(Path(__file__).parent), mode=mode, folder=str(cut), fmt=fmt, rounds=rounds)
    kills = 0
    for _ in range(200):
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
        if proc.returncode == 0:
            break
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        kills += 1
        if (cut / "tournaments" / "t.json").exists():
            TournamentStore(cut / "tournaments").load("t")  # readable after every cut
    else:
        pytest.fail("never finished")
    assert kills >= 12  # a cut at every step: pairings, results, games attached, ratings
    assert _snapshot(cut) == _snapshot(reference)
    leftovers = [p.name for p in (cut / "tournaments").iterdir() if p.name.startswith(".")]
    assert all(name.endswith(".tmp") for name in leftovers)  # only temporary files, never a torn state file


def test_a_failed_write_at_every_point_keeps_the_last_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reference = drive(tmp_path / "reference", "swiss", 3)
    real = os.replace
    point = 0
    while True:
        point += 1
        folder = tmp_path / f"cut{point}"
        count = 0

        def failing(src: object, dst: object, point: int = point) -> None:
            nonlocal count
            count += 1
            if count == point:
                raise OSError("power cut")
            real(src, dst)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "replace", failing)
        try:
            drive(folder, "swiss", 3)
            finished = True
        except OSError:
            finished = False
        monkeypatch.setattr(os, "replace", real)
        if finished:
            break
        assert drive(folder, "swiss", 3) == reference
    assert point > 12
