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
