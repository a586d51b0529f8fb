"""The page's board and side column in Chromium at desktop and phone sizes (issue 14, point 4).

One ``boardctl record --board sim`` daemon serves every test here (two players, no engine, so the
moves are made at once by dragging); each test starts its own game from the page. Screenshots:
test-artifacts/web/page-<point>-<desktop|phone>.png.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

import chess
import pytest
from page_helpers import (
    SIZES,
    WAIT_MS,
    assert_inside,
    assert_no_sideways_scroll,
    box,
    drag,
    lit,
    new_game,
    resign,
    shot,
    state,
    wait_for_moves,
)
from web_helpers import RunningDaemon, run_daemon

pytestmark = pytest.mark.slow

#: Moves with captures and a check, long enough that a two-column list would break.
ITALIAN = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d4", "exd4", "cxd4", "Bb4+"]

#: Far from the start position (and not a finished game, which the start position would replace).
SPARSE = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-page-record")
    with run_daemon(tmp, "--settle", "0.15", mode="record") as d:
        yield d
    assert d.proc.returncode == 0, d.log()


def play_san(page: Any, moves: list[str], board: chess.Board | None = None) -> chess.Board:
    """Make ``moves`` (SAN) by dragging, both sides, waiting for each to be recorded."""
    board = board if board is not None else chess.Board(state(page)["fen"])
    done = len(state(page)["moves"])
    for san in moves:
        move = board.parse_san(san)
        name = chess.square_name
        drag(page, name(move.from_square), name(move.to_square))  # a capture lifts the victim first
        if board.is_castling(move):
            kingside = board.is_kingside_castling(move)
            rank = chess.square_rank(move.from_square)
            drag(page, name(chess.square(7 if kingside else 0, rank)), name(chess.square(5 if kingside else 3, rank)))
        board.push(move)
        done += 1
        wait_for_moves(page, done, pending=False)
    return board


# -- the status never widens its column nor moves the controls ------------------------------------


def check_layout(page: Any, size: str, before: dict[str, dict[str, float]], after: dict[str, dict[str, float]]) -> None:
    """The columns keep their place and width, the board its size, the status box its size; the
    controls stay where they were (a "Set up pieces" button may join them: their height may grow)."""
    assert after["#board"] == pytest.approx(before["#board"], abs=1.0)
    for sel, keys in (("#side", ("x", "y", "width")), ("#controls", ("x", "y", "width")),
                      ("#status", ("x", "y", "width", "height")), ("#moves", ("x", "width"))):
        for key in keys:
            assert after[sel][key] == pytest.approx(before[sel][key], abs=1.0), f"{sel} moved: {before[sel]} -> {after[sel]}"
    assert_inside(after["#status"], after["#side"], "the status")
    assert_inside(after["#controls"], after["#side"], "the controls")
    board, side = after["#board"], after["#side"]
    width, height = SIZES[size]
    if size == "desktop":
        # Two columns: the board on the left, everything else beside it, both in the window.
        assert side["x"] >= board["x"] + board["width"], (board, side)
        assert side["x"] + side["width"] <= width
        assert after["#controls"]["y"] < height / 2, "the controls are pushed down"
    else:
        # One column: the controls below the board, the board as wide as the screen at most.
        assert side["y"] >= board["y"] + board["height"]
        assert board["x"] >= 0 and board["x"] + board["width"] <= width


SELECTORS = ("#side", "#controls", "#status", "#board", "#moves")


def test_a_long_status_stays_inside_its_column_and_moves_no_control(page: Any, size: str) -> None:
    new_game(page)
    before = {sel: box(page, sel) for sel in SELECTORS}
    # A real long status: a new game from a position far from the pieces on the board lights
    # 29 squares to set up, and the page says what to put back and what to take off.
    s = new_game(page, fen=SPARSE, set_up=False)
    to_set_up = chess.popcount(chess.Board().occupied ^ chess.Board(SPARSE).occupied)
    assert s["matching"] is False and len(lit(page, "setup")) == to_set_up == 29, s
    status = page.locator("#status").inner_text()
    assert status.startswith("White to move.") and "The board differs from the game:" in status, status
    assert "take the pieces off" in status and "more" in status, status
    page.wait_for_timeout(1200)  # past the tracker's mismatch delay: whatever it adds is shown
    check_layout(page, size, before, {sel: box(page, sel) for sel in SELECTORS})
    for button in page.locator("#controls button:visible").all():
        assert_inside(button.bounding_box(), box(page, "#side"), "a control")
    assert_no_sideways_scroll(page)
    shot(page, "long-status", size)
    # The worst case: a mismatch list of every square, one unbreakable word. Rendered and measured
    # in one go, before another state line from the daemon can replace it.
    every = ",".join(chess.SQUARE_NAMES)
    measured = page.evaluate(
        """([warning, selectors]) => {
            const app = window.boardctl, real = app.state;
            app.render({...real, board_hint: null, warning});
            const out = {text: document.querySelector('#status').innerText, boxes: {},
                         scroll: document.documentElement.scrollWidth, width: window.innerWidth};
            for (const sel of selectors) {
                const r = document.querySelector(sel).getBoundingClientRect();
                out.boxes[sel] = {x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height};
            }
            app.render(real);
            return out;
        }""",
        [f"white: mismatch: empty {every}", list(SELECTORS)],
    )
    assert every in measured["text"]
    check_layout(page, size, before, measured["boxes"])
    assert measured["scroll"] <= measured["width"]


# -- the move list: one column of numbered rows ---------------------------------------------------


def test_the_move_list_is_one_column_of_numbered_rows_and_moves_sound(page: Any, size: str) -> None:
    new_game(page)
    assert page.evaluate("() => window.boardctl.muted") is False
    play_san(page, ITALIAN)
    rows = page.locator("#moves li")
    assert rows.count() == len(ITALIAN) // 2
    texts = [" ".join(r.inner_text().split()) for r in rows.all()]
    expected = [f"{i + 1}. {ITALIAN[2 * i]} {ITALIAN[2 * i + 1]}" for i in range(len(ITALIAN) // 2)]
    assert texts == expected
    boxes = [r.bounding_box() for r in rows.all()]
    assert len({round(b["x"]) for b in boxes}) == 1, "the rows are not in one column"
    assert all(b2["y"] >= b1["y"] + b1["height"] - 1 for b1, b2 in itertools.pairwise(boxes)), "rows out of order"
    assert page.evaluate("() => getComputedStyle(document.querySelector('#moves')).columnCount") == "auto"
    assert page.locator("#moves .move.last").inner_text() == ITALIAN[-1]
    # Every move was heard: a capture sounds as one, a check as one (WebAudio tones, no files).
    sounds = page.evaluate("() => window.boardctl.sounds")
    assert len(sounds) == len(ITALIAN)
    assert sounds[9] == "capture" and sounds[11] == "check" and sounds[0] == "move", sounds
    shot(page, "move-list", size)


def test_the_mute_switch_silences_moves_and_is_remembered(page: Any, size: str) -> None:
    new_game(page)
    page.locator("#sound").click()
    assert page.locator("#sound").get_attribute("aria-pressed") == "false"
    assert page.evaluate("() => localStorage.getItem('boardctl-muted')") == "1"
    page.reload()
    page.wait_for_selector('#connection[data-connected="true"]', timeout=WAIT_MS)
    assert page.locator("#sound").get_attribute("aria-pressed") == "false"
    assert page.locator("#sound").inner_text().strip().endswith("Sound off")
    play_san(page, ["e4", "e5"])
    assert page.evaluate("() => window.boardctl.sounds") == []
    page.locator("#sound").click()  # on again: the switch itself plays a tone, then the moves do
    play_san(page, ["Nf3"], chess.Board(state(page)["fen"]))
    assert page.evaluate("() => window.boardctl.sounds") == ["move", "move"]
    assert page.evaluate("() => localStorage.getItem('boardctl-muted')") == "0"
    shot(page, "sound-switch", size)


# -- highlights -----------------------------------------------------------------------------------


def highlighted(page: Any, cls: str) -> set[str]:
    return set(page.eval_on_selector_all(f"#board .square.{cls}", "els => els.map(e => e.dataset.square)"))


@pytest.mark.parametrize(
    ("size", "fen", "moves", "last", "check"),
    [
        ("desktop", "4k3/8/8/8/8/8/8/4K2R w K - 0 1", ["Rh8+"], {"h1", "h8"}, "e8"),
        ("phone", "4k3/8/8/8/8/8/8/4K2R w K - 0 1", ["Kd1"], {"e1", "d1"}, None),
        ("phone", chess.STARTING_FEN, ["f3", "e5", "g4", "Qh4#"], {"d8", "h4"}, "e1"),
        ("desktop", "r3k3/8/8/8/8/8/8/4K3 b q - 0 1", ["O-O-O"], {"e8", "c8"}, None),
    ],
    ids=["rook-check", "quiet", "mate", "castling-black"],
)
def test_last_move_and_check_are_highlighted(
    page: Any, size: str, fen: str, moves: list[str], last: set[str], check: str | None
) -> None:
    new_game(page, fen=fen)
    assert highlighted(page, "last-move") == set() and highlighted(page, "in-check") == set()
    play_san(page, moves, chess.Board(fen))
    page.wait_for_function("() => document.querySelectorAll('#board .last-move').length === 2", timeout=WAIT_MS)
    assert highlighted(page, "last-move") == last
    assert highlighted(page, "in-check") == ({check} if check else set())
    assert state(page)["check"] == check
    if check:
        image = page.eval_on_selector(f'#board [data-square="{check}"]', "el => getComputedStyle(el).backgroundImage")
        assert "radial-gradient" in image
        shot(page, "check-highlight", size)


# -- castling's king half: say what is left ---------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "fen", "king", "rook"),
    [
        ("desktop", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ("e1", "g1"), ("h1", "f1")),
        ("phone", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ("e1", "c1"), ("a1", "d1")),
        ("desktop", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", ("e8", "g8"), ("h8", "f8")),
        ("phone", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", ("e8", "c8"), ("a8", "d8")),
    ],
    ids=["white-short", "white-long", "black-short", "black-long"],
)
def test_after_the_king_half_of_castling_the_status_names_the_rook_move(
    page: Any, size: str, fen: str, king: tuple[str, str], rook: tuple[str, str]
) -> None:
    new_game(page, fen=fen)
    drag(page, *king)
    page.wait_for_function("() => window.boardctl.state.matching === false", timeout=WAIT_MS)
    page.wait_for_timeout(400)  # past the settle time: the tracker has judged the board
    status = page.locator("#status").inner_text()
    assert f"Complete castling: move the rook {rook[0]}\u2192{rook[1]}." in status, status
    assert "lit squares" not in status
    assert lit(page, "setup") | lit(page, "mismatch") == set(), state(page)
    assert page.locator("#setup-board").is_hidden()
    shot(page, "castling-half", size)
    drag(page, *rook)
    s = wait_for_moves(page, 1, pending=False)
    assert s["san"] == ["O-O" if king[1][0] == "g" else "O-O-O"]
    assert "Complete castling" not in page.locator("#status").inner_text()


# -- promotion buttons only when they matter --------------------------------------------------------


def test_promotion_buttons_show_only_when_a_pawn_can_promote(page: Any, size: str) -> None:
    buttons = page.locator("#promotion [data-button]")
    new_game(page)
    assert state(page)["can_promote"] is False
    assert buttons.first.is_hidden(), "the promotion buttons are shown with no pawn about to promote"
    assert page.locator("#promotion summary").is_visible()
    # Folded, but one click away for a pre-selection.
    page.locator("#promotion summary").click()
    assert buttons.first.is_visible()
    page.locator('[data-button="promote-knight"]').click()
    assert page.locator('[data-button="promote-knight"]').get_attribute("class") == "chosen"
    page.locator("#promotion summary").click()
    assert buttons.first.is_hidden()

    new_game(page, fen="4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert state(page)["can_promote"] is True
    assert buttons.first.is_visible() and buttons.count() == 4
    assert page.locator("#promotion button.chosen").count() == 0  # a new game forgets the pre-selection
    shot(page, "promotion-shown", size)
    drag(page, "a7", "a8")
    page.wait_for_selector("#promotion.active", timeout=WAIT_MS)
    page.locator('[data-button="promote-rook"]').click()
    s = wait_for_moves(page, 1, pending=False)
    assert s["moves"] == ["a7a8r"]
    # Black has no pawn that can promote: folded again.
    page.wait_for_function("() => !document.querySelector('#promotion').open", timeout=WAIT_MS)
    assert buttons.first.is_hidden()


# -- resign asks first ---------------------------------------------------------------------------------


def test_resign_needs_a_second_click(page: Any, size: str) -> None:
    new_game(page)
    page.locator('[data-button="resign"]').click()
    assert page.locator('[data-button="resign"]').inner_text() == "Really resign?"
    assert page.locator("#resign-cancel").is_visible()
    shot(page, "resign-confirm", size)
    page.wait_for_timeout(300)
    assert state(page)["result"] == "*"
    page.locator("#resign-cancel").click()
    assert page.locator('[data-button="resign"]').inner_text() == "Resign"
    page.locator('[data-button="resign"]').click()
    page.wait_for_timeout(300)
    assert state(page)["result"] == "*"
    if size == "desktop":  # unconfirmed, the button goes back to normal by itself (after 5 s)
        page.wait_for_function("() => document.querySelector('[data-button=resign]').textContent === 'Resign'", timeout=8000)
    else:
        page.locator("#resign-cancel").click()
    resign(page)
    page.wait_for_function("() => window.boardctl.state.result !== '*'", timeout=WAIT_MS)
    assert state(page)["result"] == "0-1"  # White, to move, resigned
    assert page.evaluate("() => window.boardctl.sounds").count("end") == 1


# -- the LED legend ------------------------------------------------------------------------------------


def test_the_led_legend_uses_the_board_colours(page: Any, size: str) -> None:
    new_game(page, fen=SPARSE, set_up=False)
    assert lit(page, "setup")
    page.locator("#legend summary").click()
    items = page.locator("#legend-list li")
    codes = [items.nth(i).get_attribute("data-code") for i in range(items.count())]
    for code in ("engine-move", "hint", "illegal-move", "mismatch", "takeback", "promotion", "touch-move", "check"):
        assert code in codes
    for i in range(items.count()):
        assert items.nth(i).is_visible() and items.nth(i).inner_text().strip()
    ring = page.eval_on_selector('#board [data-led~="setup"]', "el => getComputedStyle(el, '::after').borderTopColor")
    swatch = page.eval_on_selector('#legend-list [data-code="mismatch"] .swatch', "el => getComputedStyle(el).borderTopColor")
    assert ring == swatch
    colours = page.eval_on_selector_all("#legend-list .swatch", "els => els.map(e => getComputedStyle(e).borderTopColor)")
    assert len(set(colours)) >= len(colours) - 1, colours  # each meaning its own colour
    assert_no_sideways_scroll(page)
    page.locator("#legend").scroll_into_view_if_needed()
    shot(page, "led-legend", size)


def test_the_evaluation_shows_a_book_label(page: Any, size: str) -> None:
    """The page's side of the book label (the daemon's is tested with the engine in
    test_web_page_engine.py): ``book`` in a state line shows as the word, and the bar is level."""
    new_game(page)
    s = state(page)
    page.evaluate("(s) => window.boardctl.render({...s, mode: 'play', human: 'white', book: true, eval: null})", s)
    assert page.locator("#eval").inner_text() == "book"
    assert page.locator("#eval-bar").get_attribute("aria-valuenow") == "50"
    page.evaluate("(s) => window.boardctl.render({...s, mode: 'play', human: 'white', book: false, eval: {cp: 300}})", s)
    assert re.fullmatch(r"\+3\.00", page.locator("#eval").inner_text())
    assert int(page.locator("#eval-bar").get_attribute("aria-valuenow") or 0) == 75
    page.evaluate("(s) => window.boardctl.render(s)", s)
