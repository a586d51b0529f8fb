"""A xiangqi page speaks of red and black (issue 35, finding 4; and 11: what is chess only
says so where it is, and the opponents are xiangqi characters): the "Invite a friend" colour
list offered ``white`` and the evaluation bar was black and white. Against a real xiangqi
daemon (``play --variant xiangqi`` with the bundled engine, where the bar shows), in Chromium, on both sizes of the page: every option, label and
visible word, and the bar's colours; the chess page keeps white and black."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from page_helpers import WAIT_MS, open_page, shot
from web_helpers import RunningDaemon, run_daemon

pytestmark = pytest.mark.slow

ENGINE = str(Path(sys.executable).parent / "boardctl-engine")

#: Every word the page shows or says: visible text, the options of visible lists (text and
#: value), and the aria-labels and titles of what is shown.
WORDS = """() => {
  const shown = (e) => e.checkVisibility({ visibilityProperty: true });
  const out = [document.body.innerText];
  for (const e of document.querySelectorAll("option")) if (shown(e.closest("select, datalist") || e)) out.push(e.textContent, e.value);
  for (const e of document.querySelectorAll("[aria-label]")) if (shown(e)) out.push(e.getAttribute("aria-label"));
  for (const e of document.querySelectorAll("[title]")) if (shown(e)) out.push(e.getAttribute("title"));
  return out.join("\\n");
}"""

#: The skin named after its discs' colour ("Solid discs (white on red and black)") is not a side.
ALLOWED = re.compile(r"white on red and black", re.I)


def rgb(page: Any, selector: str) -> tuple[int, int, int]:
    colour = page.eval_on_selector(selector, "e => getComputedStyle(e).backgroundColor")
    r, g, b = (int(x) for x in re.findall(r"\d+", colour)[:3])
    return r, g, b


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-xiangqi-words")
    with run_daemon(tmp, "--variant", "xiangqi", "--engine", ENGINE, "--movetime", "0.2", mode="play") as d:
        yield d


def test_a_xiangqi_page_speaks_of_red_and_black(page: Any, size: str) -> None:
    page.wait_for_function("() => window.boardctl.state && window.boardctl.state.variant === 'xiangqi'",
                           timeout=WAIT_MS)
    page.wait_for_selector("#invite-color")
    assert page.eval_on_selector_all("#invite-color option", "os => os.map(o => o.value)") == ["red", "black", "random"]
    assert page.eval_on_selector_all("#invite-color option", "os => os.map(o => o.textContent)") == [
        "red", "black", "random"]
    words = ALLOWED.sub("", page.evaluate(WORDS))
    assert not re.search(r"\bwhite\b", words, re.I), [line for line in words.splitlines() if "hite" in line]
    assert page.get_attribute("#eval-bar", "aria-label") == "evaluation, Red's share"
    page.locator("#learn summary").click()  # the lessons say they are chess's, with no White/Black list
    assert page.is_visible("#lesson-chess-only") and not page.is_visible("#lesson-form")
    words = ALLOWED.sub("", page.evaluate(WORDS))
    assert "chess only" in words and not re.search(r"\bwhite\b", words, re.I)
    red, bar = rgb(page, "#eval-fill"), rgb(page, "#eval-bar")
    assert red[0] > 150 and red[1] < 80 and red[2] < 80, red  # Red's share is red
    assert max(bar) < 60, bar  # over black
    shot(page, "xiangqi-words", size)


def test_the_opponents_are_the_xiangqi_characters_and_play(page: Any, size: str) -> None:
    """Issue 35, finding 11: Play failed with an error out of view ("the characters play chess");
    xiangqi now has characters of its own, and only they are offered on a xiangqi board."""
    page.wait_for_function("() => window.boardctl.state && window.boardctl.state.variant === 'xiangqi'",
                           timeout=WAIT_MS)
    page.locator("#characters summary").click()
    page.wait_for_selector('#char-list .char[data-game="xiangqi"] .char-play')
    shown = page.locator("#char-list .char").evaluate_all(
        "cs => cs.filter(c => c.checkVisibility()).map(c => [c.dataset.character, c.dataset.game])")
    assert len(shown) >= 8 and {game for _, game in shown} == {"xiangqi"}, shown
    assert not page.is_visible("#char-none")
    assert "chess only" not in page.inner_text("#characters")
    page.locator('#char-list .char-play[data-character="laozhang"]').click()
    page.wait_for_function("() => window.boardctl.state && window.boardctl.state.opponent === 'Old Zhang (1000)'",
                           timeout=WAIT_MS)
    assert page.inner_text("#char-current") == "You play against Old Zhang (1000)."
    page.locator("#char-plain").click()  # the next test's page starts against the plain engine again
    page.wait_for_function("() => window.boardctl.state && !window.boardctl.state.opponent", timeout=WAIT_MS)


def test_the_invitation_is_for_red_or_black(page: Any, size: str) -> None:
    """The colour chosen is the one the server hosts for (red is the first side)."""
    page.wait_for_selector("#invite-color")
    page.select_option("#invite-color", "red")
    assert page.eval_on_selector("#invite-color", "s => s.value") == "red"


def test_the_chess_page_keeps_white_and_black(browser: Any, tmp_path: Path) -> None:
    with run_daemon(tmp_path, mode="record") as chess_daemon, open_page(browser, chess_daemon, "desktop") as page:
        page.wait_for_selector("#invite-color")
        assert page.eval_on_selector_all("#invite-color option", "os => os.map(o => o.value)") == [
            "white", "black", "random"]
        assert rgb(page, "#eval-fill") == (255, 255, 255)
        page.locator("#characters summary").click()
        page.wait_for_selector("#char-list .char-play")
        assert page.locator("#char-list .char-play").first.is_visible()
        games = page.locator("#char-list .char").evaluate_all(
            "cs => cs.filter(c => c.checkVisibility()).map(c => c.dataset.game)")
        assert games and set(games) == {"chess"}  # no xiangqi character on a chess board
