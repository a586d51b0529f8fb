"""The terminal view on the real daemon: ``boardctl record --board sim --variant xiangqi`` with
moves piped in, in every notation the view reads, and its drawing in a pseudo-terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

NOISE = ("Traceback", "KeyboardInterrupt", "Error", "Exception")


def record(tmp_path: Path, lines: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    games = tmp_path / "games"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    out = subprocess.run([sys.executable, "-m", "boardctl", "record", "--board", "sim", "--variant", "xiangqi",
                          "--no-web", "--games-dir", str(games), *extra], input=lines, capture_output=True,
                         text=True, env=env, timeout=90)
    assert out.returncode == 0, out.stderr
    for word in NOISE:
        assert word not in out.stdout + out.stderr, (out.stdout + out.stderr)[-3000:]
    states = sorted(games.glob("*.json"))
    assert len(states) == 1, states
    return out, json.loads(states[0].read_text(encoding="utf-8"))


def test_moves_piped_in_every_notation_are_made_and_saved(tmp_path: Path) -> None:
    # coordinates, WXF, ICCS, Chinese; the cannon's capture on e6 lifts the soldier first.
    out, state = record(tmp_path, "h2e2\nH8+7\nE2-E6\n砲2平5\n車1進1\nhi\n")
    assert state["moves"] == ["h2e2", "h9g7", "e2e6", "a9a8"]
    # Screening the general from the cannon on e6 would put it in check: refused in words.
    assert "砲2平5 is not a legal move for Black here" in out.stdout
    assert "'hi' is not a move, a point or a command" in out.stdout
    assert "楚 河" in out.stdout and "帥" in out.stdout and "Game saved:" in out.stdout


def test_letters_and_a_move_for_the_wrong_side(tmp_path: Path) -> None:
    # With the sides fixed (no auto orientation from the first lift), h9g7 on Red's turn is wood
    # moved out of turn: the tracker keeps it out of the game and, with C2.5 made too, asks for
    # the pieces back in plain words, the points lit.
    out, state = record(tmp_path, "h9g7\nC2.5\n", "--pieces", "letters", "--orientation", "normal")
    assert state["moves"] == []
    assert "put a piece on h2 h9 and take the pieces off e2 g7 (type each point)" in out.stdout
    assert "Lit: illegal-move e2 h2 g7 h9" in out.stdout
    assert "river" in out.stdout and "帥" not in out.stdout
