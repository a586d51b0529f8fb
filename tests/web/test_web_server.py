"""The server's own rules: PIN in LAN mode, Host/Origin checks, validation, games folder.

These run the real aiohttp server on 127.0.0.1 with a small object that follows the daemon's
contract and records what reaches ``submit``, because the point here is what the server lets
through. LAN mode is forced with ``lan=True`` on the loopback address, so no test opens a port
on the network. Whole games against the real daemon are in test_web_browser.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import chess
import pytest

from boardctl.actions import Action
from boardctl.errors import BoardctlError, ConfigError
from boardctl.web.protocol import action_to_json
from boardctl.web.server import (
    MAX_PIN_FAILURES,
    PIN_HEADER,
    Annotator,
    WebServer,
    is_loopback_host,
    list_games,
)

PIN = "246810"


class RecordingDaemon:
    """The daemon's contract (subscribe/unsubscribe/state/submit), recording submitted actions."""

    def __init__(self) -> None:
        self.actions: list[dict[str, Any]] = []
        self.queues: list[asyncio.Queue[dict[str, Any]]] = []
        self._state: dict[str, Any] = {"fen": chess.STARTING_FEN, "pending": None, "moves": [], "leds": [], "result": "*"}
        self.games_dir: Path | None = None

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.queues.append(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        self.queues.remove(queue)

    def state(self) -> dict[str, Any]:
        return self._state

    async def submit(self, typed: Action) -> None:
        action = action_to_json(typed)  # recorded as the page sent it
        if action.get("button") == "claim":
            raise _Refused("claim: nothing to claim (no threefold repetition, no 50-move rule)")
        self.actions.append(action)
        self._state = {**self._state, "reason": "web", "moves": [*self._state["moves"], "e2e4"]}
        for queue in self.queues:
            queue.put_nowait(self._state)


class _Refused(BoardctlError, ValueError):
    pass


Scenario = Callable[[WebServer, aiohttp.ClientSession, RecordingDaemon], Awaitable[None]]


def serve(scenario: Scenario, *, lan: bool = False, daemon: RecordingDaemon | None = None) -> RecordingDaemon:
    daemon = daemon or RecordingDaemon()

    async def main() -> None:
        server = WebServer(daemon, host="127.0.0.1", port=0, pin=PIN if lan else None, lan=lan)
        async with server, aiohttp.ClientSession() as session:
            await asyncio.wait_for(scenario(server, session, daemon), timeout=20)

    asyncio.run(main())
    return daemon


async def post(session: aiohttp.ClientSession, server: WebServer, action: Any, **headers: str) -> tuple[int, Any]:
    async with session.post(server.url + "api/action", json=action, headers=headers) as resp:
        return resp.status, await resp.json()


# -- LAN mode: nothing changes without the PIN --------------------------------------------------


def test_lan_post_needs_the_pin() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        assert server.is_lan
        status, body = await post(session, server, {"button": "resign"})
        assert (status, "enter the PIN" in body["error"]) == (403, True)
        status, body = await post(session, server, {"button": "resign"}, **{PIN_HEADER: "000000"})
        assert (status, body["error"]) == (403, "wrong PIN")
        status, body = await post(session, server, {"new-game": {"color": "black"}}, **{PIN_HEADER: "2468"})
        assert status == 403
        assert daemon.actions == []
        status, body = await post(session, server, {"button": "resign"}, **{PIN_HEADER: PIN})
        assert (status, body) == (200, {"ok": True})
        assert daemon.actions == [{"button": "resign"}]

    serve(scenario, lan=True)


def test_lan_websocket_actions_need_the_pin_but_reading_does_not() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        async with session.get(server.url + "api/state") as resp:
            assert resp.status == 200 and (await resp.json())["fen"] == chess.STARTING_FEN
        async with session.get(server.url + "api/info") as resp:
            assert (await resp.json())["pin_required"] is True
        async with session.ws_connect(server.url + "ws") as ws:
            first = json.loads(await ws.receive_str())
            # The daemon's line unchanged, plus the move list's SAN (no opening for the start position).
            assert first == {**daemon.state(), "san": [], "opening": None, "pending_san": None, "hint_san": None,
                             "check": None, "can_promote": False, "board_hint": None}
            for n, pin in enumerate([None, "", "135790", 135790]):
                msg: dict[str, Any] = {"id": n, "action": {"event": {"square": "e2", "occupied": False}}}
                if pin is not None:
                    msg["pin"] = pin
                await ws.send_str(json.dumps(msg))
                reply = json.loads(await ws.receive_str())
                assert reply["reply"] == n and reply["pin"] == "required" and "PIN" in reply["error"], reply
            assert daemon.actions == []
            await ws.send_str(json.dumps({"id": 9, "pin": PIN, "action": {"event": {"square": "e2", "occupied": False}}}))
            # The state line the action caused and the reply both arrive; the state line is unchanged JSON.
            got = [json.loads(await ws.receive_str()) for _ in range(2)]
            assert {"reply": 9, "ok": True} in got
            assert any(m.get("moves") == ["e2e4"] and m.get("reason") == "web" for m in got)
        assert daemon.actions == [{"event": {"square": "e2", "occupied": False}}]

    serve(scenario, lan=True)


def test_repeated_wrong_pins_lock_the_client_out() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        for _ in range(MAX_PIN_FAILURES):
            status, _ = await post(session, server, {"button": "hint"}, **{PIN_HEADER: "999999"})
            assert status == 403
        status, body = await post(session, server, {"button": "hint"}, **{PIN_HEADER: PIN})
        assert status == 403 and "too many wrong PINs" in body["error"]
        assert daemon.actions == []

    serve(scenario, lan=True)


def test_non_loopback_host_is_lan_mode_and_needs_a_pin() -> None:
    daemon = RecordingDaemon()
    assert not is_loopback_host("0.0.0.0") and not is_loopback_host("192.168.1.20")
    assert is_loopback_host("127.0.0.1") and is_loopback_host("::1") and is_loopback_host("localhost")
    with pytest.raises(ConfigError, match=r"web\.pin"):
        WebServer(daemon, host="0.0.0.0", port=0, pin=None)
    assert WebServer(daemon, host="0.0.0.0", port=0, pin=PIN).is_lan
    assert not WebServer(daemon, host="127.0.0.1", port=0, pin=PIN).is_lan


# -- loopback mode: no PIN, but other sites cannot drive the board -------------------------------


def test_loopback_needs_no_pin() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        assert (await post(session, server, {"button": "hint"})) == (200, {"ok": True})

    assert serve(scenario).actions == [{"button": "hint"}]


def test_foreign_host_and_origin_are_refused() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        # DNS rebinding: a page on evil.example resolved to 127.0.0.1.
        status, body = await post(session, server, {"button": "resign"}, Host=f"evil.example:{server.port}")
        assert status == 403 and "Host" in body["error"]
        # Cross-site request from another origin.
        status, body = await post(session, server, {"button": "resign"}, Origin="http://evil.example")
        assert status == 403 and "cross-origin" in body["error"]
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await session.ws_connect(server.url + "ws", origin="http://evil.example")
        # A form post (a "simple" request other sites can make) is not JSON.
        async with session.post(server.url + "api/action", data="button=resign") as resp:
            assert resp.status == 415
        # The page's own origin is fine.
        status, _ = await post(session, server, {"button": "hint"}, Origin=f"http://127.0.0.1:{server.port}")
        assert status == 200

    assert serve(scenario).actions == [{"button": "hint"}]


# -- validation errors reach the page as text ----------------------------------------------------


def test_bad_input_gets_a_clear_error_and_never_reaches_the_daemon() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        status, body = await post(session, server, {"new-game": {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1"}})
        assert status == 400 and body["error"].startswith("new-game.fen:")
        async with session.post(
            server.url + "api/action", data=b"{nope", headers={"Content-Type": "application/json"}
        ) as resp:
            assert resp.status == 400 and "not valid JSON" in (await resp.json())["error"]
        async with session.ws_connect(server.url + "ws") as ws:
            await ws.receive_str()
            await ws.send_str('{"id": 4, "action": {"event": {"square": "z9", "occupied": true}}}')
            assert json.loads(await ws.receive_str()) == {
                "reply": 4,
                "error": "event.square: expected a square name like 'e4', got 'z9'",
            }
            await ws.send_str("not json")
            reply = json.loads(await ws.receive_str())
            assert reply["reply"] is None and "not valid JSON" in reply["error"]
            # The daemon's own refusal comes back the same way.
            await ws.send_str('{"id": 5, "action": {"button": "claim"}}')
            assert json.loads(await ws.receive_str()) == {
                "reply": 5,
                "error": "claim: nothing to claim (no threefold repetition, no 50-move rule)",
            }
        assert daemon.actions == []

    serve(scenario)


# -- past games -------------------------------------------------------------------------------------


def test_past_games_are_listed_and_downloadable_but_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "2026-11-29-1500-a.pgn").write_text(
        '[Event "boardctl"]\n[Date "2026.11.29"]\n[White "Human"]\n[Black "boardctl 1500"]\n[Result "1-0"]\n'
        '[Opening "Italian Game"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 1-0\n'
    )
    (tmp_path / "secret.txt").write_text("not a game")
    daemon = RecordingDaemon()
    daemon.games_dir = tmp_path

    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        async with session.get(server.url + "api/games") as resp:
            games = (await resp.json())["games"]
        assert [(g["name"], g["white"], g["result"], g["opening"]) for g in games] == [
            ("2026-11-29-1500-a.pgn", "Human", "1-0", "Italian Game")
        ]
        async with session.get(server.url + "api/games/2026-11-29-1500-a.pgn") as resp:
            assert resp.status == 200 and "3. Bc4" in await resp.text()
            assert "attachment" in resp.headers["Content-Disposition"]
        for name in ("secret.txt", "..%2Fsecret.txt", "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd.pgn", "missing.pgn"):
            async with session.get(server.url + "api/games/" + name) as resp:
                assert resp.status == 404, name

    serve(scenario, daemon=daemon)
    (tmp_path / "empty").mkdir()
    assert list_games(tmp_path / "empty") == []


# -- the move list's SAN and opening, added only where the daemon gives none ----------------------


def test_annotator_adds_san_and_opening_and_follows_takebacks() -> None:
    annotator = Annotator()
    line: dict[str, Any] = {"fen": "?", "moves": ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]}
    out = annotator.annotate(line)
    assert out["san"] == ["e4", "e5", "Nf3", "Nc6", "Bb5"]
    assert "Ruy Lopez" in out["opening"]
    assert "san" not in line  # the daemon's line itself is not changed
    assert annotator.annotate({**line, "moves": ["e2e4", "c7c5"]})["san"] == ["e4", "c5"]
    assert "Sicilian" in annotator.annotate({**line, "moves": ["e2e4", "c7c5"]})["opening"]
    # Keys the daemon sends win; a game from a FEN replays from its start_fen.
    own = {"moves": ["e2e4"], "san": ["pawn to e4"], "opening": "mine", "pending_san": None, "hint_san": None,
           "check": None, "can_promote": False, "board_hint": None}
    assert annotator.annotate(own) == own
    endgame = {"moves": ["e2e4"], "start_fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"}
    assert annotator.annotate(endgame)["san"] == ["e4"]
    # The engine's pending move and the hint in SAN, for the status line.
    out = annotator.annotate({"moves": ["e2e4"], "pending": "g8f6", "hint": "d2d4"})
    assert (out["pending_san"], out["hint_san"]) == ("Nf6", None)  # d2d4 is not a move for Black
    # Moves that do not fit the start position are passed on without annotations.
    assert "san" not in annotator.annotate({"moves": ["e2e5"]})


# -- the games folder changes while it is listed ---------------------------------------------------

_HEADERS = '[Event "boardctl"]\n[White "Human"]\n[Black "Engine"]\n[Result "*"]\n\n1. e4 *\n'


def test_games_list_survives_dangling_symlinks_and_odd_entries(tmp_path: Path) -> None:
    (tmp_path / "a.pgn").write_text(_HEADERS)
    (tmp_path / "dangling.pgn").symlink_to(tmp_path / "gone.pgn")
    (tmp_path / "loop.pgn").symlink_to(tmp_path / "loop.pgn")
    (tmp_path / "dir.pgn").mkdir()
    outside = tmp_path.parent / f"{tmp_path.name}-outside.pgn"
    outside.write_text(_HEADERS)
    (tmp_path / "out.pgn").symlink_to(outside)
    assert [g["name"] for g in list_games(tmp_path)] == ["a.pgn"]
    daemon = RecordingDaemon()
    daemon.games_dir = tmp_path

    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        async with session.get(server.url + "api/games") as resp:
            assert resp.status == 200
            assert [g["name"] for g in (await resp.json())["games"]] == ["a.pgn"]
        for name in ("dangling.pgn", "loop.pgn", "dir.pgn", "out.pgn"):
            async with session.get(server.url + "api/games/" + name) as resp:
                assert resp.status == 404, name

    serve(scenario, daemon=daemon)


@pytest.mark.parametrize("when", ["after-glob", "after-stat"])
def test_games_list_survives_files_vanishing_while_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """A file deleted between the directory listing and its stat, or between the stat and the read."""
    for name in ("a.pgn", "b.pgn", "c.pgn"):
        (tmp_path / name).write_text(_HEADERS)
    real_glob, real_open = Path.glob, Path.open

    def glob_then_delete(self: Path, pattern: str) -> Any:
        found = list(real_glob(self, pattern))
        if when == "after-glob":
            (tmp_path / "b.pgn").unlink(missing_ok=True)
        return iter(found)

    def open_deleting(self: Path, *args: Any, **kwargs: Any) -> Any:
        if when == "after-stat" and self.name == "c.pgn":
            self.unlink(missing_ok=True)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "glob", glob_then_delete)
    monkeypatch.setattr(Path, "open", open_deleting)
    names = {g["name"] for g in list_games(tmp_path)}
    assert names == ({"a.pgn", "c.pgn"} if when == "after-glob" else {"a.pgn", "b.pgn"})
    daemon = RecordingDaemon()
    daemon.games_dir = tmp_path
    (tmp_path / "b.pgn").write_text(_HEADERS)
    (tmp_path / "c.pgn").write_text(_HEADERS)

    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        async with session.get(server.url + "api/games") as resp:
            assert resp.status == 200
            assert len((await resp.json())["games"]) == 2

    serve(scenario, daemon=daemon)


def test_games_list_survives_a_folder_that_churns(tmp_path: Path) -> None:
    """Files created and deleted in a loop by another thread while the list is taken, many times."""
    import threading

    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            path = tmp_path / f"g{n % 20}.pgn"
            if path.exists():
                path.unlink(missing_ok=True)
            else:
                path.write_text(_HEADERS)
                if n % 3 == 0:
                    (tmp_path / f"l{n % 20}.pgn").unlink(missing_ok=True)
                    (tmp_path / f"l{n % 20}.pgn").symlink_to(path)
            n += 1

    thread = threading.Thread(target=churn)
    thread.start()
    try:
        for _ in range(200):
            for game in list_games(tmp_path):
                assert game["name"].endswith(".pgn")
    finally:
        stop.set()
        thread.join()
