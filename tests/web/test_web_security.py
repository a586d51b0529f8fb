"""Hostile pages and clients: Host/Origin tricks, PIN before parsing, global back-off, LAN detection.

The real aiohttp server on 127.0.0.1 (LAN mode forced with ``lan=True`` where needed), driven by
aiohttp's client with forged headers, as a hostile page or script would send them.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from typing import Any

import aiohttp
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_web_server import PIN, RecordingDaemon, serve

from boardctl.errors import ConfigError
from boardctl.web import protocol
from boardctl.web import server as server_mod
from boardctl.web.protocol import (
    MAX_PGN_BYTES,
    MAX_PGN_PLIES,
    PinError,
    WebInputError,
    fen_from_pgn,
    parse_envelope,
)
from boardctl.web.server import (
    GLOBAL_FREE_FAILURES,
    GLOBAL_MAX_DELAY,
    MAX_PIN_FAILURES,
    PIN_HEADER,
    WebServer,
    _PinGuard,
    is_loopback_host,
    is_same_origin,
    parse_host,
)

# -- Host: parsed strictly, loopback names only unless in LAN mode ---------------------------------

#: Host headers no parser should take apart into a loopback name; ``{p}`` is the server's port.
MALFORMED_HOSTS = [
    "[::1].evil.com",
    "[::1].evil.com:{p}",
    "127.0.0.1:{p}@evil.com",
    "127.0.0.1:P@evil.com",
    "evil.com@127.0.0.1:{p}",
    "user:pw@127.0.0.1:{p}",
    "localhost:{p}.evil.com",
    "127.0.0.1:{p}:{p}",
    "127.0.0.1:",
    "127.0.0.1:abc",
    "127.0.0.1:99999",
    "127.0.0.1:0",
    "127.0.0.1:+80",
    "127.0.0.1:-1",
    "127.0.0.1/evil",
    "127.0.0.1#x",
    "127.0.0.1?x",
    "127.0.0.1%00",
    "::1",
    "[::1",
    "::1]",
    "[::1]x",
    "[::1]:{p}x",
    "[127.0.0.1]:{p}",
    "[fe80::1%25eth0]:{p}",
    "127.1:{p}",
    "0x7f.0.0.1:{p}",
    "2130706433:{p}",
    "127.0.0.256:{p}",
    "*",
    "-localhost:{p}",
    "local_host:{p}",
    "",
]

#: Well-formed Host headers that name another machine (DNS rebinding) in loopback mode.
FOREIGN_HOSTS = [
    "evil.example",
    "evil.example:{p}",
    "127.0.0.1.evil.com",
    "127.0.0.1.nip.io:{p}",
    "localhost.evil.com:{p}",
    "[::ffff:8.8.8.8]:{p}",
    "0177.0.0.1:{p}",
    "1.2.3.4:{p}",
    "192.168.1.5:{p}",
    "0.0.0.0:{p}",
]

HOSTILE_HOSTS = MALFORMED_HOSTS + FOREIGN_HOSTS

#: Host headers that mean this machine.
LOOPBACK_HOSTS = [
    "127.0.0.1:{p}",
    "127.0.0.1",
    "localhost:{p}",
    "LocalHost:{p}",
    "localhost.:{p}",
    "[::1]:{p}",
    "[0:0:0:0:0:0:0:1]:{p}",
    "127.0.0.2:{p}",
]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("127.0.0.1:8080", ("127.0.0.1", 8080)),
        ("LOCALHOST", ("localhost", None)),
        ("[::1]:80", ("::1", 80)),
        ("[0::1]", ("::1", None)),
        ("raspberrypi.local:8080", ("raspberrypi.local", 8080)),
        ("192.168.1.20", ("192.168.1.20", None)),
        *[(bad.format(p=8080), None) for bad in MALFORMED_HOSTS],
    ],
)
def test_parse_host_is_strict(value: str, expected: tuple[str, int | None] | None) -> None:
    assert parse_host(value) == expected


async def _status_of_post(session: aiohttp.ClientSession, server: WebServer, headers: dict[str, str]) -> int:
    async with session.post(server.url + "api/action", json={"button": "hint"}, headers=headers) as resp:
        return resp.status


async def _ws_opens(session: aiohttp.ClientSession, server: WebServer, headers: dict[str, str]) -> bool:
    origin = headers.pop("Origin", None)
    try:
        async with session.ws_connect(server.url + "ws", origin=origin, headers=headers) as ws:
            await ws.receive_str()
            return True
    except aiohttp.WSServerHandshakeError as exc:
        assert exc.status == 403
        return False


def test_hostile_hosts_are_refused_on_the_websocket_and_the_action() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        for template in HOSTILE_HOSTS:
            host = template.format(p=server.port)
            assert await _status_of_post(session, server, {"Host": host}) == 403, host
            assert not await _ws_opens(session, server, {"Host": host}), host
        for template in LOOPBACK_HOSTS:
            host = template.format(p=server.port)
            assert await _status_of_post(session, server, {"Host": host}) == 200, host
            assert await _ws_opens(session, server, {"Host": host}), host

    daemon = serve(scenario)
    assert len(daemon.actions) == len(LOOPBACK_HOSTS)


def test_lan_mode_takes_any_well_formed_host_but_no_malformed_one() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        for host in ("raspberrypi.local:8080", "192.168.1.5:{p}", "[fd00::5]:{p}", "chessboard"):
            host = host.format(p=server.port)
            assert await _status_of_post(session, server, {"Host": host, PIN_HEADER: PIN}) == 200, host
        for template in ("[::1].evil.com", "127.0.0.1:P@evil.com", "a b", "x:{p}@y", "[::1"):
            host = template.format(p=server.port)
            assert await _status_of_post(session, server, {"Host": host, PIN_HEADER: PIN}) == 403, host

    serve(scenario, lan=True)


# -- Origin: exactly the page's own, or none at all -------------------------------------------------

#: Origins other pages (or sandboxed frames, data: URLs, extensions) send; ``{p}`` is the port.
HOSTILE_ORIGINS = [
    "null",
    "NULL",
    "",
    " ",
    "http://evil.example",
    "http://evil.example:{p}",
    "https://127.0.0.1:{p}",
    "http://127.0.0.1:{q}",
    "http://127.0.0.1",
    "http://127.0.0.1:80",
    "http://localhost:{p}",
    "http://[::1]:{p}",
    "http://127.0.0.1:{p}.evil.com",
    "http://127.0.0.1:{p}@evil.com",
    "http://evil.com@127.0.0.1:{p}",
    "http://evil.com#@127.0.0.1:{p}",
    "http://127.0.0.1:{p}/",
    "http://127.0.0.1:{p}/page",
    "http://127.0.0.1:{p}?",
    "HTTP://127.0.0.1:{p}",
    "ws://127.0.0.1:{p}",
    "file://",
    "file:///tmp/x.html",
    "data:",
    "chrome-extension://abcdef",
    "127.0.0.1:{p}",
    "//127.0.0.1:{p}",
    "http://127.0.0.1:{p}, http://127.0.0.1:{p}",
    "http://127.0.0.1:{p} http://evil.example",
]


def test_hostile_origins_are_refused_on_the_websocket_and_the_action() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        p, q = server.port, server.port + 1
        for template in HOSTILE_ORIGINS:
            origin = template.format(p=p, q=q)
            assert await _status_of_post(session, server, {"Origin": origin}) == 403, origin
            assert not await _ws_opens(session, server, {"Origin": origin}), origin
        # The page's own origin, for each way of naming this machine, and no Origin at all (curl).
        for host in (f"127.0.0.1:{p}", f"localhost:{p}", f"[::1]:{p}"):
            headers = {"Host": host, "Origin": f"http://{host}"}
            assert await _status_of_post(session, server, dict(headers)) == 200, headers
            assert await _ws_opens(session, server, dict(headers)), headers
        assert await _status_of_post(session, server, {}) == 200
        assert await _ws_opens(session, server, {})

    daemon = serve(scenario)
    assert len(daemon.actions) == 4


def test_a_null_origin_cannot_resign_even_with_the_pin_in_lan_mode() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        for origin in ("null", "http://evil.example"):
            headers = {"Origin": origin, PIN_HEADER: PIN}
            assert await _status_of_post(session, server, headers) == 403
            assert not await _ws_opens(session, server, dict(headers))

    assert serve(scenario, lan=True).actions == []


@pytest.mark.parametrize(
    ("origin", "host", "same"),
    [
        ("http://127.0.0.1:8080", "127.0.0.1:8080", True),
        ("http://localhost", "localhost:80", True),
        ("http://LOCALHOST:8080", "localhost:8080", True),
        ("https://board.local", "board.local:443", True),
        ("http://[::1]:8080", "[::1]:8080", True),
        ("http://127.0.0.1:8080", "127.0.0.1:8081", False),
        ("http://127.0.0.1:8080", "[::1].evil.com", False),
        ("null", "127.0.0.1:8080", False),
        ("http://a.b:8080", "a.b.:8080", True),
    ],
)
def test_is_same_origin(origin: str, host: str, same: bool) -> None:
    assert is_same_origin(origin, scheme="https" if origin.startswith("https") else "http", host=host) is same


# -- LAN mode: the PIN and the lockout come before any parsing --------------------------------------


def _big_pgn(plies: int) -> str:
    """A legal game of ``plies`` knight shuffles, as PGN."""
    board = chess.Board()
    shuffle = [chess.Move.from_uci(u) for u in ("g1f3", "g8f6", "f3g1", "f6g8")]
    for i in range(plies):
        board.push(shuffle[i % 4])
    return str(chess.pgn.Game.from_board(board))


def test_nothing_is_parsed_before_the_pin_and_a_missing_pin_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[Any] = []
    real = protocol.validate_action
    real_read = chess.pgn.read_game

    def counting_validate(action: Any) -> dict[str, Any]:
        parsed.append(action)
        return real(action)

    def counting_read(*args: Any, **kwargs: Any) -> Any:
        parsed.append("read_game")
        return real_read(*args, **kwargs)

    monkeypatch.setattr(server_mod, "validate_action", counting_validate, raising=True)
    monkeypatch.setattr(chess.pgn, "read_game", counting_read)
    big = {"new-game": {"pgn": _big_pgn(600)}}

    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        async with session.ws_connect(server.url + "ws") as ws:
            await ws.receive_str()
            replies = []
            for n, pin in enumerate([None, "", "1", None, "999999", None, PIN]):
                msg: dict[str, Any] = {"id": n, "action": big}
                if pin is not None:
                    msg["pin"] = pin
                await ws.send_str(json.dumps(msg))
                replies.append(json.loads(await ws.receive_str()))
            # Five failures (missing PINs too) lock the address out; after that even the right PIN waits.
            assert all(r.get("pin") == "required" for r in replies), replies
            assert "too many" in replies[-1]["error"] and "too many" in replies[-2]["error"]
            # Unreadable messages from an unauthenticated client count as failures too.
        assert parsed == []
        status = await _status_of_post(session, server, {PIN_HEADER: PIN})
        assert status == 403  # the same address, over HTTP
        assert parsed == []

    serve(scenario, lan=True)


def test_missing_pins_over_http_count_towards_the_lockout() -> None:
    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        for _ in range(MAX_PIN_FAILURES):
            assert await _status_of_post(session, server, {}) == 403
        async with session.post(server.url + "api/action", json={"button": "hint"}, headers={PIN_HEADER: PIN}) as resp:
            assert resp.status == 403 and "too many" in (await resp.json())["error"]

    assert serve(scenario, lan=True).actions == []


def test_big_unauthenticated_messages_do_not_stall_the_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twenty near-limit messages without the PIN, as in the report, then the same with it."""
    monkeypatch.setattr(server_mod, "MAX_PIN_FAILURES", 10_000)  # keep every message reaching the check
    monkeypatch.setattr(server_mod, "GLOBAL_FREE_FAILURES", 10_000)
    pgn = _big_pgn(MAX_PGN_PLIES - 10)
    assert len(pgn.encode()) < MAX_PGN_BYTES
    text = json.dumps({"action": {"new-game": {"pgn": pgn}}})

    async def flood(server: WebServer, session: aiohttp.ClientSession, pin: str | None) -> float:
        async with session.ws_connect(server.url + "ws") as ws:
            await ws.receive_str()
            message = text if pin is None else json.dumps({"pin": pin, "action": {"new-game": {"pgn": pgn}}})
            for _ in range(20):
                await ws.send_str(message)
            worst = 0.0
            for _ in range(10):
                start = time.perf_counter()
                async with session.get(server.url + "api/state") as resp:
                    assert resp.status == 200
                worst = max(worst, time.perf_counter() - start)
            for _ in range(20):
                reply = json.loads(await ws.receive_str())
                while "reply" not in reply:
                    reply = json.loads(await ws.receive_str())
                assert ("pin" in reply) == (pin is None), reply
            return worst

    async def scenario(server: WebServer, session: aiohttp.ClientSession, daemon: RecordingDaemon) -> None:
        unauthenticated = await flood(server, session, None)
        authenticated = await flood(server, session, PIN)
        # The report measured 5.2 s; parsing now happens (authenticated only) in a worker thread.
        assert unauthenticated < 1.0, unauthenticated
        assert authenticated < 2.0, authenticated
        assert len(daemon.actions) == 20

    serve(scenario, lan=True)


@pytest.mark.parametrize(
    ("pgn", "needle"),
    [
        ("1. e4 " * (MAX_PGN_BYTES // 6 + 1), "larger than"),
        (_big_pgn(MAX_PGN_PLIES + 1), f"more than {MAX_PGN_PLIES} moves"),
        ("1. e4 " + "(" * 3000 + "1. d4" + ")" * 3000 + " e5 *", ""),
        ("1. e4 e5 2. Ke3 *", "illegal san"),
        ("1. e4 e5 2. Nf3 " + "{" + "x" * 20_000 + "} *", ""),
    ],
)
def test_pgn_limits(pgn: str, needle: str) -> None:
    start = time.perf_counter()
    if needle:
        with pytest.raises(WebInputError, match=needle):
            fen_from_pgn(pgn)
    else:
        assert fen_from_pgn(pgn)
    assert time.perf_counter() - start < 5.0  # generous: the point is bounded, not fast


def test_envelopes_that_break_json_itself_are_clear_errors() -> None:
    for text in ("[" * 100_000, '{"id": ' + "9" * 5000 + "}", '{"id": 1e999999, "action": 1}', b"\xff\xfe{"):
        with pytest.raises(WebInputError, match="message"):
            parse_envelope(text)
    assert parse_envelope('{"id": 3, "pin": 123456, "action": {"new-game": {"pgn": "x"}}}').pin == "123456"
    assert protocol.needs_worker({"new-game": {"pgn": "1. e4"}}) and not protocol.needs_worker({"button": "hint"})


# -- the global back-off ------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _attack(guard: _PinGuard, clock: FakeClock, *, addresses: int, seconds: float, step: float) -> int:
    """Guess from many addresses in turn for ``seconds``; returns how many guesses were compared."""
    compared = 0
    end = clock.now + seconds
    n = 0
    while clock.now < end:
        remote = f"10.0.{n % addresses // 256}.{n % addresses % 256}"
        n += 1
        try:
            guard.check(remote, f"{n % 1_000_000:06d}" if n % 1_000_000 != int(PIN) else "000000")
        except PinError as exc:
            if str(exc).startswith("wrong PIN"):  # compared (refusals say "too many ...")
                compared += 1
        clock.now += step
    return compared


def test_the_report_many_addresses_get_only_a_few_guesses() -> None:
    clock = FakeClock()
    guard = _PinGuard(PIN, clock=clock)
    # The report: 50 loopback addresses, 250 guesses in 0.2 s.
    assert _attack(guard, clock, addresses=50, seconds=0.2, step=0.0008) <= GLOBAL_FREE_FAILURES + 1
    # While backed off, even the right PIN is refused, except on a connection that already proved it.
    with pytest.raises(PinError, match="on this board"):
        guard.check("192.168.1.7", PIN)
    guard.check("192.168.1.7", PIN, authenticated=True)


def test_a_day_of_guessing_from_thousands_of_addresses_gets_few_guesses() -> None:
    clock = FakeClock()
    guard = _PinGuard(PIN, clock=clock)
    compared = _attack(guard, clock, addresses=5000, seconds=86_400, step=0.5)
    # At most one guess per GLOBAL_MAX_DELAY once backed off: the 10^8 PINs (8 digits) take centuries.
    assert compared <= GLOBAL_FREE_FAILURES + 20 + 86_400 / GLOBAL_MAX_DELAY, compared


def test_the_owner_gets_in_once_the_attack_stops_and_a_right_pin_resets_the_count() -> None:
    clock = FakeClock()
    guard = _PinGuard(PIN, clock=clock)
    _attack(guard, clock, addresses=100, seconds=5, step=0.01)
    clock.now += GLOBAL_MAX_DELAY + 1
    guard.check("192.168.1.7", PIN)
    for n in range(GLOBAL_FREE_FAILURES - 1):
        with pytest.raises(PinError, match="wrong PIN"):
            guard.check(f"10.1.0.{n}", "000000")
    guard.check("192.168.1.7", PIN)  # not yet backed off


def test_wrong_pin_log_lines_are_rate_limited(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    guard = _PinGuard(PIN, clock=clock)
    with caplog.at_level(logging.WARNING, logger="boardctl.web.server"):
        _attack(guard, clock, addresses=50, seconds=0.2, step=0.0008)
        clock.now += 60
        with pytest.raises(PinError):
            guard.check("10.9.9.9", "000000")
    lines = [r.getMessage() for r in caplog.records if "wrong PIN" in r.getMessage()]
    assert len(lines) == 2, lines
    assert "more wrong PINs not logged" in lines[1]


# -- LAN mode is any bind that is not loopback ---------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("", False),
        (" ", False),
        ("0.0.0.0", False),
        ("::", False),
        ("[::]", False),
        ("192.168.1.20", False),
        ("10.0.0.1", False),
        ("fd00::1", False),
        ("no-such-host.invalid", False),
        ("127.0.0.1", True),
        ("127.0.1.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
    ],
)
def test_is_loopback_host(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback
    daemon = RecordingDaemon()
    if not loopback:
        with pytest.raises(ConfigError, match=r"web\.pin"):
            WebServer(daemon, host=host, port=0, pin=None)
    assert WebServer(daemon, host=host, port=0, pin=PIN).is_lan is not loopback


@pytest.mark.parametrize(
    ("addresses", "loopback"),
    [
        (["192.168.1.5"], False),
        (["127.0.0.1", "192.168.1.5"], False),
        (["127.0.0.1", "::1"], True),
        ([], False),
    ],
)
def test_a_name_is_loopback_only_when_every_address_it_resolves_to_is(
    monkeypatch: pytest.MonkeyPatch, addresses: list[str], loopback: bool
) -> None:
    def fake_getaddrinfo(name: str, *args: Any, **kwargs: Any) -> list[Any]:
        assert name == "board.example"
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0)) for a in addresses]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    assert is_loopback_host("board.example") is loopback


def test_lan_lockout_is_per_server_not_global_state() -> None:
    a, b = _PinGuard(PIN), _PinGuard(PIN)
    for _ in range(MAX_PIN_FAILURES):
        with pytest.raises(PinError):
            a.check("10.0.0.1", None)
    b.check("10.0.0.1", PIN)


# -- fuzz: the edge parsers never fail any other way ---------------------------------------------------

_HOSTISH = st.text(alphabet="[]:.@/#?%abcdefhlostx0123456789-_ ", max_size=40)


@given(_HOSTISH | st.text(max_size=40))
@settings(max_examples=400, deadline=None)
def test_parse_host_never_raises_and_returns_only_clean_names(value: str) -> None:
    parsed = parse_host(value)
    if parsed is not None:
        host, port = parsed
        assert host and not set(host) & set("[]@/#?% ") and (port is None or 0 < port < 65536)
        assert parse_host(f"[{host}]" if ":" in host else host) == (host, None)


@given(_HOSTISH, _HOSTISH)
@settings(max_examples=300, deadline=None)
def test_same_origin_needs_the_exact_host(origin_host: str, host: str) -> None:
    same = is_same_origin(f"http://{origin_host}", scheme="http", host=host)
    if same:
        theirs, own = parse_host(origin_host), parse_host(host)
        assert theirs is not None and own is not None and theirs[0] == own[0]
    assert not is_same_origin("null", scheme="http", host=host)


_PGN_TOKENS = st.sampled_from(
    ["1.", "2...", "e4", "e5", "Nf3", "Nc6", "Bb5", "O-O", "O-O-O", "exd5", "e8=Q", "Kxe1", "(", ")", "{", "}",
     "{x}", "$1", "!?", "*", "1-0", "[FEN", '"8/8/8/8/8/8/8/8 w - - 0 1"]', '[White "a"]', ";", "\n", "%", "\\"]
)


@pytest.mark.slow
@given(st.lists(_PGN_TOKENS, max_size=80).map(" ".join) | st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_pgn_upload_gets_a_fen_or_a_clear_error(text: str) -> None:
    try:
        fen = fen_from_pgn(text)
    except WebInputError as exc:
        assert str(exc).startswith("pgn:")
    else:
        assert chess.Board(fen).is_valid()


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["id", "pin", "action", "x"]), inner, max_size=3),
    max_leaves=10,
)


@given(_JSONISH)
@settings(max_examples=300, deadline=None)
def test_envelopes_parse_or_fail_cleanly(obj: Any) -> None:
    try:
        envelope = parse_envelope(json.dumps(obj))
    except WebInputError:
        return
    assert isinstance(obj, dict)
    if "action" in obj:
        assert envelope.action == obj["action"] and not envelope.pin_only
    else:  # only the PIN given (LAN mode: to see the invitation), nothing to do
        assert envelope.pin_only and obj.get("pin") is not None and envelope.pin is not None
