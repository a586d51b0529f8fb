"""A UCI engine for a game python-chess does not speak (xiangqi), with no python-chess at all.

Chess goes through :class:`boardctl.engine_client.EngineClient` (python-chess's UCI driver). For
another game this client speaks the same protocol by hand: ``UCI_Variant`` names the game, the
level is set as for chess (``engine/levels.py``: ``UCI_Elo`` or ``Skill Level``), and every
request sends the whole game (``position fen <start> moves ...``) so that the engine sees the
repetitions and a restart loses nothing. A request cancelled mid-search is ended with ``stop``
and its ``bestmove`` read off before the next one; an engine that dies is restarted and asked
again, up to ``max_restarts`` times in a row.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from boardctl.core.rules import GameBoard
from boardctl.engine_client import MATE_SCORE, Reply, level_of
from boardctl.errors import EngineError

log = logging.getLogger(__name__)

#: Seconds an engine may take to answer ``uci``/``isready``: on its first run our engine compiles
#: its kernels first (about a minute; a few minutes on a Raspberry Pi).
HANDSHAKE_TIMEOUT = 900.0
#: Seconds to wait for ``bestmove`` after ``stop``.
STOP_TIMEOUT = 10.0


@dataclass
class UciOption:
    """One ``option name ... type ...`` line: enough to set levels and the game."""

    name: str
    kind: str
    min: int | None = None
    max: int | None = None
    choices: list[str] = field(default_factory=list)

    @classmethod
    def from_line(cls, line: str) -> UciOption | None:
        words = line.split()
        if len(words) < 5 or words[:2] != ["option", "name"] or "type" not in words:
            return None
        at = words.index("type")
        option = cls(" ".join(words[2:at]), words[at + 1] if at + 1 < len(words) else "")
        rest = words[at + 2:]
        for i, word in enumerate(rest[:-1]):
            if word in ("min", "max") and rest[i + 1].lstrip("-").isdigit():
                setattr(option, word, int(rest[i + 1]))
            elif word == "var":
                option.choices.append(rest[i + 1])
        return option


def parse_info(words: Sequence[str]) -> tuple[int | None, tuple[str, ...]]:
    """``(score, pv)`` of an ``info`` line: centipawns from the mover's side (a mate in n is
    ``MATE_SCORE - n``, being mated ``-(MATE_SCORE - n)``), and the line's moves."""
    score: int | None = None
    pv: tuple[str, ...] = ()
    for i, word in enumerate(words):
        if word == "score" and i + 2 < len(words):
            kind, value = words[i + 1], words[i + 2]
            with contextlib.suppress(ValueError):
                number = int(value)
                score = number if kind == "cp" else (MATE_SCORE - abs(number)) * (1 if number > 0 else -1)
        elif word == "pv":
            pv = tuple(words[i + 1:])
            break
    return score, pv


class UciEngine:
    """One engine process playing ``variant`` (the ``UCI_Variant`` value, e.g. ``xiangqi``)."""

    def __init__(
        self,
        command: list[str],
        *,
        variant: str,
        level: str = "intermediate",
        movetime: float = 1.0,
        max_restarts: int = 3,
    ) -> None:
        level_of(level)  # the one level rule
        self.command = command
        self.variant = variant
        self.level = level
        self.movetime = movetime
        self.max_restarts = max_restarts
        self.name = Path(command[0]).name if command else "engine"
        self.restarts = 0
        self.options: dict[str, UciOption] = {}
        self._proc: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()
        self._searching = False  # a "go" whose bestmove is not read yet
        self._started = False

    # -- the process --------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def is_alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    async def _send(self, line: str) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise EngineError(f"engine {self.name} is not running")
        try:
            proc.stdin.write((line + "\n").encode())
            await proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise EngineError(f"engine {self.name} stopped reading ({exc})") from None

    async def _read(self) -> list[str]:
        proc = self._proc
        if proc is None or proc.stdout is None:
            raise EngineError(f"engine {self.name} is not running")
        raw = await proc.stdout.readline()
        if not raw:
            raise EngineError(f"engine {self.name} exited")
        return raw.decode("utf-8", errors="replace").split()

    async def _until(self, token: str, *, timeout: float | None) -> list[list[str]]:
        """Every line up to and including the first that starts with ``token``."""
        lines: list[list[str]] = []

        async def read() -> None:
            while True:
                words = await self._read()
                lines.append(words)
                if words[:1] == [token]:
                    return

        try:
            await asyncio.wait_for(read(), timeout)
        except TimeoutError:
            raise EngineError(f"engine {self.name}: no {token} within {timeout:g} s") from None
        return lines

    async def start(self) -> None:
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self.command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                start_new_session=True,  # a Ctrl-C stops the daemon, which then quits the engine
            )
        except OSError as exc:
            raise EngineError(f"cannot start engine {shlex.join(self.command)}: {exc}") from None
        self._started = True
        self._searching = False
        await self._send("uci")
        self.options = {}
        for words in await self._until("uciok", timeout=HANDSHAKE_TIMEOUT):
            if words[:2] == ["id", "name"] and len(words) > 2:
                self.name = " ".join(words[2:])
            option = UciOption.from_line(" ".join(words))
            if option is not None:
                self.options[option.name] = option
        game = self.options.get("UCI_Variant")
        if game is None or (game.choices and self.variant not in game.choices):
            await self._shutdown()
            raise EngineError(
                f"engine {shlex.join(self.command)} does not play {self.variant} (its UCI_Variant "
                f"{'option is missing' if game is None else 'offers ' + ', '.join(game.choices[:12])})"
            )
        await self._send(f"setoption name UCI_Variant value {self.variant}")
        await self._configure_level()
        log.info("engine %s ready for %s (pid %s)", self.name, self.variant, self.pid)

    async def _configure_level(self) -> None:
        for name, value in self.level_options(self.level).items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            await self._send(f"setoption name {name} value {text}")
        await self._send("isready")
        await self._until("readyok", timeout=HANDSHAKE_TIMEOUT)

    def level_options(self, level: str) -> dict[str, int | bool]:
        """The options that set ``level`` on this engine (``UCI_Elo`` when its range covers the
        level's Elo, else ``Skill Level``, clamped), as :func:`engine_client.uci_options` does."""
        target = level_of(level)
        elo, skill = self.options.get("UCI_Elo"), self.options.get("Skill Level")
        elo_range = None
        if elo is not None and "UCI_LimitStrength" in self.options and elo.min is not None and elo.max is not None:
            elo_range = (elo.min, elo.max)
        wanted = target.uci_options(elo_range=elo_range)
        out = {k: v for k, v in wanted.items() if k in self.options}
        if skill is not None and "Skill Level" in out:
            low, high = skill.min if skill.min is not None else 0, skill.max if skill.max is not None else 20
            out["Skill Level"] = max(low, min(high, int(out["Skill Level"])))
        return out

    async def set_level(self, level: str) -> None:
        level_of(level)
        self.level = level
        async with self._lock:
            if self.is_alive():
                await self._settle()
                await self._configure_level()

    async def _settle(self) -> None:
        """End a search whose request was cancelled, reading its ``bestmove`` off."""
        if self._searching and self.is_alive():
            try:
                await self._send("stop")
                await self._until("bestmove", timeout=STOP_TIMEOUT)
            except EngineError as exc:
                log.warning("engine %s did not stop (%s); restarting it", self.name, exc)
                await self._shutdown()
        self._searching = False

    # -- requests -----------------------------------------------------------------------------

    async def play(self, board: GameBoard, *, budget: float | None = None) -> Reply:
        """The engine's move in ``board``; ``budget`` (seconds, from its clock) shortens the thinking."""
        movetime = self.movetime if budget is None else max(0.01, min(self.movetime, budget))
        return await self._request(board, movetime)

    async def hint(self, board: GameBoard) -> Reply:
        return await self._request(board, self.movetime)

    async def _request(self, board: GameBoard, movetime: float) -> Reply:
        async with self._lock:
            failures = 0
            while True:
                try:
                    if not self.is_alive():
                        if self._started:
                            self.restarts += 1
                            log.warning("engine %s died; restarting (restart %d)", self.name, self.restarts)
                        await self.start()
                    await self._settle()
                    return await self._search(board, movetime)
                except asyncio.CancelledError:
                    raise
                except EngineError as exc:
                    failures += 1
                    if failures > self.max_restarts:
                        raise EngineError(f"engine {self.name} failed {failures} times in a row: {exc}") from None
                    log.warning("engine request failed (%s); retrying", exc)
                    await self._shutdown()

    async def _search(self, board: GameBoard, movetime: float) -> Reply:
        root: Any = board.root() if hasattr(board, "root") else None
        moves = [m.uci() for m in board.move_stack] if root is not None else []
        start = root.fen() if root is not None else board.fen()
        await self._send(f"position fen {start}" + (f" moves {' '.join(moves)}" if moves else ""))
        await self._send(f"go movetime {max(1, round(movetime * 1000))}")
        self._searching = True
        score: int | None = None
        pv: tuple[str, ...] = ()
        book = False
        while True:
            words = await self._read()  # a cancel here leaves _searching set: the next request stops it
            if words[:1] == ["info"]:
                if words[1:3] == ["string", "book"]:
                    book = True
                got, line = parse_info(words)
                if got is not None:
                    score = got
                if line:
                    pv = line
            elif words[:1] == ["bestmove"]:
                self._searching = False
                break
        if len(words) < 2 or words[1] in ("(none)", "0000"):
            raise EngineError(f"engine {self.name} gave no move in {board.fen()}")
        try:
            move = board.parse_uci(words[1])
        except ValueError:
            raise EngineError(f"engine {self.name} played {words[1]!r:.20}, not legal in {board.fen()}") from None
        line_moves = []
        after = board.copy(stack=False)
        for uci in pv:
            try:
                step = after.parse_uci(uci)
            except ValueError:
                break
            line_moves.append(step)
            after.push(step)
        if book:
            score, line_moves = None, []
        return Reply(move, score, tuple(line_moves), book)  # type: ignore[arg-type,unused-ignore]

    # -- closing ------------------------------------------------------------------------------

    async def _shutdown(self) -> None:
        proc, self._proc = self._proc, None
        self._searching = False
        if proc is None or proc.returncode is not None:
            return
        with contextlib.suppress(Exception):
            if proc.stdin is not None:
                proc.stdin.write(b"quit\n")
                await proc.stdin.drain()
        try:
            await asyncio.wait_for(proc.wait(), 2.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()

    async def close(self) -> None:
        await self._shutdown()

    async def __aenter__(self) -> UciEngine:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
