"""The demo's page reaches every capability (issues 15 and 16), walked in real Chromium against
the real ``boardctl demo`` (sim board, its own XDG folders, a free port): a game against a
character from the Opponents panel, the coach's line at a practice level after a bad move, a
lesson, a replay, a new tournament (two players: no background games), and "Invite a friend",
which switches the demo into hosting a network game that a phone's page joins and plays."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest
from page_helpers import WAIT_MS, carry_out, drag, lit, new_game, open_page, state, wait
from web_helpers import REPO, RunningDaemon, free_port, serve

pytestmark = pytest.mark.slow

AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
OPERA = """[Event "Paris"]
[White "Paul Morphy"]
[Black "Duke Karl / Count Isouard"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5
10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8
17. Rd8# 1-0
"""


@contextlib.contextmanager
def run_demo(tmp: Path, *args: str) -> Iterator[RunningDaemon]:
    """``boardctl demo`` as ``make demo`` starts it (its own engine), on a free port, with no desktop to open a browser on."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    env.update(XDG_CONFIG_HOME=str(tmp / "config"), XDG_DATA_HOME=str(tmp / "data"), PYTHONUNBUFFERED="1",
               NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(REPO / ".numba-cache")))
    cmd = [sys.executable, "-m", "boardctl", "-v", "demo", "--port", str(port), "--new", *args]
    with serve(cmd, env=env, cwd=tmp, url=f"http://127.0.0.1:{port}/", games_dir=tmp / "data" / "boardctl" / "demo-games",
               log_path=tmp / "demo.log", what="boardctl demo", timeout=180) as daemon:
        yield daemon


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-demo-tour")
    with run_demo(tmp, "--movetime", "0.05", "--settle", "0.15", "--coach-movetime", "0.3") as d:
        yield d
    assert d.proc.returncode == 0, d.log()


def api(daemon: RunningDaemon, path: str, body: bytes | None = None,
        content_type: str = "application/json") -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(daemon.url + path, data=body,
                                     headers={"Content-Type": content_type} if body is not None else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def test_the_demo_page_reaches_every_capability(browser: Any, demo: RunningDaemon) -> None:
    with open_page(browser, demo, "desktop") as page:
        # Opponents: a game against a character, who answers from his repertoire.
        page.wait_for_selector("#characters[data-loaded]", state="attached", timeout=WAIT_MS)
        page.locator("#characters > summary").click()
        page.locator('#char-list .char[data-character="gus"] .char-play').click()
        wait(page, "() => window.boardctl.state.opponent === 'Gus Gambit (1000)' && window.boardctl.state.mode === 'play'")
        page.locator("#characters > summary").click()
        page.evaluate("() => window.boardctl.setupBoard()")
        wait(page, "() => window.boardctl.state.matching === true")
        page.wait_for_timeout(400)
        drag(page, "e2", "e4")
        wait(page, "() => window.boardctl.state.pending === 'e7e5'")  # Gus's Elephant Gambit

        # The coach at a practice level: a hanging bishop gets its line and the better move lit.
        new_game(page, fen=AFTER_E4_E5, color="white", level="practice3", opponent="")
        drag(page, "f1", "a6")
        page.wait_for_selector('#coach-line[data-category="hangs"]', timeout=WAIT_MS)
        assert "Ba6 hangs the bishop on a6" in page.locator("#coach-line").inner_text()
        best = state(page)["coach"]["best"]
        wait(page, "() => document.querySelectorAll('#board [data-led~=\"coach\"]').length === 2")
        assert lit(page, "coach") == {best[:2], best[2:4]}

        # A lesson from the page: the Petrov as Black, the engine's 1. e4 lit first.
        page.locator("#learn summary").click()
        page.locator('#lesson-form select[name="lesson"]').select_option("petrov")
        page.locator('#lesson-form select[name="color"]').select_option("black")
        page.locator('#lesson-form button[type="submit"]').click()
        wait(page, "() => window.boardctl.state.lesson")
        page.evaluate("() => window.boardctl.setupBoard()")  # the coach's game's pieces back to the start
        wait(page, "() => window.boardctl.state.lesson && window.boardctl.state.pending === 'e2e4'")
        assert "Petrov Defence" in page.locator("#lesson-title").inner_text()

        # A replay from an uploaded PGN, watched, stepped with the slider.
        page.locator('#step-form input[type="file"]').set_input_files(
            files=[{"name": "opera.pgn", "mimeType": "text/plain", "buffer": OPERA.encode()}])
        page.locator('#step-form button[type="submit"]').click()
        wait(page, "() => window.boardctl.state.step && !window.boardctl.state.lesson")
        page.evaluate("() => window.boardctl.setupBoard()")
        wait(page, "() => window.boardctl.state.step.set_up")
        page.locator("#step-slider").fill("3")
        wait(page, "() => window.boardctl.state.step.ply === 3")
        assert state(page)["moves"] == ["e2e4", "e7e5", "g1f3"]

        # The tournament panel: a new two-player tournament is shown (no games between characters
        # to run in the background).
        page.fill("#t-players", "2")
        page.click("#t-new")
        page.wait_for_function("() => document.querySelectorAll('#t-table tbody tr').length === 2", timeout=WAIT_MS)
        assert "round 1 of 1" in (page.text_content("#t-status") or "")
        _, tournament = api(demo, "api/tournament")
        assert tournament["tournament"]["waiting"] == 0 and len(tournament["tournament"]["players"]) == 2

        # Invite a friend: this demo now hosts a network game; a phone joins with the code shown.
        assert page.locator("#invite").is_hidden()  # network.js's host-only button stays out of the way
        page.locator("#invite-color").select_option("white")
        page.click("#invite-start")
        if state(page)["moves"] and state(page)["result"] == "*":  # a game under way: the page asks first
            page.wait_for_selector("#invite-start-confirm", timeout=WAIT_MS)
            page.click("#invite-start")
        page.wait_for_selector("#invite-start-code", timeout=WAIT_MS)
        wait(page, "() => window.boardctl.state.mode === 'network' && window.boardctl.state.invite")
        invite = state(page)["invite"]
        port = demo.url.rstrip("/").rsplit(":", 1)[1]
        assert invite["address"] == f"ws://127.0.0.1:{port}/net"
        assert page.locator("#invite-start-code").inner_text() == f"Code: {invite['code']}"
        assert f"boardctl join {invite['address']} --code {invite['code']}" in page.locator("#invite-start-join").inner_text()
        assert "--host 0.0.0.0" in page.locator("#invite-start-lan").inner_text()
        phone_url = page.locator("#invite-start-phone").get_attribute("href")
        assert phone_url == f"{demo.url}?play={invite['code']}"
        page.evaluate("() => window.boardctl.setupBoard()")
        wait(page, "() => window.boardctl.state.matching === true && window.boardctl.state.moves.length === 0")
        page.wait_for_timeout(400)

        phone_context = browser.new_context(viewport={"width": 390, "height": 844})
        try:
            phone = phone_context.new_page()
            phone.goto(phone_url)
            phone.wait_for_selector('#net-page[data-connected="true"]', timeout=WAIT_MS)
            wait(page, "() => window.boardctl.state.network && window.boardctl.state.network.connected"
                       " && window.boardctl.state.invite.code === null")
            page.evaluate("() => window.scrollTo(0, 0)")  # the board in view again for the hands
            carry_out(page, chess.STARTING_FEN, "e2e4")  # the demo's board, white
            try:
                phone.wait_for_function("() => document.getElementById('net-moves').textContent === 'e4'",
                                        timeout=WAIT_MS)
            except Exception:
                pytest.fail(f"the phone shows {phone.inner_text('#net-page')!r}; the demo's state is {state(page)}")
            phone.click('#net-board [data-square="e7"]')
            phone.click('#net-board [data-square="e5"]')
            wait(page, "() => window.boardctl.state.pending === 'e7e5'")
            assert lit(page, "remote-move") == {"e7", "e5"}
        finally:
            phone_context.close()

        # A new game from the page stops hosting: back to playing the engine.
        page.locator("#new-game summary").click()
        page.locator('#new-game-form button[type="submit"]').click()
        wait(page, "() => window.boardctl.state.mode === 'play' && !window.boardctl.state.invite")
        status, now = api(demo, "api/invite")
        assert status == 200 and now["hosting"] is False and now["invite"] is None
        page.wait_for_selector("#invite-start-box", state="hidden", timeout=WAIT_MS)
    saved = [json.loads(p.read_text()) for p in demo.games_dir.glob("*.json")]
    network = [g for g in saved if g.get("mode") == "network"]
    # The hosted game is saved in the demo's folder with its move and the players' names.
    assert any(g["moves"][:1] == ["e2e4"] and (g["white"], g["black"]) == ("Host", "Guest") for g in network), \
        network


@pytest.mark.parametrize(("body", "content_type", "status", "fragment"), [
    (b'{"color": "green"}', "application/json", 400, "color must be one of"),
    (b'{"colour": "white"}', "application/json", 400, "expected"),
    (b"[1]", "application/json", 400, "expected"),
    (b"not json", "application/json", 400, "expected"),
    (b'{"name": ""}', "application/json", 400, "printable"),
    (b'{"color": "white"}', "text/plain", 415, "Content-Type"),
    (b"{" + b" " * 5000 + b"}", "application/json", 400, "expected"),
])
def test_bad_invites_are_refused_and_change_nothing(demo: RunningDaemon, body: bytes, content_type: str,
                                                     status: int, fragment: str) -> None:
    before = demo.state()["mode"]
    got, answer = api(demo, "api/invite", body, content_type)
    assert got == status and fragment in answer["error"]
    assert demo.state()["mode"] == before and "invite" not in demo.state()


def test_net_refuses_while_not_hosting(demo: RunningDaemon) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(demo.url + "net", timeout=10)
    assert caught.value.code == 404
