"""Lichess through ``berserk``, made safe for the daemon's event loop.

``berserk`` is synchronous (``requests``): each call runs in a worker thread, and each stream is
read by its own daemon thread that hands decoded lines to the loop. On top of it:

- **429**: Lichess asks API users to wait a full minute after an HTTP 429 before any further
  request. Every request (streams included) waits until then, and is tried again.
- **One request at a time**: the calls that change something are serialised (Lichess asks it).
- **Errors**: every failure becomes one :class:`~boardctl.online.OnlineError` naming the request,
  the status and Lichess's own ``error`` text, with the token taken out.
- **Payloads**: each stream line is checked by :mod:`boardctl.online.protocol`; a line that is not
  JSON, is nested absurdly deep, or has fields of the wrong kind ends the stream with one
  :class:`~boardctl.online.PayloadError` (the caller decides whether to reconnect).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

import berserk
import requests
from berserk.exceptions import ApiError, ResponseError

from boardctl.jsonlimits import short_repr
from boardctl.online import OnlineError, PayloadError
from boardctl.online.protocol import EventLine, GameLine, parse_event_line, parse_game_line
from boardctl.online.token import HIDDEN

log = logging.getLogger(__name__)

#: Lichess: "If you receive an HTTP response with a 429 status, please wait a full minute".
RATE_LIMIT_WAIT = 60.0
#: Seconds without a byte before a stream counts as dropped (Lichess sends a blank line every ~6 s).
READ_TIMEOUT = 30.0
CONNECT_TIMEOUT = 10.0

T = TypeVar("T")
_END = object()


class StreamDropped(OnlineError):
    """A stream ended or broke before the game did: the caller reconnects."""


class RateLimited(OnlineError):
    """HTTP 429 (raised only where waiting is not wanted; requests wait by themselves)."""


class _Session(berserk.TokenSession):
    """berserk's token session with time-outs, so that a silent, dead connection is noticed."""

    def __init__(self, token: str, *, read_timeout: float) -> None:
        super().__init__(token)
        self.read_timeout = read_timeout

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", (CONNECT_TIMEOUT, self.read_timeout))
        return super().request(*args, **kwargs)


class LichessClient:
    """The requests ``boardctl online`` makes, as coroutines; ``close()`` is safe twice."""

    def __init__(self, token: str, *, url: str = "https://lichess.org", rate_limit_wait: float = RATE_LIMIT_WAIT,
                 read_timeout: float = READ_TIMEOUT, clock: Callable[[], float] = time.monotonic) -> None:
        self._token = token
        self._session = _Session(token, read_timeout=read_timeout)
        self.api = berserk.Client(self._session, base_url=url)
        self.url = url
        self.rate_limit_wait = rate_limit_wait
        self._clock = clock
        self._paused_until = 0.0
        self._lock = asyncio.Lock()
        self._stops: list[threading.Event] = []
        #: How many 429 answers were waited out (tests and the log read it).
        self.backoffs = 0

    # -- errors -----------------------------------------------------------------------------------

    def redact(self, text: str) -> str:
        return text.replace(self._token, HIDDEN) if self._token else text

    def _error(self, what: str, exc: BaseException) -> OnlineError:
        if isinstance(exc, ResponseError):
            cause = exc.cause
            detail = cause.get("error") if isinstance(cause, dict) else None
            if detail is None:
                detail = exc.reason or "no reason given"
            text = f"Lichess refused {what}: HTTP {exc.status_code} ({short_repr(detail, 200)})"
            if exc.status_code == 401:
                text += "; the token is wrong, expired or lacks the board:play scope (docs/online.md)"
            return OnlineError(self.redact(text))
        if isinstance(exc, ApiError):
            exc = exc.error if isinstance(exc.error, BaseException) else exc
        reason = type(exc).__name__
        return OnlineError(self.redact(f"cannot reach Lichess at {self.url} for {what} ({reason})"))

    async def _wait_rate_limit(self) -> None:
        delay = self._paused_until - self._clock()
        if delay > 0:
            await asyncio.sleep(delay)

    def _rate_limited(self, what: str) -> None:
        self.backoffs += 1
        self._paused_until = self._clock() + self.rate_limit_wait
        log.warning("Lichess: too many requests (HTTP 429) at %s; waiting %g s as Lichess asks", what,
                    self.rate_limit_wait)

    # -- plain requests ---------------------------------------------------------------------------

    async def _call(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        async with self._lock:
            while True:
                await self._wait_rate_limit()
                try:
                    return await asyncio.to_thread(fn, *args)
                except ResponseError as exc:
                    if exc.status_code != 429:
                        raise self._error(what, exc) from None
                    self._rate_limited(what)
                except (ApiError, requests.RequestException, ValueError) as exc:
                    raise self._error(what, exc) from None

    async def move(self, game_id: str, uci: str) -> None:
        await self._call(f"move {uci}", self.api.board.make_move, game_id, uci)

    async def offer_draw(self, game_id: str, accept: bool = True) -> None:
        await self._call("the draw offer" if accept else "declining the draw",
                         self.api.board.handle_draw_offer, game_id, accept)

    async def takeback(self, game_id: str, accept: bool = True) -> None:
        await self._call("the takeback" if accept else "declining the takeback",
                         self.api.board.handle_takeback_offer, game_id, accept)

    async def resign(self, game_id: str) -> None:
        await self._call("resigning", self.api.board.resign_game, game_id)

    async def claim_victory(self, game_id: str) -> None:
        """The opponent has left the game (``opponentGone``) for its ``claimWinInSeconds``: the win."""
        await self._call("claiming victory", self.api.board.claim_victory, game_id)

    async def claim_draw(self, game_id: str) -> None:
        """A threefold repetition on the board: Lichess takes a draw "yes" in such a position as
        the claim (berserk 0.14.0 ``handle_draw_offer``), not as an offer the opponent may decline."""
        await self._call("claiming the draw", self.api.board.handle_draw_offer, game_id, True)

    async def abort(self, game_id: str) -> None:
        await self._call("aborting", self.api.board.abort_game, game_id)

    async def accept_challenge(self, challenge_id: str) -> None:
        await self._call(f"accepting challenge {challenge_id}", self.api.challenges.accept, challenge_id)

    async def challenge(self, username: str, *, rated: bool, minutes: float, increment: int,
                        color: str = "random") -> str:
        """Challenge ``username``; returns the challenge id (the game gets the same id)."""
        def create() -> Any:
            return self.api.challenges.create(username, rated, clock_limit=round(minutes * 60),
                                              clock_increment=increment, color=color)  # type: ignore[arg-type]

        reply = await self._call(f"the challenge to {username}", create)
        challenge = reply.get("challenge", reply) if isinstance(reply, dict) else None
        challenge_id = challenge.get("id") if isinstance(challenge, dict) else None
        from boardctl.online.protocol import is_game_id

        if not isinstance(challenge_id, str) or not is_game_id(challenge_id):
            raise PayloadError(f"challenge reply: 'id' must be a Lichess id, got {short_repr(challenge_id)}")
        return challenge_id

    async def seek(self, *, rated: bool, minutes: float, increment: int, color: str = "random") -> None:
        """Keep a seek open until someone accepts it (the server then closes it) or it expires."""
        def run() -> None:
            self.api.board.seek(minutes, increment, rated=rated, color=color)  # type: ignore[arg-type]

        while True:
            await self._wait_rate_limit()
            try:
                await asyncio.to_thread(run)
                return
            except ResponseError as exc:
                if exc.status_code != 429:
                    raise self._error("the seek", exc) from None
                self._rate_limited("the seek")
            except (ApiError, requests.RequestException) as exc:
                raise self._error("the seek", exc) from None

    # -- streams ----------------------------------------------------------------------------------

    async def events(self) -> AsyncGenerator[EventLine, None]:
        """The event stream, checked line by line (unknown types left out)."""
        async for obj, where in self._stream("the event stream", self.api.board.stream_incoming_events):
            line = parse_event_line(obj, where)
            if line is not None:
                yield line

    async def game(self, game_id: str) -> AsyncGenerator[GameLine, None]:
        """The game stream of ``game_id`` (``gameFull`` first), checked line by line."""
        async for obj, where in self._stream(f"the game stream of {game_id}",
                                             lambda: self.api.board.stream_game_state(game_id)):
            line = parse_game_line(obj, where)
            if line is not None:
                yield line

    async def _stream(self, what: str, open_stream: Callable[[], Iterator[Any]]) -> AsyncIterator[tuple[Any, str]]:
        """Lines of a stream read by a thread; 429 when opening is waited out and tried again.
        The end of the stream is :class:`StreamDropped`, a broken line :class:`PayloadError`."""
        loop = asyncio.get_running_loop()
        count = 0
        while True:
            await self._wait_rate_limit()
            queue: asyncio.Queue[Any] = asyncio.Queue()
            stop = threading.Event()
            self._stops.append(stop)

            def put(item: Any, queue: asyncio.Queue[Any] = queue) -> None:
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                    loop.call_soon_threadsafe(queue.put_nowait, item)

            def read(stop: threading.Event = stop, put: Callable[[Any], None] = put) -> None:
                try:
                    for obj in open_stream():
                        if stop.is_set():
                            return
                        put(obj)
                except BaseException as exc:
                    put(exc)
                    return
                put(_END)

            threading.Thread(target=read, name=f"lichess {what}", daemon=True).start()
            try:
                while True:
                    item = await queue.get()
                    if item is _END:
                        raise StreamDropped(f"Lichess closed {what}")
                    if isinstance(item, ResponseError) and item.status_code == 429 and count == 0:
                        self._rate_limited(what)
                        break  # opened again after the wait
                    if isinstance(item, ResponseError):
                        raise self._error(what, item)
                    if isinstance(item, ValueError | RecursionError | TypeError | OverflowError):
                        raise PayloadError(self.redact(f"{what} line {count + 1}: not a JSON line Lichess sends "
                                                       f"({type(item).__name__})"))
                    if isinstance(item, BaseException):
                        raise StreamDropped(self._error(what, item).args[0])
                    count += 1
                    yield item, f"{what} line {count}"
            finally:
                stop.set()
                with contextlib.suppress(ValueError):
                    self._stops.remove(stop)

    async def close(self) -> None:
        for stop in self._stops:
            stop.set()
        self._session.close()
