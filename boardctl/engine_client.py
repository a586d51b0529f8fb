"""The engine as an asyncio UCI subprocess: never blocks the loop, and comes back after a crash.

Levels map to standard UCI options only (``UCI_LimitStrength``/``UCI_Elo``, ``Skill Level``),
clamped to what the engine advertises, so any UCI engine (our numba one, Stockfish) works alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import shlex
import shutil
import sys
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import chess
import chess.engine

from boardctl.config import check_level
from boardctl.core.rules import GameBoard, Move
from boardctl.errors import EngineError
from engine.levels import LEVELS, Level, skill_for_elo

log = logging.getLogger(__name__)

#: Centipawns standing for a mate: a mate in n moves scores MATE_SCORE - n (python-chess's mate_score).
MATE_SCORE = 10000

OptionValue = str | int | bool
T = TypeVar("T")

#: Seconds a cancelled search may take to send its ``bestmove`` before the engine is restarted.
SETTLE_TIMEOUT = 10.0


def _clamp(value: int, option: chess.engine.Option) -> int:
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


def uci_options(level: str, options: Mapping[str, chess.engine.Option]) -> dict[str, OptionValue]:
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


@dataclass(frozen=True)
class Reply:
    move: Move
    #: Evaluation after the move from the mover's point of view, in centipawns (mate ~ +-10000).
    score: int | None
    #: The engine's principal variation from the position it was asked about, the line its score
    #: belongs to; at a reduced level ``move`` may be another move. Empty when it sent none (a book
    #: move, an engine without ``pv``).
    pv: tuple[Move, ...] = ()
    #: The move came from the engine's opening book (our engine says ``info string book move …``).
    book: bool = False


def reply_from_info(board: chess.Board, move: chess.Move, info: Mapping[str, object]) -> Reply:
    """A :class:`Reply` from python-chess's info dict of the search that chose ``move`` in ``board``."""
    score = info.get("score")
    cp = score.pov(board.turn).score(mate_score=MATE_SCORE) if isinstance(score, chess.engine.PovScore) else None
    raw_pv = info.get("pv")
    pv = tuple(m for m in raw_pv if isinstance(m, chess.Move)) if isinstance(raw_pv, list) else ()
    text = info.get("string")
    book = isinstance(text, str) and text.startswith("book move") and score is None
    return Reply(move, cp, pv, book)


def _chess_board(board: GameBoard) -> chess.Board:
    """The python-chess board the UCI transport needs (the chess game's board is one)."""
    if not isinstance(board, chess.Board):
        raise EngineError(f"this engine client speaks UCI for chess only, not {board.geometry.name}")
    return board


class EngineClient:
    """One engine process; every request re-sends the whole position, so a restart loses nothing."""

    def __init__(
        self,
        command: list[str],
        *,
        level: str = "intermediate",
        movetime: float = 1.0,
        max_restarts: int = 3,
    ) -> None:
        self.command = command
        self.level = level
        self.movetime = movetime
        self.max_restarts = max_restarts
        self.name = Path(command[0]).name if command else "engine"
        self.restarts = 0
        self._engine: chess.engine.UciProtocol | None = None
        self._transport: asyncio.SubprocessTransport | None = None
        self._lock = asyncio.Lock()
        self._started = False

    async def start(self) -> None:
        try:
            # Its own process group: a Ctrl-C at the terminal stops the daemon, which then quits the
            # engine itself, instead of interrupting the engine in the middle of a search.
            self._transport, self._engine = await chess.engine.popen_uci(self.command, setpgrp=True)
        except (OSError, chess.engine.EngineError, chess.engine.EngineTerminatedError) as exc:
            raise EngineError(f"cannot start engine {shlex.join(self.command)}: {exc}") from None
        self._started = True
        self.name = self._engine.id.get("name", self.name)
        options = uci_options(self.level, self._engine.options)
        try:
            if options:
                await self._engine.configure(options)
            await self._engine.ping()  # ready means ready: its tables and caches are loaded
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError) as exc:
            raise EngineError(f"engine {shlex.join(self.command)} failed while starting: {exc}") from None
        log.info("engine %s ready (pid %s, options %s)", self.name, self.pid, options)

    async def set_level(self, level: str) -> None:
        """Change the strength (a new game chose another level); applied now if the engine runs."""
        check_level(level)
        self.level = level
        async with self._lock:
            if self._engine is not None and self.is_alive():
                options = uci_options(level, self._engine.options)
                if options:
                    await self._exclusive(self._engine.configure(options))

    @property
    def pid(self) -> int | None:
        return self._transport.get_pid() if self._transport is not None else None

    def is_alive(self) -> bool:
        return self._engine is not None and not self._engine.returncode.done()

    async def _restart(self) -> None:
        await self._shutdown()
        self.restarts += 1
        log.warning("engine %s died; restarting (restart %d)", self.name, self.restarts)
        await self.start()

    async def _request(self, board: chess.Board, movetime: float) -> Reply:
        async with self._lock:
            return await self._exclusive(self._attempts(board, movetime))

    async def _exclusive(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` (engine commands) to completion, or if the caller is cancelled, cancel it
        and keep the lock until the engine has finished the cancelled command.

        python-chess starts the next command as soon as the last one's result is cancelled, not
        when the engine has sent its ``bestmove``; three requests cancelled 1-5 ms apart then
        trip its ``AssertionError: CommandState.NEW`` and a request is lost. So a cancelled
        command is followed by a ``ping`` (``isready``), which python-chess starts only once the
        cancelled command is done, all before the lock is given up.
        """
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
        engine = self._engine
        if engine is None or not self.is_alive():
            return
        try:
            await asyncio.wait_for(engine.ping(), timeout=SETTLE_TIMEOUT)
        except (TimeoutError, chess.engine.EngineError, chess.engine.EngineTerminatedError, AssertionError) as exc:
            log.warning("engine %s did not settle after a cancelled request (%s); restarting it", self.name, exc)
            await self._shutdown()

    async def _attempts(self, board: chess.Board, movetime: float) -> Reply:
        """The move, retried on a fresh process after any failure, up to ``max_restarts`` times."""
        failures = 0
        while True:
            try:
                if not self.is_alive():
                    await (self._restart() if self._started else self.start())
                assert self._engine is not None
                result = await self._engine.play(
                    board, chess.engine.Limit(time=movetime), info=chess.engine.INFO_SCORE | chess.engine.INFO_PV
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # python-chess's own assertions too: restart, never lose the request
                failures += 1
                if failures > self.max_restarts:
                    raise EngineError(f"engine {self.name} failed {failures} times in a row: {exc}") from None
                log.warning("engine request failed (%s: %s); retrying", type(exc).__name__, exc)
                if self._engine is not None and self.is_alive():
                    await self._shutdown()
                continue
            if result.move is None:
                raise EngineError(f"engine {self.name} gave no move in {board.fen()}")
            # The score is for the position before the move, from the mover's side.
            return reply_from_info(board, result.move, result.info)

    async def play(self, board: GameBoard, *, budget: float | None = None) -> Reply:
        """The engine's move in ``board`` (its own turn), at its level; ``budget`` (seconds, from
        its clock) shortens the thinking time when the clock runs low."""
        movetime = self.movetime if budget is None else max(0.01, min(self.movetime, budget))
        return await self._request(_chess_board(board), movetime)

    async def hint(self, board: GameBoard) -> Reply:
        """A suggested move for the side to move (same search, the human asked)."""
        return await self._request(_chess_board(board), self.movetime)

    async def _shutdown(self) -> None:
        engine, transport = self._engine, self._transport
        self._engine = self._transport = None
        if engine is not None and not engine.returncode.done():
            with contextlib.suppress(TimeoutError, chess.engine.EngineError, chess.engine.EngineTerminatedError):
                await asyncio.wait_for(engine.quit(), timeout=2.0)
        if transport is not None:
            transport.close()

    async def close(self) -> None:
        await self._shutdown()

    async def __aenter__(self) -> EngineClient:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
