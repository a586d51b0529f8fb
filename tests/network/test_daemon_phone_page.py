"""A phone as the second board and a spectator, in real headless Chromium against a real
``boardctl host --board sim --stdio`` daemon: the phone joins with the code from the page's link,
plays Black on its virtual board against the host's (physical, here sim) board, and resigns; a
spectator's page follows read-only; the host's page shows the invitation."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from network.harness import Board, free_port

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
WAIT_MS = 20000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("Chromium not installed (scripts/ensure-chromium.sh)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            yield browser
        finally:
            browser.close()


@dataclass(frozen=True)
class Joined:
    """A host daemon whose game a phone page has joined with the invitation's code."""

    host: Board
    phone: Any
    context: Any
    base: str
    errors: list[str]


@contextmanager
def phone_joined(browser: Any, tmp_path: Path, *args: str) -> Iterator[Joined]:
    """Start ``boardctl host`` with ``args``, join it from a phone-sized page; afterwards the
    daemon is stopped and no page may have raised an error."""
    port = free_port()
    host = Board(["host", "--board", "sim", "--stdio", "--port", str(port), "--games-dir", str(tmp_path / "games"),
                  *args], tmp_path / "home")
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 480, "height": 900})
    try:
        code = host.next_line(30)["invite"]["code"]
        host.send({})
        base = f"http://127.0.0.1:{port}/"
        phone = context.new_page()
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
        phone.goto(f"{base}?play={code}")
        phone.wait_for_selector('#net-page[data-connected="true"]', timeout=WAIT_MS)
        host.wait_for(lambda s: (s.get("network") or {}).get("connected"), 30)
        yield Joined(host, phone, context, base, errors)
    finally:
        context.close()
        if host.proc.poll() is None:
            host.kill()
    assert errors == [], errors


def test_a_phone_plays_the_board_and_a_spectator_watches(browser: Any, tmp_path: Path) -> None:
    with phone_joined(browser, tmp_path, "--time-control", "5+0") as joined:
        host, phone, context, base, errors = joined.host, joined.phone, joined.context, joined.base, joined.errors
        host.make("e2e4")
        phone.wait_for_selector('#net-board [data-square="e4"][data-piece="P"]', timeout=WAIT_MS)
        phone.wait_for_selector('#net-page[data-turn="mine"]', timeout=WAIT_MS)
        phone.click('#net-board [data-square="e7"]')
        phone.click('#net-board [data-square="e5"]')
        lit = host.wait_for(lambda s: s["pending"] == "e7e5", 30)
        assert {led["why"] for led in lit["leds"]} == {"remote-move"}
        host.make("e7e5")
        # A spectator's page: the same game, read-only.
        watcher = context.new_page()
        watcher.on("pageerror", lambda exc: errors.append(str(exc)))
        watcher.goto(f"{base}?watch")
        watcher.wait_for_selector('#net-board [data-square="e5"][data-piece="p"]', timeout=WAIT_MS)
        assert watcher.locator("[data-request]").count() == 0
        assert watcher.locator('#net-page[data-readonly="true"]').count() == 1
        # An illegal try on the phone changes nothing on the board.
        host.make("g1f3")
        phone.wait_for_selector('#net-board [data-square="f3"][data-piece="N"]', timeout=WAIT_MS)
        phone.click('#net-board [data-square="d8"]')
        phone.click('#net-board [data-square="d1"]')
        phone.wait_for_timeout(500)
        assert host.state["pending"] is None
        # The host's own page offers the invitation (the code is used by now).
        own = context.new_page()
        own.goto(base)
        own.wait_for_selector("#invite", state="visible", timeout=WAIT_MS)
        own.click("#invite")
        assert "(used)" in own.locator("#invite-box").inner_text()
        # The phone resigns: the host's game ends, and the phone says so.
        phone.click('[data-request="resign"]')
        end = host.wait_for(lambda s: s["result"] != "*", 30)
        assert end["result"] == "1-0" and end["termination"] == "black resigned"
        phone.wait_for_function("() => document.getElementById('net-status').textContent.startsWith('Game over')",
                                timeout=WAIT_MS)
        watcher.wait_for_function("() => document.getElementById('net-status').textContent.startsWith('Game over')",
                                  timeout=WAIT_MS)
        assert host.close() == 0


@pytest.mark.parametrize("piece", ["n"])
def test_the_phone_player_chooses_the_promotion_piece(browser: Any, tmp_path: Path, piece: str) -> None:
    """A pawn of the phone's reaches the last rank: the page's promotion buttons ask which piece,
    and the host's board lights the move with that piece (not always a queen)."""
    with phone_joined(browser, tmp_path, "--fen", "4k3/8/8/8/8/8/p7/4K2R w - - 0 1") as joined:
        host, phone = joined.host, joined.phone
        host.make("h1h2")
        phone.wait_for_selector('#net-page[data-turn="mine"]', timeout=WAIT_MS)
        assert phone.locator("#promotion").is_hidden()
        phone.click('#net-board [data-square="a2"]')
        phone.click('#net-board [data-square="a1"]')
        phone.wait_for_selector("#promotion", state="visible", timeout=WAIT_MS)
        phone.wait_for_timeout(300)
        assert host.state["pending"] is None  # nothing is sent before the choice
        phone.click(f'#promotion [data-piece="{piece}"]')
        lit = host.wait_for(lambda s: s["pending"] is not None, 30)
        assert lit["pending"] == "a2a1" + piece
        phone.wait_for_selector("#promotion", state="hidden", timeout=WAIT_MS)
        assert host.close() == 0


def _shown(phone: Any) -> list[str]:
    return phone.eval_on_selector_all("[data-request]", "bs => bs.filter(b => !b.hidden).map(b => b.dataset.request)")


def test_the_phone_shows_only_the_buttons_that_mean_something_now(browser: Any, tmp_path: Path) -> None:
    """Issue 35, finding 8: Rematch, Accept and Decline were always shown."""
    with phone_joined(browser, tmp_path) as joined:
        host, phone = joined.host, joined.phone
        host.make("e2e4")
        phone.wait_for_selector('#net-page[data-turn="mine"]', timeout=WAIT_MS)
        assert _shown(phone) == ["draw", "takeback", "resign", "claim"]
        host.send({"button": "draw"})  # the host offers a draw: the phone may accept or decline
        phone.wait_for_selector("#net-offer:not([hidden])", timeout=WAIT_MS)
        phone.wait_for_function("() => !document.querySelector('[data-request=accept]').hidden", timeout=WAIT_MS)
        assert _shown(phone) == ["draw", "takeback", "resign", "claim", "accept", "decline"]
        phone.click('[data-request="decline"]')
        phone.click('#net-board [data-square="e7"]')
        phone.click('#net-board [data-square="e5"]')
        host.wait_for(lambda s: s["pending"] == "e7e5", 30)
        host.make("e7e5")
        phone.wait_for_function("() => document.querySelector('[data-request=accept]').hidden", timeout=WAIT_MS)
        phone.click('[data-request="resign"]')
        phone.wait_for_function("() => document.getElementById('net-status').textContent.startsWith('Game over')",
                                timeout=WAIT_MS)
        assert _shown(phone) == ["rematch"]
        assert host.close() == 0


def test_the_phone_names_the_moves(browser: Any, tmp_path: Path) -> None:
    """Issue 35, finding 8: the phone's page listed the moves in UCI (e2e4 e7e5)."""
    with phone_joined(browser, tmp_path) as joined:
        host, phone = joined.host, joined.phone
        host.make("e2e4")
        phone.wait_for_selector('#net-page[data-turn="mine"]', timeout=WAIT_MS)
        phone.click('#net-board [data-square="g8"]')
        phone.click('#net-board [data-square="f6"]')
        host.wait_for(lambda s: s["pending"] == "g8f6", 30)
        host.make("g8f6")
        host.make("b1c3")
        phone.wait_for_function("() => document.getElementById('net-moves').textContent === 'e4 Nf6 Nc3'",
                                timeout=WAIT_MS)
        assert host.close() == 0
