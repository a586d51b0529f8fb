"""Issue 29 (not yet tried before): a Lichess that fails. HTTP 500 on a move or a stream is one
clear OnlineError naming the request and the status (never a traceback, never the token); a
stream that stalls (no byte, not even Lichess's keep-alive blank line) counts as dropped after the
read time-out, so the caller reconnects instead of waiting for ever."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from boardctl.online import OnlineError
from boardctl.online.client import LichessClient, StreamDropped

TOKEN = "lip_hostileservertoken7"


async def _serve(handler: Any) -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handler)
    runner = web.AppRunner(app, shutdown_timeout=0.2)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


async def _fail_500(request: web.Request) -> web.StreamResponse:
    return web.Response(status=500, text="<html>Internal Server Error " + TOKEN + "</html>", content_type="text/html")


async def _stall(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)
    await asyncio.sleep(30)  # not a byte, not even the keep-alive blank line
    return response


def _run(handler: Any, scenario: Any) -> None:
    async def main() -> None:
        async for url in _serve(handler):
            client = LichessClient(TOKEN, url=url, rate_limit_wait=0.1, read_timeout=0.5)
            try:
                await asyncio.wait_for(scenario(client), 20)
            finally:
                await client.close()

    asyncio.run(main())


@pytest.mark.parametrize("call", ["move", "resign", "seek"])
def test_http_500_is_one_clear_error_without_the_token(call: str) -> None:
    async def scenario(client: LichessClient) -> None:
        with pytest.raises(OnlineError) as info:
            if call == "move":
                await client.move("abcd1234", "e2e4")
            elif call == "resign":
                await client.resign("abcd1234")
            else:
                await client.seek(rated=False, minutes=10, increment=0)
        text = str(info.value)
        assert "500" in text and TOKEN not in text and "\n" not in text and len(text) < 600, text

    _run(_fail_500, scenario)


def test_http_500_on_a_stream_is_one_clear_error() -> None:
    async def scenario(client: LichessClient) -> None:
        with pytest.raises(OnlineError) as info:
            async for _ in client.game("abcd1234"):
                pass
        assert "500" in str(info.value) and TOKEN not in str(info.value)

    _run(_fail_500, scenario)


@pytest.mark.slow
def test_a_stalled_stream_counts_as_dropped() -> None:
    async def scenario(client: LichessClient) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(StreamDropped):
            async for _ in client.game("abcd1234"):
                pass
        assert loop.time() - start < 5  # the read time-out (0.5 s here), not the server's 30 s

    _run(_stall, scenario)
