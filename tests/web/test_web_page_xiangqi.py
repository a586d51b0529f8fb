"""The xiangqi board on the page, in real Chromium: 90 points on the lines' crossings, the river
and the palaces, round pieces with their Chinese characters (or letters), LEDs, last move and
check on points, the board turned round, the virtual board played by dragging, skins and levels.

The page is the real one (boardctl/web/static); the daemon's side of its socket is played by the
test (xiangqi_page.py), which sends the state lines the daemon publishes with ``"variant":
"xiangqi"`` and records the lift/place actions the page sends. Screenshots go to
test-artifacts/web/.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from xiangqi_page import (
    ORIGIN,
    STATIC,
    WAIT_MS,
    XQ_START,
    FakeDaemon,
    center,
    drag,
    occupancy,
    placement,
    xiangqi_page,
    xq_state,
)

from boardctl.core.geometry import XIANGQI_9X10
from boardctl.events import Code
from boardctl.hw.leds import SIGNALS

pytestmark = pytest.mark.slow

#: The start position's pieces as the traditional skin draws them (Red: 帥仕相傌俥炮兵).
START_CHARACTERS = {
    "a0": "俥", "b0": "傌", "c0": "相", "d0": "仕", "e0": "帥", "f0": "仕", "g0": "相", "h0": "傌", "i0": "俥",
    "b2": "炮", "h2": "炮", "a3": "兵", "c3": "兵", "e3": "兵", "g3": "兵", "i3": "兵",
    "a9": "車", "b9": "馬", "c9": "象", "d9": "士", "e9": "將", "f9": "士", "g9": "象", "h9": "馬", "i9": "車",
    "b7": "砲", "h7": "砲", "a6": "卒", "c6": "卒", "e6": "卒", "g6": "卒", "i6": "卒",
}
WESTERN = {"r": "R", "n": "H", "b": "E", "a": "A", "k": "K", "c": "C", "p": "P"}
NOT_ON_SQUARES = {Code.CLOCK, Code.NEW_GAME, Code.SELFTEST}
#: Red's chariot took the centre soldier and checks the general up the open e-file.
CHECK_FEN = "r1bakabnr/9/1cn4c1/p1p1R1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR b - - 0 5"


def pieces_on_page(page: Any, board: str = "#board") -> dict[str, tuple[str, str, str]]:
    """Point -> (FEN letter, text drawn, side class) for every point with a piece."""
    rows = page.eval_on_selector_all(
        f"{board} [data-square]",
        """els => els.filter(e => e.dataset.piece).map(e => {
             const p = e.querySelector('.piece');
             return [e.dataset.square, e.dataset.piece, p.textContent,
                     p.classList.contains('red') ? 'red' : p.classList.contains('black') ? 'black' : '?'];
           })""",
    )
    return {sq: (letter, text, side) for sq, letter, text, side in rows}


def point_centres(page: Any) -> dict[str, tuple[float, float]]:
    rows = page.eval_on_selector_all(
        "#board [data-square]",
        "els => els.map(e => { const b = e.getBoundingClientRect(); return [e.dataset.square, b.x + b.width / 2, b.y + b.height / 2]; })",
    )
    return {sq: (x, y) for sq, x, y in rows}


# -- the board ------------------------------------------------------------------------------------


def test_ninety_points_with_the_pieces_characters(browser: Any, artifacts: Path) -> None:
    with xiangqi_page(browser) as (page, _):
        names = page.eval_on_selector_all("#board [data-square]", "els => els.map(e => e.dataset.square)")
        assert len(names) == 90
        assert page.locator("[data-square]").count() == 90  # the whole page: no other board's squares
        assert sorted(names) == sorted(XIANGQI_9X10.names)
        assert page.locator("#board .square").count() == 0  # points, not squares
        shown = pieces_on_page(page)
        want = placement(XQ_START)
        assert {sq: letter for sq, (letter, _, _) in shown.items()} == want
        assert {sq: text for sq, (_, text, _) in shown.items()} == START_CHARACTERS
        assert all(side == ("red" if want[sq].isupper() else "black") for sq, (_, _, side) in shown.items())
        # Round pieces: as wide as tall, and drawn as circles.
        radius, w, h = page.eval_on_selector(
            '#board [data-square="e0"] .piece',
            "e => { const s = getComputedStyle(e); const b = e.getBoundingClientRect(); return [s.borderRadius, b.width, b.height]; }",
        )
        assert radius == "50%" and abs(w - h) < 1 and w > 20
        assert page.locator("#status").inner_text().startswith("Red to move")
        page.screenshot(path=str(artifacts / "page-xiangqi-start-desktop.png"))


def test_river_and_palaces_are_drawn(browser: Any) -> None:
    with xiangqi_page(browser) as (page, _):
        river = page.locator("#board [data-part=river]")
        assert river.count() == 1
        assert re.sub(r"\s", "", river.text_content() or "") == "楚河漢界"
        palaces = page.locator("#board [data-part=palace]")
        assert palaces.count() == 2
        # Each palace's two diagonals join its corner points across the general's 3x3 square.
        centres = point_centres(page)
        boxes = sorted((palaces.nth(i) for i in range(2)), key=lambda g: -g.bounding_box()["y"])  # Red's first
        for palace, (low, high) in zip(boxes, [("d0", "f2"), ("d7", "f9")], strict=True):
            lines = palace.locator("line")
            assert lines.count() == 2
            box = palace.bounding_box()
            xs = sorted([centres[low][0], centres[high][0]])
            ys = sorted([centres[low][1], centres[high][1]])
            assert abs(box["x"] - xs[0]) < 2 and abs(box["x"] + box["width"] - xs[1]) < 2
            assert abs(box["y"] - ys[0]) < 2 and abs(box["y"] + box["height"] - ys[1]) < 2
        # The river is the gap between ranks 4 and 5: the inner files' lines stop there.
        river_box = river.bounding_box()
        assert centres["e5"][1] < river_box["y"] + river_box["height"] / 2 < centres["e4"][1]


def test_points_sit_on_an_even_grid_red_at_the_bottom(browser: Any) -> None:
    with xiangqi_page(browser) as (page, _):
        centres = point_centres(page)
        step_x = centres["b0"][0] - centres["a0"][0]
        step_y = centres["a0"][1] - centres["a1"][1]
        assert step_x > 20 and abs(step_x - step_y) < 1
        for name in XIANGQI_9X10.names:
            square = XIANGQI_9X10.parse(name)
            fx, ry = XIANGQI_9X10.file_of(square), XIANGQI_9X10.rank_of(square)
            x, y = centres[name]
            assert abs(x - (centres["a0"][0] + fx * step_x)) < 1.5, name
            assert abs(y - (centres["a0"][1] - ry * step_y)) < 1.5, name


@pytest.mark.parametrize(
    ("extra", "bottom_left", "top_right", "king_at"),
    [
        ({}, "a0", "i9", "e0"),
        ({"mode": "play", "human": "black", "level": "intermediate"}, "i9", "a0", "e0"),
        # The board itself turned round: logical e0 is wired as physical e9 (89 - 4 = 85).
        ({"orientation": "flipped"}, "a0", "i9", "e9"),
    ],
    ids=["red-below", "human-black", "board-turned-round"],
)
def test_orientation(browser: Any, extra: dict[str, Any], bottom_left: str, top_right: str, king_at: str) -> None:
    with xiangqi_page(browser, xq_state(**extra)) as (page, _):
        centres = point_centres(page)
        assert min(centres, key=lambda n: (-centres[n][1], centres[n][0])) == bottom_left
        assert min(centres, key=lambda n: (centres[n][1], -centres[n][0])) == top_right
        assert page.locator(f'#board [data-square="{king_at}"]').get_attribute("data-piece") == "K"
        assert page.locator(f'#board [data-square="{king_at}"] .piece').inner_text() == "帥"


def test_flip_button_turns_the_view(browser: Any) -> None:
    with xiangqi_page(browser) as (page, _):
        page.locator("#flip").click()
        centres = point_centres(page)
        assert centres["i9"][1] > centres["a0"][1] and centres["i9"][0] < centres["a0"][0]


def test_every_led_code_lights_a_point_in_its_colour(browser: Any) -> None:
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    codes = [c for c in SIGNALS if c not in NOT_ON_SQUARES]
    assert len(codes) >= 15
    with xiangqi_page(browser) as (page, daemon):
        for code in codes:
            colour = re.search(rf'\[data-led~="{re.escape(code.value)}"\][^{{]*\{{[^}}]*--led:\s*(#[0-9a-f]{{6}})', css)
            assert colour is not None, code
            rgb = tuple(int(colour[1][i:i + 2], 16) for i in (1, 3, 5))
            daemon.publish(xq_state(leds=[{"square": "e3", "why": code.value}, {"square": "h7", "why": code.value}]))
            lit = page.eval_on_selector_all(f'#board [data-led~="{code.value}"]', "els => els.map(e => e.dataset.square)")
            assert sorted(lit) == ["e3", "h7"], code
            ring = page.eval_on_selector('#board [data-square="h7"]',
                                         "e => { const s = getComputedStyle(e, '::after'); return [s.content, s.borderTopColor]; }")
            assert ring[0] != "none", code
            assert ring[1] == f"rgb({rgb[0]}, {rgb[1]}, {rgb[2]})", code
            # The legend names every code the page can show.
            assert page.locator(f'#legend-list [data-code="{"mismatch" if code == Code.SETUP else code.value}"]').count() == 1
        daemon.publish(xq_state())
        assert page.locator("#board [data-led]").count() == 0


def test_last_move_and_check_are_marked_on_points(browser: Any, artifacts: Path) -> None:
    # Only the last move is drawn; the chariot came up the e-file onto the soldier's point.
    line = xq_state(CHECK_FEN, start_fen=XQ_START, moves=["a0a1", "b9c7", "a1e1", "a9a8", "e1e6"], check="e9",
                    leds=[{"square": "e9", "why": "check"}])
    with xiangqi_page(browser, line) as (page, daemon):
        last = page.eval_on_selector_all("#board .last-move", "els => els.map(e => e.dataset.square)")
        assert sorted(last) == ["e1", "e6"]
        assert page.eval_on_selector_all("#board .in-check", "els => els.map(e => e.dataset.square)") == ["e9"]
        assert page.locator("#status").inner_text().startswith("Black to move")
        # Without the server's notation the move list shows the moves as played, numbered.
        assert page.locator("#moves li").first.locator("span").all_inner_texts() == ["a0a1", "b9c7"]
        assert page.locator("#moves li").count() == 3
        page.screenshot(path=str(artifacts / "page-xiangqi-check-desktop.png"))
        daemon.publish(dict(line, san=["R9+1", "H8+7", "R9.5", "R1+1", "R5+5"]))
        assert page.locator("#moves li").nth(2).locator("span").all_inner_texts() == ["R5+5"]
    flipped = dict(line, orientation="flipped")
    with xiangqi_page(browser, flipped) as (page, _):
        # Physical points: logical e1/e6 are wired at e8/e3, the general in check at e0.
        assert sorted(page.eval_on_selector_all("#board .last-move", "els => els.map(e => e.dataset.square)")) == ["e3", "e8"]
        assert page.eval_on_selector_all("#board .in-check", "els => els.map(e => e.dataset.square)") == ["e0"]


# -- the virtual board ----------------------------------------------------------------------------


def test_dragging_sends_lift_and_place_with_point_names(browser: Any) -> None:
    with xiangqi_page(browser) as (page, daemon):
        drag(page, "h2", "e2")
        assert daemon.wait_for_events(2) == [("h2", False), ("e2", True)]
        # The daemon's next state line (the sensors see the cannon on e2) shows it there at once,
        # before the move is counted, as the piece the page carried.
        moved = xq_state(occupancy=XIANGQI_9X10.to_hex(int(occupancy(XQ_START), 16) & ~(1 << XIANGQI_9X10.parse("h2"))
                                                       | 1 << XIANGQI_9X10.parse("e2")))
        daemon.publish(moved)
        assert page.locator('#board [data-square="e2"]').get_attribute("data-piece") == "C"
        assert page.locator('#board [data-square="e2"] .piece').inner_text() == "炮"
        assert "lifted" in (page.locator('#board [data-square="h2"]').get_attribute("class") or "")


def test_a_capture_by_dragging_takes_the_captured_piece_off_first(browser: Any) -> None:
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    with xiangqi_page(browser, xq_state(fen)) as (page, daemon):
        drag(page, "b2", "b9")  # the cannon jumps the black cannon on b7 and takes the horse
        assert daemon.wait_for_events(3) == [("b2", False), ("b9", False), ("b9", True)]


def test_dragging_on_a_board_turned_round_names_physical_points(browser: Any) -> None:
    with xiangqi_page(browser, xq_state(orientation="flipped")) as (page, daemon):
        # Logical h2 (the cannon) is wired at physical b7.
        assert page.locator('#board [data-square="b7"]').get_attribute("data-piece") == "C"
        drag(page, "b7", "e7")
        assert daemon.wait_for_events(2) == [("b7", False), ("e7", True)]


def test_set_up_pieces_lifts_and_places_points(browser: Any) -> None:
    line = xq_state(occupancy=XIANGQI_9X10.to_hex(int(occupancy(XQ_START), 16) & ~(1 << XIANGQI_9X10.parse("e3"))
                                                  | 1 << XIANGQI_9X10.parse("e4")),
                    matching=False, board_hint="Put the pieces back",
                    leds=[{"square": "e3", "why": "mismatch"}, {"square": "e4", "why": "mismatch"}])
    with xiangqi_page(browser, line) as (page, daemon):
        assert page.locator('#board [data-square="e4"]').get_attribute("class").split().count("extra") == 1
        page.locator("#setup-board").click()
        assert sorted(daemon.wait_for_events(2)) == [("e3", True), ("e4", False)]


# -- skins, levels, the rest of the page -----------------------------------------------------------


def test_skins_and_colours_are_chosen_and_remembered(browser: Any, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        with xiangqi_page(browser, context=context) as (page, _):
            assert page.locator("#xq-look").is_visible()
            red_ink = page.eval_on_selector('#board [data-square="e0"] .piece', "e => getComputedStyle(e).color")
            black_ink = page.eval_on_selector('#board [data-square="e9"] .piece', "e => getComputedStyle(e).color")
            assert red_ink != black_ink
            page.select_option("#xq-skin", "western")
            shown = pieces_on_page(page)
            assert {sq: text for sq, (_, text, _) in shown.items()} == {
                sq: WESTERN[letter.lower()] for sq, letter in placement(XQ_START).items()
            }
            page.select_option("#xq-colours", "red-blue")
            blue = page.eval_on_selector('#board [data-square="e9"] .piece', "e => getComputedStyle(e).color")
            assert blue != black_ink
            page.screenshot(path=str(artifacts / "page-xiangqi-western-red-blue-desktop.png"))
            page.select_option("#xq-colours", "solid")
            disc = page.eval_on_selector('#board [data-square="e0"] .piece', "e => getComputedStyle(e).color")
            assert disc == "rgb(255, 255, 255)"
        # A new page in the same browser remembers the choice.
        with xiangqi_page(browser, context=context) as (page, _):
            assert page.locator("#xq-skin").input_value() == "western"
            assert page.locator("#xq-colours").input_value() == "solid"
            assert page.locator('#board [data-square="e0"] .piece').inner_text() == "K"
            page.select_option("#xq-skin", "traditional")
            assert page.locator('#board [data-square="e0"] .piece').inner_text() == "帥"
    finally:
        context.close()


def test_levels_show_their_chinese_names_and_sides_are_red_and_black(browser: Any) -> None:
    clock = {"red": 300.0, "black": 245.0, "running": "black"}
    with xiangqi_page(browser, xq_state(mode="play", human="red", level="advanced", clock=clock)) as (page, daemon):
        assert "高级 advanced" in page.locator("#game-info").inner_text()
        assert "red (you)" in page.locator("#clock-bottom .name").inner_text()
        assert page.locator("#clock-bottom .time").inner_text() == "5:00"
        assert page.locator("#clock-top .name").inner_text() == "black"
        assert page.locator("#clock-top").get_attribute("class").split().count("running") == 1
        assert page.locator("#clock-top .time").inner_text() in ("4:05", "4:04")
        page.locator("#new-game summary").click()
        choices = page.locator("#level-choices button")
        assert choices.all_inner_texts() == ["初级 beginner", "中级 intermediate", "高级 advanced", "大师 master"]
        assert page.locator('#new-game-form select[name="color"] option').all_inner_texts() == ["Red", "Black", "Random"]
        choices.nth(3).click()
        assert page.locator('#new-game-form input[name="level"]').input_value() == "master"
        page.select_option('#new-game-form select[name="color"]', "red")
        page.locator('#new-game-form button[type="submit"]').click()
        for _ in range(100):
            if any("new-game" in a["action"] for a in daemon.actions):
                break
            page.wait_for_timeout(50)
        new = [a["action"]["new-game"] for a in daemon.actions if "new-game" in a["action"]]
        assert new and new[0]["level"] == "master" and new[0]["color"] == "red"


def test_the_chinese_characters_are_drawn_not_boxes(browser: Any) -> None:
    """With a CJK font installed (make system), distinct characters draw distinct pixels;
    without one, each is the same empty box."""
    with xiangqi_page(browser) as (page, _):
        family = page.eval_on_selector('#board [data-square="e0"] .piece', "e => getComputedStyle(e).fontFamily")
        prints = page.evaluate(
            """(family) => ['帥', '將', '俥', '楚'].map(ch => {
                 const c = document.createElement('canvas'); c.width = c.height = 48;
                 const g = c.getContext('2d'); g.font = '40px ' + family; g.fillText(ch, 4, 40);
                 return Array.from(g.getImageData(0, 0, 48, 48).data).join(',');
               })""",
            family,
        )
        assert len(set(prints)) == 4, "the Chinese characters all draw alike: install fonts-noto-cjk (make system)"


@pytest.mark.parametrize("size", [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_the_board_fits_the_window(browser: Any, artifacts: Path, size: tuple[int, int]) -> None:
    with xiangqi_page(browser, xq_state(mode="play", human="red", level="beginner"), size=size) as (page, _):
        board = page.locator("#board").bounding_box()
        widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1]
        assert board["x"] >= 0 and board["x"] + board["width"] <= size[0]
        assert abs(board["width"] / board["height"] - 0.9) < 0.02  # 9 files by 10 ranks
        name = "desktop" if size[0] > 800 else "phone"
        page.screenshot(path=str(artifacts / f"page-xiangqi-play-{name}.png"), full_page=True)


def test_a_chess_state_still_draws_a_chess_board(browser: Any) -> None:
    chess_line = {**xq_state(), "variant": "chess", "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                  "occupancy": "ffff00001000efff", "turn": "black"}
    chess_line["start_fen"] = chess_line["fen"]
    with xiangqi_page(browser) as (page, daemon):
        daemon.publish(chess_line)
        assert page.locator("#board [data-square]").count() == 64
        assert page.locator("#board .point").count() == 0
        assert page.locator('#board [data-square="e4"] .piece').inner_text() == "♟"
        assert not page.locator("#xq-look").is_visible()
        assert page.locator("#status").inner_text().startswith("Black to move")
        # Without "variant" (an older server) a chess FEN is chess, and a ten-rank FEN xiangqi.
        del chess_line["variant"]
        daemon.publish(chess_line)
        assert page.locator("#board [data-square]").count() == 64
        line = xq_state()
        del line["variant"]
        daemon.publish(line)
        assert page.locator("#board [data-square]").count() == 90


def test_a_past_xiangqi_game_opens_in_the_viewer(browser: Any) -> None:
    after = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    record = {"headers": {"Game": "Chinese Chess", "Red": "Human", "Black": "boardctl", "Date": "2026.12.01"},
              "variant": "xiangqi", "start_fen": XQ_START, "fens": [XQ_START, after], "moves": ["h2e2"],
              "san": ["H2-E2"], "result": "*"}
    with xiangqi_page(browser) as (page, daemon):
        daemon.records["g.json"] = record
        daemon.games = [{"name": "g.pgn", "date": "2026.12.01", "red": "Human", "black": "boardctl",
                         "result": "*", "opening": ""}]
        page.locator("#past-games summary").click()
        row = page.locator('#games tr[data-name="g.pgn"]')
        assert "Human – boardctl" in row.inner_text()
        row.locator("button.view-game").click()
        page.wait_for_selector("#viewer[open]")
        assert page.locator("#viewer-board [data-square]").count() == 90
        assert pieces_on_page(page, "#viewer-board")["e2"][1] == "炮"
        assert sorted(page.eval_on_selector_all("#viewer-board .last-move", "els => els.map(e => e.dataset.square)")) == ["e2", "h2"]
        assert page.locator("#viewer-title").inner_text().startswith("Human – boardctl")
        centre = center(page, "e0", "#viewer-board")
        assert centre[1] > center(page, "e9", "#viewer-board")[1]
        page.locator("#viewer-close").click()
        # the dialog's close event, which empties the viewer's board, is queued after the click
        page.wait_for_function("() => document.querySelectorAll('[data-square]').length === 90", timeout=WAIT_MS)


def test_moves_sound_as_move_capture_and_check(browser: Any) -> None:
    after_cannon = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    after_horse = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
    took = "rnbakab1r/9/1c4nc1/p1p1C1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR b - - 0 2"
    with xiangqi_page(browser) as (page, daemon):
        page.evaluate("() => { window.boardctl.sounds = []; }")
        daemon.publish(xq_state(after_cannon, start_fen=XQ_START, moves=["h2e2"]))
        daemon.publish(xq_state(after_horse, start_fen=XQ_START, moves=["h2e2", "h9g7"]))
        daemon.publish(xq_state(took, start_fen=XQ_START, moves=["h2e2", "h9g7", "e2e6"]))
        daemon.publish(xq_state(took.replace(" b ", " w "), start_fen=XQ_START, moves=["h2e2", "h9g7", "e2e6", "a9a8"],
                                check="e0"))
        assert page.evaluate("() => window.boardctl.sounds") == ["move", "move", "capture", "check"]


def test_the_board_is_xiangqis_before_the_first_state_when_the_server_says_so(browser: Any) -> None:
    for variant, points in [("xiangqi", 90), (None, 64)]:
        context = browser.new_context()
        page = context.new_page()
        daemon = FakeDaemon(page, state=None, variant=variant)  # no state line yet
        page.route(f"{ORIGIN}/**", daemon._http)
        page.route_web_socket(f"{ORIGIN.replace('http', 'ws')}/ws", daemon._socket)
        page.goto(ORIGIN + "/")
        page.wait_for_selector('#connection[data-connected="true"]')
        assert page.locator("#board [data-square]").count() == points
        assert page.locator("body").get_attribute("data-variant") == (variant or "chess")
        context.close()
