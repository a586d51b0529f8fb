"""The page of ``boardctl online`` (real Chromium): the Lichess game in the header, its link, and
whether the stream is up (boardctl/web/static/online.js)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from page_helpers import WAIT_MS, open_page
from web_helpers import run_daemon

from boardctl.online.token import store_token
from tests.online.standin import StandIn

pytestmark = pytest.mark.slow

TOKEN = "lip_pagetesttoken1234"


@pytest.fixture
def standin() -> Iterator[StandIn]:
    server = StandIn(token=TOKEN, reply_delay=0.1, accept_delay=0.2, keepalive=1.0, script=["e7e5"])
    server.start_in_thread()
    yield server
    server.stop_thread()


def test_the_header_names_the_lichess_game_and_its_link_state(tmp_path: Path, standin: StandIn, browser: Any) -> None:
    store_token(tmp_path / "config" / "boardctl" / "config.toml", TOKEN)
    with run_daemon(tmp_path, "--lichess-url", standin.url, "--seek", "3+2", "--rate-limit-wait", "3",
                    mode="online") as daemon, open_page(browser, daemon, "desktop") as page:
        game = next(iter(standin.games.values()))
        badge = page.wait_for_selector('#online[data-connected="true"]', timeout=WAIT_MS)
        text = badge.inner_text()
        assert f"Lichess {game.id}" in text and "casual vs Scripted (1600)" in text
        assert page.get_attribute("#online a", "href") == f"{standin.url}/{game.id}"
        assert daemon.state()["online"]["game"] == game.id
        # the stream cut, and its reopening answered 429: the badge says so until it is back
        standin.call(lambda: standin.rate_limit.update({"/api/board/game/stream/": 1}))
        standin.call(lambda: standin.drop_game_streams(game.id))
        page.wait_for_selector('#online[data-connected="false"]', timeout=WAIT_MS)
        page.wait_for_selector('#online[data-connected="true"]', timeout=WAIT_MS)
        assert TOKEN not in page.content() and TOKEN not in daemon.log()
