"""``boardctl record --stdio`` on real failing disks: a tmpfs that fills up, one mounted read-only,
a file where the games folder should be. The game goes on in memory, every state line says
``storage: …``, the LEDs show it, nothing is half-written, and the end says clearly what was lost.

The small filesystems are real: each daemon runs in its own mount namespace (``unshare -rm``)
with a tmpfs of a few hundred KB; the test reaches the files through ``/proc/<pid>/root``.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import chess
import pytest
from test_daemon_support import move_events

from boardctl.events import parse_event

pytestmark = pytest.mark.slow

MOVES = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]


def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt && true"],
                           capture_output=True, timeout=20)
    return probe.returncode == 0


needs_unshare = pytest.mark.skipif(not _can_unshare(), reason="needs unshare -rm and tmpfs mounts")


def _move_lines(moves: list[str], t0: float, *, before: tuple[str, ...] | list[str] = ()) -> Iterator[tuple[float, list[str]]]:
    """Per move, the stdio lines that make it on the sim board (lift, place, settle)."""
    board = chess.Board()
    for uci in before:
        board.push_uci(uci)
    t = t0
    for uci in moves:
        move = chess.Move.from_uci(uci)
        lines = []
        for square, occupied in move_events(board, move):
            t += 0.2
            lines.append(json.dumps({"t": round(t, 3), "square": square, "occupied": occupied}))
        t += 1.0
        lines.append(json.dumps({"t": round(t, 3)}))
        board.push(move)
        yield t, lines


class Stdio:
    """A stdio daemon; ``send`` writes one line and returns its answer (unprompted lines kept aside)."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.n = 0
        self.unprompted: list[dict[str, Any]] = []
        self.err = ""

    def send(self, line: str) -> dict[str, Any]:
        stdin, stdout = self._pipes()
        stdin.write(line + "\n")
        stdin.flush()
        self.n += 1
        while True:
            text = stdout.readline()
            assert text, f"the daemon ended: {self.finish()[1]}"
            answer: dict[str, Any] = json.loads(text)
            if "reason" in answer:
                self.unprompted.append(answer)
            elif answer["input"] == self.n:
                return answer

    def play(self, moves: list[str], t0: float) -> tuple[float, dict[str, Any]]:
        end, answer = t0, {}
        for t, lines in _move_lines(moves, t0):
            for line in lines:
                answer = self.send(line)
            end = t
        return end, answer

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        return self.proc.stdin, self.proc.stdout

    def finish(self) -> tuple[int, str]:
        """Close stdin (end of input) and return the exit status and stderr."""
        if self.proc.returncode is None:
            _, self.err = self.proc.communicate(timeout=60)  # closes stdin: end of input
        return self.proc.returncode, self.err


def _daemon_on_tmpfs(mount: Path, *, size: str = "400k", read_only: bool = False) -> Stdio:
    mount.mkdir()
    games = mount / "games"
    script = f"mount -t tmpfs -o size={size} tmpfs {mount} && mkdir {games}"
    if read_only:
        script += f" && mount -o remount,ro {mount}"
    argv = [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web", "--games-dir", str(games)]
    return Stdio(["unshare", "-rm", "sh", "-c", f"{script} && exec {' '.join(argv)}"])


def _inside(daemon: Stdio, path: Path) -> Path:
    """``path`` as the daemon sees it (its own mount namespace)."""
    return Path(f"/proc/{daemon.proc.pid}/root") / path.relative_to("/")


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 1024)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def _whole_lines(path: Path) -> list[Any]:
    text = path.read_text()
    assert text == "" or text.endswith("\n"), f"{path.name}: a partial last line"
    return [parse_event(line) for line in text.splitlines()]


def _storage_leds(answer: dict[str, Any]) -> set[str]:
    return {led["square"] for led in answer["leds"] if led["why"] == "storage"}


@needs_unshare
def test_disk_fills_mid_game_then_frees_up(tmp_path: Path) -> None:
    daemon = _daemon_on_tmpfs(tmp_path / "mnt")
    try:
        t, answer = daemon.play(MOVES[:2], 0.0)
        assert answer["moves"] == MOVES[:2] and answer["warning"] is None
        mount = _inside(daemon, tmp_path / "mnt")
        filler = _fill(mount)
        t, answer = daemon.play(MOVES[2:5], t)
        assert answer["moves"] == MOVES[:5], "the game goes on in memory"
        assert answer["warning"].startswith("storage: ") and "No space left on device" in answer["warning"]
        assert _storage_leds(answer) == {"a1", "h1", "a8", "h8"}
        (state,) = (mount / "games").glob("*.json")
        assert json.loads(state.read_text())["moves"] == MOVES[:2]
        for log in (mount / "games").glob("*.jsonl"):
            _whole_lines(log)
        assert not list((mount / "games").glob(".*.tmp"))
        filler.unlink()
        t, answer = daemon.play(MOVES[5:], t)
        assert answer["warning"] is None and not _storage_leds(answer)
        assert json.loads(state.read_text())["moves"] == MOVES
        assert "6. " not in state.with_suffix(".pgn").read_text() and "3. Bc4 Nf6" in state.with_suffix(".pgn").read_text()
        events = _whole_lines(state.with_suffix(".jsonl"))
        assert len(events) >= 3 * len(MOVES)
    finally:
        status, err = daemon.finish()
    assert status == 0, err
    assert "Traceback" not in err
    assert "No space left on device" in err and "saving works again" in err


@needs_unshare
def test_disk_full_at_the_end_says_what_was_lost(tmp_path: Path) -> None:
    daemon = _daemon_on_tmpfs(tmp_path / "mnt")
    try:
        t, _ = daemon.play(MOVES[:1], 0.0)
        mount = _inside(daemon, tmp_path / "mnt")
        _fill(mount)
        _, answer = daemon.play(MOVES[1:4], t)
        assert answer["warning"].startswith("storage:")
        for log in (mount / "games").glob("*.jsonl"):
            _whole_lines(log)
    finally:
        status, err = daemon.finish()
    assert status == 2, err
    assert "Traceback" not in err
    assert "could not be saved" in err and "1. e4 e5 2. Nf3 Nc6" in err


@needs_unshare
def test_read_only_games_folder_is_found_at_start(tmp_path: Path) -> None:
    daemon = _daemon_on_tmpfs(tmp_path / "mnt", read_only=True)
    try:
        answer = daemon.send('{"t": 0}')
        assert answer["warning"].startswith("storage: cannot save in") and "(Read-only file system)" in answer["warning"]
        assert _storage_leds(answer) == {"a1", "h1", "a8", "h8"}
        _, answer = daemon.play(MOVES[:2], 0.0)
        assert answer["moves"] == MOVES[:2] and "Read-only" in answer["warning"]
    finally:
        status, err = daemon.finish()
    assert status == 2 and "Traceback" not in err, err
    first = err.index("Read-only file system")
    assert "is not writable" in err[:first + 40]
    assert "could not be saved" in err and "1. e4 e5" in err


def _plain_daemon(games: Path) -> Stdio:
    return Stdio([sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
                  "--games-dir", str(games)])


@pytest.mark.parametrize("layout", ["file-instead-of-folder", "folder-under-a-file"])
def test_unusable_games_folder_at_start(tmp_path: Path, layout: str) -> None:
    (tmp_path / "blocker").write_text("not a folder")
    games = tmp_path / "blocker" if layout == "file-instead-of-folder" else tmp_path / "blocker" / "games"
    daemon = _plain_daemon(games)
    try:
        _, answer = daemon.play(MOVES[:2], 0.0)
        assert answer["moves"] == MOVES[:2]
        assert answer["warning"].startswith("storage: ") and str(games) in answer["warning"]
    finally:
        status, err = daemon.finish()
    assert status == 2 and "Traceback" not in err, err
    assert "1. e4 e5" in err and "could not be saved" in err


def test_games_folder_replaced_by_a_file_mid_game_then_restored(tmp_path: Path) -> None:
    games = tmp_path / "games"
    daemon = _plain_daemon(games)
    try:
        t, _ = daemon.play(MOVES[:2], 0.0)
        games.rename(tmp_path / "away")
        games.write_text("someone put a file here")
        t, answer = daemon.play(MOVES[2:4], t)
        assert answer["warning"].startswith("storage: ") and answer["moves"] == MOVES[:4]
        games.unlink()
        (tmp_path / "away").rename(games)
        _, answer = daemon.play(MOVES[4:], t)
        assert answer["warning"] is None
    finally:
        status, err = daemon.finish()
    assert status == 0 and "Traceback" not in err, err
    (state,) = games.glob("*.json")
    assert json.loads(state.read_text())["moves"] == MOVES
    _whole_lines(state.with_suffix(".jsonl"))


def _long_game(plies: int) -> list[str]:
    """A legal game of ``plies`` moves that does not end early and has no promotion (seeded)."""
    import random

    for seed in range(100):
        rng = random.Random(seed)
        board = chess.Board()
        while len(board.move_stack) < plies:
            moves = [m for m in board.legal_moves if m.promotion is None]
            if not moves or board.is_game_over(claim_draw=True):
                break
            board.push(rng.choice(sorted(moves, key=lambda m: m.uci())))
            if board.is_game_over(claim_draw=True):
                break
        if len(board.move_stack) == plies and not board.is_game_over(claim_draw=True):
            return [m.uci() for m in board.move_stack]
    raise AssertionError("no long game found")


#: A long legal game for the kill test.
DANCE = _long_game(80)


def test_daemon_killed_at_random_points_resumes_with_consistent_files(tmp_path: Path) -> None:
    import random
    import signal
    import time

    from boardctl.storage import GameStore

    rng = random.Random(5)
    games = tmp_path / "games"
    fixes: list[str] = []
    done: list[int] = []
    for _ in range(4):
        daemon = _plain_daemon(games)
        answer = daemon.send('{"t": 0}')
        played = answer["moves"]
        assert played == DANCE[: len(played)], "resumed where the state file left off"
        done.append(len(played))
        stdin, _ = daemon._pipes()
        for _, lines in _move_lines(DANCE[len(played) : len(played) + 8], 0.0, before=played):
            stdin.write("".join(line + "\n" for line in lines))
        stdin.flush()
        time.sleep(rng.uniform(0.05, 0.6))
        daemon.proc.send_signal(signal.SIGKILL)
        daemon.proc.communicate(timeout=30)
        fixes += GameStore(games).repair()
        store = GameStore(games)
        (game_id,) = store.ids()
        record = store.load(game_id)
        assert store.path(game_id, ".pgn").read_text() == record.pgn_text()
        assert not list(games.glob(".*.tmp"))
        _whole_lines(store.path(game_id, ".jsonl"))
    assert done == sorted(done) and done[-1] > 0  # every restart resumed, and play went on
