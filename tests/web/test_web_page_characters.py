"""The page's opponents panel (boardctl/web/static/characters.js) in Chromium against ``boardctl
play`` with our own engine: every character's initials and profile, a game started against one
from the page (its name on the state line, its repertoire on the board), and back to the plain
engine. Screenshots: test-artifacts/web/page-characters-<desktop|phone>.png."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from page_helpers import SIZES, WAIT_MS, drag, new_game, open_page, shot, wait_for_moves
from web_helpers import RunningDaemon, run_daemon

from boardctl.engine_client import resolve_command
from boardctl.learning.characters import find_character, load_characters

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-page-characters")
    engine = shlex.join(resolve_command(""))
    with run_daemon(tmp, "--engine", engine, "--color", "white", "--movetime", "0.1", "--settle", "0.15",
                    timeout=180) as d:
        yield d
    assert d.proc.returncode == 0, d.log()


@pytest.mark.parametrize("size", list(SIZES))
def test_opponents_panel_starts_a_game_against_a_character(browser: Any, daemon: RunningDaemon, size: str) -> None:
    characters = load_characters(user_file=Path("/nonexistent"))
    with open_page(browser, daemon, size) as page:
        page.wait_for_selector("#characters[data-loaded]", state="attached", timeout=WAIT_MS)
        page.locator("#characters > summary").click()
        shown = page.locator("#char-list .char").evaluate_all(
            "cs => cs.filter(c => c.checkVisibility()).map(c => c.dataset.character)")
        assert shown == [c.id for c in characters] and len(shown) >= 30  # the chess characters only
        for c in characters:
            item = page.locator(f'#char-list .char[data-character="{c.id}"]')
            assert item.locator(".char-initials").inner_text() == c.initials
            assert item.locator(".char-profile").inner_text() == c.profile
            assert item.locator(".char-rating").inner_text() == str(c.rating)
        gus = find_character("gus")
        page.locator('#char-list .char[data-character="gus"] .char-play').click()
        page.wait_for_function("() => window.boardctl.state.opponent === 'Gus Gambit (1000)'", timeout=WAIT_MS)
        assert page.evaluate("() => window.boardctl.state.level") == gus.level
        page.wait_for_selector('#char-list .char[data-character="gus"][data-current="true"]', timeout=WAIT_MS)
        assert "Gus Gambit" in page.locator("#char-current").inner_text()
        assert "against Gus Gambit (1000)" in page.locator("#info").inner_text()
        page.locator("#characters > summary").click()  # folded again: the board is back in view on a phone
        page.evaluate("() => window.scrollTo(0, 0)")
        page.evaluate("() => window.boardctl.setupBoard()")
        page.wait_for_function("() => window.boardctl.state.matching === true", timeout=WAIT_MS)
        page.wait_for_timeout(400)
        drag(page, "e2", "e4")
        s = wait_for_moves(page, 1, pending=True)
        assert s["pending"] == "e7e5"  # Gus answers 1. e4 from his repertoire (Elephant Gambit)
        page.locator("#characters > summary").click()
        shot(page, "characters", size)
        page.locator("#char-plain").click()
        page.wait_for_function("() => window.boardctl.state.opponent === null", timeout=WAIT_MS)
        assert "plain engine" in page.locator("#char-current").inner_text()
        new_game(page, color="white", level="beginner", set_up=False)


def test_page_refuses_an_unknown_character(browser: Any, daemon: RunningDaemon) -> None:
    with open_page(browser, daemon, "desktop") as page:
        error = page.evaluate(
            "() => window.boardctl.send({'new-game': {opponent: 'nobody'}}).then(() => '', (e) => e.message)")
        assert "new-game.opponent: no character 'nobody'" in error
