"""The relay's games pushed to Lichess broadcast rounds, against the local stand-in of the endpoint."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator

import chess.pgn
import pytest

from boardctl.broadcast.lichess_push import GAMES_PER_ROUND, RATE_LIMITED_PAUSE, LichessPusher
from boardctl.broadcast.relay import Relay
from tests.broadcast.support import EVENT, OPENING, payload, record, snapshot, topic
from tests.online.standin import StandIn

TOKEN = "lip_broadcaster0001"


@pytest.fixture
def standin() -> Iterator[StandIn]:
    server = StandIn(token=TOKEN)
    server.start_in_thread()
    yield server
    server.stop_thread()


def relay_of(boards: int) -> Relay:
    relay = Relay(EVENT)
    for n in range(1, boards + 1):
        moves = OPENING[: 1 + n % len(OPENING)]
        relay.receive(topic(str(n)), payload(snapshot(record(moves, result="1-0" if n % 3 == 0 else "*"), seq=1,
                                                       board=str(n))))
    return relay


def games(text: str) -> list[tuple[str, int, str]]:
    out, stream = [], io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors
        out.append((game.headers["Board"], len(list(game.mainline_moves())), game.headers["Result"]))
    return out


def test_every_game_reaches_the_round(standin: StandIn) -> None:
    relay = relay_of(5)
    round_id = standin.add_round()
    pusher = LichessPusher(relay, rounds=[round_id], token=TOKEN, url=standin.url)
    pusher.push_now()
    assert games(standin.rounds[round_id][-1]) == games(relay.pgn())
    assert len(games(relay.pgn())) == 5


def test_a_large_event_fills_one_round_after_another(standin: StandIn) -> None:
    relay = relay_of(GAMES_PER_ROUND + 6)
    first, second = standin.add_round(), standin.add_round()
    LichessPusher(relay, rounds=[first, second], token=TOKEN, url=standin.url).push_now()
    assert [g[0] for g in games(standin.rounds[first][-1])] == [str(n) for n in range(1, GAMES_PER_ROUND + 1)]
    assert [g[0] for g in games(standin.rounds[second][-1])] == [str(n) for n in range(65, 71)]


def test_too_many_games_for_the_rounds_is_said(standin: StandIn) -> None:
    relay = relay_of(GAMES_PER_ROUND + 1)
    LichessPusher(relay, rounds=[standin.add_round()], token=TOKEN, url=standin.url).push_now()
    assert "give another --lichess-round" in relay.arbiter()["notes"][0]["text"]


@pytest.mark.parametrize(("token", "known", "limit", "said", "pause"), [
    ("lip_wrong", True, 0, "refused the push: 401", 15.0),
    (TOKEN, False, 0, "refused the push: 404", 15.0),
    (TOKEN, True, 1, "slow down", RATE_LIMITED_PAUSE),
])
def test_refusals_are_notes_and_the_push_waits(standin: StandIn, token: str, known: bool, limit: int, said: str,
                                               pause: float) -> None:
    relay = relay_of(2)
    round_id = standin.add_round() if known else "NoRound1"
    if limit:
        standin.rate_limit["broadcast"] = limit
    pusher = LichessPusher(relay, rounds=[round_id], token=token, url=standin.url)
    assert asyncio.run(pusher._push()) == pause
    assert said in relay.arbiter()["notes"][0]["text"]
    assert "lip_" not in relay.arbiter()["notes"][0]["text"]
    assert pusher.pushed == 0


def test_the_push_follows_the_games(standin: StandIn) -> None:
    relay = relay_of(1)
    round_id = standin.add_round()

    async def scenario() -> None:
        pusher = LichessPusher(relay, rounds=[round_id], token=TOKEN, url=standin.url, every=0.05)
        task = asyncio.create_task(pusher.run())
        await asyncio.sleep(0.5)
        assert len(standin.rounds[round_id]) == 1  # nothing changed: pushed once
        relay.receive(topic("1"), payload(snapshot(record([*OPENING[:2], "g1f3"]), seq=2, board="1")))
        await asyncio.sleep(0.5)
        task.cancel()

    asyncio.run(scenario())
    assert len(standin.rounds[round_id]) == 2
    assert games(standin.rounds[round_id][-1]) == [("1", 3, "*")]
