"""The page's tournament controls: ``GET /api/tournament`` (standings, crosstable, the round, your
next game, your rating), ``POST /api/tournament/new`` and ``POST /api/tournament/next``.

``next`` starts your game in the running daemon (a new game with your colour, the character's
level and the tournament's clock, as ``boardctl tournament next`` does from the command line)
and follows it, so its result goes into the tournament and your rating. The posts are checked
like the page's actions (JSON only, the PIN when the page is open to the network).
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from aiohttp import web

from boardctl.actions import NewGameAction
from boardctl.errors import BoardctlError
from boardctl.learning import npc_games
from boardctl.learning.rating import default_store
from boardctl.learning.tournament import Format, Tournament, TournamentStore, swiss_rounds

log = logging.getLogger(__name__)

MAX_BODY = 4096


def tournament_json(t: Tournament) -> dict[str, Any]:
    """What the page shows of a tournament."""
    from boardctl.learning.tournament_runner import assignment

    job = assignment(t)
    return {
        "id": t.tournament_id,
        "format": t.format.value,
        "rounds": t.rounds,
        "round": t.current_round,
        "time_control": t.time_control,
        "finished": t.is_finished(),
        "players": [{"number": p.number, "name": p.name, "rating": p.rating, "is_user": p.is_user} for p in t.players],
        "standings": [
            {"rank": s.rank, "number": s.player.number, "name": s.player.name, "rating": s.player.rating,
             "points": s.points, "buchholz": s.buchholz, "sonneborn_berger": s.sonneborn_berger, "wins": s.wins,
             "games": s.games}
            for s in t.standings()
        ],
        "crosstable": t.crosstable(),
        "pairings": [
            {"white": t.player(g.white).name, "black": None if g.black is None else t.player(g.black).name,
             "result": g.result}
            for g in t.round_games(t.current_round)
        ],
        "waiting": len(npc_games.npc_games(t)),
        "next": None if job is None else {"round": job.round, "opponent": job.opponent,
                                          "rating": job.opponent_rating, "color": job.color},
    }


class TournamentApi:
    """The routes, bound to the web server (its daemon, its PIN guard)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.followers: list[Any] = []

    @property
    def daemon(self) -> Any:
        return self.server._daemon

    def _folder(self) -> Path | None:
        from boardctl.learning.tournament_runner import tournaments_folder

        games = self.server._games_path()
        return tournaments_folder(games) if games is not None else None

    def _store(self) -> TournamentStore:
        folder = self._folder()
        if folder is None:
            raise web.HTTPNotFound(text="no games folder: this page keeps no tournaments")
        return TournamentStore(folder)

    async def _body(self, request: web.Request) -> dict[str, Any]:
        from boardctl.web.protocol import PinError
        from boardctl.web.server import PIN_HEADER

        if request.content_type != "application/json":
            raise _Refused(415, f"POST {request.path}: send JSON with Content-Type: application/json")
        try:
            self.server._guard.check(self.server._remote(request), request.headers.get(PIN_HEADER))
        except PinError as exc:
            raise _Refused(403, str(exc)) from None
        raw = await request.content.read(MAX_BODY + 1)
        if len(raw) > MAX_BODY:
            raise _Refused(400, f"POST {request.path}: more than {MAX_BODY} bytes")
        try:
            data = json.loads(raw.decode("utf-8") or "{}")
        except (UnicodeDecodeError, ValueError):
            raise _Refused(400, f"POST {request.path}: not JSON") from None
        if not isinstance(data, dict):
            raise _Refused(400, f"POST {request.path}: expected a JSON object")
        return data

    async def get(self, request: web.Request) -> web.Response:
        try:
            store = self._store()
            from boardctl.learning.tournament_runner import active_id

            t = store.load(active_id(store, request.query.get("id")))
            # the background runner is playing the characters' games now (the page waits for it)
            playing = npc_games.is_running(store, t.tournament_id)
        except BoardctlError:
            t, playing = None, False
        rating = default_store().load()
        return web.json_response({
            "tournament": None if t is None else tournament_json(t),
            "rating": {"value": rating.rounded, "games": rating.games},
            "playing": playing,
        })

    async def new(self, request: web.Request) -> web.Response:
        from boardctl.learning.tournament_runner import candidates, ensure_runner, new_tournament

        try:
            data = await self._body(request)
            players = _int(data, "players", 8)
            fmt = Format(str(data.get("format", "round-robin")))
            rounds = data.get("rounds")
            if rounds is not None:
                rounds = _int(data, "rounds", 0)
            elif fmt is Format.SWISS:
                rounds = swiss_rounds(players)
            time_control = str(data.get("time_control", "15+10"))[:20]
            store = self._store()
            me = default_store().load()
            t = await asyncio.to_thread(new_tournament, store, me.rounded, players=players, format=fmt, rounds=rounds,
                                        time_control=time_control, pool=candidates())
            await asyncio.to_thread(ensure_runner, store, t)
        except _Refused as exc:
            return _error(exc.status, exc.message)
        except (BoardctlError, ValueError) as exc:
            return _error(400, str(exc))
        return web.json_response({"tournament": tournament_json(t)})

    async def next(self, request: web.Request) -> web.Response:
        from boardctl.learning.tournament_runner import (
            GameFollower,
            active_id,
            assignment,
            ensure_runner,
        )

        try:
            await self._body(request)
            store = self._store()
            tid = active_id(store, request.query.get("id"))
            t = store.load(tid)
            if assignment(t) is None and not t.is_finished() and (t.current_round == 0 or t.is_round_complete(t.current_round)):
                t = await asyncio.to_thread(store.pair_next_round, tid)
            job = assignment(t)
            await asyncio.to_thread(ensure_runner, store, t)
            if job is None:
                return web.json_response({"tournament": tournament_json(t), "started": False})
            engine = getattr(self.daemon, "engine", None)
            if engine is None:
                raise BoardctlError("tournament games are played against the engine: start boardctl play (or tournament next)")
            await self.daemon.new_game(_game_action(job.opponent, job.opponent_rating, job.color, job.time_control))
            follower = GameFollower(store, default_store(), job, linger=None)
            follower.attach(self.daemon, asyncio.Event())
            self.followers.append(follower)
        except _Refused as exc:
            return _error(exc.status, exc.message)
        except (BoardctlError, ValueError) as exc:
            return _error(400, str(exc))
        return web.json_response({"tournament": tournament_json(store.load(tid)), "started": True})


def _game_action(name: str, rating: int, color: str, time_control: str) -> NewGameAction:
    """The page's new game against ``name``: the character (its style and level) when there is
    one, else the engine at the player's rating."""
    from boardctl.learning.characters import CharacterError, find_character

    try:
        character = find_character(name)
    except CharacterError:
        npc = npc_games.Npc(name, rating)
        return NewGameAction(color=color, level=npc.engine_level, time_control=time_control)
    return NewGameAction(color=color, level=character.level, time_control=time_control, opponent=character.id)


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _int(data: dict[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
        raise ValueError(f"{key}: expected a whole number, got {str(value)[:20]!r}")
    return value


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def add_routes(app: web.Application, server: Any) -> None:
    """Add the tournament routes to the page's application."""
    api = TournamentApi(server)
    app.router.add_get("/api/tournament", api.get)
    app.router.add_post("/api/tournament/new", api.new)
    app.router.add_post("/api/tournament/next", api.next)
