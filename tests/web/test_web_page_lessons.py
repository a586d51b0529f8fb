"""The lesson panel and the replay slider in real Chromium, on a real ``boardctl learn`` /
``boardctl games step`` daemon: pieces dragged on the page's virtual board, buttons pressed."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest
from page_helpers import carry_out, drag, lit, open_page, shot, state, wait
from web_helpers import REPO, RunningDaemon, engine_command, free_port, run_daemon, serve

pytestmark = pytest.mark.slow

OPERA = """[Event "Paris"]
[Date "1858.??.??"]
[White "Paul Morphy"]
[Black "Duke Karl / Count Isouard"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5
10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8
17. Rd8# 1-0
"""


@contextlib.contextmanager
def run_step(tmp: Path, *args: str) -> Iterator[RunningDaemon]:
    """``boardctl games step … --board sim`` serving the page on a free port."""
    port = free_port()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data"),
           "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "boardctl", "-v", "games", "step", *args, "--board", "sim", "--port", str(port),
           "--settle", "0.15"]
    with serve(cmd, env=env, cwd=REPO, url=f"http://127.0.0.1:{port}/", games_dir=tmp, log_path=tmp / f"step-{port}.log",
               what="games step") as daemon:
        yield daemon


def test_lesson_panel_follows_the_lesson_on_the_virtual_board(browser: Any, tmp_path: Path) -> None:
    args = ("italian", "--color", "white", "--seed", "1", "--settle", "0.15", "--engine", engine_command())
    with run_daemon(tmp_path, *args, mode="learn") as daemon, open_page(browser, daemon, "desktop") as page:
        wait(page, "() => !document.getElementById('lesson').hidden")
        assert "Italian Game" in page.locator("#lesson-title").inner_text()
        assert page.locator("#lesson-next").inner_text().startswith("Your move: e4")
        assert lit(page, "lesson-move") == {"e2", "e4"}
        carry_out(page, chess.STARTING_FEN, "e2e4")
        wait(page, "() => window.boardctl.state.pending === 'e7e5'")
        assert "Takes space in the centre" in page.locator("#lesson-note").inner_text()
        st = state(page)
        carry_out(page, st["fen"], "e7e5")
        wait(page, "() => window.boardctl.state.moves.length === 2 && !window.boardctl.state.pending")
        # A wrong move: the panel says so, the right move is lit, the piece goes back.
        drag(page, "g1", "h3")
        wait(page, "() => Boolean(window.boardctl.state.lesson.wrong)")
        assert "The lesson plays Nf3" in page.locator("#lesson-wrong").inner_text()
        assert lit(page, "lesson-wrong") == {"g1", "f3", "h3"} and lit(page, "takeback") == {"g1", "h3"}
        colours = page.eval_on_selector_all('#board [data-square="h3"], #board [data-square="f3"]',
                                            "els => els.map(e => getComputedStyle(e).getPropertyValue('--led').trim())")
        assert colours[0] != colours[1]  # the square to put back shows takeback's colour, the right one its own
        shot(page, "lesson-wrong", "desktop")
        drag(page, "h3", "g1")
        wait(page, "() => window.boardctl.state.matching && !window.boardctl.state.leds.some(l => l.why === 'takeback')")
        carry_out(page, state(page)["fen"], "g1f3")
        wait(page, "() => window.boardctl.state.moves.length === 3")
        score = page.locator("#lesson-score").inner_text()
        assert "1 of 2 right at the first try" in score and "1 wrong" in score
        page.locator("#lesson-again").click()
        wait(page, "() => window.boardctl.state.lesson.run === 2 && window.boardctl.state.moves.length === 0")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_replay_slider_steps_a_watched_game(browser: Any, tmp_path: Path, size: str) -> None:
    pgn = tmp_path / "opera.pgn"
    pgn.write_text(OPERA)
    with run_step(tmp_path, str(pgn), "--watch") as daemon, open_page(browser, daemon, size) as page:
        wait(page, "() => !document.getElementById('step').hidden")
        assert "Paul Morphy" in page.locator("#step-title").inner_text()
        assert page.locator("#step-slider").get_attribute("max") == "33"
        page.locator("#step-forward").click()
        wait(page, "() => window.boardctl.state.step.ply === 1")
        assert lit(page, "step-move") == {"e2", "e4"}
        # The slider jumps: the page presses hint until the replay is there.
        page.locator("#step-slider").fill("23")
        wait(page, "() => window.boardctl.state.step.ply === 23")
        st = state(page)
        assert st["moves"][-1] == "e1c1" and lit(page, "step-move") == {"e1", "c1", "a1", "d1"}
        assert page.locator("#step-moves li.current").inner_text().endswith("O-O-O")
        page.locator("#step-slider").fill("20")
        wait(page, "() => window.boardctl.state.step.ply === 20")
        page.locator('#step-moves li[data-ply="33"]').click()
        wait(page, "() => window.boardctl.state.step.ply === 33")
        assert "the end of the game (1-0)" in page.locator("#status").inner_text()
        assert {led["why"] for led in state(page)["leds"]} == {"step-move"}
        shot(page, "step-watch", size)


def test_replay_on_the_board_from_the_page(browser: Any, tmp_path: Path) -> None:
    pgn = tmp_path / "opera.pgn"
    pgn.write_text(OPERA)
    with run_step(tmp_path, str(pgn)) as daemon, open_page(browser, daemon, "desktop") as page:
        wait(page, "() => !document.getElementById('step').hidden")
        assert page.locator("#step-slider").is_disabled()
        page.locator("#step-forward").click()
        wait(page, "() => window.boardctl.state.step.next === 'e4'")
        assert lit(page, "step-move") == {"e2", "e4"}
        carry_out(page, chess.STARTING_FEN, "e2e4")
        wait(page, "() => window.boardctl.state.step.ply === 1")
        page.locator("#step-back").click()
        wait(page, "() => window.boardctl.state.moves.length === 0")
        assert lit(page, "takeback") == {"e2", "e4"}


def test_a_lesson_and_a_replay_started_from_a_play_page(browser: Any, tmp_path: Path) -> None:
    """The demo's (play's) page reaches both: the lesson as Black, then a watched replay, then back to play."""
    with run_daemon(tmp_path, "--color", "white", "--settle", "0.15", "--movetime", "0.05") as daemon, \
            open_page(browser, daemon, "desktop") as page:
        page.locator("#learn summary").click()
        page.locator('#lesson-form select[name="lesson"]').select_option("petrov")
        page.locator('#lesson-form select[name="color"]').select_option("black")
        page.locator('#lesson-form button[type="submit"]').click()
        wait(page, "() => window.boardctl.state.lesson && window.boardctl.state.pending === 'e2e4'")
        assert "Petrov Defence" in page.locator("#lesson-title").inner_text()
        assert lit(page, "engine-move") == {"e2", "e4"}
        carry_out(page, chess.STARTING_FEN, "e2e4")
        wait(page, "() => window.boardctl.state.moves.length === 1 && window.boardctl.state.lesson.your_turn")
        assert lit(page, "lesson-move") == {"e7", "e5"}
        # A replay from an uploaded PGN, watched.
        page.locator('#step-form input[type="file"]').set_input_files(
            files=[{"name": "opera.pgn", "mimeType": "text/plain", "buffer": OPERA.encode()}])
        page.locator('#step-form button[type="submit"]').click()
        wait(page, "() => window.boardctl.state.step && !window.boardctl.state.lesson")
        assert document_hidden(page, "lesson")
        assert lit(page, "setup") == {"e2", "e4"}  # the lesson's pawn goes back for the replay's start
        drag(page, "e4", "e2")
        wait(page, "() => window.boardctl.state.step.set_up")
        page.locator("#step-slider").fill("3")
        wait(page, "() => window.boardctl.state.step.ply === 3")
        assert state(page)["moves"] == ["e2e4", "e7e5", "g1f3"]
        # New game from the form: back to playing the engine as before, no panel left.
        page.locator("#new-game summary").click()
        page.locator('#new-game-form button[type="submit"]').click()
        wait(page, "() => !window.boardctl.state.step && !window.boardctl.state.lesson"
                   " && window.boardctl.state.mode === 'play' && window.boardctl.state.human === 'white'")
        assert document_hidden(page, "step")


def document_hidden(page: Any, element_id: str) -> bool:
    hidden: bool = page.evaluate("(id) => document.getElementById(id).hidden", element_id)
    return hidden
