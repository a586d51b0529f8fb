"""What the page tests do with their hands and eyes: drag pieces, read the page's state, check
the layout, take screenshots at the two sizes the issue names (desktop 1280×900, phone 390×844)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import chess
import pytest
from web_helpers import ARTIFACTS, RunningDaemon

WAIT_MS = 30_000
#: Longer than the page tests' ``--settle`` (0.15 s, 0.2 s): a placed piece counts by then.
SETTLED_MS = 400
#: The two viewports every page test looks at.
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


def center(page: Any, square: str) -> tuple[float, float]:
    box = page.locator(f'#board [data-square="{square}"]').bounding_box()
    assert box is not None, square
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page: Any, src: str, dst: str | None) -> None:
    """Drag with the mouse; ``dst=None`` drops the piece off the board (takes it away).

    The board is scrolled into view first, as a person would: a click on a panel lower down
    (lessons, tournament, opponents) may have scrolled it away."""
    page.locator("#board").scroll_into_view_if_needed()
    x, y = center(page, src)
    page.mouse.move(x, y)
    page.mouse.down()
    if dst is None:
        box = page.locator("#board").bounding_box()
        tx, ty = box["x"] + box["width"] + 120, box["y"] + 20
    else:
        tx, ty = center(page, dst)
    page.mouse.move(tx, ty, steps=4)
    page.mouse.up()


def carry_out(page: Any, fen: str, uci: str) -> None:
    """Make ``uci`` with the hands on the virtual board, as a person would (rook, e.p. pawn too)."""
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    name = chess.square_name
    drag(page, name(move.from_square), name(move.to_square))
    if board.is_castling(move):
        rank = chess.square_rank(move.to_square)
        kingside = chess.square_file(move.to_square) == 6
        rook_from, rook_to = chess.square(7 if kingside else 0, rank), chess.square(5 if kingside else 3, rank)
        drag(page, name(rook_from), name(rook_to))
    elif board.is_en_passant(move):
        drag(page, name(chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))), None)


def state(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("() => window.boardctl.state")
    return result


def wait_for_moves(page: Any, count: int, *, pending: bool) -> dict[str, Any]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            "([n, p]) => { const s = window.boardctl.state;"
            " return s && s.moves.length === n && Boolean(s.pending) === p; }",
            arg=[count, pending],
            timeout=WAIT_MS,
        )
    except PlaywrightTimeout:
        pytest.fail(f"waited for {count} moves (pending: {pending}); the page's state is {state(page)}")
    return state(page)


def resign(page: Any) -> None:
    """Resign from the page: the button asks, a second click confirms."""
    page.locator('[data-button="resign"]').click()
    page.locator('[data-button="resign"].armed').click()


def lit(page: Any, why: str) -> set[str]:
    return set(page.eval_on_selector_all(f'#board [data-led~="{why}"]', "els => els.map(e => e.dataset.square)"))


@contextmanager
def open_page(browser: Any, daemon: RunningDaemon, size: str) -> Iterator[Any]:
    """A fresh page on ``daemon`` at one of :data:`SIZES`; fails on any script error or request
    to anywhere but the board."""
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    foreign: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda r: None if r.url.startswith((daemon.url, "data:")) else foreign.append(r.url))
    page.goto(daemon.url)
    page.wait_for_selector('#connection[data-connected="true"]', timeout=WAIT_MS)
    page.wait_for_function("() => window.boardctl.state !== null", timeout=WAIT_MS)
    try:
        yield page
    finally:
        context.close()
    assert errors == [], errors
    assert foreign == [], foreign


def shot(page: Any, name: str, size: str) -> Path:
    """A screenshot in test-artifacts/web/, named after the test point and the size."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"page-{name}-{size}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def new_game(page: Any, *, fen: str | None = None, set_up: bool = True, **params: str) -> dict[str, Any]:
    """Start a new game through the page's own action, then (``set_up``) put the pieces where it
    wants them with the virtual board's hands."""
    action: dict[str, Any] = {"time-control": "", **{k.replace("_", "-"): v for k, v in params.items()}}
    if fen is not None:
        action["fen"] = fen
    page.evaluate("(p) => window.boardctl.send({'new-game': p})", action)
    start = chess.Board(fen).fen() if fen is not None else chess.STARTING_FEN
    page.wait_for_function(
        "(f) => window.boardctl.state.start_fen === f && window.boardctl.state.moves.length === 0", arg=start, timeout=WAIT_MS
    )
    if set_up:
        page.evaluate("() => window.boardctl.setupBoard()")
        page.wait_for_function("() => window.boardctl.state.matching === true", timeout=WAIT_MS)
        page.wait_for_timeout(SETTLED_MS)  # the tracker calls the set-up done once the pieces settle
    return state(page)


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not shown"
    return dict(found)


def assert_no_sideways_scroll(page: Any) -> None:
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways: {widths[0]} px wide in a {widths[1]} px window"


def assert_inside(inner: dict[str, float], outer: dict[str, float], what: str) -> None:
    slack = 1.0
    assert inner["x"] >= outer["x"] - slack and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack, (
        f"{what} sticks out sideways: {inner} not within {outer}"
    )


def fail_with_state(page: Any, what: str) -> None:
    pytest.fail(f"{what}; the page's state is {state(page)}")


def wait(page: Any, expression: str, arg: Any = None) -> None:
    """Wait for a JavaScript condition on the page; on a time-out, fail showing the page's state."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(expression, arg=arg, timeout=WAIT_MS)
    except PlaywrightTimeout:
        fail_with_state(page, f"waited for {expression}")
