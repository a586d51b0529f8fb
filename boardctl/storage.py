"""Saved games: one PGN, one state file and one raw event log per game, written so a power cut loses nothing.

Files in the games directory, per game id (its UTC start time, e.g. ``20261129-150102-123456``):

- ``<id>.pgn``: the game (Seven Tag Roster, TimeControl, ECO/Opening, FEN, ``[%clk]``, a standard
  Termination with the detailed reason as a comment after the last move, rule violations as comments);
- ``<id>.json``: the state file (settings, moves, clocks, violations, result) that ``play``/``record`` resume from;
- ``<id>.jsonl``: every sensed event in game orientation (docs/events.md), for ``boardctl replay``.

PGN and state are rewritten whole after every move: temporary file, fsync, rename, fsync of the directory.
The event log only ever gains whole lines: a write that fails part-way (a full disk) is cut back
to where it started, and a last line left without its newline (a crash, an older version) is cut
off when the log is opened again. :meth:`GameStore.repair` runs at start: it removes temporary
files a crash left behind, cuts partial last lines off the logs, and rewrites any PGN that lags its
state file (the state file is written first, so a crash between the two leaves the PGN behind).
Every failure to write is an :class:`StorageError` (an ``OSError`` with the errno of the cause);
what to do about it (keep the game in memory, warn, retry) is the daemon's business.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from boardctl import openings
from boardctl.clock import TimeControl
from boardctl.core.geometry import CHESS_8X8, Geometry
from boardctl.core.rules import GameBoard, GameText, Variant
from boardctl.errors import GameFileError
from boardctl.events import Event, GameHeader, format_event
from boardctl.variants import get_variant

log = logging.getLogger(__name__)

STATE_VERSION = 1


@dataclass
class Violation:
    ply: int  # the number of moves made when it happened
    code: str
    color: str
    detail: str


#: Violation codes written into the PGN as comments: breaches of the rules (an illegal move, touch-move,
#: rook before king). The state file keeps every violation, set-up and mismatch ones included.
PGN_VIOLATIONS = frozenset({"illegal-move", "touch-move", "castling-rook-first"})

#: An unfinished game replaced by a new one (--new, the page's New game, the new-game button).
ABANDONED = "abandoned"
#: JSON files in the games folder that are not games: the network games' tickets
#: (boardctl.network.tokens.TicketStore), never to be read or repaired as game state files.
NOT_GAMES = frozenset({"network-host", "network-join"})


def pgn_termination(result: str, detail: str) -> str:
    """The PGN standard's Termination value for a detailed reason (the state line keeps the detail):
    ``normal`` (mate, stalemate, resignation, agreed or claimed draws), ``time forfeit``,
    ``rules infraction`` (the arbiter's forfeit for a second illegal move), ``abandoned`` or
    ``unterminated`` (still being played)."""
    if detail == ABANDONED:
        return "abandoned"
    if result == "*":
        return "unterminated"
    if "on time" in detail or "out of time" in detail:
        return "time forfeit"
    if "forfeit" in detail or "illegal" in detail:
        return "rules infraction"
    return "normal"


@dataclass
class GameRecord:
    """Everything needed to write the PGN and to resume; JSON round-trips through :meth:`to_json`."""

    id: str
    mode: str  # "play" or "record"
    white: str
    black: str
    fen: str = field(default_factory=lambda: get_variant("chess").starting_fen)  # the position the game started from
    moves: list[str] = field(default_factory=list)  # UCI
    clocks: list[float | None] = field(default_factory=list)  # mover's time left after each move
    violations: list[Violation] = field(default_factory=list)
    result: str = "*"
    termination: str = ""
    human: str | None = None  # "white"/"black" in play
    level: str | None = None
    orientation: str = "normal"  # "normal" or "flipped" (decided), or "auto" (not yet)
    time_control: str = ""
    clock: dict[str, Any] | None = None  # Clock.to_json at the last save
    pending: str | None = None  # the engine's move shown on the LEDs but not yet made (UCI)
    started: str = field(default_factory=lambda: dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    variant: str = "chess"  # boardctl.variants.NAMES
    #: The coach's review (boardctl.learning.coach): {"ply": 1-based, "nag": 2 or 4, "comment": text}.
    review: list[dict[str, Any]] = field(default_factory=list)

    @staticmethod
    def new_id() -> str:
        """The UTC start time to the microsecond: unique, and sorting ids sorts games by age."""
        return dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S-%f")

    def rules(self) -> Variant:
        return get_variant(self.variant)

    def board(self) -> GameBoard:
        board = self.rules().board(self.fen)
        for uci in self.moves:
            board.push(board.parse_uci(uci))
        return board

    def is_finished(self) -> bool:
        """Decided, or abandoned for a new game: either way not resumed."""
        return self.result != "*" or self.termination == ABANDONED

    def to_json(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, **asdict(self)}

    @classmethod
    def from_json(cls, data: Any, *, where: str) -> GameRecord:
        try:
            if data.get("version") != STATE_VERSION:
                raise ValueError(f"unsupported version {data.get('version')!r}")
            fields = {k: v for k, v in data.items() if k != "version"}
            fields["violations"] = [Violation(**v) for v in fields.get("violations", [])]
            record = cls(**fields)
            record.board()  # every move must be legal
        except (AttributeError, TypeError, ValueError, KeyError) as exc:
            raise GameFileError(f"{where}: not a valid game state file ({exc})") from None
        return record

    def to_pgn(self) -> PgnGame:
        names = self.rules().color_names
        headers = {
            "Event": "Casual game" if self.mode == "play" else "Over-the-board game",
            "Site": "boardctl",
            "Date": self.started[:10].replace("-", "."),
            "Round": "-",
            names[0].capitalize(): self.white,
            names[1].capitalize(): self.black,
            "Result": self.result,
        }
        tc = TimeControl.from_string(self.time_control)
        headers["TimeControl"] = tc.pgn() if tc else "-"
        opening = openings.classify(self.board())
        if opening is not None:
            if opening.eco:  # xiangqi's openings have no code
                headers["ECO"] = opening.eco
            headers["Opening"] = opening.name
        headers["Termination"] = pgn_termination(self.result, self.termination)
        notes: dict[int, list[str]] = {}
        for v in self.violations:
            if v.code in PGN_VIOLATIONS:  # rule breaches only: set-up, mismatch and takeback noise stays out
                notes.setdefault(v.ply, []).append(f"{v.color} {v.code}: {v.detail}")
        nags: dict[int, tuple[int, ...]] = {}
        for note in self.review:  # the coach's three worst moves: "?"/"??" and the better move
            notes.setdefault(int(note["ply"]), []).append(str(note["comment"]))
            nags[int(note["ply"])] = (int(note["nag"]),)
        final = ""
        if self.termination:  # the detailed reason, after the last move
            final = "abandoned for a new game" if self.termination == ABANDONED else self.termination
        text = GameText(
            fen=self.fen,
            moves=tuple(self.moves),
            headers=headers,
            comments={ply: "; ".join(texts) for ply, texts in notes.items()},
            clocks=tuple(self.clocks),
            final=final,
            nags=nags,
        )
        return PgnGame(text, self.rules())

    def pgn_text(self) -> str:
        return str(self.to_pgn()) + "\n"


@dataclass(frozen=True)
class PgnGame:
    """A game ready to be written as PGN in its game's convention (``str()`` writes it)."""

    text: GameText
    variant: Variant

    @property
    def headers(self) -> dict[str, str]:
        return self.text.headers

    def __str__(self) -> str:
        write = self.variant.write_pgn
        if write is None:
            raise GameFileError(f"no PGN writer for {self.variant.name}")
        return write(self.text)


class StorageError(GameFileError):
    """Saving failed (full or read-only disk, no permission, an I/O error); ``errno`` is the cause's."""

    def __init__(self, message: str, *, cause: OSError | None = None) -> None:
        super().__init__(cause.errno if cause is not None else errno.EIO, message)
        self.message = message
        #: The cause in a few words ("No space left on device"), for a short warning.
        self.reason = _reason(cause) if cause is not None else message

    def __str__(self) -> str:
        return self.message


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a short write is not an error by itself)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.EIO, "write wrote nothing")
        view = view[written:]


def _fsync_dir(folder: Path) -> None:
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


#: Temporary files are named ``.<target name>.<random>.tmp`` (what :meth:`GameStore.repair` removes).
TMP_SUFFIX = ".tmp"


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a crash leaves either the old or the new file."""
    data = text.encode("utf-8")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


class EventLog:
    """Appends events to ``<id>.jsonl``; times are shifted so they never decrease across restarts.

    Only whole lines are ever left in the file: a failed write is truncated back, and a partial
    last line found on opening is cut off (with a warning). Opening the file waits for the first
    write, so a log can be made while the disk is failing.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        #: Square names are written on the board of the game the log's header line names.
        self.geometry: Geometry = CHESS_8X8
        self._last = self._scan(path)
        self._offset: float | None = None
        self._fd: int | None = None

    def _scan(self, path: Path) -> float:
        """The last time in an existing log, and its game (from its header line)."""
        last = 0.0
        with contextlib.suppress(OSError), path.open("rb") as f:
            for line in f:
                with contextlib.suppress(ValueError, TypeError, AttributeError, RecursionError, KeyError):
                    obj = json.loads(line)
                    last = max(last, float(obj["t"]))
                    if isinstance(obj.get("header"), dict):
                        self._follow(obj["header"])
        return last

    def _follow(self, header: dict[str, Any]) -> None:
        settings = header.get("settings")
        name = settings.get("variant", "chess") if isinstance(settings, dict) else "chess"
        with contextlib.suppress(ValueError):
            self.geometry = get_variant(str(name)).geometry

    def _open(self) -> int:
        if self._fd is None:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                cut_partial_line(self.path, fd=fd)
            except OSError:
                os.close(fd)
                raise
            self._fd = fd
        return self._fd

    def append(self, event: Event) -> None:
        self.extend([event])

    def extend(self, events: list[Event]) -> None:
        """Append whole lines, or nothing: on failure the file is cut back and the error raised."""
        if not events:
            return
        if self._offset is None:
            self._offset = max(0.0, self._last - events[0].t)
        lines = []
        for e in events:
            if isinstance(e, GameHeader):
                self._follow(e.game)
            lines.append(format_event(replace(e, t=e.t + self._offset), self.geometry) + "\n")
        data = "".join(lines).encode("utf-8")
        try:
            fd = self._open()
            size = os.fstat(fd).st_size
        except OSError as exc:
            raise StorageError(f"cannot open the event log {self.path}: {_reason(exc)}", cause=exc) from None
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise StorageError(f"cannot write the event log {self.path}: {_reason(exc)}", cause=exc) from None

    def close(self) -> None:
        """Safe to call twice."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def cut_partial_line(path: Path, *, fd: int | None = None) -> int:
    """Cut a last line that has no newline (a write cut short) off ``path``; returns the bytes cut."""
    own = fd is None
    if fd is None:
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            return 0
    try:
        size = os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return 0
        end, pos = 0, size
        while pos > 0 and not end:
            start = max(0, pos - 65536)
            chunk = os.pread(fd, pos - start, start)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                end = start + newline + 1
            pos = start
        os.ftruncate(fd, end)
        os.fsync(fd)
        log.warning("%s: cut off a partial last line (%d bytes) left by a crash or a full disk", path, size - end)
        return size - end
    finally:
        if own:
            os.close(fd)


def folder_problem(root: Path) -> OSError | None:
    """Why ``root`` cannot be a folder, named (its ``strerror`` completes "the games folder is ..."):
    a file, a symbolic link loop, a link to nothing, a path through a file; None when it is a
    folder or can be made one."""
    try:
        if root.is_dir():
            return None
        if root.is_symlink():
            try:
                root.resolve(strict=True)
            except RuntimeError:  # Python before 3.13 says a loop this way
                return OSError(errno.ELOOP, "a symbolic link loop, not a folder")
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    return OSError(errno.ELOOP, "a symbolic link loop, not a folder")
                return OSError(errno.ENOENT, f"a symbolic link to {os.readlink(root)}, which does not exist")
        if root.exists():
            return OSError(errno.ENOTDIR, "a file, not a folder")
        for parent in root.parents:
            if parent.exists() and not parent.is_dir():
                return OSError(errno.ENOTDIR, f"inside {parent}, which is a file, not a folder")
    except OSError:
        return None  # nothing more to say than mkdir's own error
    return None


class GameStore:
    """The games directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def ensure(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            problem = folder_problem(self.root)
            if problem is not None:  # named, not "File exists"
                raise StorageError(f"games folder {self.root} is {problem.strerror}", cause=problem) from None
            raise StorageError(f"cannot create games folder {self.root}: {_reason(exc)}", cause=exc) from None

    def check(self) -> None:
        """Make sure games can be saved here (the folder exists or can be made, and takes a file);
        raises :class:`StorageError` saying what is wrong."""
        problem = folder_problem(self.root)
        if problem is not None:
            raise StorageError(f"games folder {self.root} is {problem.strerror}", cause=problem)
        self.ensure()
        try:
            fd, probe = tempfile.mkstemp(dir=self.root, prefix=".boardctl-probe.", suffix=TMP_SUFFIX)
            try:
                try:
                    _write_all(fd, b"boardctl checks it can save games here\n")
                    os.fsync(fd)
                finally:
                    os.close(fd)
            finally:
                os.unlink(probe)
        except OSError as exc:
            raise StorageError(f"games folder {self.root} is not writable: {_reason(exc)}", cause=exc) from None

    def path(self, game_id: str, suffix: str) -> Path:
        return self.root / f"{game_id}{suffix}"

    def save(self, record: GameRecord) -> None:
        """Write the state file, then the PGN (the state file is what resume trusts)."""
        self.ensure()
        try:
            write_atomically(self.path(record.id, ".json"), json.dumps(record.to_json(), indent=1) + "\n")
            write_atomically(self.path(record.id, ".pgn"), record.pgn_text())
        except OSError as exc:
            raise StorageError(f"cannot save game {record.id} in {self.root}: {_reason(exc)}", cause=exc) from None

    def repair(self, *, recent: int = 20) -> list[str]:
        """After a crash: remove leftover temporary files, cut partial lines off the event logs, and
        rewrite PGNs that lag their state file. Returns what was done, one note per fix.

        A PGN is compared with its state file by content for the ``recent`` newest games (and
        every unfinished one), and by modification time for the rest, to keep starting fast.
        """
        notes: list[str] = []
        if not self.root.is_dir():
            return notes
        for tmp in self.root.glob(f".*{TMP_SUFFIX}"):
            with contextlib.suppress(OSError):
                tmp.unlink()
                notes.append(f"removed {tmp.name}")
        ids = self.ids()
        for index, game_id in enumerate(ids):
            with contextlib.suppress(OSError):
                if cut_partial_line(self.path(game_id, ".jsonl")):
                    notes.append(f"cut a partial line off {game_id}.jsonl")
            state, pgn = self.path(game_id, ".json"), self.path(game_id, ".pgn")
            try:
                state_time = state.stat().st_mtime_ns
                pgn_time = pgn.stat().st_mtime_ns if pgn.exists() else -1
                if index < len(ids) - recent and pgn_time >= state_time:
                    continue
                record = self.load(game_id)
                text = record.pgn_text()
                if pgn_time < 0 or pgn.read_text(encoding="utf-8", errors="replace") != text:
                    write_atomically(pgn, text)
                    notes.append(f"rewrote {pgn.name} from {state.name}")
            except (OSError, ValueError) as exc:
                log.warning("cannot check %s: %s", pgn, exc)
        for note in notes:
            log.warning("games folder %s: %s (after a crash)", self.root, note)
        return notes

    def load(self, game_id: str) -> GameRecord:
        """The game's state file; a damaged one is rebuilt from the game's event log (the source
        of truth) and saved again, the damaged file kept as ``<id>.json.damaged``."""
        path = self.path(game_id, ".json")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise GameFileError(f"no game {game_id!r} in {self.root}") from None
        except (OSError, ValueError) as exc:
            return self._rebuild(game_id, f"cannot read ({exc})")
        try:
            return GameRecord.from_json(data, where=str(path))
        except GameFileError as exc:
            return self._rebuild(game_id, str(exc).removeprefix(f"{path}: "))

    def _rebuild(self, game_id: str, damage: str) -> GameRecord:
        """The game ``game_id`` rebuilt from its ``.jsonl`` when its state file is damaged
        (``damage`` says how); GameFileError naming the command that shows what the log holds
        when it cannot be."""
        from boardctl.replay import rebuild_record  # replay runs the session, which saves here

        state, events = self.path(game_id, ".json"), self.path(game_id, ".jsonl")
        if not events.is_file():
            raise GameFileError(f"{state}: {damage}; no event log {events.name} to rebuild it from")
        try:
            record = rebuild_record(events, game_id)
        except GameFileError as exc:
            raise GameFileError(f"{state} is damaged ({damage}) and its log cannot rebuild it ({exc}); "
                                f"to recover what the log holds: boardctl replay {events}") from None
        try:  # a copy of the damaged file is kept; the state file is replaced only by a good one
            shutil.copyfile(state, state.with_name(state.name + ".damaged"))
            self.save(record)
        except (OSError, StorageError) as exc:
            log.warning("cannot save %s rebuilt from %s: %s", state.name, events.name, exc)
        log.warning("%s was damaged (%s); rebuilt from %s: %d moves, result %s", state, damage, events.name,
                    len(record.moves), record.result)
        return record

    def ids(self) -> list[str]:
        """Game ids, oldest first (ids start with the UTC start time); the folder's other JSON
        files (:data:`NOT_GAMES`) are not games."""
        if not self.root.is_dir():
            return []
        names = (p.name.removesuffix(".json") for p in self.root.glob("*.json"))
        return sorted(name for name in names if name not in NOT_GAMES)

    def records(self) -> Iterator[GameRecord]:
        for game_id in self.ids():
            try:
                yield self.load(game_id)
            except GameFileError as exc:
                log.warning("skipping %s", exc)

    def unfinished(self, mode: str, *, variant: str | None = None) -> GameRecord | None:
        """The newest unfinished game of ``mode`` (what play/record resume), of ``variant`` when given."""
        for game_id in reversed(self.ids()):
            try:
                record = self.load(game_id)
            except GameFileError as exc:
                log.warning("cannot resume: %s", exc)
                continue
            if record.mode == mode and not record.is_finished() and variant in (None, record.variant):
                return record
        return None

    def event_log(self, game_id: str) -> EventLog:
        self.ensure()
        return EventLog(self.path(game_id, ".jsonl"))
