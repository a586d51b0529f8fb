"""The practice coach on the page, in Chromium against ``boardctl play --board sim`` at practice3:
a hanging bishop gets the coach's line and the better move lit, and resigning shows the review.
Screenshot: test-artifacts/web/page-coach-desktop.png."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from page_helpers import WAIT_MS, drag, lit, new_game, open_page, resign, shot, state
from web_helpers import RunningDaemon, run_daemon

pytestmark = pytest.mark.slow

AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-page-coach")
    with run_daemon(tmp, "--color", "white", "--level", "practice3", "--movetime", "0.05", "--settle", "0.15",
                    "--coach-movetime", "0.3") as d:
        yield d
    assert d.proc.returncode == 0, d.log()


@pytest.fixture
def page(browser: Any, daemon: RunningDaemon) -> Iterator[Any]:
    with open_page(browser, daemon, "desktop") as page:
        yield page


def test_the_coach_line_the_better_move_and_the_review(page: Any) -> None:
    new_game(page, fen=AFTER_E4_E5, color="white", level="practice3")
    drag(page, "f1", "a6")  # 2. Ba6?? bxa6
    page.wait_for_selector('#coach-line[data-category="hangs"]', timeout=WAIT_MS)
    text = page.locator("#coach-line").inner_text()
    assert "Ba6 hangs the bishop on a6" in text and "Better:" in text
    verdict = state(page)["coach"]
    assert verdict["san"] == "Ba6" and verdict["nag"] == "??"
    best = verdict["best"]
    page.wait_for_function("(sq) => document.querySelectorAll('#board [data-led~=\"coach\"]').length === 2",
                           arg=best, timeout=WAIT_MS)
    assert lit(page, "coach") == {best[:2], best[2:4]}
    shot(page, "coach", "desktop")
    resign(page)
    page.wait_for_selector("#coach-review:not([hidden]) li", timeout=WAIT_MS)
    items = page.locator("#coach-review li").all_inner_texts()
    assert items and items[0].startswith("2. Ba6?? Ba6 hangs the bishop on a6; better was ")
    assert page.locator("#coach-line").is_hidden() or state(page)["coach"] is not None
