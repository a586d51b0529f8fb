"""Past games on the page: the table fits a phone, and a game opens in a viewer with a move slider.

The games are PGN files put in the daemon's games folder, as the daemon writes them, so each
case knows its moves. Screenshots: test-artifacts/web/page-<point>-<desktop|phone>.png.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from page_helpers import SIZES, assert_no_sideways_scroll, box, shot
from web_helpers import RunningDaemon, run_daemon

pytestmark = pytest.mark.slow

#: name -> (PGN text, plies, whether the viewer starts turned round: the human played Black)
GAMES = {
    "20250102-101500-000001.pgn": (
        '[Event "boardctl"]\n[Date "2025.01.02"]\n[White "Human"]\n[Black "boardctl engine (beginner)"]\n'
        '[Result "1-0"]\n[Opening "C54 Italian Game: Classical Variation, Greco Gambit, Traditional Line"]\n\n'
        "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 exd4 6. cxd4 Bb4+ 7. Bd2 Bxd2+ 8. Nbxd2 d5 "
        "9. exd5 Nxd5 10. Qb3 Na5 11. Qa4+ c6 12. Bxd5 Qxd5 13. O-O O-O 1-0\n",
        26,
        False,
    ),
    "20250103-111500-000002.pgn": (
        '[Event "boardctl"]\n[Date "2025.01.03"]\n[White "boardctl engine (master)"]\n[Black "Human"]\n'
        '[Result "*"]\n[SetUp "1"]\n[FEN "r3k2r/pp3ppp/8/8/8/8/PP3PPP/R3K2R b KQkq - 3 17"]\n\n'
        "17... O-O-O 18. O-O Rd2 19. Rfd1 Rxd1+ 20. Rxd1 Rd8 21. Rxd8+ Kxd8 *\n",
        9,
        True,
    ),
    "20250104-121500-000003.pgn": (
        '[Event "boardctl"]\n[Date "2025.01.04"]\n[White "A player with a very long name that would not fit a phone"]\n'
        '[Black "Another player with an even longer name, for the table"]\n[Result "1/2-1/2"]\n'
        '[Opening "B90 Sicilian Defense: Najdorf Variation, English Attack, Anti-English"]\n\n1. e4 c5 1/2-1/2\n',
        2,
        False,
    ),
}


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-page-games")
    with run_daemon(tmp, "--settle", "0.15", mode="record") as d:
        for name, (text, _, _) in GAMES.items():
            (d.games_dir / name).write_text(text)
        yield d
    assert d.proc.returncode == 0, d.log()


def positions(text: str) -> list[dict[str, str]]:
    """The placement after each ply, square -> piece letter, as the viewer should show it."""
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    board = game.board()
    out = [{chess.square_name(sq): p.symbol() for sq, p in board.piece_map().items()}]
    for move in game.mainline_moves():
        board.push(move)
        out.append({chess.square_name(sq): p.symbol() for sq, p in board.piece_map().items()})
    return out


def viewer_pieces(page: Any) -> dict[str, str]:
    cells = page.eval_on_selector_all("#viewer-board [data-square]", "els => els.map(e => [e.dataset.square, e.dataset.piece || ''])")
    return {sq: p for sq, p in cells if p}


def test_past_games_table_fits_the_screen(page: Any, size: str) -> None:
    page.locator("#past-games summary").click()
    rows = page.locator("#games tr[data-name]")
    rows.first.wait_for()
    assert set(GAMES) <= set(rows.evaluate_all("rs => rs.map(r => r.dataset.name)"))  # and the game being played
    page.locator("#past-games").scroll_into_view_if_needed()
    assert_no_sideways_scroll(page)
    table = page.evaluate("() => { const t = document.querySelector('#past-games table');"
                          " return [t.scrollWidth, t.clientWidth, t.getBoundingClientRect().right]; }")
    assert table[0] <= table[1], f"the table is wider than its box: {table}"
    assert table[2] <= SIZES[size][0]
    side = box(page, "#side")
    assert box(page, "#past-games table")["width"] <= side["width"] + 1
    long_row = page.locator('#games tr[data-name="20250104-121500-000003.pgn"]')
    assert "A player with a very long name" in long_row.inner_text()
    shot(page, "past-games", size)


@pytest.mark.parametrize(
    ("size", "name"),
    [("desktop", name) for name in GAMES] + [("phone", next(iter(GAMES)))],
)
def test_a_past_game_steps_through_with_the_slider_and_the_keys(page: Any, size: str, name: str) -> None:
    text, plies, turned = GAMES[name]
    expected = positions(text)
    assert len(expected) == plies + 1
    page.locator("#past-games summary").click()
    page.locator(f'#games tr[data-name="{name}"] .view-game').click()
    page.wait_for_selector("#viewer[open]")
    slider = page.locator("#viewer-slider")
    assert slider.get_attribute("max") == str(plies)
    assert slider.input_value() == str(plies)  # opens at the end of the game
    assert viewer_pieces(page) == expected[plies]
    first = page.locator("#viewer-board [data-square]").first.get_attribute("data-square")
    assert first == ("h1" if turned else "a8")
    # The move list beside it: one numbered row per move, the current move marked.
    assert page.locator("#viewer-moves .move[data-ply]").count() == plies
    assert page.locator("#viewer-moves .move.current").get_attribute("data-ply") == str(plies)
    viewer = box(page, "#viewer")
    assert viewer["x"] >= 0 and viewer["x"] + viewer["width"] <= SIZES[size][0]
    shot(page, f"viewer-{name[:8]}", size)

    page.keyboard.press("ArrowLeft")
    assert slider.input_value() == str(plies - 1)
    assert viewer_pieces(page) == expected[plies - 1]
    page.keyboard.press("Home")
    assert viewer_pieces(page) == expected[0]
    assert page.locator("#viewer-board .last-move").count() == 0
    page.keyboard.press("ArrowRight")
    assert viewer_pieces(page) == expected[1]
    assert page.locator("#viewer-board .last-move").count() == 2
    for ply in sorted({0, plies // 2, plies}):
        slider.fill(str(ply))
        assert viewer_pieces(page) == expected[ply], f"ply {ply}"
        assert page.locator("#viewer-ply").inner_text().startswith("Start" if ply == 0 else "")
    page.locator(f'#viewer-moves .move[data-ply="{max(1, plies - 1)}"]').click()
    assert viewer_pieces(page) == expected[max(1, plies - 1)]
    page.keyboard.press("End")
    assert viewer_pieces(page) == expected[plies]
    page.locator("#viewer-close").click()
    page.wait_for_selector("#viewer", state="hidden")


def test_the_viewer_api_gives_every_position(daemon: RunningDaemon, tmp_path: Path) -> None:
    import json
    import urllib.error
    import urllib.request

    for name, (text, plies, _) in GAMES.items():
        with urllib.request.urlopen(daemon.url + "api/games/" + name.replace(".pgn", ".json"), timeout=5) as resp:
            data = json.load(resp)
        assert len(data["fens"]) == plies + 1 and len(data["san"]) == len(data["moves"]) == plies
        game = chess.pgn.read_game(io.StringIO(text))
        assert game is not None
        assert data["fens"][-1] == game.end().board().fen()
        assert data["headers"]["White"] == game.headers["White"]
    for bad in ("nosuch.json", "..%2Fx.json", "20250102-101500-000001.txt"):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(daemon.url + "api/games/" + bad, timeout=5)
        assert info.value.code == 404
