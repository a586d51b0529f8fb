"""A full, read-only or failing disk, and crashes mid-save: no partial line, no lost game, repair on start.

Failures are injected at the storage's I/O seam (``os.write``/``os.fsync``/``os.replace`` and
``tempfile.mkstemp``, for files under the test's folder only) in-process; the subprocess tests in
test_storage_disk.py use real full and read-only filesystems.
"""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess
import pytest

from boardctl.events import SquareChanged, Tick, parse_event, whole_lines
from boardctl.replay import read_events
from boardctl.storage import (
    EventLog,
    GameRecord,
    GameStore,
    StorageError,
    cut_partial_line,
    write_atomically,
)

FAILURES = [
    (errno.ENOSPC, "No space left on device"),
    (errno.EROFS, "Read-only file system"),
    (errno.EACCES, "Permission denied"),
    (errno.EIO, "Input/output error"),
]


def _under(fd: int, folder: Path) -> bool:
    try:
        return os.readlink(f"/proc/self/fd/{fd}").startswith(str(folder))
    except OSError:
        return False


class Disk:
    """Makes writes to files under ``folder`` fail with ``code`` while ``failing`` (after ``partial`` bytes)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, folder: Path, code: int, *, partial: int = 7) -> None:
        self.folder, self.code, self.partial = folder, code, partial
        self.failing = False
        real_write, real_fsync, real_replace = os.write, os.fsync, os.replace

        def write(fd: int, data: Any) -> int:
            if self.failing and _under(fd, folder):
                if self.partial and len(data) > self.partial:
                    done, self.partial = self.partial, 0
                    return real_write(fd, bytes(data[:done]))  # a short write first, as a filling disk does
                raise OSError(code, os.strerror(code))
            return real_write(fd, data)

        def fsync(fd: int) -> None:
            if self.failing and self.code == errno.EIO and _under(fd, folder):
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            real_fsync(fd)

        def replace_(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            if self.failing and str(dst).startswith(str(folder)):
                raise OSError(code, os.strerror(code))
            real_replace(src, dst, *args, **kwargs)

        monkeypatch.setattr(os, "write", write)
        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace_)


def _record(moves: list[str], game_id: str = "20260101-000000-000001") -> GameRecord:
    return GameRecord(id=game_id, mode="record", white="W", black="B", moves=list(moves))


def _game(plies: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    board = chess.Board()
    moves: list[str] = []
    while len(moves) < plies and not board.is_game_over():
        move = rng.choice(list(board.legal_moves))
        moves.append(move.uci())
        board.push(move)
    return moves


def _lines_parse(path: Path) -> list[Any]:
    text = path.read_text()
    assert text == "" or text.endswith("\n"), "a partial last line"
    return [parse_event(line) for line in text.splitlines()]


# -- the event log: whole lines or nothing ---------------------------------------------------------


@pytest.mark.parametrize(("code", "why"), FAILURES)
def test_a_failed_append_leaves_no_partial_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, why: str
) -> None:
    disk = Disk(monkeypatch, tmp_path, code)
    path = tmp_path / "g.jsonl"
    log = EventLog(path)
    log.extend([SquareChanged(1.0, chess.E2, False), SquareChanged(1.5, chess.E4, True)])
    before = path.read_bytes()
    disk.failing = True
    for n in range(3):
        with pytest.raises(OSError) as info:
            log.extend([SquareChanged(2.0 + n, chess.E7, False), Tick(2.5 + n)])
        assert info.value.errno == code
        assert path.read_bytes() == before
    disk.failing = False
    log.extend([SquareChanged(9.0, chess.E7, False)])
    log.close()
    log.close()
    assert len(_lines_parse(path)) == 3


def test_a_log_cut_short_is_mended_on_opening_and_replay_reads_up_to_the_cut(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "g.jsonl"
    whole = '{"t": 1.0, "square": "e2", "occupied": false}\n{"t": 1.5, "square": "e4", "occupied": true}\n'
    for cut in ('{"t": 2.0, "squ', '{"t": 2.0, "square": "e7", "occupied": fal', "{", '{"t": 2'):
        path.write_text(whole + cut)
        events = read_events(path.read_text().splitlines(keepends=True), name=str(path))
        assert [e.t for e in events] == [1.0, 1.5]
        assert "cut short" in caplog.text
        caplog.clear()
        log = EventLog(path)
        log.append(Tick(3.0))
        log.close()
        assert [e.t for e in _lines_parse(path)] == [1.0, 1.5, 3.0]
    # A bad line that is not the last, or a complete last line, is still an error or an event.
    with pytest.raises(ValueError, match=":2"):
        read_events(['{"t": 1}\n', '{"t": 2, "squ\n', '{"t": 3}\n'])
    assert [e.t for e in read_events(['{"t": 1}\n', '{"t": 2}'])] == [1.0, 2.0]
    assert list(whole_lines([])) == []
    assert cut_partial_line(tmp_path / "missing.jsonl") == 0


@pytest.mark.slow
def test_replay_command_reads_a_cut_short_log(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(
        '{"t": 0, "snapshot": "ffff00000000ffff"}\n{"t": 1.0, "square": "e2", "occupied": false}\n'
        '{"t": 1.5, "square": "e4", "occupied": true}\n{"t": 3.0}\n{"t": 4.0, "square": "e7", "occ'
    )
    result = subprocess.run([sys.executable, "-m", "boardctl", "replay", str(path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "1. e4" in result.stdout
    assert "cut short" in result.stderr and "Traceback" not in result.stderr


# -- whole-file writes: the old file or the new one, never a temporary left behind -------------------


@pytest.mark.parametrize(("code", "why"), FAILURES)
def test_a_failed_save_keeps_the_old_files_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, why: str
) -> None:
    store = GameStore(tmp_path)
    store.save(_record(["e2e4"]))
    old = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    disk = Disk(monkeypatch, tmp_path, code)
    disk.failing = True
    with pytest.raises(StorageError, match=why) as info:
        store.save(_record(["e2e4", "e7e5"]))
    assert info.value.errno == code and isinstance(info.value, OSError)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == old
    disk.failing = False
    store.save(_record(["e2e4", "e7e5"]))
    assert store.load("20260101-000000-000001").moves == ["e2e4", "e7e5"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["20260101-000000-000001.json", "20260101-000000-000001.pgn"]


def test_write_atomically_with_short_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data[:3])))
    write_atomically(tmp_path / "x.pgn", "a longer text than three bytes\n")
    assert (tmp_path / "x.pgn").read_text() == "a longer text than three bytes\n"


# -- the folder is checked at start -----------------------------------------------------------------


def test_check_says_what_is_wrong_with_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    GameStore(tmp_path / "new" / "games").check()  # created
    assert (tmp_path / "new" / "games").is_dir() and list((tmp_path / "new" / "games").iterdir()) == []
    (tmp_path / "file").write_text("x")
    with pytest.raises(StorageError, match="is a file, not a folder"):
        GameStore(tmp_path / "file").check()
    with pytest.raises(StorageError, match=r"games folder .*games is inside .*file, which is a file, not a folder"):
        GameStore(tmp_path / "file" / "games").check()
    for code, why in FAILURES:
        def refuse(*args: Any, code: int = code, **kwargs: Any) -> Any:
            raise OSError(code, os.strerror(code))

        monkeypatch.setattr(tempfile, "mkstemp", refuse)
        with pytest.raises(StorageError, match=f"is not writable: {why}"):
            GameStore(tmp_path).check()
        monkeypatch.undo()
    disk = Disk(monkeypatch, tmp_path, errno.ENOSPC, partial=0)
    disk.failing = True
    with pytest.raises(StorageError, match="No space left"):
        GameStore(tmp_path).check()
    assert [p for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# -- repair after a crash: consistent files, no temporaries --------------------------------------------


def _consistent(store: GameStore) -> Iterator[GameRecord]:
    assert not [p.name for p in store.root.iterdir() if p.name.endswith(".tmp")]
    for game_id in store.ids():
        record = store.load(game_id)
        assert store.path(game_id, ".pgn").read_text() == record.pgn_text(), game_id
        jsonl = store.path(game_id, ".jsonl")
        if jsonl.exists():
            _lines_parse(jsonl)
        yield record


LaggingState = Callable[[GameStore, GameRecord], None]


def _pgn_one_move_behind(store: GameStore, record: GameRecord) -> None:
    store.path(record.id, ".pgn").write_text(_record(record.moves[:-1], record.id).pgn_text())


def _pgn_behind_and_older(store: GameStore, record: GameRecord) -> None:
    _pgn_one_move_behind(store, record)
    os.utime(store.path(record.id, ".pgn"), ns=(1, 1))


def _pgn_missing(store: GameStore, record: GameRecord) -> None:
    store.path(record.id, ".pgn").unlink()


def _tmp_files_left(store: GameStore, record: GameRecord) -> None:
    (store.root / f".{record.id}.pgn.abc123.tmp").write_text("half a pgn")
    (store.root / f".{record.id}.json.x_9.tmp").write_text("{")


def _partial_log_line(store: GameStore, record: GameRecord) -> None:
    with store.path(record.id, ".jsonl").open("a") as f:
        f.write('{"t": 99.0, "square": "e')


@pytest.mark.parametrize(
    "damage", [_pgn_one_move_behind, _pgn_behind_and_older, _pgn_missing, _tmp_files_left, _partial_log_line]
)
def test_repair_makes_the_three_files_consistent(tmp_path: Path, damage: LaggingState) -> None:
    store = GameStore(tmp_path)
    records = [_record(_game(10 + n, seed=n), f"20260101-000000-00000{n}") for n in range(3)]
    for record in records:
        store.save(record)
        log = store.event_log(record.id)
        log.extend([Tick(1.0), Tick(2.0)])
        log.close()
    for record in records:
        damage(store, record)
    notes = store.repair()
    assert notes
    assert [r.moves for r in _consistent(store)] == [r.moves for r in records]
    assert store.repair() == []  # nothing more to do


def test_repair_of_an_old_game_relies_on_modification_times(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    records = [_record(_game(6, seed=n), f"20260101-000000-{n:06d}") for n in range(8)]
    for record in records:
        store.save(record)
    _pgn_behind_and_older(store, records[0])
    assert store.repair(recent=2) == [f"rewrote {records[0].id}.pgn from {records[0].id}.json"]
    list(_consistent(store))


# -- kill -9 at random points while saving ----------------------------------------------------------

_SAVER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from boardctl.events import SquareChanged, Tick
    from boardctl.storage import GameRecord, GameStore
    import chess

    store = GameStore(Path(sys.argv[1]))
    store.repair()
    record = store.unfinished("record") or GameRecord(id="20260101-000000-000001", mode="record", white="W", black="B")
    board = record.board()
    log = store.event_log(record.id)
    print(len(record.moves), flush=True)
    while not board.is_game_over() and len(record.moves) < 400:
        move = sorted(board.legal_moves, key=lambda m: m.uci())[len(record.moves) % board.legal_moves.count()]
        log.extend([SquareChanged(len(record.moves), move.from_square, False), Tick(len(record.moves) + 0.5)])
        board.push(move)
        record.moves.append(move.uci())
        store.save(record)
    print("done", flush=True)
    """
)


@pytest.mark.slow
def test_kill_9_at_random_points_of_saving_then_resume(tmp_path: Path) -> None:
    rng = random.Random(11)
    games = tmp_path / "games"
    script = tmp_path / "saver.py"
    script.write_text(_SAVER)
    seen: list[int] = []
    fixes: list[str] = []
    for _ in range(8):
        proc = subprocess.Popen([sys.executable, str(script), str(games)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        start = int(proc.stdout.readline())
        seen.append(start)
        time.sleep(rng.uniform(0.0, 0.25))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        store = GameStore(games)
        fixes += store.repair()
        (record,) = list(_consistent(store))
        assert record.moves[: len(record.moves)] == record.moves
        # Every move the state file holds was made in order, and none was lost across restarts.
        assert len(record.moves) >= start
    assert seen == sorted(seen) and seen[-1] > 0
    assert fixes  # the kills did land mid-save (a lagging PGN or a temporary file), and were mended
    events = [json.loads(line) for line in (games / "20260101-000000-000001.jsonl").read_text().splitlines()]
    assert events and all("t" in e for e in events)


# -- the daemon: a failed save keeps the game, warns, retries ------------------------------------------


def _make_daemon(games: Path) -> tuple[Any, Any]:
    from boardctl.daemon import Daemon
    from boardctl.hw.sim import SimBoard
    from boardctl.session import Session, Settings

    session = Session(Settings(mode="record"))
    board = SimBoard(session.physical_occupancy(), clock=lambda: session.t)
    daemon = Daemon(session, store=GameStore(games), board=board, virtual_board=True, virtual_time=True)
    daemon.direct = True
    board.start(daemon.feed)
    return daemon, board


def _play(daemon: Any, uci: str) -> dict[str, Any]:
    from test_daemon_support import move_events

    t = daemon.session.t
    for square, occupied in move_events(daemon.session.board, chess.Move.from_uci(uci)):
        t += 0.1
        daemon.inject(SquareChanged(t, chess.parse_square(square), occupied))
    line: dict[str, Any] = daemon.inject(Tick(t + 0.5))
    return line


CORNERS = {"a1", "h1", "a8", "h8"}


@pytest.mark.parametrize(("code", "why"), FAILURES)
def test_daemon_keeps_the_game_warns_and_saves_once_the_disk_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, code: int, why: str
) -> None:
    import asyncio

    games = tmp_path / "games"
    games.mkdir()
    disk = Disk(monkeypatch, games, code)
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]

    async def scenario() -> None:
        daemon, board = _make_daemon(games)
        queue = daemon.subscribe()
        _play(daemon, moves[0])
        disk.failing = True
        for uci in moves[1:4]:
            line = _play(daemon, uci)
            assert line["warning"].startswith("storage: ") and why in line["warning"], line["warning"]
            assert {led["square"] for led in line["leds"] if led["why"] == "storage"} >= CORNERS
            assert {chess.square_name(i.square) for i in board.intents if i.why == "storage"} == CORNERS
        assert daemon.state()["moves"] == moves[:4]  # kept in memory
        assert board.tones.count("storage") == 1  # one beep when it starts, not one per move
        assert queue.qsize() > 0 and daemon.state()["warning"].startswith("storage:")
        store = GameStore(games)
        assert store.load(daemon.session.record.id).moves == moves[:1]
        for jsonl in games.glob("*.jsonl"):
            _lines_parse(jsonl)
        disk.failing = False
        line = _play(daemon, moves[4])
        assert line["warning"] is None or not line["warning"].startswith("storage")
        assert not [i for i in board.intents if i.why == "storage"]
        assert store.load(daemon.session.record.id).moves == moves
        await daemon.close()
        list(_consistent(store))
        replayed = read_events(next(games.glob("*.jsonl")).read_text().splitlines(keepends=True))
        assert sum(isinstance(e, SquareChanged) for e in replayed) >= 2 * len(moves)

    with caplog.at_level("WARNING"):
        asyncio.run(scenario())
    assert "Traceback" not in caplog.text
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "cannot save the game" in errors[0].getMessage() and not errors[0].exc_info
    assert "saving works again" in caplog.text


def test_daemon_retries_on_a_timer_and_says_so_at_close_if_still_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import asyncio

    from boardctl import saving

    monkeypatch.setattr(saving, "STORAGE_RETRY_INTERVAL", 0.05)
    games = tmp_path / "games"
    games.mkdir()
    disk = Disk(monkeypatch, games, errno.ENOSPC)

    async def scenario() -> None:
        daemon, _board = _make_daemon(games)
        queue = daemon.subscribe()
        disk.failing = True
        _play(daemon, "d2d4")
        assert daemon.storage_error is not None
        disk.failing = False
        for _ in range(100):  # no more input: the timer saves it
            await asyncio.sleep(0.02)
            if daemon.storage_error is None:
                break
        assert daemon.storage_error is None
        reasons = [queue.get_nowait().get("reason") for _ in range(queue.qsize())]
        assert reasons[-1] == "storage" and not daemon.state()["warning"]
        assert GameStore(games).load(daemon.session.record.id).moves == ["d2d4"]
        disk.failing = True
        _play(daemon, "d7d5")
        with pytest.raises(StorageError, match="could not be saved"):
            await daemon.close()

    with caplog.at_level("WARNING"):
        asyncio.run(scenario())
    assert "could NOT be saved" in caplog.text and "1. d4 d5" in caplog.text
