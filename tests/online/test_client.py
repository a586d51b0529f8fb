"""The berserk-based client against the stand-in: streams, moves, 429 back-off, errors."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from boardctl.online import OnlineError, PayloadError
from boardctl.online.client import LichessClient, StreamDropped
from boardctl.online.protocol import Challenge, GameFull, GameStart, GameState
from tests.online.standin import StandIn

TOKEN = "lip_clienttesttoken42"


def run(scenario: Callable[[StandIn, LichessClient], Awaitable[None]], **options: Any) -> StandIn:
    async def main() -> StandIn:
        standin = StandIn(token=TOKEN, **options)
        await standin.start()
        client = LichessClient(TOKEN, url=standin.url, rate_limit_wait=options.pop("wait", 0.3))
        try:
            await asyncio.wait_for(scenario(standin, client), 20)
        finally:
            await client.close()
            await standin.close()
        return standin

    return asyncio.run(main())


async def next_event(client: LichessClient, kind: type) -> Any:
    async for event in client.events():
        if isinstance(event, kind):
            return event
    raise AssertionError("stream ended")


def test_seek_starts_a_game_and_the_stream_starts_with_game_full() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        waiter = asyncio.create_task(next_event(client, GameStart))
        await asyncio.sleep(0.05)
        await client.seek(rated=False, minutes=5, increment=3)
        start = await waiter
        assert start.color == "white" and start.opponent == "Scripted"
        stream = client.game(start.game_id)
        full = await anext(stream)
        assert isinstance(full, GameFull)
        assert (full.clock_initial, full.clock_increment) == (300_000, 3000)
        assert full.state.moves == () and full.white.name == "BoardUser"
        await client.move(start.game_id, "e2e4")
        state = await anext(stream)
        assert isinstance(state, GameState) and state.moves == ("e2e4",)
        state = await anext(stream)  # the scripted reply
        assert isinstance(state, GameState) and state.moves == ("e2e4", "e7e5")
        assert state.wtime == 300_000 and state.btime == 300_000
        await stream.aclose()

    run(scenario, script=["e7e5"])


def test_an_illegal_move_is_refused_with_lichess_own_error_text() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        game = standin._create_game(5, 3, False, "white")
        with pytest.raises(OnlineError, match=r"Lichess refused move e2e5: HTTP 400 \('Invalid move: e2e5'\)"):
            await client.move(game.id, "e2e5")
        with pytest.raises(OnlineError, match="HTTP 404"):
            await client.move("ZZZZZZZZ", "e2e4")

    run(scenario)


def test_the_default_wait_after_429_is_the_minute_lichess_asks_for() -> None:
    assert LichessClient(TOKEN).rate_limit_wait == 60.0


@pytest.mark.slow
def test_429_is_waited_out_a_full_wait_then_tried_again() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        game = standin._create_game(5, 3, False, "white")
        standin.rate_limit["/move/"] = 1
        loop = asyncio.get_running_loop()
        began = loop.time()
        await client.move(game.id, "e2e4")
        waited = loop.time() - began
        assert client.backoffs == 1
        assert waited >= 0.3  # the whole wait, not a quick retry
        assert game.moves == ["e2e4"]
        statuses = [status for _, path, status in standin.requests if "/move/" in path]
        assert statuses == [429, 200]
        # every request waits while paused, not only the one that got the 429
        standin.rate_limit["/resign"] = 1
        began = loop.time()
        await client.resign(game.id)
        assert loop.time() - began >= 0.3 and game.status == "resign"

    run(scenario)


def test_429_when_opening_a_stream_is_waited_out_too() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        game = standin._create_game(5, 3, False, "white")
        standin.rate_limit["/api/board/game/stream/"] = 1
        first = await anext(client.game(game.id))
        assert isinstance(first, GameFull) and client.backoffs == 1

    run(scenario)


def test_a_wrong_token_is_one_clear_message_without_the_token() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        bad = LichessClient("lip_wrongwrongwrong", url=standin.url)
        try:
            with pytest.raises(OnlineError) as info:
                await bad.move("abcdefgh", "e2e4")
        finally:
            await bad.close()
        assert "HTTP 401" in str(info.value) and "board:play" in str(info.value)
        assert "lip_wrongwrongwrong" not in str(info.value)

    run(scenario)


def test_a_dropped_game_stream_is_stream_dropped() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        game = standin._create_game(5, 3, False, "white")
        stream = client.game(game.id)
        await anext(stream)
        await asyncio.sleep(0.05)
        assert standin.drop_game_streams() == 1
        with pytest.raises(StreamDropped):
            await anext(stream)

    run(scenario)


def test_unreachable_server_is_one_message() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        dead = LichessClient(TOKEN, url="http://127.0.0.1:9")
        try:
            with pytest.raises(OnlineError, match=r"cannot reach Lichess at http://127.0.0.1:9 for resigning"):
                await dead.resign("abcdefgh")
        finally:
            await dead.close()

    run(scenario)


def test_challenge_and_accept() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        waiter = asyncio.create_task(next_event(client, GameStart))
        await asyncio.sleep(0.05)
        challenge_id = await client.challenge("Scripted", rated=True, minutes=3, increment=2, color="black")
        start = await waiter
        assert start.game_id == challenge_id and start.color == "black"
        with pytest.raises(OnlineError, match="HTTP 400"):
            await client.challenge("Nobody", rated=False, minutes=3, increment=2)
        incoming = standin.incoming_challenge()
        seen = await next_event(client, Challenge)
        assert seen.id == incoming and seen.direction == "in"
        await client.accept_challenge(incoming)
        assert standin.games[incoming].status == "started"
        with pytest.raises(OnlineError, match="HTTP 404"):
            await client.accept_challenge(incoming)

    run(scenario)


def test_429_on_the_event_stream_is_waited_out() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        standin._create_game(5, 3, False, "white")
        standin.rate_limit["/api/stream/event"] = 1
        start = await next_event(client, GameStart)
        assert start.color == "white" and client.backoffs == 1

    run(scenario)


def test_a_challenge_reply_without_an_id_is_refused() -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        real = standin._challenge_json
        standin._challenge_json = lambda *args: {**real(*args), "id": "../../x"}  # type: ignore[method-assign]
        with pytest.raises(PayloadError, match=r"challenge reply: 'id' must be a Lichess id, got '../../x'"):
            await client.challenge("Scripted", rated=False, minutes=3, increment=2)

    run(scenario)


def test_an_error_text_that_echoes_the_token_is_redacted() -> None:
    """A server (or something in between) that puts the token into its error text."""
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        from aiohttp import web

        async def leaky(request: web.Request) -> web.Response:
            return web.json_response({"error": f"bad request from {request.headers['Authorization']}"}, status=400)

        app_standin = StandIn(token=TOKEN)  # a server of its own: routes are bound when it starts
        app_standin._move = leaky  # type: ignore[method-assign]
        await app_standin.start()
        leaking = LichessClient(TOKEN, url=app_standin.url)
        try:
            with pytest.raises(OnlineError) as info:
                await leaking.move("abcdefgh", "e2e4")
        finally:
            await leaking.close()
            await app_standin.close()
        assert TOKEN not in str(info.value) and "[token hidden]" in str(info.value)

    run(scenario)


@pytest.mark.parametrize(("moves", "leaves", "call", "status", "winner"), [
    # a threefold repetition on the board: a draw "yes" is the claim (no offer to decline)
    (["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"], None, "claim_draw", "draw", None),
    # no repetition: the same call is only an offer, the game goes on
    (["g1f3", "g8f6"], None, "claim_draw", "started", None),
    # the opponent left, and its claimWinInSeconds are over: the win
    (["e2e4", "e7e5"], 0, "claim_victory", "timeout", "white"),
    # the opponent left a moment ago: too early, refused (400)
    (["e2e4", "e7e5"], 60, "claim_victory", "started", None),
    # the opponent is there: refused
    (["e2e4", "e7e5"], None, "claim_victory", "started", None),
])
def test_claims_as_lichess_answers_them(moves: list[str], leaves: int | None, call: str, status: str,
                                        winner: str | None) -> None:
    async def scenario(standin: StandIn, client: LichessClient) -> None:
        waiter = asyncio.create_task(next_event(client, GameStart))
        await asyncio.sleep(0.05)
        await client.seek(rated=False, minutes=5, increment=3)
        start = await waiter
        game = standin.games[start.game_id]
        game.moves.extend(moves)
        if leaves is not None:
            standin.opponent_leaves(claim_after=leaves)
        refused = ""
        try:
            await getattr(client, call)(start.game_id)
        except OnlineError as exc:
            refused = str(exc)
        assert bool(refused) == (call == "claim_victory" and status == "started"), refused
        assert (game.status, game.winner) == (status, winner)

    run(scenario, script=[])
