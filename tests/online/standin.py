"""A local stand-in for the Lichess endpoints ``boardctl online`` uses (aiohttp), for tests and demos.

It follows the Lichess API documentation: the same paths, bearer-token check (401), the same
newline-delimited JSON (``gameFull`` first, then ``gameState``; ``gameStart``/``gameFinish``/
``challenge`` on the event stream, a blank keep-alive line every ``keepalive`` seconds), ``{"ok":
true}`` or ``{"error": "..."}`` answers with 200, 400, 401, 404 and 429. The opponent's side is
scripted: it answers each of our moves with the next move of ``script`` after ``reply_delay``
seconds, accepts or declines draws and takebacks as told, and the test can make it drop the game
streams, answer 429, or send any raw line.

Broadcasts (``boardctl relay --lichess-round``): ``POST /api/broadcast/round/{id}/push`` takes a
text/plain PGN of one or more games for a round created beforehand (:meth:`StandIn.add_round`,
404 otherwise) and answers ``{"games": [...]}``, each game its ``tags`` and ``moves`` (the number
of moves read) or an ``error`` where a move cannot be played; the pushed PGN is kept per round.

Run on its own from a checkout's root (``python -m tests.online.standin --port 8123 --token lip_x``)
it serves until interrupted, for trying ``boardctl online --lichess-url http://127.0.0.1:8123`` by
hand. It is a test double: it lives with the tests and does not ship in the package.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import secrets
import string
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from boardctl.variants import get_variant

log = logging.getLogger(__name__)

_ALNUM = string.ascii_letters + string.digits
NDJSON = "application/x-ndjson"


def new_id() -> str:
    return "".join(secrets.choice(_ALNUM) for _ in range(8))


@dataclass
class Game:
    id: str
    white: str
    black: str
    minutes: float
    increment: int
    rated: bool
    moves: list[str] = field(default_factory=list)
    wtime: int = 0
    btime: int = 0
    status: str = "started"
    winner: str | None = None
    wdraw: bool = False
    bdraw: bool = False
    wtakeback: bool = False
    btakeback: bool = False
    since: float = 0.0  # when the side to move's clock started
    gone_at: float | None = None  # when the opponent left (opponent_leaves), None while present
    claim_after: int = 0  # seconds after leaving before a claim of victory is allowed
    streams: list[asyncio.Queue[bytes | None]] = field(default_factory=list)
    transports: list[Any] = field(default_factory=list)

    def is_over(self) -> bool:
        return self.status not in ("created", "started")

    def turn(self) -> str:
        return "white" if len(self.moves) % 2 == 0 else "black"

    def clocks(self, now: float) -> tuple[int, int]:
        """Both times left now: the side to move runs once both have moved (as on Lichess)."""
        w, b = self.wtime, self.btime
        if len(self.moves) >= 2 and not self.is_over():
            spent = int((now - self.since) * 1000)
            if self.turn() == "white":
                w = max(0, w - spent)
            else:
                b = max(0, b - spent)
        return w, b

    def state(self, now: float) -> dict[str, Any]:
        w, b = self.clocks(now)
        out: dict[str, Any] = {
            "type": "gameState", "moves": " ".join(self.moves), "wtime": w, "btime": b,
            "winc": self.increment * 1000, "binc": self.increment * 1000, "status": self.status,
        }
        if self.winner:
            out["winner"] = self.winner
        for key in ("wdraw", "bdraw", "wtakeback", "btakeback"):
            if getattr(self, key):
                out[key] = True
        return out

    def full(self, now: float, ratings: dict[str, int]) -> dict[str, Any]:
        return {
            "type": "gameFull", "id": self.id, "rated": self.rated,
            "variant": {"key": "standard", "name": "Standard", "short": "Std"},
            "clock": {"initial": int(self.minutes * 60000), "increment": self.increment * 1000},
            "speed": "blitz", "perf": {"name": "Blitz"}, "createdAt": int(time.time() * 1000),
            "white": {"id": self.white.lower(), "name": self.white, "title": None, "rating": ratings.get(self.white, 1500)},
            "black": {"id": self.black.lower(), "name": self.black, "title": None, "rating": ratings.get(self.black, 1500)},
            "initialFen": "startpos", "state": self.state(now),
        }


def _line(obj: Any) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


class StandIn:
    """The server. Construct, then ``await start()`` (or :meth:`start_in_thread`); ``url`` is its address.

    ``me``/``token``: the account the board plays as; ``opponent``: the scripted side.
    """

    def __init__(self, *, token: str = "lip_standintoken0001", me: str = "BoardUser", opponent: str = "Scripted",
                 script: list[str] | None = None, reply_delay: float = 0.05, accept_delay: float = 0.1,
                 keepalive: float = 2.0, accept_draw: bool = False, accept_takeback: bool = False,
                 my_color: str = "white") -> None:
        self.token = token
        self.me = me
        self.opponent = opponent
        self.script = list(script or [])
        self.reply_delay = reply_delay
        self.accept_delay = accept_delay
        self.keepalive = keepalive
        self.accept_draw = accept_draw
        self.accept_takeback = accept_takeback
        self.my_color = my_color
        self.games: dict[str, Game] = {}
        self.challenges: dict[str, dict[str, Any]] = {}
        self.ratings = {me: 1500, opponent: 1600}
        #: Answer the next N requests (any path containing the key; "" for all) with 429.
        self.rate_limit: dict[str, int] = {}
        #: Every request answered: (method, path, status) - the tests read it.
        self.requests: list[tuple[str, str, int]] = []
        self.tokens_seen: list[str] = []
        #: The path of every request let through, when it came in (a stream's status comes at its end).
        self.opened: list[str] = []
        #: Broadcast rounds: id -> each PGN body pushed to it, in order.
        self.rounds: dict[str, list[str]] = {}
        self._events: list[asyncio.Queue[bytes | None]] = []
        self._runner: web.AppRunner | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- running ----------------------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        r = app.router
        r.add_get("/api/stream/event", self._event_stream)
        r.add_get("/api/board/game/stream/{id}", self._game_stream)
        r.add_post("/api/board/game/{id}/move/{move}", self._move)
        r.add_post("/api/board/seek", self._seek)
        r.add_post("/api/challenge/{id}/accept", self._accept)
        r.add_post("/api/challenge/{user}", self._challenge)
        r.add_post("/api/board/game/{id}/draw/{answer}", self._draw)
        r.add_post("/api/board/game/{id}/takeback/{answer}", self._takeback)
        r.add_post("/api/board/game/{id}/resign", self._resign)
        r.add_post("/api/board/game/{id}/abort", self._abort)
        r.add_post("/api/board/game/{id}/claim-victory", self._claim_victory)
        r.add_post("/api/board/game/{id}/claim-victory/", self._claim_victory)  # berserk 0.14.0's path
        r.add_post("/api/board/game/{id}/claim-draw", self._claim_draw)
        r.add_post("/api/broadcast/round/{id}/push", self._push_round)
        return app

    async def start(self, port: int = 0) -> None:
        self._loop = asyncio.get_running_loop()
        self._runner = web.AppRunner(self.app(), handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for queue in self._events:
            queue.put_nowait(None)
        for game in self.games.values():
            for q in game.streams:
                q.put_nowait(None)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def start_in_thread(self) -> str:
        """Serve from a thread of its own (for tests that drive a daemon subprocess); the URL."""
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            loop.run_until_complete(self.start())
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.close())
            loop.close()

        self._thread = threading.Thread(target=run, name="lichess-standin", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self.url

    def stop_thread(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the server's loop (from a test's thread) and return its value."""
        assert self._loop is not None
        done = threading.Event()
        box: list[Any] = []

        def run() -> None:
            box.append(fn())
            done.set()

        self._loop.call_soon_threadsafe(run)
        done.wait(10)
        return box[0] if box else None

    # -- the test's controls (on the server's loop; from another thread through call()) ----------

    def drop_game_streams(self, game_id: str | None = None) -> int:
        """Cut every open game stream (the connection is closed mid-stream, no final chunk)."""
        count = 0
        for game in self.games.values():
            if game_id is None or game.id == game_id:
                for transport in game.transports:
                    transport.close()
                    count += 1
                game.transports.clear()
        return count

    def send_raw(self, game_id: str, raw: bytes) -> None:
        """Send ``raw`` (a hostile line, say) on every open stream of the game."""
        for q in self.games[game_id].streams:
            q.put_nowait(raw)

    def opponent_offers(self, what: str) -> None:
        """The scripted opponent offers a draw (``draw``) or asks for a takeback (``takeback``)."""
        game = self._current()
        side = "b" if game.white == self.me else "w"
        setattr(game, f"{side}{what}", True)
        self._broadcast(game)

    def opponent_resigns(self) -> None:
        """The scripted opponent resigns: we win."""
        game = self._current()
        self._finish(game, "resign", "white" if game.white == self.me else "black")

    def opponent_leaves(self, claim_after: int = 0) -> None:
        """The scripted opponent leaves the game: ``opponentGone`` with ``claimWinInSeconds`` on the
        game stream; after those seconds a claim of victory (or of a draw) is allowed."""
        game = self._current()
        game.gone_at = time.monotonic()
        game.claim_after = claim_after
        self._send_line(game, {"type": "opponentGone", "gone": True, "claimWinInSeconds": claim_after})

    def _send_line(self, game: Game, obj: dict[str, Any]) -> None:
        for q in game.streams:
            q.put_nowait(_line(obj))

    def opponent_plays(self, uci: str) -> None:
        game = self._current()
        self._play(game, uci)

    def _current(self) -> Game:
        return list(self.games.values())[-1]

    # -- middleware: token, 429, bookkeeping ------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
        auth = request.headers.get("Authorization", "")
        self.tokens_seen.append(auth.removeprefix("Bearer "))
        if auth != f"Bearer {self.token}":
            self.requests.append((request.method, request.path, 401))
            return web.json_response({"error": "No such token"}, status=401)
        for key, count in list(self.rate_limit.items()):
            if count > 0 and key in request.path:
                self.rate_limit[key] = count - 1
                self.requests.append((request.method, request.path, 429))
                return web.json_response({"error": "Too many requests. Try again later."}, status=429)
        self.opened.append(request.path)
        response: web.StreamResponse = await handler(request)
        self.requests.append((request.method, request.path, response.status))
        return response

    # -- streams ----------------------------------------------------------------------------------

    async def _stream(self, request: web.Request, queue: asyncio.Queue[bytes | None], first: list[bytes],
                      transports: list[Any] | None = None) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": NDJSON})
        await response.prepare(request)
        if transports is not None and request.transport is not None:
            transports.append(request.transport)
        for line in first:
            await response.write(line)
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), self.keepalive)
            except TimeoutError:
                item = b"\n"
            if item is None:
                break
            try:
                await response.write(item)
            except (ConnectionResetError, RuntimeError):
                return response
        with contextlib.suppress(ConnectionError, RuntimeError):
            await response.write_eof()
        return response

    async def _event_stream(self, request: web.Request) -> web.StreamResponse:
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._events.append(queue)
        first = [_line(self._game_start(g)) for g in self.games.values() if not g.is_over()]
        first += [_line({"type": "challenge", "challenge": c}) for c in self.challenges.values()
                  if c["direction"] == "in" and c["status"] == "created"]
        try:
            return await self._stream(request, queue, first)
        finally:
            self._events.remove(queue)

    def _game_start(self, game: Game) -> dict[str, Any]:
        color = "white" if game.white == self.me else "black"
        other = game.black if color == "white" else game.white
        return {"type": "gameStart", "game": {
            "fullId": game.id + "abcd", "gameId": game.id, "id": game.id, "fen": get_variant("chess").starting_fen,
            "color": color, "lastMove": "", "source": "lobby", "status": {"id": 20, "name": "started"},
            "variant": {"key": "standard", "name": "Standard"}, "speed": "blitz", "perf": "blitz",
            "rated": game.rated, "hasMoved": False, "opponent": {"id": other.lower(), "username": other,
                                                                 "rating": self.ratings.get(other, 1500)},
            "isMyTurn": game.turn() == color, "secondsLeft": int(game.minutes * 60),
            "compat": {"bot": False, "board": True},
        }}

    def _event(self, obj: dict[str, Any]) -> None:
        for q in self._events:
            q.put_nowait(_line(obj))

    async def _game_stream(self, request: web.Request) -> web.StreamResponse:
        game = self.games.get(request.match_info["id"])
        if game is None:
            return web.json_response({"error": "No such game"}, status=404)
        now = time.monotonic()
        if game.is_over():  # the stream of a finished game: its full state, then closed
            return await self._stream(request, _closed_queue(), [_line(game.full(now, self.ratings))])
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        game.streams.append(queue)
        try:
            return await self._stream(request, queue, [_line(game.full(now, self.ratings))], game.transports)
        finally:
            game.streams.remove(queue)

    def _broadcast(self, game: Game) -> None:
        line = _line(game.state(time.monotonic()))
        for q in game.streams:
            q.put_nowait(line)
        if game.is_over():
            for q in game.streams:
                q.put_nowait(None)
            self._event({"type": "gameFinish", "game": {"gameId": game.id, "id": game.id}})

    # -- games ------------------------------------------------------------------------------------

    def _create_game(self, minutes: float, increment: int, rated: bool, color: str, game_id: str | None = None) -> Game:
        mine = color if color in ("white", "black") else self.my_color
        white, black = (self.me, self.opponent) if mine == "white" else (self.opponent, self.me)
        ms = int(minutes * 60000)
        game = Game(game_id or new_id(), white, black, minutes, increment, rated, wtime=ms, btime=ms,
                    since=time.monotonic())
        self.games[game.id] = game
        self._event(self._game_start(game))
        self._schedule_reply(game)
        return game

    def _is_my_turn(self, game: Game) -> bool:
        return (game.turn() == "white") == (game.white == self.me)

    def _schedule_reply(self, game: Game) -> None:
        if game.is_over() or self._is_my_turn(game) or not self.script:
            return
        self._later(self.reply_delay, lambda: self._reply(game))

    def _reply(self, game: Game) -> None:
        if game.is_over() or self._is_my_turn(game) or not self.script:
            return
        self._play(game, self.script.pop(0))

    def _later(self, delay: float, fn: Callable[[], None]) -> None:
        async def run() -> None:
            await asyncio.sleep(delay)
            fn()

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _board(self, game: Game) -> Any:
        board = get_variant("chess").board()
        for uci in game.moves:
            board.push(board.parse_uci(uci))
        return board

    def _play(self, game: Game, uci: str) -> str | None:
        """Play ``uci`` for the side to move; an error text if it cannot be played."""
        board = self._board(game)
        try:
            move = board.parse_uci(uci)
        except ValueError:
            return f"Invalid move: {uci}"
        now = time.monotonic()
        w, b = game.clocks(now)
        mover = game.turn()
        inc = game.increment * 1000 if len(game.moves) >= 2 else 0
        if mover == "white":
            game.wtime = w + inc
            game.btime = b
        else:
            game.btime = b + inc
            game.wtime = w
        game.since = now
        board.push(move)
        game.moves.append(move.uci())
        game.wdraw = game.bdraw = game.wtakeback = game.btakeback = False
        outcome = board.outcome(claim_draw=False)
        if outcome is not None:
            game.status = "mate" if "checkmate" in str(outcome.reason).lower() else "draw"
            if game.status == "draw" and "stalemate" in str(outcome.reason).lower():
                game.status = "stalemate"
            result = outcome.result()
            game.winner = {"1-0": "white", "0-1": "black"}.get(result)
        self._broadcast(game)
        self._schedule_reply(game)
        return None

    def _finish(self, game: Game, status: str, winner: str | None) -> None:
        game.status, game.winner = status, winner
        game.wdraw = game.bdraw = game.wtakeback = game.btakeback = False
        self._broadcast(game)

    def add_round(self) -> str:
        """A new broadcast round (as its owner would create it on the site); its id."""
        round_id = new_id()
        self.rounds[round_id] = []
        return round_id

    async def _push_round(self, request: web.Request) -> web.Response:
        import io

        import chess.pgn

        pushed = self.rounds.get(request.match_info["id"])
        if pushed is None:
            return web.json_response({"error": "Not found"}, status=404)
        body = await request.text()
        pushed.append(body)
        games: list[dict[str, Any]] = []
        stream = io.StringIO(body)
        while (game := chess.pgn.read_game(stream)) is not None:
            tags = dict(game.headers)
            if game.errors:
                games.append({"tags": tags, "error": str(game.errors[0])[:200]})
            else:
                games.append({"tags": tags, "moves": len(list(game.mainline_moves()))})
        return web.json_response({"games": games})

    def _game_or_404(self, request: web.Request) -> Game | web.Response:
        game = self.games.get(request.match_info["id"])
        if game is None:
            return web.json_response({"error": "No such game"}, status=404)
        return game

    async def _move(self, request: web.Request) -> web.Response:
        game = self._game_or_404(request)
        if isinstance(game, web.Response):
            return game
        if game.is_over() or not self._is_my_turn(game):
            return web.json_response({"error": "Not your turn, or game already over"}, status=400)
        error = self._play(game, request.match_info["move"])
        if error is not None:
            return web.json_response({"error": error}, status=400)
        return web.json_response({"ok": True})

    async def _seek(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        try:
            minutes = float(str(form["time"]))
            increment = int(str(form["increment"]))
        except (KeyError, ValueError):
            return web.json_response({"error": "time and increment are required"}, status=400)
        if not (0 <= minutes <= 180 and 0 <= increment <= 180):
            return web.json_response({"error": "time or increment out of range"}, status=400)
        rated = str(form.get("rated", "false")) == "true"
        color = str(form.get("color", "random"))
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()

        def paired() -> None:
            self._create_game(minutes, increment, rated, color)
            queue.put_nowait(None)  # the seek's connection closes when a game starts

        self._later(self.accept_delay, paired)
        return await self._stream(request, queue, [])

    async def _challenge(self, request: web.Request) -> web.Response:
        user = request.match_info["user"]
        if user.lower() != self.opponent.lower():
            return web.json_response({"error": f"No such user: {user}"}, status=400)
        body: dict[str, Any]
        if request.content_type == "application/json":
            try:
                body = await request.json()
            except ValueError:
                return web.json_response({"error": "Invalid JSON"}, status=400)
        else:
            body = dict(await request.post())
        try:
            limit = int(body.get("clock.limit", 600))
            increment = int(body.get("clock.increment", 0))
        except (TypeError, ValueError):
            return web.json_response({"error": "clock.limit and clock.increment must be numbers"}, status=400)
        rated = str(body.get("rated", "false")).lower() == "true"
        color = str(body.get("color", "random"))
        challenge_id = new_id()
        challenge = self._challenge_json(challenge_id, self.me, self.opponent, "out", rated, limit, increment, color)
        self.challenges[challenge_id] = challenge
        self._event({"type": "challenge", "challenge": challenge})
        def accepted() -> None:
            self._create_game(limit / 60, increment, rated, color, challenge_id)

        self._later(self.accept_delay, accepted)
        return web.json_response(challenge)

    def _challenge_json(self, challenge_id: str, frm: str, to: str, direction: str, rated: bool, limit: int,
                        increment: int, color: str) -> dict[str, Any]:
        return {
            "id": challenge_id, "url": f"{self.url}/{challenge_id}", "status": "created",
            "challenger": {"id": frm.lower(), "name": frm, "rating": self.ratings.get(frm, 1500)},
            "destUser": {"id": to.lower(), "name": to, "rating": self.ratings.get(to, 1500)},
            "variant": {"key": "standard", "name": "Standard", "short": "Std"}, "rated": rated, "speed": "blitz",
            "timeControl": {"type": "clock", "limit": limit, "increment": increment, "show": f"{limit // 60}+{increment}"},
            "color": color, "finalColor": color if color != "random" else self.my_color,
            "perf": {"icon": "", "name": "Blitz"}, "direction": direction,
        }

    def incoming_challenge(self, *, minutes: int = 5, increment: int = 3, rated: bool = False) -> str:
        """The scripted opponent challenges us; the id (accept it with POST .../accept)."""
        challenge_id = new_id()
        color = "black" if self.my_color == "white" else "white"  # the challenger's colour
        challenge = self._challenge_json(challenge_id, self.opponent, self.me, "in", rated, minutes * 60, increment, color)
        self.challenges[challenge_id] = challenge
        self._event({"type": "challenge", "challenge": challenge})
        return challenge_id

    async def _accept(self, request: web.Request) -> web.Response:
        challenge = self.challenges.get(request.match_info["id"])
        if challenge is None or challenge["status"] != "created" or challenge["direction"] != "in":
            return web.json_response({"error": "Challenge not found"}, status=404)
        challenge["status"] = "accepted"
        tc = challenge["timeControl"]
        self._create_game(tc["limit"] / 60, tc["increment"], challenge["rated"], self.my_color, challenge["id"])
        return web.json_response({"ok": True})

    async def _draw(self, request: web.Request) -> web.Response:
        game = self._game_or_404(request)
        if isinstance(game, web.Response):
            return game
        if game.is_over():
            return web.json_response({"error": "The game is over"}, status=400)
        me, opp = ("w", "b") if game.white == self.me else ("b", "w")
        yes = request.match_info["answer"] in ("yes", "true")
        if yes and (getattr(game, f"{opp}draw") or self._board(game).can_claim_threefold_repetition()):
            self._finish(game, "draw", None)  # Lichess: "yes" with a threefold repetition on the board claims it
        elif yes:
            setattr(game, f"{me}draw", True)
            self._broadcast(game)
            if self.accept_draw:
                self._later(self.reply_delay, lambda: self._finish(game, "draw", None) if getattr(game, f"{me}draw") else None)
        else:
            setattr(game, f"{opp}draw", False)
            self._broadcast(game)
        return web.json_response({"ok": True})

    async def _takeback(self, request: web.Request) -> web.Response:
        game = self._game_or_404(request)
        if isinstance(game, web.Response):
            return game
        if game.is_over() or not game.moves:
            return web.json_response({"error": "No takeback possible"}, status=400)
        me, opp = ("w", "b") if game.white == self.me else ("b", "w")
        yes = request.match_info["answer"] in ("yes", "true")
        if yes and getattr(game, f"{opp}takeback"):
            self._take_back(game, proposer=opp)
        elif yes:
            setattr(game, f"{me}takeback", True)
            self._broadcast(game)
            if self.accept_takeback:
                self._later(self.reply_delay, lambda: self._take_back(game, proposer=me) if getattr(game, f"{me}takeback") else None)
        else:
            setattr(game, f"{opp}takeback", False)
            self._broadcast(game)
        return web.json_response({"ok": True})

    def _take_back(self, game: Game, *, proposer: str) -> None:
        """Back to the proposer's turn: one ply if the proposer just moved, two if it is to move."""
        to_move = "w" if game.turn() == "white" else "b"
        plies = 2 if proposer == to_move else 1
        del game.moves[len(game.moves) - min(plies, len(game.moves)):]
        game.wtakeback = game.btakeback = game.wdraw = game.bdraw = False
        game.since = time.monotonic()
        self._broadcast(game)
        self._schedule_reply(game)

    async def _resign(self, request: web.Request) -> web.Response:
        game = self._game_or_404(request)
        if isinstance(game, web.Response):
            return game
        if game.is_over():
            return web.json_response({"error": "The game is over"}, status=400)
        self._finish(game, "resign", "black" if game.white == self.me else "white")
        return web.json_response({"ok": True})

    def _may_claim(self, game: Game) -> bool:
        """Lichess: a claim is allowed once the opponent has been gone ``claimWinInSeconds``."""
        return game.gone_at is not None and time.monotonic() - game.gone_at >= game.claim_after

    async def _claim_victory(self, request: web.Request) -> web.Response:
        """``POST /api/board/game/{id}/claim-victory``: the opponent left long enough ago: we win
        (status ``timeout``); otherwise 400, as on Lichess."""
        game = self._game_or_404(request)
        if isinstance(game, web.Response):
            return game
        if game.is_over() or not self._may_claim(game):
            return web.json_response({"error": "You cannot claim the win on this game"}, status=400)
        self._finish(game, "timeout", "white" if game.white == self.me else "black")
        return web.json_response({"ok": True})

    async def _claim_draw(self, request: web.Request) -> web.Response:
        """``POST /api/board/game/{id}/claim-draw``: the opponent left long enough ago: a draw."""
        game = self._game_or_404(request)
        if isinstance(game, web.Response):
            return game
        if game.is_over() or not self._may_claim(game):
            return web.json_response({"error": "You cannot claim a draw on this game"}, status=400)
        self._finish(game, "draw", None)
        return web.json_response({"ok": True})

    async def _abort(self, request: web.Request) -> web.Response:
        game = self._game_or_404(request)
        if isinstance(game, web.Response):
            return game
        if game.is_over() or len(game.moves) >= 2:
            return web.json_response({"error": "This game can no longer be aborted"}, status=400)
        self._finish(game, "aborted", None)
        return web.json_response({"ok": True})


def _closed_queue() -> asyncio.Queue[bytes | None]:
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()
    queue.put_nowait(None)
    return queue


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.online.standin", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--token", default="lip_standintoken0001")
    parser.add_argument("--script", default="e7e5 g8f6 b8c6 f8c5 d7d6", help="the opponent's moves, UCI")
    args = parser.parse_args(argv)

    async def serve() -> None:
        standin = StandIn(token=args.token, script=args.script.split(), reply_delay=1.0)
        await standin.start(args.port)
        print(f"Lichess stand-in at {standin.url}", flush=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
