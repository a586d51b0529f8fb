"""A xiangqi page writes the moves in Chinese by default (issue 35, finding 11: only WXF was
shown, never 炮二平五): the moves list, the engine's move and the hint; WXF stays a choice,
remembered in the browser. The server's annotation first, then the page in Chromium against a
real ``record --variant xiangqi`` daemon, moves made by dragging."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from page_helpers import SETTLED_MS, WAIT_MS, drag, open_page, state
from web_helpers import RunningDaemon, run_daemon

from boardctl.variants import get_variant
from boardctl.web.server import Annotator

XQ = get_variant("xiangqi")


@pytest.mark.parametrize(("moves", "pending", "chinese", "pending_chinese"), [
    ([], "h2e2", [], "炮二平五"),
    (["h2e2"], "h9g7", ["炮二平五"], "马８进７"),
    (["h2e2", "h9g7", "h0g2"], "i9h9", ["炮二平五", "马８进７", "马二进三"], "车９平８"),
    (["h2e2", "h9g7"], "a0a5", ["炮二平五", "马８进７"], None),  # not a legal move: none
])
def test_the_server_names_xiangqi_moves_in_chinese(moves: list[str], pending: str, chinese: list[str],
                                                    pending_chinese: str | None) -> None:
    line = {"variant": "xiangqi", "start_fen": XQ.starting_fen, "moves": moves, "pending": pending, "hint": None}
    out = Annotator().annotate(line)
    assert out["san_chinese"] == chinese and out["pending_chinese"] == pending_chinese
    assert out["hint_chinese"] is None and len(out["san"]) == len(moves)


def test_a_chess_line_gets_no_chinese() -> None:
    out = Annotator().annotate({"start_fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                                "moves": ["e2e4"], "pending": None, "hint": None})
    assert out["san"] == ["e4"] and "san_chinese" not in out


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-xiangqi-notation")
    with run_daemon(tmp, "--variant", "xiangqi", "--settle", "0.15", mode="record") as d:
        yield d


def listed(page: Any) -> list[str]:
    return [t.strip() for t in page.eval_on_selector_all("#moves .move", "ms => ms.map(m => m.textContent)")]


@pytest.mark.slow
def test_the_page_writes_the_moves_in_chinese_and_wxf_on_request(browser: Any, daemon: RunningDaemon,
                                                                  artifacts: Path) -> None:
    with open_page(browser, daemon, "desktop") as page:
        page.evaluate("() => window.boardctl.setupBoard()")
        page.wait_for_function("() => window.boardctl.state.matching === true", timeout=WAIT_MS)
        page.wait_for_timeout(SETTLED_MS)
        drag(page, "h2", "e2")
        page.wait_for_function("() => window.boardctl.state.moves.length === 1", timeout=WAIT_MS)
        page.wait_for_timeout(SETTLED_MS)
        drag(page, "h9", "g7")
        page.wait_for_function("() => window.boardctl.state.moves.length === 2", timeout=WAIT_MS)
        assert state(page)["san_chinese"] == ["炮二平五", "马８进７"]
        page.wait_for_function("() => document.querySelectorAll('#moves .move').length === 2", timeout=WAIT_MS)
        assert page.eval_on_selector("#xq-notation", "s => s.value") == "chinese"
        assert listed(page) == ["炮二平五", "马８进７"]
        page.screenshot(path=str(artifacts / "page-xiangqi-notation-desktop.png"))
        page.select_option("#xq-notation", "wxf")
        assert listed(page) == ["C2.5", "H8+7"]
        page.reload()
        page.wait_for_function("() => window.boardctl.state && window.boardctl.state.moves.length === 2",
                               timeout=WAIT_MS)
        page.wait_for_function("() => document.querySelectorAll('#moves .move').length === 2", timeout=WAIT_MS)
        assert page.eval_on_selector("#xq-notation", "s => s.value") == "wxf" and listed(page) == ["C2.5", "H8+7"]
        page.select_option("#xq-notation", "chinese")
        assert listed(page) == ["炮二平五", "马８进７"]
