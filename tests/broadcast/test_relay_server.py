"""The relay's HTTP side in process: the page, the PGN, the JSON and the page's stream."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from boardctl.broadcast.relay import Relay
from boardctl.broadcast.relay_server import RelayServer
from tests.broadcast.support import EVENT, OPENING, payload, record, snapshot, topic


async def _next_event(response: aiohttp.ClientResponse) -> dict[str, Any]:
    data = await asyncio.wait_for(response.content.readuntil(b"\n\n"), timeout=3.0)
    return json.loads(data.removeprefix(b"data: "))  # type: ignore[no-any-return]


def test_the_page_the_pgn_the_json_and_the_stream() -> None:
    async def scenario() -> None:
        relay = Relay(EVENT)
        relay.receive(topic("7"), payload(snapshot(record(OPENING[:2]), seq=1)))
        server = RelayServer(relay, port=0)
        await server.start()
        try:
            async with aiohttp.ClientSession(read_bufsize=2**20) as http:
                async with http.get(server.url) as page:
                    assert page.status == 200 and "EventSource" in await page.text()
                async with http.get(f"{server.url}games.pgn") as pgn:
                    assert pgn.content_type == "application/x-chess-pgn"
                    assert '[Board "7"]' in await pgn.text()
                async with http.get(f"{server.url}api/boards/7") as one:
                    body = await one.json()
                    assert [m["san"] for m in body["moves"]] == ["e4", "e5"] and body["plies"] == 2
                for missing in ("8", "a%2Fb", "x" * 60):
                    async with http.get(f"{server.url}api/boards/{missing}") as none:
                        assert none.status == 404
                async with http.get(f"{server.url}api/stream") as stream:
                    first = await _next_event(stream)
                    assert first["event"] == EVENT and first["boards"][0]["plies"] == 2
                    relay.receive(topic("7"), payload(snapshot(record(OPENING[:3]), seq=2)))
                    relay.receive(topic("7"), b"garbage")
                    while True:
                        message = await _next_event(stream)
                        if message["changed"]:
                            break
                    assert message["changed"] == ["7"] and message["boards"][0]["plies"] == 3
                    assert message["boards"][0]["last"] == "2. Nf3"
                    assert message["arbiter"]["counts"]["refused"] == 1
                async with http.get(f"{server.url}api/arbiter") as arbiter:
                    assert "not a boardctl message" in (await arbiter.json())["notes"][0]["text"]
        finally:
            await server.close()

    asyncio.run(scenario())
