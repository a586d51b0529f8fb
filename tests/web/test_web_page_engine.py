"""The page against ``boardctl play`` with a real engine: evaluation bar, the engine's line in SAN
(state-line key ``pv``), the book label, clocks that wait for the pieces, and the resume notice.

Stockfish answers for the daemon (fast, always has a line); the book label needs our own engine,
whose book moves it reports as ``info string book move …``. Screenshots:
test-artifacts/web/page-<point>-<desktop|phone>.png.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest
from page_helpers import (
    SIZES,
    WAIT_MS,
    box,
    carry_out,
    drag,
    new_game,
    open_page,
    shot,
    state,
    wait_for_moves,
)
from web_helpers import RunningDaemon, run_daemon

from boardctl.engine_client import resolve_command

pytestmark = pytest.mark.slow

FAR = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"  # far from the start position: a long set-up


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-page-engine")
    with run_daemon(tmp, "--color", "white", "--level", "beginner", "--movetime", "0.05", "--settle", "0.15") as d:
        yield d
    assert d.proc.returncode == 0, d.log()


def white_share(ev: dict[str, int]) -> float:
    """The evaluation bar's white part, percent (the page's curve, written out again here)."""
    if ev.get("mate") is not None:
        return 100.0 if ev["mate"] > 0 else 0.0
    return 50 + 50 * (2 / (1 + math.exp(-0.00368208 * ev["cp"])) - 1)


def parse_line(board: chess.Board, text: str) -> list[chess.Move]:
    """A line in SAN with move numbers ("1...e5 2. Nf3"), checked move by move on ``board``."""
    board = board.copy()
    moves = []
    for token in text.split():
        san = re.sub(r"^\d+\.(\.\.)?", "", token)  # python-chess writes "1...e5 2. Nf3"
        if san:
            moves.append(board.push_san(san))
    return moves


def test_evaluation_bar_and_the_engines_line_in_san(page: Any, size: str) -> None:
    new_game(page, color="white", level="beginner")
    drag(page, "e2", "e4")
    s = wait_for_moves(page, 1, pending=True)
    after_e4 = chess.Board(s["fen"])
    # The state line's pv: SAN with move numbers, from the position the engine was asked about.
    assert isinstance(s["pv"], str) and s["pv"].startswith("1..."), s["pv"]
    line = parse_line(after_e4, s["pv"])
    assert len(line) >= 1
    assert page.locator("#pv").inner_text() == s["pv"]
    # The bar: White's share by the same curve as Lichess's, level with the score given.
    assert s["eval"] is not None and s["book"] is False
    share = white_share(s["eval"])
    assert int(page.locator("#eval-bar").get_attribute("aria-valuenow") or -1) == round(share)
    page.wait_for_timeout(600)  # the bar slides to its new height in 0.4 s
    fill = page.eval_on_selector("#eval-fill", "el => el.getBoundingClientRect().height")
    bar, board = box(page, "#eval-bar"), box(page, "#board")
    assert fill == pytest.approx(bar["height"] * share / 100, abs=2)
    assert bar["height"] == pytest.approx(board["height"], abs=1)
    assert bar["x"] + bar["width"] <= board["x"] and bar["x"] >= 0
    assert board["x"] + board["width"] <= SIZES[size][0]
    shot(page, "eval-bar-pv", size)
    carry_out(page, s["fen"], s["pending"])
    wait_for_moves(page, 2, pending=False)
    assert page.locator("#pv").inner_text() == s["pv"]  # the line stays until the engine's next


def test_the_clocks_wait_until_the_pieces_are_set_up(page: Any, size: str) -> None:
    # The engine plays White here; the pieces stand in the start position, far from FAR.
    new_game(page, color="white")
    s = new_game(page, fen=FAR, set_up=False, color="black", time_control="5+3")
    assert s["matching"] is False
    page.wait_for_timeout(2500)
    s = state(page)
    assert s["clock"] == {"white": 300, "black": 300, "running": None}, s["clock"]
    assert s["pending"] is None and s["moves"] == []
    assert "The clocks start once the pieces are set up." in page.locator("#status").inner_text()
    assert page.locator("#clock-top .time").inner_text() == page.locator("#clock-bottom .time").inner_text() == "5:00"
    shot(page, "clocks-wait-for-set-up", size)
    page.evaluate("() => window.boardctl.setupBoard()")
    s = wait_for_moves(page, 0, pending=True)
    # The engine's time ran only from the set-up: 300 s, less its thinking, plus 3 s increment.
    # Had it run while the pieces were set up, 2.5 s or more would be gone.
    assert s["clock"]["white"] > 301.0, s["clock"]
    assert s["clock"]["running"] == "black"


def test_a_resumed_game_is_announced_on_the_page(browser: Any, tmp_path: Path) -> None:
    args = ("--color", "black", "--level", "beginner", "--movetime", "0.05", "--settle", "0.15")
    with run_daemon(tmp_path, *args) as d, open_page(browser, d, "desktop") as page:
        assert page.locator("#notice").is_hidden()
        s = wait_for_moves(page, 0, pending=True)
        carry_out(page, s["fen"], s["pending"])
        s = wait_for_moves(page, 1, pending=False)
        drag(page, "e7", "e5")
        page.wait_for_function("() => window.boardctl.state.moves.length === 2", timeout=WAIT_MS)
    with run_daemon(tmp_path, *args, new=False) as d:
        s = d.state()
        assert len(s["moves"]) == 2
        assert re.fullmatch(
            r"Resuming your unfinished game of \d{4}-\d\d-\d\d, move 2, you play Black\. New game: .+", s["notice"] or ""
        ), s["notice"]
        for size in SIZES:
            with open_page(browser, d, size) as page:
                notice = page.locator("#notice")
                assert notice.is_visible()
                assert page.locator("#notice-text").inner_text() == s["notice"]
                assert box(page, "#notice")["width"] <= SIZES[size][0]
                shot(page, "resume-notice", size)
                page.locator("#notice-new").click()
                assert page.locator("#new-game").evaluate("el => el.open")
                page.locator("#notice-close").click()
                assert notice.is_hidden()
        # The notice goes with the first move after resuming.
        with open_page(browser, d, "desktop") as page:
            s = wait_for_moves(page, 2, pending=True)
            carry_out(page, s["fen"], s["pending"])
            wait_for_moves(page, 3, pending=False)
            page.wait_for_function("() => window.boardctl.state.notice === null", timeout=WAIT_MS)
            assert page.locator("#notice").is_hidden()


def test_book_moves_show_a_book_label(browser: Any, tmp_path: Path) -> None:
    engine = shlex.join(resolve_command(""))
    with run_daemon(tmp_path, "--engine", engine, "--color", "white", "--movetime", "0.2", "--settle", "0.15", timeout=180) as d:
        for i, size in enumerate(SIZES):
            with open_page(browser, d, size) as page:
                if i == 0:
                    drag(page, "e2", "e4")
                s = wait_for_moves(page, 1, pending=True)
                # Our engine answers 1. e4 from its book (every named line has a reply to it).
                assert s["book"] is True and s["eval"] is None and s["pv"] is None, s
                assert page.locator("#eval").inner_text() == "book"
                assert page.locator("#eval-bar-label").inner_text() == "book"
                assert page.locator("#eval-bar").get_attribute("aria-valuenow") == "50"
                shot(page, "book-label", size)
