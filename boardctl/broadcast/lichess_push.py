"""The relay's PGN pushed to a Lichess broadcast round (berserk's ``broadcasts.push_pgn_update``).

Whenever a game changed, and at most every :data:`PUSH_EVERY` seconds, the whole multi-game PGN
goes to ``POST /api/broadcast/round/{id}/push`` (a token with the ``study:write`` scope, of the
round's owner). A Lichess round holds at most :data:`GAMES_PER_ROUND` games, so a larger event
gives several rounds: the games in board order fill them in turn. A refusal or a rate limit is a
note on the arbiter's panel, and the next push tries again (after a minute, when Lichess asked to
slow down).
"""

from __future__ import annotations

import asyncio
import logging
import time

import berserk
import berserk.exceptions

from boardctl.broadcast.relay import Relay

log = logging.getLogger(__name__)

PUSH_EVERY = 3.0
GAMES_PER_ROUND = 64
RATE_LIMITED_PAUSE = 60.0


class LichessPusher:
    """Pushes ``relay``'s PGN to the broadcast rounds ``rounds``; ``run`` until cancelled."""

    def __init__(self, relay: Relay, *, rounds: list[str], token: str, url: str = "https://lichess.org",
                 every: float = PUSH_EVERY) -> None:
        self.relay = relay
        self.rounds = rounds
        self.every = every
        self.client = berserk.Client(berserk.TokenSession(token), base_url=url)
        self.pushed = 0
        self._seen = -1

    def push_now(self) -> None:
        """One push of every game (blocking: run it in a thread)."""
        games = self.relay.pgn_games()
        for index, round_id in enumerate(self.rounds):
            chunk = games[index * GAMES_PER_ROUND:(index + 1) * GAMES_PER_ROUND]
            if chunk:
                self.client.broadcasts.push_pgn_update(round_id, chunk)
        if len(games) > GAMES_PER_ROUND * len(self.rounds):
            self.relay.note("lichess", f"{len(games)} games, room for {GAMES_PER_ROUND * len(self.rounds)} in "
                            f"{len(self.rounds)} Lichess round(s): give another --lichess-round")

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            version = self.relay.version
            if version == self._seen or not self.relay.boards:
                continue
            pause = await self._push()
            if pause:
                await asyncio.sleep(pause)
            else:
                self._seen = version

    async def _push(self) -> float:
        """Push once; the seconds to wait before the next try (0: it went through)."""
        now = time.time()
        try:
            await asyncio.to_thread(self.push_now)
        except berserk.exceptions.ResponseError as exc:
            if exc.status_code == 429:
                self.relay.note("lichess", f"Lichess asks to slow down: the next push in {RATE_LIMITED_PAUSE:g} s", now)
                return RATE_LIMITED_PAUSE
            self.relay.note("lichess", f"Lichess refused the push: {exc.status_code} "
                            f"{str(exc.reason)[:100]}", now)
            return self.every * 5
        except (berserk.exceptions.ApiError, OSError) as exc:
            self.relay.note("lichess", f"cannot reach Lichess ({type(exc).__name__}); trying again", now)
            return self.every * 5
        self.pushed += 1
        return 0.0
