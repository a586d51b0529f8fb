"""Issue 29, finding 1: in LAN mode the invitation (whose code is worth the guest's seat) reaches
only clients that gave the PIN: ``GET /api/state``, the ``/ws`` stream and ``GET /api/invite``
hide it from everyone else; a code stolen once the guest has joined is refused and the real
guest keeps its seat."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from boardctl.network import host as host_mod
from boardctl.network.join import Address, JoinRefused, handshake
from boardctl.network.protocol import Hello
from network.test_endpoint import Hosted, _talk, hello, hosted, run

PIN = "4321"


@pytest.fixture(autouse=True)
def _no_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_mod, "WRONG_SECRET_DELAY", 0.0)


def _invite(h: Hosted) -> None:
    """What ``boardctl host`` does after starting its server: the invitation in the state lines."""
    invite = {"address": h.url, "code": h.ticket.code}
    h.daemon.extra_state["invite"] = invite
    h.link.invite = invite
    h.daemon.refresh("network")


async def _ws_lines(url: str, send: list[dict[str, Any]], *, quiet: float = 0.4) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        for message in send:
            await ws.send_str(json.dumps(message))
        with contextlib.suppress(TimeoutError):
            while True:
                msg = await asyncio.wait_for(ws.receive(), quiet)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                lines.append(json.loads(msg.data))
    return lines


@pytest.mark.slow
def test_in_lan_mode_only_pin_holders_see_the_invitation(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path, lan=True) as h:
            _invite(h)
            code = h.ticket.code
            assert code
            base = f"http://127.0.0.1:{h.server.port}"
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{base}/api/state") as response:
                    stranger = await response.json()
                assert response.status == 200 and "invite" not in stranger and code not in json.dumps(stranger)
                async with http.get(f"{base}/api/state", headers={"X-Boardctl-Pin": "0000"}) as response:
                    assert response.status == 403  # a wrong PIN is no way in either
                async with http.get(f"{base}/api/state", headers={"X-Boardctl-Pin": PIN}) as response:
                    owner = await response.json()
                assert owner["invite"]["code"] == code
            ws_url = f"ws://127.0.0.1:{h.server.port}/ws"
            watcher = await _ws_lines(ws_url, [])
            assert watcher and all(code not in json.dumps(line) for line in watcher)
            wrong = await _ws_lines(ws_url, [{"id": 1, "pin": "9999"}])
            assert all(code not in json.dumps(line) for line in wrong)
            assert any(line.get("reply") == 1 and "PIN" in line.get("error", "") for line in wrong)
            given = await _ws_lines(ws_url, [{"id": 1, "pin": PIN}])
            assert any(line.get("invite", {}).get("code") == code for line in given)
            assert {"reply": 1, "ok": True} in given
            assert h.daemon.session.record.result == "*"  # giving the PIN changed nothing

    run(scenario)


def test_a_stolen_code_after_the_guest_joined_takes_no_seat(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path, lan=True) as h:
            _invite(h)
            code = h.ticket.code
            assert code
            address = Address.from_string(h.url)
            welcome = await handshake(address, Hello(variant="chess", code=code), tls=None)
            stolen = await _talk(h.url, hello(code=code))
            assert stolen[0]["type"] == "error" and stolen[0]["fatal"]
            assert all(a.get("type") != "welcome" for a in stolen)
            with pytest.raises(JoinRefused, match="wrong or already used"):
                await handshake(address, Hello(variant="chess", code=code), tls=None, attempts=1)
            again = await handshake(address, Hello(variant="chess", token=welcome.token), tls=None)
            assert again.token == welcome.token and again.color == "black"
            # The state lines (for the owner too) no longer carry a usable code.
            assert h.daemon.state()["invite"]["code"] is None

    run(scenario)


def test_the_pages_invite_hides_the_code_from_clients_without_the_pin(tmp_path: Path) -> None:
    from boardctl.config import load
    from boardctl.daemon import Daemon
    from boardctl.network import page_invite
    from boardctl.session import Session, Settings
    from boardctl.storage import GameStore
    from boardctl.web.server import WebServer

    async def scenario() -> None:
        daemon = Daemon(Session(Settings(mode="record")), store=GameStore(tmp_path / "games"))
        server = WebServer(daemon, host="127.0.0.1", port=0, pin=PIN, lan=True)
        invite = page_invite.enable(server, daemon, load(files=[]))
        await server.start()
        try:
            base = f"http://127.0.0.1:{server.port}"
            async with aiohttp.ClientSession() as http:
                async with http.post(f"{base}/api/invite", json={"color": "white"},
                                     headers={"X-Boardctl-Pin": PIN}) as response:
                    started = await response.json()
                code = started["invite"]["code"]
                assert response.status == 200 and code
                async with http.get(f"{base}/api/invite") as response:
                    stranger = await response.json()
                assert stranger["hosting"] is True and stranger["invite"] is None
                async with http.get(f"{base}/api/state") as response:
                    assert code not in await response.text()
                async with http.get(f"{base}/api/invite", headers={"X-Boardctl-Pin": PIN}) as response:
                    assert (await response.json())["invite"]["code"] == code
        finally:
            await invite.end()
            await server.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_a_new_code_replaces_a_used_one_and_only_with_the_pin(tmp_path: Path) -> None:
    """Issue 35, finding 8: a used invitation can be replaced. Only a PIN holder may ask (a new
    code lets the seat go); then the old code and the joined board's token are refused, the new
    code takes the seat, and the state lines carry it."""
    async def scenario() -> None:
        async with hosted(tmp_path, lan=True) as h:
            _invite(h)
            old_code = h.ticket.code
            assert old_code
            address = Address.from_string(h.url)
            welcome = await handshake(address, Hello(variant="chess", code=old_code), tls=None)
            base = f"http://127.0.0.1:{h.server.port}/api/invite/new-code"
            async with aiohttp.ClientSession() as http:
                for headers in ({}, {"X-Boardctl-Pin": "0000"}):
                    async with http.post(base, json={}, headers=headers) as response:
                        assert response.status == 403, headers
                assert h.link.ticket.token == welcome.token  # refused: nothing changed
                async with http.post(base, json={}, headers={"X-Boardctl-Pin": PIN}) as response:
                    answer = await response.json()
                assert response.status == 200
            new_code = answer["invite"]["code"]
            assert new_code and new_code != old_code and h.daemon.state()["invite"]["code"] == new_code
            assert h.link.ticket.token is None and h.link.ticket.code == new_code
            for secret in (Hello(variant="chess", token=welcome.token), Hello(variant="chess", code=old_code)):
                with pytest.raises(JoinRefused):
                    await handshake(address, secret, tls=None, attempts=1)
            taken = await handshake(address, Hello(variant="chess", code=new_code), tls=None)
            assert taken.token != welcome.token and taken.color == "black"
            assert h.daemon.state()["invite"]["code"] is None

    run(scenario)
