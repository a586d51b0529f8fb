"""A network game on the page, as a newcomer met it (issue 35, finding 8): the friend was called
"Engine" ("Engine plays e4"), no name nor connection state was shown, and "Invite a friend"
left the running game without asking. In Chromium: the page's words for a network game (its
socket played by the test, every connection state), and the Invite's question against a real
``record`` daemon with a game under way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from page_helpers import WAIT_MS, carry_out, open_page, state
from web_helpers import RunningDaemon, run_daemon
from xiangqi_page import xiangqi_page, xq_state

from boardctl.session import Session, Settings

AFTER_C25 = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"


@pytest.mark.parametrize(("human", "names", "opponent"), [
    ("white", ("Host", "Guest"), "Guest"), ("black", ("Host", "Guest"), "Host"), ("white", ("Ann", "Bo"), "Bo")])
def test_a_network_state_line_names_the_opponent(human: str, names: tuple[str, str], opponent: str) -> None:
    session = Session(Settings(mode="network", color=human))
    session.set_players(*names)
    assert session.state_line()["opponent"] == opponent
    assert Session(Settings(mode="record")).state_line()["opponent"] is None


#: (the network part of the state line, the words the status must hold)
CONNECTIONS = [
    ({"role": "join", "connected": True}, "Playing Li over the network (connected)."),
    ({"role": "join", "connected": False}, "Li's board is not connected: it rejoins by itself."),
    ({"role": "host", "connected": False, "joined": False}, "Waiting for Li to join with the invitation."),
]


@pytest.mark.slow
@pytest.mark.parametrize(("network", "words"), CONNECTIONS, ids=["connected", "rejoining", "waiting"])
def test_the_page_names_the_friend_and_the_connection(browser: Any, network: dict[str, Any], words: str) -> None:
    line = xq_state(AFTER_C25, start_fen=AFTER_C25, mode="network", human="black", opponent="Li", network=network,
                    pending="h9g7", pending_san="H8+7", pending_chinese="马８进７", turn="black")
    with xiangqi_page(browser, line) as (page, _daemon):
        text = page.inner_text("#status")
        assert "Li plays 马８进７: make the move on the board." in text and "Engine" not in text
        assert words in text, text


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-invite-confirm")
    with run_daemon(tmp, "--settle", "0.15", mode="record") as d:
        yield d


@pytest.mark.slow
def test_invite_asks_before_leaving_a_game_under_way(browser: Any, daemon: RunningDaemon, tmp_path: Path) -> None:
    with open_page(browser, daemon, "desktop") as page:
        page.evaluate("() => window.boardctl.setupBoard()")
        page.wait_for_function("() => window.boardctl.state.matching === true", timeout=WAIT_MS)
        carry_out(page, state(page)["fen"], "e2e4")
        page.wait_for_function("() => window.boardctl.state.moves.length === 1", timeout=WAIT_MS)
        page.click("#invite-start")
        page.wait_for_selector("#invite-start-confirm", timeout=WAIT_MS)
        assert "leaves the game under way (1 half-moves" in page.inner_text("#invite-start-confirm")
        page.wait_for_timeout(500)
        assert state(page)["mode"] == "record" and state(page)["moves"] == ["e2e4"]  # nothing left yet
        page.click("#invite-start")
        page.wait_for_function("() => window.boardctl.state.mode === 'network'", timeout=WAIT_MS)
        assert state(page)["moves"] == []


def _invite_from_the_page(url: str) -> dict[str, Any]:
    """The page's Invite (``POST /api/invite``), as its button sends it: the invitation."""
    import json
    import urllib.request

    request = urllib.request.Request(f"{url}api/invite", data=json.dumps({"color": "white"}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        invite: dict[str, Any] = json.loads(answer.read())["invite"]
    return invite


def _joined(address: str, code: str, tmp_path: Path, name: str) -> Any:
    """Another board (``join --stdio``) with ``code``, connected."""
    from network.harness import Board, free_port

    board = Board(["join", address, "--code", code, "--board", "sim", "--stdio", "--port", str(free_port()),
                   "--games-dir", str(tmp_path / name)], tmp_path / f"{name}-home")
    try:
        board.send({})
        board.wait_for(lambda s: bool(s.get("network", {}).get("connected")), 30)
    except BaseException:
        board.kill()
        raise
    return board


@pytest.mark.slow
def test_a_used_invitation_shows_no_empty_link_and_one_invite_button(browser: Any, tmp_path: Path) -> None:
    """Hosted from the page, joined by another board (``join --stdio``): the code is used, so no
    ``?play=`` link without a code, and only the page's own Invite (not network.js's too)."""
    (tmp_path / "host").mkdir()
    with run_daemon(tmp_path / "host", "--settle", "0.15", mode="record") as host:
        port = host.url.rstrip("/").rsplit(":", 1)[1]
        invite = _invite_from_the_page(host.url)
        guest = None
        try:
            guest = _joined(invite["address"], invite["code"], tmp_path, "guest")
            with open_page(browser, host, "desktop") as page:
                page.wait_for_function("() => window.boardctl.state.invite && !window.boardctl.state.invite.code",
                                       timeout=WAIT_MS)
                page.wait_for_selector("#invite-start")
                page.wait_for_timeout(1000)  # network.js's own poll has answered
                page.click("#invite-start")  # shows the invitation (hosting already)
                page.wait_for_selector("#invite-start-phone-used", timeout=WAIT_MS)
                assert page.locator("a[href$='?play=']").count() == 0
                assert page.locator("#invite").is_hidden() and page.locator("#invite-start").is_visible()
                assert port in invite["address"]
        finally:
            if guest is not None and guest.proc.poll() is None:
                guest.kill()


@pytest.mark.slow
def test_a_used_invitation_is_replaced_by_a_new_code(browser: Any, tmp_path: Path) -> None:
    """The seat's board is lost (issue 35, finding 8: a used invitation could not be replaced):
    New code, confirmed, gives the seat a new one-time code on the page; the board that joined
    with the old one is let go and refused, and another board joins with the new code."""
    (tmp_path / "host").mkdir()
    with run_daemon(tmp_path / "host", "--settle", "0.15", mode="record") as host:
        invite = _invite_from_the_page(host.url)
        first = second = None
        try:
            first = _joined(invite["address"], invite["code"], tmp_path, "first")
            with open_page(browser, host, "desktop") as page:
                page.wait_for_function("() => window.boardctl.state.invite && !window.boardctl.state.invite.code",
                                       timeout=WAIT_MS)
                page.click("#invite-start")
                page.click("#invite-start-new-code", timeout=WAIT_MS)
                assert "Really?" in page.inner_text("#invite-start-new-code")
                assert state(page)["invite"]["code"] is None  # one click changes nothing
                page.click("#invite-start-new-code")
                page.wait_for_function("() => window.boardctl.state.invite && window.boardctl.state.invite.code",
                                       timeout=WAIT_MS)
                code = state(page)["invite"]["code"]
                assert code != invite["code"]
                page.wait_for_function("(c) => document.querySelector('#invite-start-code').textContent.includes(c)",
                                       arg=code, timeout=WAIT_MS)
                assert page.locator(f"a[href$='?play={code}']").count() == 1
                # The board that joined with the old code is let go, and told why.
                assert first.proc.wait(timeout=30) != 0
                second = _joined(invite["address"], code, tmp_path, "second")
                page.wait_for_function("() => window.boardctl.state.network.connected && !window.boardctl.state.invite.code",
                                       timeout=WAIT_MS)
        finally:
            for board in (first, second):
                if board is not None and board.proc.poll() is None:
                    board.kill()


@pytest.mark.slow
def test_boardctl_hosts_page_gives_a_new_code_too(browser: Any, tmp_path: Path) -> None:
    """``boardctl host``'s own page (network.js's Invite) offers New code once the code is used."""
    import json
    import urllib.request

    (tmp_path / "host").mkdir()
    with run_daemon(tmp_path / "host", "--no-terminal", mode="host", new=False) as host:
        with urllib.request.urlopen(f"{host.url}api/state", timeout=10) as answer:
            invite = json.loads(answer.read())["invite"]
        guest = None
        try:
            guest = _joined(invite["address"], invite["code"], tmp_path, "guest")
            with open_page(browser, host, "desktop") as page:
                page.click("#invite", timeout=WAIT_MS)
                page.wait_for_selector("#invite-new-code", timeout=WAIT_MS)
                page.click("#invite-new-code")
                page.click("#invite-new-code")
                page.wait_for_function("() => window.boardctl.state.invite && window.boardctl.state.invite.code",
                                       timeout=WAIT_MS)
                code = state(page)["invite"]["code"]
                assert code != invite["code"]
                page.wait_for_selector(f"a[href$='?play={code}']", timeout=WAIT_MS)
                assert guest.proc.wait(timeout=30) != 0
        finally:
            if guest is not None and guest.proc.poll() is None:
                guest.kill()
