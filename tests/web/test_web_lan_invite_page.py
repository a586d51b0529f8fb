"""Issue 29, finding 1 in the browser: ``boardctl host --host 0.0.0.0``'s page shows its Invite
(with the code) only once the PIN is entered; without it the page, ``/api/state`` and the ``/ws``
stream never carry the code."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from page_helpers import WAIT_MS
from web_helpers import run_daemon

from boardctl.web.pin import read_pin

pytestmark = pytest.mark.slow


def test_the_hosts_lan_page_shows_the_invitation_only_with_the_pin(browser: Any, tmp_path: Path) -> None:
    with run_daemon(tmp_path, "--host", "0.0.0.0", mode="host") as daemon:
        pin = read_pin(tmp_path / "config" / "boardctl" / "config.toml")
        assert pin is not None
        found = re.search(r"--code ([A-Z2-9]{8})", daemon.log())
        assert found, daemon.log()
        code = found.group(1)
        with urllib.request.urlopen(daemon.url + "api/state", timeout=5) as answer:
            assert code not in answer.read().decode()
        context = browser.new_context(viewport={"width": 1100, "height": 850})
        page = context.new_page()
        sockets: list[str] = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: sockets.append(str(frame))))
        page.goto(daemon.url)
        page.wait_for_selector('#connection[data-connected="true"]', timeout=WAIT_MS)
        page.wait_for_timeout(500)
        assert page.locator("#invite").is_hidden()
        assert page.locator("#pin-form").is_visible()
        assert sockets and all(code not in frame for frame in sockets)
        page.fill("#pin", pin)
        page.locator("#pin-form button").click()
        page.locator("#invite").wait_for(state="visible", timeout=WAIT_MS)
        page.locator("#invite").click()
        assert code in page.locator("#invite-box").inner_text()
        request = urllib.request.Request(daemon.url + "api/state", headers={"X-Boardctl-Pin": pin})
        with urllib.request.urlopen(request, timeout=5) as answer:
            assert json.loads(answer.read())["invite"]["code"] == code
        context.close()
