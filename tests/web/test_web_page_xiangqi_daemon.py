"""The xiangqi page against the real daemon: ``boardctl record --board sim --variant xiangqi``,
played by dragging on the page's virtual board (lift and place events through the tracker).

The end-to-end check of the page: 90 points, moves by dragging with point names, a capture, and
the state's ``moves``/``fen`` exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from page_helpers import SETTLED_MS, WAIT_MS, drag, open_page, state
from web_helpers import RunningDaemon, run_daemon

pytestmark = pytest.mark.slow

XQ_START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-xiangqi")
    with run_daemon(tmp, "--variant", "xiangqi", "--settle", "0.15", mode="record") as d:
        yield d


def wait_moves(page: Any, count: int) -> dict[str, Any]:
    page.wait_for_function("(n) => window.boardctl.state.moves.length === n", arg=count, timeout=WAIT_MS)
    return state(page)


def test_play_xiangqi_by_dragging_on_the_real_daemon(browser: Any, daemon: RunningDaemon, artifacts: Path) -> None:
    with open_page(browser, daemon, "desktop") as page:
        s = state(page)
        assert s.get("variant") == "xiangqi"
        assert page.locator("#board [data-square]").count() == 90
        if s["fen"] != XQ_START or s["moves"]:
            page.evaluate("(p) => window.boardctl.send({'new-game': p})", {"time-control": ""})
            page.wait_for_function("() => window.boardctl.state.moves.length === 0", timeout=WAIT_MS)
        page.evaluate("() => window.boardctl.setupBoard()")
        page.wait_for_function("() => window.boardctl.state.matching === true", timeout=WAIT_MS)
        page.wait_for_timeout(SETTLED_MS)
        assert page.locator('#board [data-square="e0"] .piece').inner_text() == "帥"

        drag(page, "h2", "e2")  # 炮二平五
        s = wait_moves(page, 1)
        assert s["moves"] == ["h2e2"] and s["turn"] == "black"
        assert s["fen"].split()[0] == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR"
        page.wait_for_timeout(SETTLED_MS)
        drag(page, "h9", "g7")  # 馬8進7
        s = wait_moves(page, 2)
        page.wait_for_timeout(SETTLED_MS)
        drag(page, "e2", "e6")  # the cannon takes the centre soldier (captured piece lifted first)
        s = wait_moves(page, 3)
        assert s["moves"] == ["h2e2", "h9g7", "e2e6"]
        assert s["fen"].split()[0] == "rnbakab1r/9/1c4nc1/p1p1C1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR"
        assert page.locator('#board [data-square="e6"] .piece').inner_text() == "炮"
        page.screenshot(path=str(artifacts / "page-xiangqi-daemon-desktop.png"))
