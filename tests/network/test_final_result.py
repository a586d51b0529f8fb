"""Issue 29, finding 2: a finished network game's result is final. After the result the host
answers a guest's ``accept``, ``resign``, ``claim``, ``draw`` or ``takeback`` with a non-fatal
``error`` and changes nothing (record, PGN, log); an offer is withdrawn by the offerer's move and by
any end of the game, on both boards."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from boardctl.daemon import Daemon
from boardctl.events import Button, ButtonPressed
from boardctl.network import host as host_mod
from boardctl.network.join import Address, JoinLink
from boardctl.storage import GameStore
from network.peers import FakeGuest, FakeHost, state
from network.test_endpoint import _make, _session, _until, hosted, run


@pytest.fixture(autouse=True)
def _no_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_mod, "WRONG_SECRET_DELAY", 0.0)


def _press(daemon: Daemon, button: Button) -> None:
    daemon.handle(ButtonPressed(daemon.now(), button))


@pytest.mark.slow
@pytest.mark.parametrize("late", ["accept", "resign", "claim", "draw", "takeback"])
def test_a_late_request_cannot_rewrite_a_finished_result(tmp_path: Path, late: str) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path) as h, FakeGuest(h.url) as guest:
            assert h.ticket.code
            assert (await guest.hello(code=h.ticket.code))["type"] == "welcome"
            await guest.answers()
            host = h.daemon
            _press(host, Button.DRAW)  # the host offers a draw ...
            offer = await guest.answers(until=lambda a: a.get("type") == "request")
            assert offer[-1] == {"type": "request", "kind": "draw"}
            _press(host, Button.RESIGN)  # ... then resigns: 0-1
            await guest.answers()
            record = host.session.record
            assert (record.result, record.termination) == ("0-1", "white resigned")
            await guest.send({"type": "request", "kind": late})
            answers = await guest.answers()
            errors = [a for a in answers if a["type"] == "error"]
            assert errors and "the game is over (0-1" in errors[0]["message"] and not errors[0]["fatal"], answers
            assert all(a.get("result") in (None, "0-1") for a in answers)
            assert (record.result, record.termination) == ("0-1", "white resigned")
            host.store.save(record)
            pgn = h.store.path(record.id, ".pgn").read_text()
            assert '[Result "0-1"]' in pgn and "1/2-1/2" not in pgn and '"1-0"' not in pgn
            log = h.store.path(record.id, ".jsonl").read_text()
            assert "draw agreed" not in log and "black resigned" not in log

    run(scenario)


@pytest.mark.slow
def test_the_offerers_move_withdraws_its_offer(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path) as h, FakeGuest(h.url) as guest:
            assert h.ticket.code
            await guest.hello(code=h.ticket.code)
            await guest.answers()
            host = h.daemon
            _press(host, Button.DRAW)
            await guest.answers(until=lambda a: a.get("type") == "request")
            await _make(host, "e2e4")  # the offerer moves: the offer is withdrawn
            await guest.answers()
            await guest.send({"type": "request", "kind": "accept"})
            answers = await guest.answers()
            assert any(a["type"] == "error" and "no offer standing" in a["message"] for a in answers), answers
            assert host.session.record.result == "*" and host.session.record.moves == ["e2e4"]

    run(scenario)


@pytest.mark.slow
def test_an_accept_replayed_after_the_draw_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with hosted(tmp_path) as h, FakeGuest(h.url) as guest:
            assert h.ticket.code
            await guest.hello(code=h.ticket.code)
            await guest.answers()
            _press(h.daemon, Button.DRAW)
            await guest.answers(until=lambda a: a.get("type") == "request")
            await guest.send({"type": "request", "kind": "accept"})
            await _until(lambda: h.daemon.session.record.result == "1/2-1/2")
            await guest.send({"type": "request", "kind": "accept"}, {"type": "request", "kind": "resign"})
            answers = await guest.answers()
            assert sum(a["type"] == "error" for a in answers) == 2
            assert (h.daemon.session.record.result, h.daemon.session.record.termination) == ("1/2-1/2", "draw agreed")

    run(scenario)


def test_the_end_withdraws_the_hosts_offer_on_the_guests_board(tmp_path: Path) -> None:
    """The host offers a draw and resigns: on the guest's board the offer is gone with the result,
    and its draw button accepts nothing (no ``accept`` goes to the host)."""

    async def scenario() -> None:
        async with FakeHost() as fake:
            guest = Daemon(_session("black", time_control="5+0"), store=GameStore(tmp_path / "guest"))
            link = JoinLink(guest, Address.from_string(fake.url), "T" * 43, tls=None)
            stop = asyncio.Event()
            task = asyncio.get_running_loop().create_task(link.run(stop))
            try:
                await _until(lambda: link.is_connected)
                await fake.send(state())
                await fake.send({"type": "request", "kind": "draw"})
                await _until(lambda: guest.session.draw_offer)
                await fake.send(state(result="0-1", termination="white resigned"))
                await _until(lambda: guest.session.record.result == "0-1")
                assert not guest.session.draw_offer and guest.session.remote_offer is None
                _press(guest, Button.DRAW)
                _press(guest, Button.TAKEBACK)
                await asyncio.sleep(0.3)
                assert fake.sent_by_guest("request") == []
                assert guest.session.record.result == "0-1"
            finally:
                stop.set()
                await task

    run(scenario)


def test_the_offerers_move_withdraws_the_hosts_offer_on_the_guests_board(tmp_path: Path) -> None:
    """The host offers a draw and then moves: on the guest's board the offer is gone, so its draw
    button offers a draw of its own instead of accepting one."""

    async def scenario() -> None:
        async with FakeHost() as fake:
            guest = Daemon(_session("black", time_control="5+0"), store=GameStore(tmp_path / "guest"))
            link = JoinLink(guest, Address.from_string(fake.url), "T" * 43, tls=None)
            stop = asyncio.Event()
            task = asyncio.get_running_loop().create_task(link.run(stop))
            try:
                await _until(lambda: link.is_connected)
                await fake.send(state())
                await fake.send({"type": "request", "kind": "draw"})
                await _until(lambda: guest.session.draw_offer)
                await fake.send(state(["e2e4"]))  # the offerer's move
                await _until(lambda: guest.session.pending is not None)
                assert not guest.session.draw_offer and link.offer_in is None
                _press(guest, Button.DRAW)
                await _until(lambda: bool(fake.sent_by_guest("request")))
                assert fake.sent_by_guest("request") == [{"type": "request", "kind": "draw"}]
                assert guest.session.record.result == "*"
            finally:
                stop.set()
                await task

    run(scenario)
