"""Issue 29, finding 6: a damaged ``<id>.json`` does not hide a game whose ``<id>.jsonl`` is
intact. The event log is the source of truth: the state file is rebuilt from it (the damaged one
kept beside it), so the unfinished game is resumed and listed; a game whose log cannot rebuild it
either is listed as damaged with the command that recovers what the log holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.errors import GameFileError
from boardctl.storage import GameStore

pytestmark = pytest.mark.slow

MOVES = (
    '{"t": 0}\n{"t": 1, "square": "e2", "occupied": false}\n{"t": 1.2, "square": "e4", "occupied": true}\n'
    '{"t": 2}\n{"t": 3, "square": "d7", "occupied": false}\n{"t": 3.2, "square": "d5", "occupied": true}\n{"t": 4}\n'
)
DAMAGE = ["{\"version\": 1, \"id\": ", "", "\x00\x00\x00", "[]", '{"version": 1, "moves": ["e2e5"]}']


def boardctl(tmp: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config")}
    return subprocess.run([sys.executable, "-m", "boardctl", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A games folder holding one unfinished recorded game of two moves (state file, PGN and log)."""
    tmp = tmp_path_factory.mktemp("recorded")
    games = tmp / "games"
    done = boardctl(tmp, "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games), stdin=MOVES)
    assert done.returncode == 0, done.stderr
    game_id = json.loads(done.stdout.splitlines()[-1])["game"]
    assert json.loads((games / f"{game_id}.json").read_text())["moves"] == ["e2e4", "d7d5"]
    return games, game_id


def _copy(games: Path, to: Path) -> Path:
    to.mkdir()
    for path in games.iterdir():
        (to / path.name).write_bytes(path.read_bytes())
    return to


@pytest.mark.parametrize("damage", DAMAGE, ids=["cut", "empty", "zeros", "not-an-object", "illegal-move"])
def test_a_damaged_state_file_is_rebuilt_from_the_log(recorded: tuple[Path, str], tmp_path: Path, damage: str) -> None:
    games = _copy(recorded[0], tmp_path / "games")
    game_id = recorded[1]
    state = games / f"{game_id}.json"
    state.write_text(damage)
    record = GameStore(games).load(game_id)
    assert record.id == game_id and record.moves == ["e2e4", "d7d5"] and record.result == "*"
    assert json.loads(state.read_text())["moves"] == ["e2e4", "d7d5"]  # saved again
    assert (games / f"{game_id}.json.damaged").read_text() == damage  # the damaged one kept
    assert GameStore(games).unfinished("record") is not None


def test_the_rebuilt_game_is_resumed_and_listed(recorded: tuple[Path, str], tmp_path: Path) -> None:
    games = _copy(recorded[0], tmp_path / "games")
    game_id = recorded[1]
    (games / f"{game_id}.json").write_text('{"version": 1, "id": "')
    listed = boardctl(tmp_path, "games", "list", "--games-dir", str(games))
    assert listed.returncode == 0 and game_id in listed.stdout and "2 plies" in listed.stdout, listed
    again = boardctl(tmp_path, "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games),
                     stdin='{"t": 0}\n')
    assert again.returncode == 0, again.stderr
    last = json.loads(again.stdout.splitlines()[-1])
    assert last["game"] == game_id and last["moves"] == ["e2e4", "d7d5"]
    assert "Traceback" not in again.stderr


def test_a_game_the_log_cannot_rebuild_is_listed_as_damaged_with_the_recovery_command(
        recorded: tuple[Path, str], tmp_path: Path) -> None:
    games = _copy(recorded[0], tmp_path / "games")
    game_id = recorded[1]
    (games / f"{game_id}.json").write_text("{")
    (games / f"{game_id}.jsonl").write_text('{"t": 0, "square": "z9", "occupied": true}\n')
    with pytest.raises(GameFileError, match="boardctl replay"):
        GameStore(games).load(game_id)
    listed = boardctl(tmp_path, "games", "list", "--games-dir", str(games))
    assert listed.returncode == 0 and "Traceback" not in listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith(game_id))
    assert "damaged" in line and f"boardctl replay {games / game_id}.jsonl" in line


def test_a_rebuild_that_cannot_be_saved_leaves_the_game_findable(recorded: tuple[Path, str], tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk while saving the rebuilt state: the game is still returned, and the damaged
    file stays where it was, so the next start rebuilds it again (the game is never lost)."""
    from boardctl import storage

    games = _copy(recorded[0], tmp_path / "games")
    game_id = recorded[1]
    state = games / f"{game_id}.json"
    state.write_text("{")

    def full(path: Path, text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(storage, "write_atomically", full)
    assert GameStore(games).load(game_id).moves == ["e2e4", "d7d5"]
    assert state.read_text() == "{"
    monkeypatch.undo()
    assert GameStore(games).unfinished("record") is not None
