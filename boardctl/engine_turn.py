"""The engine's turn, the daemon's side: the session's request asked once, in a task of its own so
that the loop never waits for the engine; the reply (or the failure) goes back to the daemon."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol

from boardctl.errors import EngineError
from boardctl.reply import Reply
from boardctl.session import EngineRequest

log = logging.getLogger(__name__)


class Engine(Protocol):
    """What the daemon asks of its engine: ``EngineClient`` for every game, or a test's stand-in."""

    level: str

    async def set_level(self, level: str) -> None: ...

    async def play(self, board: Any, *, budget: float | None = None) -> Reply: ...

    async def hint(self, board: Any) -> Reply: ...

    async def close(self) -> None: ...


class EngineTurn:
    """Owns the task asking the engine and the request it answers: a request is asked once (the
    same object answered again is not asked again); a new one cancels the old."""

    def __init__(
        self,
        engine: Engine | None,
        *,
        replied: Callable[[EngineRequest, Reply], object],
        failed: Callable[[EngineRequest, str], object],
    ) -> None:
        self.engine = engine
        self._replied = replied
        self._failed = failed
        self._task: asyncio.Task[None] | None = None
        self._asked: EngineRequest | None = None

    def ask(self, request: EngineRequest | None) -> None:
        """Ask the engine ``request`` (the session's answer's ``engine``) unless asked already."""
        if request is None or request is self._asked or self.engine is None:
            return
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._asked = request
        self._task = asyncio.get_running_loop().create_task(self._ask(request))

    async def _ask(self, request: EngineRequest) -> None:
        assert self.engine is not None
        try:
            if request.kind == "move":
                reply = await self.engine.play(request.board, budget=request.budget)
            else:
                reply = await self.engine.hint(request.board)
        except asyncio.CancelledError:
            raise
        except EngineError as exc:
            log.error("%s", exc)
            self._failed(request, str(exc))
            return
        self._replied(request, reply)

    async def idle(self) -> None:
        """Wait until the engine has answered what it was asked (virtual time: replies take no time)."""
        while self._task is not None and not self._task.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._task)

    async def stop(self) -> None:
        """Cancel the question asked, if any (the daemon closes)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
