"""Issue 29: the hostile-peer suite. A fake guest (tests/network/peers.py) sends a real host every
malformed, out-of-order, replayed and late message the protocol allows; a fake host does the same
to a real guest. Nothing a peer sends may crash either board, change a finished game, or bring
the host's game to a state its record does not have: the host keeps serving, its record stays a
legal game (saved as such), and the guest keeps following or stops with one clear line."""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
import chess
import pytest
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.daemon import Daemon
from boardctl.events import Button, ButtonPressed
from boardctl.network import host as host_mod
from boardctl.network.join import Address, JoinLink
from boardctl.network.protocol import MAX_MESSAGE_BYTES, REQUESTS
from boardctl.storage import GameStore
from network.peers import TOKEN, FakeGuest, FakeHost, Frame, state, welcome
from network.test_endpoint import _make, _session, _until, hosted, run


def _press(daemon: Daemon, button: Button) -> None:
    daemon.handle(ButtonPressed(daemon.now(), button))


def _errors(answers: list[dict[str, Any]]) -> list[str]:
    return [str(a["message"]) for a in answers if a.get("type") == "error"]


@pytest.mark.slow
def test_a_fake_guest_replays_reorders_and_comes_late(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(host_mod, "WRONG_SECRET_DELAY", 0.0)

    async def scenario() -> None:
        async with hosted(tmp_path) as h, FakeGuest(h.url) as guest:
            assert h.ticket.code
            token = str((await guest.hello(code=h.ticket.code))["token"])
            await guest.answers()
            host, session = h.daemon, h.daemon.session
            # Out of turn, and a move from the future.
            await guest.send({"type": "move", "ply": 0, "uci": "e7e5"})
            assert any("this board's turn" in e for e in _errors(await guest.answers()))
            await _make(host, "e2e4")
            await guest.answers()
            await guest.send({"type": "move", "ply": 2, "uci": "g1f3"})
            assert any("a move is missing" in e for e in _errors(await guest.answers()))
            # The move, then the same move replayed: applied once.
            await guest.send({"type": "move", "ply": 1, "uci": "e7e5"}, {"type": "move", "ply": 1, "uci": "e7e5"})
            answers = await guest.answers()
            assert not _errors(answers) and session.network_moves() == ["e2e4", "e7e5"]
            # A different move under the same number, and messages only a host may send.
            await guest.send({"type": "move", "ply": 1, "uci": "d7d5"},
                             state(["e2e4"], result="0-1", termination="white resigned"),
                             {"type": "takeback", "moves": 0}, welcome(), {"type": "hello", "version": 1,
                                                                          "variant": "chess", "token": token})
            errors = _errors(await guest.answers())
            assert len(errors) == 5 and "differs" in errors[0], errors
            assert session.network_moves() == ["e2e4", "e7e5"] and session.record.result == "*"
            # Binary frames and garbage: refused or ignored, the game unchanged.
            assert guest.ws is not None
            await guest.ws.send_bytes(b"\x00\xff" * 10)
            await guest.send("{", "[]", "null", '{"type": "move", "ply": 1e400, "uci": "e7e5"}')
            assert len(_errors(await guest.answers())) == 4
            await _make(host, "e7e5")  # the guest's move made on the host's board
            _press(host, Button.RESIGN)
            await guest.answers()
            assert (session.record.result, session.record.moves) == ("0-1", ["e2e4", "e7e5"])
            # Late: a move, a takeback request, a resignation, a claim, an accept, a draw offer.
            await guest.send({"type": "move", "ply": 2, "uci": "g1f3"}, {"type": "move", "ply": 3, "uci": "g8f6"},
                             *({"type": "request", "kind": kind} for kind in ("takeback", "resign", "claim",
                                                                               "accept", "draw")))
            assert len(_errors(await guest.answers())) == 7
            assert (session.record.result, session.record.termination) == ("0-1", "white resigned")
            # A new connection with the token: the host still serves the game as its record has it.
            async with FakeGuest(h.url) as back:
                assert (await back.hello(token=token))["type"] == "welcome"
                last = [a for a in await back.answers() if a.get("type") == "state"][-1]
                assert (last["moves"], last["result"]) == (["e2e4", "e7e5"], "0-1")
            host.store.save(session.record)
            assert '[Result "0-1"]' in h.store.path(session.record.id, ".pgn").read_text()

    run(scenario)


@pytest.mark.slow
def test_a_replaced_connection_cannot_play_on(tmp_path: Path, monkeypatch: Any) -> None:
    """A second connection with the token replaces the first; the old one's frames do nothing."""
    monkeypatch.setattr(host_mod, "WRONG_SECRET_DELAY", 0.0)

    async def scenario() -> None:
        async with hosted(tmp_path) as h, FakeGuest(h.url) as first:
            assert h.ticket.code
            token = str((await first.hello(code=h.ticket.code))["token"])
            await _make(h.daemon, "e2e4")
            async with FakeGuest(h.url) as second:
                assert (await second.hello(token=token))["type"] == "welcome"
                await first.answers()
                assert first.ws is not None
                with contextlib.suppress(ConnectionError, RuntimeError):  # closed by the host: fine too
                    await first.send({"type": "move", "ply": 1, "uci": "e7e5"})
                await asyncio.sleep(0.2)
                assert h.daemon.session.network_moves() == ["e2e4"]
                await second.send({"type": "move", "ply": 1, "uci": "e7e5"})
                await _until(lambda: h.daemon.session.network_moves() == ["e2e4", "e7e5"])

    run(scenario)


def test_an_oversized_frame_closes_only_that_connection(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(host_mod, "WRONG_SECRET_DELAY", 0.0)

    async def scenario() -> None:
        async with hosted(tmp_path) as h:
            assert h.ticket.code
            async with FakeGuest(h.url) as guest:
                token = str((await guest.hello(code=h.ticket.code))["token"])
                await guest.send("x" * (MAX_MESSAGE_BYTES + 10))
                await guest.answers()
            async with FakeGuest(h.url) as again:
                assert (await again.hello(token=token))["type"] == "welcome"
            assert h.daemon.session.network_moves() == [] and h.daemon.session.record.result == "*"

    run(scenario)


# -- random streams --------------------------------------------------------------------------------

_UCIS = ["e7e5", "e7e6", "d7d5", "g8f6", "e2e4", "a1a8", "e7e8q", "i9i0", "e2z9"]
_guest_frames: st.SearchStrategy[Frame] = st.one_of(
    st.builds(lambda ply, uci: {"type": "move", "ply": ply, "uci": uci}, st.integers(-1, 6), st.sampled_from(_UCIS)),
    st.builds(lambda kind: {"type": "request", "kind": kind}, st.sampled_from([*REQUESTS, "abort"])),
    st.builds(lambda n: {"type": "takeback", "moves": n}, st.integers(0, 3)),
    st.just(state(["e2e4"], result="1-0", termination="x")),
    st.just(welcome()),
    st.just({"type": "hello", "version": 1, "variant": "chess", "code": "ABCD2345"}),
    st.just({"type": "error", "message": "boom", "fatal": True}),
    st.text(max_size=40),
    st.sampled_from(["{", "[]", "null", '{"type": "move"}', '{"type": "request", "kind": null}']),
)
_host_actions = st.sampled_from(["e2e4", "d2d4", "g1f3", "draw", "takeback", "resign", "claim", "wait"])


@pytest.mark.slow
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_guest_frames.map(lambda f: ("guest", f)), _host_actions.map(lambda a: ("host", a))),
                max_size=25))
def test_no_stream_from_a_guest_breaks_the_host(steps: list[tuple[str, Any]]) -> None:
    host_mod.WRONG_SECRET_DELAY, delay = 0.0, host_mod.WRONG_SECRET_DELAY
    try:
        with tempfile.TemporaryDirectory() as folder:
            run(lambda: _guest_stream(Path(folder), steps))
    finally:
        host_mod.WRONG_SECRET_DELAY = delay


async def _guest_stream(root: Path, steps: list[tuple[str, Any]]) -> None:
    async with hosted(root) as h, FakeGuest(h.url) as guest:
        assert h.ticket.code
        token = str((await guest.hello(code=h.ticket.code))["token"])
        host, session = h.daemon, h.daemon.session
        finished: tuple[str, str, list[str]] | None = None
        for who, what in steps:
            if who == "guest":
                try:
                    await guest.send(what)
                except (ConnectionError, RuntimeError):
                    break  # the host closed this connection (too many bad frames): fine
                await asyncio.sleep(0.005)
            elif what in ("draw", "takeback", "resign", "claim"):
                _press(host, Button(what))
            elif what != "wait" and not session.is_over() and not session.is_remote_turn() \
                    and chess.Move.from_uci(what) in chess.Board(session.board.fen()).legal_moves:
                await _make(host, what)  # the host's player moves (legal moves only: not the peer's doing)
            if session.is_over() and finished is None:
                finished = (session.record.result, session.record.termination, list(session.record.moves))
        await asyncio.sleep(0.1)
        record = session.record
        record.board()  # every move in the host's record is legal
        if finished is not None:  # a finished game never changes
            assert (record.result, record.termination, record.moves) == finished
        host.store.save(record)
        assert GameStore(root / "host").load(record.id).moves == record.moves
        async with FakeGuest(h.url) as back:  # the host still serves its game
            assert (await back.hello(token=token))["type"] == "welcome"
            states = [a for a in await back.answers() if a.get("type") == "state"]
            assert states and states[-1]["result"] == record.result
            assert states[-1]["moves"][: len(record.moves)] == record.moves


_host_frames: st.SearchStrategy[Frame] = st.one_of(
    st.builds(lambda n, result: state(["e2e4", "e7e5", "g1f3", "b8c6"][:n], result=result,
                                      termination="" if result == "*" else "x"),
              st.integers(0, 4), st.sampled_from(["*", "*", "1-0", "0-1", "1/2-1/2"])),
    st.just(state(["e2e4", "e2e4"])),
    st.just(state(["d2d4", "e7e5"])),
    st.builds(lambda n: {"type": "takeback", "moves": n}, st.integers(0, 5)),
    st.builds(lambda kind: {"type": "request", "kind": kind}, st.sampled_from(REQUESTS)),
    st.just(welcome()),
    st.just(welcome(game="20260101-120000-000009", color="white")),
    st.just(welcome(game="20260101-120000-000010", fen="8/8/8/8/8/8/8/8 w - - 0 1")),
    st.just({"type": "move", "ply": 0, "uci": "e2e4"}),
    st.just({"type": "error", "message": "non-fatal", "fatal": False}),
    st.text(max_size=30),
)


@pytest.mark.slow
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_host_frames, max_size=20))
def test_no_stream_from_a_host_breaks_the_guest(frames: list[Frame]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        run(lambda: _host_stream(Path(folder), frames))


async def _host_stream(root: Path, frames: list[Frame]) -> None:
    async with FakeHost() as fake:
        guest = Daemon(_session("black", time_control="5+0"), store=GameStore(root / "guest"))
        refused: list[str] = []
        stop = asyncio.Event()

        def on_refused(message: str) -> None:
            refused.append(message)
            stop.set()

        link = JoinLink(guest, Address.from_string(fake.url), TOKEN, tls=None, on_refused=on_refused)
        link.host_game = welcome()["game"]
        task = asyncio.get_running_loop().create_task(link.run(stop))
        try:
            await _until(lambda: link.is_connected)
            finished: tuple[str, list[str]] | None = None
            for frame in frames:
                if stop.is_set():
                    break
                await fake.send(frame)
                await asyncio.sleep(0.01)
                session = guest.session
                if session.pending is not None and session.is_remote_turn() and not session.is_over():
                    await _make(guest, session.pending.uci())  # the guest's player makes the lit move
                if session.is_over() and finished is None:
                    finished = (session.record.id, list(session.record.moves))
                if finished is not None and session.record.id == finished[0]:
                    assert session.record.moves == finished[1]  # no move taken back or added after the result
                    assert session.is_over()
            assert not task.done() or refused, "the link ended without a word"
            for message in refused:
                assert message.startswith(("the host sent an invalid game: ", "the host refused: "))
            guest.session.record.board()  # the guest's record is a legal game
        finally:
            stop.set()
            await task


def test_the_hostile_peer_helpers_speak_json() -> None:
    """The peers' frames are what the protocol's parser reads (a check of the test doubles)."""
    from boardctl.network import protocol

    assert isinstance(protocol.parse(json.dumps(welcome())), protocol.Welcome)
    assert isinstance(protocol.parse(json.dumps(state(["e2e4"]))), protocol.State)
    assert aiohttp.WSMsgType.TEXT  # the fake peers use aiohttp's WebSocket on both ends


@pytest.mark.slow
def test_a_takeback_after_the_result_does_not_reopen_the_guests_game(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with FakeHost() as fake:
            guest = Daemon(_session("black", time_control="5+0"), store=GameStore(tmp_path / "guest"))
            link = JoinLink(guest, Address.from_string(fake.url), TOKEN, tls=None)
            stop = asyncio.Event()
            task = asyncio.get_running_loop().create_task(link.run(stop))
            try:
                await _until(lambda: link.is_connected)
                await fake.send(state(["e2e4"]))
                await _until(lambda: guest.session.pending is not None)
                await _make(guest, "e2e4")
                await _make(guest, "e7e5")
                await fake.send(state(["e2e4", "e7e5"], result="1-0", termination="black resigned"))
                await _until(lambda: guest.session.record.result == "1-0")
                await fake.send({"type": "takeback", "moves": 0}, {"type": "takeback", "moves": 1})
                await asyncio.sleep(0.3)
                record = guest.session.record
                assert (record.result, record.moves) == ("1-0", ["e2e4", "e7e5"])
                assert not task.done()  # refused, and the link goes on
            finally:
                stop.set()
                await task

    run(scenario)
