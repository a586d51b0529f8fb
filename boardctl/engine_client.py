"""The engine as an asyncio UCI subprocess: never blocks the loop, and comes back after a crash.

Levels map to standard UCI options only (``UCI_LimitStrength``/``UCI_Elo``, ``Skill Level``),
clamped to what the engine advertises, so any UCI engine (our numba one, Stockfish) works alike.

The UCI conversation is our own (a few lines: ``uci``, ``setoption``, ``isready``, ``position fen
... moves ...``, ``go movetime``, ``stop``), so it speaks any game the core's boards describe: the
moves go out and come back in the engine's coordinates and are read by the game's own board, and a
game other than chess is chosen with the standard ``UCI_Variant`` option (``xiangqi``).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import re
import shlex
import shutil
import sys
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from boardctl.config import check_level
from boardctl.core.rules import GameBoard, Move
from boardctl.errors import EngineError
from boardctl.levels import LEVELS, Level, skill_for_elo
from boardctl.reply import MATE_SCORE as MATE_SCORE  # re-exported: the UCI convention
from boardctl.reply import Reply as Reply  # re-exported for the engine's callers

log = logging.getLogger(__name__)

OptionValue = str | int | bool
T = TypeVar("T")

#: Seconds a cancelled search may take to send its ``bestmove`` before the engine is restarted.
SETTLE_TIMEOUT = 10.0


#: Seconds an engine may take to answer ``uci`` or ``isready`` (a first start compiles and loads).
START_TIMEOUT = 120.0
#: Seconds beyond the move time a search may take before the engine is thought hung.
SEARCH_GRACE = 30.0


@dataclass(frozen=True)
class Option:
    """One ``option name ... type ...`` line of the engine's ``uci`` answer."""

    name: str
    type: str
    default: str | int | bool | None
    min: int | None
    max: int | None
    var: tuple[str, ...]


def parse_option(line: str) -> Option | None:
    """An ``option`` line (``option name Skill Level type spin default 20 min 0 max 20``), or None."""
    words = line.split()
    if len(words) < 4 or words[:2] != ["option", "name"] or "type" not in words[3:]:
        return None
    at = words.index("type", 3)
    fields: dict[str, str] = {}
    var: list[str] = []
    key: str | None = None
    value: list[str] = []

    def flush() -> None:
        if key == "var":
            var.append(" ".join(value))
        elif key is not None:
            fields[key] = " ".join(value)

    for word in words[at:]:
        if word in ("type", "default", "min", "max", "var"):
            flush()
            key, value = word, []
        else:
            value.append(word)
    flush()
    kind = fields.get("type", "")
    text = fields.get("default")
    default: str | int | bool | None = text
    if kind == "spin" and text is not None and text.lstrip("-").isdigit():
        default = int(text)
    elif kind == "check":
        default = text == "true"

    def number(name: str) -> int | None:
        text = fields.get(name, "")
        return int(text) if text.lstrip("-").isdigit() else None

    return Option(" ".join(words[2:at]), kind, default, number("min"), number("max"), tuple(var))


def _clamp(value: int, option: Option) -> int:
    low = option.min if option.min is not None else value
    high = option.max if option.max is not None else value
    return max(low, min(high, value))


def level_of(level: str) -> Level:
    """The named level from ``engine.levels`` (the one table, with the Elo each aims at), or one
    made for an Elo number."""
    check_level(level)
    if level in LEVELS:
        return LEVELS[level]
    return Level(level, int(level), skill_for_elo(int(level)))


def uci_options(level: str, options: Mapping[str, Option]) -> dict[str, OptionValue]:
    """UCI options that set ``level`` on an engine advertising ``options``.

    ``UCI_Elo`` when the engine's range covers the level's Elo, else ``Skill Level`` (our
    engine's scale); an engine with only one of the two gets that one, clamped to its range.
    """
    target = level_of(level)
    elo = options.get("UCI_Elo")
    has_elo = elo is not None and "UCI_LimitStrength" in options
    skill = options.get("Skill Level")
    elo_range = (elo.min, elo.max) if has_elo and elo is not None and elo.min is not None and elo.max is not None else None
    wanted = target.uci_options(elo_range=elo_range)
    if "UCI_Elo" in wanted or skill is not None:
        result: dict[str, OptionValue] = {k: v for k, v in wanted.items() if k in options}
        if skill is not None and "Skill Level" in result:
            result["Skill Level"] = _clamp(int(result["Skill Level"]), skill)
        return result
    if has_elo and elo is not None:  # no Skill Level: the nearest Elo the engine offers
        return {"UCI_LimitStrength": True, "UCI_Elo": _clamp(target.elo, elo)}
    log.warning("engine has neither UCI_Elo nor Skill Level; level %s plays at full strength", level)
    return {}


def resolve_command(path: str) -> list[str]:
    """The engine command line: ``path`` (split like a shell), else the bundled engine.

    Falls back to Stockfish, with a warning, where the bundled engine is not installed.
    """
    if path:
        return shlex.split(path)
    beside = Path(sys.executable).parent / "boardctl-engine"
    spec = importlib.util.find_spec("engine")
    bundled = spec is not None and any(
        (Path(p) / "uci.py").exists() or (Path(p) / "__main__.py").exists()
        for p in (spec.submodule_search_locations or [])
    )
    if bundled:
        return [str(beside)] if beside.exists() else [sys.executable, "-m", "engine"]
    for name in ("stockfish", "/usr/games/stockfish"):
        found = shutil.which(name)
        if found:
            log.warning("bundled engine not installed; using %s", found)
            return [found]
    raise EngineErrorNotFound("no engine: the bundled engine is not installed and no stockfish on PATH; give engine.path")


class EngineErrorNotFound(EngineError):
    """No engine executable could be found."""


def parse_info(line: str) -> dict[str, object]:
    """The parts of an ``info`` line we use: ``score`` (centipawns, mate as +-``MATE_SCORE``, from
    the side to move), ``pv`` (UCI strings), ``multipv`` and ``string`` (the rest of the line)."""
    words = line.split()
    out: dict[str, object] = {}
    i = 1
    while i < len(words):
        word = words[i]
        if word == "string":
            out["string"] = " ".join(words[i + 1 :])
            break
        if word == "score":
            kind = words[i + 1] if i + 1 < len(words) else ""
            value = words[i + 2] if i + 2 < len(words) else ""
            if kind in ("cp", "mate") and value.lstrip("-").isdigit():
                n = int(value)
                out["score"] = n if kind == "cp" else (MATE_SCORE - n if n > 0 else -MATE_SCORE - n)
            i += 3
            while i < len(words) and words[i] in ("lowerbound", "upperbound"):
                i += 1
            continue
        if word == "pv":
            pv = []
            i += 1
            while i < len(words) and words[i] not in _INFO_KEYS:
                pv.append(words[i])
                i += 1
            out["pv"] = pv
            continue
        if word == "multipv" and i + 1 < len(words) and words[i + 1].isdigit():
            out["multipv"] = int(words[i + 1])
            i += 2
            continue
        i += 1
    return out


_INFO_KEYS = frozenset(
    ["depth", "seldepth", "time", "nodes", "pv", "multipv", "score", "currmove", "currmovenumber", "hashfull", "nps", "tbhits", "sbhits", "cpuload", "string", "refutation", "currline"]
)


_COORDINATE_MOVE = re.compile(r"([a-z])(\d+)([a-z])(\d+)(.*)")


def shift_ranks(text: str, by: int) -> str:
    """A coordinate move with both rank numbers moved by ``by``; other text as it is.

    Fairy-Stockfish numbers xiangqi's ranks 1-10 where UCCI, Pikafish and we say 0-9."""
    match = _COORDINATE_MOVE.fullmatch(text)
    if match is None:
        return text
    a, r1, b, r2, rest = match.groups()
    return f"{a}{int(r1) + by}{b}{int(r2) + by}{rest}"


def counts_ranks_from_one(engine_name: str, game: str) -> bool:
    """Whether the engine writes ``game``'s moves with ranks from 1 (Fairy-Stockfish's xiangqi)."""
    return game == "xiangqi" and engine_name.lower().startswith("fairy-stockfish")


def reply_from_info(board: GameBoard, move: Move, info: Mapping[str, object]) -> Reply:
    """A :class:`Reply` from the merged ``info`` of the search that chose ``move`` in ``board``."""
    score = info.get("score")
    cp = score if isinstance(score, int) else None
    pv: list[Move] = []
    raw_pv = info.get("pv")
    if isinstance(raw_pv, list):
        probe = board.copy(stack=False)
        for text in raw_pv:
            try:
                step = probe.parse_uci(str(text))
            except ValueError:
                break  # the line as far as it is legal
            pv.append(step)
            probe.push(step)
    text = info.get("string")
    book = isinstance(text, str) and text.startswith("book move") and cp is None
    return Reply(move, cp, tuple(pv), book)


class _Died(Exception):
    """The engine's output ended (it exited or was killed)."""


class _Process:
    """One running engine: its lines in a queue, written commands logged at debug level."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            while True:
                raw = await stdout.readline()
                if not raw:
                    break
                line = raw.decode("utf-8", errors="replace").strip()
                if line:
                    log.debug("engine >> %s", line)
                    await self.lines.put(line)
        except (OSError, ValueError) as exc:  # a line longer than the stream's limit, a closed pipe
            log.warning("engine output unreadable: %s", exc)
        finally:
            await self.lines.put(None)

    def is_alive(self) -> bool:
        return self.proc.returncode is None and not self.reader.done()

    def send(self, command: str) -> None:
        stdin = self.proc.stdin
        if stdin is None or stdin.is_closing() or self.proc.returncode is not None:
            raise _Died("engine input closed")
        log.debug("engine << %s", command)
        stdin.write((command + "\n").encode("utf-8"))

    async def line(self, timeout: float | None = None) -> str:
        got = await asyncio.wait_for(self.lines.get(), timeout) if timeout is not None else await self.lines.get()
        if got is None:
            await self.lines.put(None)  # the end stays the end for every later reader
            raise _Died("engine output ended")
        return got

    async def until(self, first_word: str, timeout: float | None) -> list[str]:
        """Lines up to and including the first that starts with ``first_word``."""
        seen = []
        while True:
            line = await self.line(timeout)
            seen.append(line)
            if line.split(maxsplit=1)[0] == first_word:
                return seen

    async def close(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(_Died, OSError):
                self.send("quit")
            try:
                await asyncio.wait_for(self.proc.wait(), timeout=2.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
                await self.proc.wait()
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.reader
        transport = getattr(self.proc, "_transport", None)
        if transport is not None:
            transport.close()


class EngineClient:
    """One engine process; every request re-sends the whole position, so a restart loses nothing."""

    def __init__(
        self,
        command: list[str],
        *,
        level: str = "intermediate",
        movetime: float = 1.0,
        max_restarts: int = 3,
        options: Mapping[str, str] | None = None,
    ) -> None:
        self.command = command
        #: Options sent after the level's on every start (a character's style: play --opponent).
        self.extra_options: Mapping[str, str] = dict(options or {})
        self.level = level
        self.movetime = movetime
        self.max_restarts = max_restarts
        self.name = Path(command[0]).name if command else "engine"
        self.restarts = 0
        self.options: dict[str, Option] = {}
        self._process: _Process | None = None
        self._lock = asyncio.Lock()
        self._started = False
        self._variant = "chess"  # what UCI_Variant the running engine plays
        self._rules = "chinese"  # its XiangqiRules (our engine's default)
        self._last_root: str | None = None
        #: A node cap sent with every search besides the move time (None: none); the coach's
        #: searches use it (boardctl.learning.coach), and a node limit also skips the book.
        self.nodes: int | None = None

    async def start(self) -> None:
        try:
            # Its own process group: a Ctrl-C at the terminal stops the daemon, which then quits the
            # engine itself, instead of interrupting the engine in the middle of a search.
            proc = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=None,
                process_group=0,
                limit=1 << 20,
            )
        except (OSError, ValueError) as exc:
            raise EngineError(f"cannot start engine {shlex.join(self.command)}: {exc}") from None
        process = self._process = _Process(proc)
        self._started = True
        self._variant = "chess"
        self._rules = "chinese"
        self._last_root = None
        try:
            process.send("uci")
            options: dict[str, Option] = {}
            for line in await process.until("uciok", START_TIMEOUT):
                if line.startswith("id name "):
                    self.name = line[len("id name ") :].strip() or self.name
                option = parse_option(line)
                if option is not None:
                    options[option.name] = option
            self.options = options
            wanted = uci_options(self.level, options)
            for name, value in wanted.items():
                process.send(f"setoption name {name} value {_uci_value(value)}")
            for name, text in self.extra_options.items():
                if name in options:
                    process.send(f"setoption name {name} value {text}")
                else:
                    log.warning("engine %s has no option %r; the character plays without it", self.name, name)
            await self._ping(process)  # ready means ready: its tables and caches are loaded
        except (_Died, TimeoutError, OSError) as exc:
            await self._shutdown()
            raise EngineError(f"cannot start engine {shlex.join(self.command)}: {exc or type(exc).__name__}") from None
        log.info("engine %s ready (pid %s, options %s)", self.name, self.pid, wanted)

    @staticmethod
    async def _ping(process: _Process, timeout: float = START_TIMEOUT) -> None:
        process.send("isready")
        await process.until("readyok", timeout)

    async def set_level(self, level: str) -> None:
        """Change the strength (a new game chose another level); applied now if the engine runs."""
        check_level(level)
        self.level = level
        async with self._lock:
            process = self._process
            if process is not None and self.is_alive():
                options = uci_options(level, self.options)
                if options:
                    await self._exclusive(self._configure(process, options))

    async def set_options(self, options: Mapping[str, str]) -> None:
        """Replace the extra options (a character's style) and apply them now if the engine runs."""
        self.extra_options = dict(options)
        async with self._lock:
            process = self._process
            if process is not None and self.is_alive():
                offered = {name: value for name, value in options.items() if name in self.options}
                if offered:
                    await self._exclusive(self._configure(process, offered))

    async def _configure(self, process: _Process, options: Mapping[str, OptionValue]) -> None:
        for name, value in options.items():
            process.send(f"setoption name {name} value {_uci_value(value)}")
        await self._ping(process)

    @property
    def pid(self) -> int | None:
        return self._process.proc.pid if self._process is not None else None

    def is_alive(self) -> bool:
        return self._process is not None and self._process.is_alive()

    async def _restart(self) -> None:
        await self._shutdown()
        self.restarts += 1
        log.warning("engine %s died; restarting (restart %d)", self.name, self.restarts)
        await self.start()

    async def _request(self, board: GameBoard, movetime: float) -> Reply:
        async with self._lock:
            return await self._exclusive(self._attempts(board, movetime))

    async def _exclusive(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` (engine commands) to completion, or if the caller is cancelled, cancel it
        and keep the lock until the engine has finished the cancelled command (a search is
        stopped and its ``bestmove`` read, then ``isready`` answered), so the next request never
        reads a stale line."""
        inner = asyncio.ensure_future(work)
        try:
            return await asyncio.shield(inner)
        except asyncio.CancelledError:
            inner.cancel()
            settle = asyncio.ensure_future(self._settle(inner))
            while not settle.done():
                with contextlib.suppress(asyncio.CancelledError):  # cancelled again: still wait
                    await asyncio.shield(settle)
            raise

    async def _settle(self, cancelled: asyncio.Future[Any]) -> None:
        """Wait until the engine is idle after ``cancelled``; restart it next time if it is not."""
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await cancelled
        process = self._process
        if process is None or not self.is_alive():
            return
        try:
            await self._ping(process, SETTLE_TIMEOUT)
        except (TimeoutError, _Died, OSError) as exc:
            log.warning("engine %s did not settle after a cancelled request (%s); restarting it", self.name, exc)
            await self._shutdown()

    async def _choose_game(self, process: _Process, board: GameBoard) -> None:
        """``UCI_Variant`` for a game other than chess (and back), when the game changes; and an
        engine's ``XiangqiRules`` (ours) as the board rules repetitions (``chinese``/``asian``)."""
        rules = getattr(board, "rules", None)
        if isinstance(rules, str) and "XiangqiRules" in self.options and rules != self._rules:
            process.send(f"setoption name XiangqiRules value {rules}")
            self._rules = rules
        game = board.geometry.name
        if game == self._variant:
            return
        option = self.options.get("UCI_Variant")
        if option is None or (option.var and game not in option.var):
            raise EngineError(f"engine {self.name} does not play {game} (no UCI_Variant {game})")
        process.send(f"setoption name UCI_Variant value {game}")
        self._variant = game
        self._last_root = None
        await self._ping(process)

    async def _search(self, process: _Process, board: GameBoard, movetime: float) -> tuple[str, dict[str, object]]:
        """``bestmove`` and the merged info of one search; a cancelled search is stopped and its
        ``bestmove`` read before the cancellation goes on."""
        await self._choose_game(process, board)
        root = board.root().fen()
        if root != self._last_root:
            process.send("ucinewgame")
            self._last_root = root
        shift = 1 if counts_ranks_from_one(self.name, self._variant) else 0
        moves = " ".join(shift_ranks(move.uci(), shift) for move in board.move_stack)
        process.send(f"position fen {root}" + (f" moves {moves}" if moves else ""))
        process.send(self.go_command(movetime))
        info: dict[str, object] = {}
        try:
            while True:
                line = await process.line(movetime + SEARCH_GRACE)
                first = line.split(maxsplit=1)[0]
                if first == "info":
                    parsed = parse_info(line)
                    pv = parsed.get("pv")
                    if shift and isinstance(pv, list):
                        parsed["pv"] = [shift_ranks(str(m), -shift) for m in pv]
                    if parsed.get("multipv", 1) == 1:
                        info.update(parsed)
                elif first == "bestmove":
                    words = line.split()
                    return (shift_ranks(words[1], -shift) if len(words) > 1 else ""), info
        except asyncio.CancelledError:
            with contextlib.suppress(_Died, OSError, TimeoutError):
                process.send("stop")
                await process.until("bestmove", SETTLE_TIMEOUT)
            raise

    def go_command(self, movetime: float) -> str:
        """The ``go`` line of one search; a subclass may search by nodes instead (tournament games)."""
        nodes = f" nodes {self.nodes}" if self.nodes is not None else ""
        return f"go movetime {max(1, round(movetime * 1000))}{nodes}"

    async def _attempts(self, board: GameBoard, movetime: float) -> Reply:
        """The move, retried on a fresh process after any failure, up to ``max_restarts`` times."""
        failures = 0
        while True:
            try:
                if not self.is_alive():
                    await (self._restart() if self._started else self.start())
                process = self._process
                assert process is not None
                text, info = await self._search(process, board, movetime)
            except asyncio.CancelledError:
                raise
            except EngineError as exc:
                if "does not play" in str(exc):
                    raise
                failures += 1
                if failures > self.max_restarts:
                    raise EngineError(f"engine {self.name} failed {failures} times in a row: {exc}") from None
                log.warning("engine request failed (%s); retrying", exc)
                continue
            except Exception as exc:  # died, hung, garbled: restart, never lose the request
                failures += 1
                if failures > self.max_restarts:
                    raise EngineError(f"engine {self.name} failed {failures} times in a row: {exc or type(exc).__name__}") from None
                log.warning("engine request failed (%s: %s); retrying", type(exc).__name__, exc)
                await self._shutdown()
                continue
            if text in ("", "(none)", "0000"):
                raise EngineError(f"engine {self.name} gave no move in {board.fen()}")
            try:
                move = board.parse_uci(text)
            except ValueError:
                raise EngineError(f"engine {self.name} gave an illegal move {text!r:.20} in {board.fen()}") from None
            # The score is for the position before the move, from the mover's side.
            return reply_from_info(board, move, info)

    async def play(self, board: GameBoard, *, budget: float | None = None) -> Reply:
        """The engine's move in ``board`` (its own turn), at its level; ``budget`` (seconds, from
        its clock) shortens the thinking time when the clock runs low."""
        movetime = self.movetime if budget is None else max(0.01, min(self.movetime, budget))
        return await self._request(_own(board), movetime)

    async def hint(self, board: GameBoard) -> Reply:
        """A suggested move for the side to move (same search, the human asked)."""
        return await self._request(_own(board), self.movetime)

    async def _shutdown(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            await process.close()

    async def close(self) -> None:
        await self._shutdown()

    async def __aenter__(self) -> EngineClient:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


def _uci_value(value: OptionValue) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _own(board: GameBoard) -> GameBoard:
    """A plain python-chess ``Board`` (as callers may hand one) as the chess game's board."""
    from boardctl.tracker import game_board

    return game_board(board)
