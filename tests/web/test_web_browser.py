"""The page in real headless Chromium against the real daemon (``boardctl play --board sim``).

The daemon runs as a subprocess with the real engine subprocess; the test plays by dragging
pieces on the page's virtual board, which sends lift/place events through the daemon's tracker
exactly like the reed switches. Screenshots go to test-artifacts/web/.
"""

from __future__ import annotations

import io
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from page_helpers import WAIT_MS, carry_out, drag, lit, resign, state, wait_for_moves
from web_helpers import RunningDaemon, engine_command, run_daemon

from boardctl.openings import classify
from boardctl.web.pin import read_pin

pytestmark = pytest.mark.slow

#: The whole-game test resigns after this many moves by each side (a mate comes much sooner).
MAX_FULL_MOVES = 80


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-play")
    with run_daemon(tmp, "--color", "white", "--level", "beginner", "--movetime", "0.1", "--settle", "0.2") as d:
        yield d
    assert d.proc.returncode == 0, d.log()


@pytest.fixture
def page(browser: Any, daemon: RunningDaemon) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 850}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # The Pi may be offline: the page must load nothing from anywhere but the board.
    foreign: list[str] = []
    ws_url = daemon.url.replace("http://", "ws://")
    page.on("request", lambda r: None if r.url.startswith((daemon.url, "data:")) else foreign.append(r.url))
    page.on("websocket", lambda ws: None if ws.url.startswith(ws_url) else foreign.append(ws.url))
    page.goto(daemon.url)
    page.wait_for_selector('#connection[data-connected="true"]', timeout=WAIT_MS)
    yield page
    context.close()
    assert errors == [], errors
    assert foreign == [], foreign


def test_play_by_dragging_see_the_reply_lit_and_download_the_pgn(page: Any, daemon: RunningDaemon, artifacts: Path) -> None:
    page.locator("#new-game summary").click()
    page.select_option('#new-game-form select[name="color"]', "white")
    page.fill('#new-game-form input[name="level"]', "beginner")
    page.locator('#new-game-form button[type="submit"]').click()
    wait_for_moves(page, 0, pending=False)
    assert page.locator("#board [data-square]").count() == 64
    assert page.locator('#board [data-square="e2"]').get_attribute("data-piece") == "P"
    page.screenshot(path=str(artifacts / "01-loaded.png"))

    drag(page, "e2", "e4")
    s = wait_for_moves(page, 1, pending=True)
    assert s["moves"] == ["e2e4"]
    reply = chess.Move.from_uci(s["pending"])
    # The engine's reply is lit on the page: every square of it, for the engine-move reason.
    page.wait_for_function("() => document.querySelectorAll('#board [data-led~=\"engine-move\"]').length >= 2")
    assert {chess.square_name(reply.from_square), chess.square_name(reply.to_square)} <= lit(page, "engine-move")
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    assert page.locator("#status").inner_text().startswith(f"Engine plays {after_e4.san(reply)}:")
    page.screenshot(path=str(artifacts / "02-engine-reply-lit.png"))
    # The engine's evaluation from White's side, as the state line carries it.
    assert s["eval"] is not None and set(s["eval"]) <= {"cp", "mate"}
    assert re.fullmatch(r"[+-]?\d+\.\d\d|mate in \d+( \(against\))?", page.locator("#eval").inner_text())

    carry_out(page, s["fen"], s["pending"])
    s = wait_for_moves(page, 2, pending=False)
    assert s["moves"] == ["e2e4", reply.uci()]
    assert lit(page, "engine-move") == set()
    # The page shows the move list in SAN, and the opening's name when the moves have one.
    board = chess.Board()
    board.push_uci("e2e4")
    assert page.locator("#moves li").first.locator("span").all_inner_texts() == ["e4", board.san(reply)]
    board.push(reply)
    named = classify(board)
    if named is not None:
        assert page.locator("#opening").inner_text() == f"{named.eco} {named.name}"

    # The hint button: the engine's suggestion is lit and named.
    page.locator('[data-button="hint"]').click()
    page.wait_for_function("() => Boolean(window.boardctl.state.hint)", timeout=WAIT_MS)
    s = state(page)
    hint = chess.Move.from_uci(s["hint"])
    page.wait_for_function("() => document.querySelectorAll('#board [data-led~=\"hint\"]').length >= 2")
    assert {chess.square_name(hint.from_square), chess.square_name(hint.to_square)} <= lit(page, "hint")
    assert page.locator("#hint").inner_text() == board.san(hint)
    page.screenshot(path=str(artifacts / "03-hint.png"))

    drag(page, "g1", "f3")
    s = wait_for_moves(page, 3, pending=True)
    carry_out(page, s["fen"], s["pending"])
    s = wait_for_moves(page, 4, pending=False)
    page.screenshot(path=str(artifacts / "03-after-two-moves.png"))

    with page.expect_download() as info:
        page.locator("#download-pgn").click()
    download = info.value
    assert download.suggested_filename == f"{s['game']}.pgn"
    target = artifacts / "game.pgn"
    download.save_as(str(target))
    game = chess.pgn.read_game(io.StringIO(target.read_text()))
    assert game is not None
    assert [m.uci() for m in game.mainline_moves()] == s["moves"]
    assert game.headers["Result"] == "*"

    # Take back: the engine's reply and the human's move go together; the page shows what to
    # restore, and the virtual board's hands put the pieces back.
    page.locator('[data-button="takeback"]').click()
    s = wait_for_moves(page, 2, pending=False)
    assert lit(page, "takeback")
    page.locator("#setup-board").click()
    page.wait_for_function("() => window.boardctl.state.matching === true", timeout=WAIT_MS)
    assert lit(page, "takeback") == set()


def test_bad_fen_gets_a_clear_error_and_a_new_game_as_black_starts_with_the_engine(
    page: Any, daemon: RunningDaemon, artifacts: Path
) -> None:
    page.locator("#new-game summary").click()
    page.fill('#new-game-form input[name="fen"]', "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1")
    page.locator('#new-game-form button[type="submit"]').click()
    page.wait_for_selector("#error:not([hidden])", timeout=WAIT_MS)
    assert page.locator("#error").inner_text().startswith("new-game.fen: not a valid FEN")
    page.screenshot(path=str(artifacts / "04-bad-fen.png"))

    # A PGN file sets up the position its game reached; a broken one is refused by name.
    page.fill('#new-game-form input[name="fen"]', "")
    pgn_file = {"name": "bad.pgn", "mimeType": "application/x-chess-pgn", "buffer": b"1. e4 e5 2. Ke3 *\n"}
    page.set_input_files('#new-game-form input[name="pgn-file"]', files=[pgn_file])
    page.locator('#new-game-form button[type="submit"]').click()
    page.wait_for_function("() => document.querySelector('#error').textContent.startsWith('new-game.pgn:')")
    pgn_file = {"name": "italian.pgn", "mimeType": "application/x-chess-pgn", "buffer": b"1. e4 e5 2. Nf3 Nc6 3. Bc4 *\n"}
    page.set_input_files('#new-game-form input[name="pgn-file"]', files=[pgn_file])
    page.locator('#new-game-form button[type="submit"]').click()
    italian = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bc4"):
        italian.push_san(san)
    page.wait_for_function("(f) => window.boardctl.state.start_fen === f", arg=italian.fen(), timeout=WAIT_MS)
    assert page.locator("#error").is_hidden()

    page.locator("#new-game summary").click()
    page.set_input_files('#new-game-form input[name="pgn-file"]', files=[])
    page.select_option('#new-game-form select[name="color"]', "black")
    page.fill('#new-game-form input[name="time-control"]', "5+3")
    page.locator('#new-game-form button[type="submit"]').click()
    # After a game the pieces stand where it left them: put them back as the lit squares ask.
    page.wait_for_function("() => window.boardctl.state.moves.length === 0", timeout=WAIT_MS)
    if page.locator("#setup-board").is_visible():
        page.screenshot(path=str(artifacts / "05-new-game-set-up.png"))
        page.locator("#setup-board").click()
    s = wait_for_moves(page, 0, pending=True)
    assert page.locator("#error").is_hidden()
    assert s.get("human") == "black"
    # Playing Black from the normal side, the page shows rank 8 at the bottom.
    first = page.locator("#board [data-square]").first.get_attribute("data-square")
    assert first == "h1"
    reply = chess.Move.from_uci(s["pending"])
    assert chess.square_name(reply.to_square) in lit(page, "engine-move")
    carry_out(page, s["fen"], s["pending"])
    s = wait_for_moves(page, 1, pending=False)
    # The clocks: 5 minutes + 3 s, Black's (the human's, at the bottom) running after White's move.
    assert s["clock"] is not None and s["clock"]["running"] == "black"
    assert page.locator("#clock-bottom .name").inner_text() == "black (you)"
    assert page.locator("#clock-bottom").get_attribute("class") == "clock running"
    white = s["clock"]["white"]  # stopped: 5 min, less the engine's thinking, plus 3 s
    assert 240 < white <= 303, white
    assert page.locator("#clock-top .time").inner_text() == f"{int(white) // 60}:{int(white) % 60:02d}"
    page.screenshot(path=str(artifacts / "06-playing-black.png"))


def test_lan_client_without_the_pin_changes_nothing(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    """``--host 0.0.0.0``: the PIN is made on first start, stored, logged, and needed for any change.

    This one binds all interfaces for a few seconds (a random port, PIN-protected), because what it
    checks is the daemon's own LAN path; the page is reached through 127.0.0.1.
    """
    with run_daemon(tmp_path, "--host", "0.0.0.0", mode="record") as daemon:
        pin = read_pin(tmp_path / "config" / "boardctl" / "config.toml")
        assert pin is not None and f"needs PIN {pin}" in daemon.log()
        context = browser.new_context(viewport={"width": 1100, "height": 850})
        page = context.new_page()
        page.goto(daemon.url)
        page.wait_for_selector('#connection[data-connected="true"]', timeout=WAIT_MS)
        assert page.locator("#pin-form").is_visible()

        drag(page, "e2", "e4")
        page.wait_for_selector("#error:not([hidden])", timeout=WAIT_MS)
        assert "PIN" in page.locator("#error").inner_text()
        # A missing PIN counts as a wrong one: the drag (two events), the wrong PIN and the POST
        # below make four, one short of the lockout.
        page.fill("#pin", "000000" if pin != "000000" else "111111")
        page.locator("#pin-form button").click()
        resign(page)
        page.wait_for_function("() => document.querySelector('#error').textContent === 'wrong PIN'", timeout=WAIT_MS)
        request = urllib.request.Request(
            daemon.url + "api/action", data=b'{"new-game": {}}', headers={"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=5)
        assert info.value.code == 403
        page.screenshot(path=str(artifacts / "07-lan-without-pin.png"))
        # Nothing changed: no move, no result, and the sensed board is still the start position.
        s = daemon.state()
        assert (s["moves"], s["result"]) == ([], "*")

        page.fill("#pin", pin)
        page.locator("#pin-form button").click()
        page.locator("#error").evaluate("el => { el.hidden = true; }")
        drag(page, "e2", "e4")
        wait_for_moves(page, 1, pending=False)
        assert daemon.state()["moves"] == ["e2e4"]
        # With the PIN, resigning works too, and the finished game is listed among the past games.
        resign(page)
        page.wait_for_function("() => window.boardctl.state.result !== '*'", timeout=WAIT_MS)
        result = daemon.state()["result"]
        assert result == "1-0" or result == "0-1"
        assert page.locator("#result").inner_text().startswith(result)
        page.locator("#past-games summary").click()
        row = page.locator("#games tr").filter(has_text=result)
        row.first.wait_for(timeout=WAIT_MS)
        href = row.first.locator("a").get_attribute("href")
        assert href is not None and href.startswith("/api/games/") and href.endswith(".pgn")
        with urllib.request.urlopen(daemon.url + href.lstrip("/"), timeout=5) as resp:
            assert "1. e4" in resp.read().decode()
        page.screenshot(path=str(artifacts / "08-lan-with-pin.png"))
        context.close()


def test_promotion_choice_from_the_page(page: Any, daemon: RunningDaemon, artifacts: Path) -> None:
    fen = "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1"  # a capture and a promotion in one move
    page.locator("#new-game summary").click()
    page.select_option('#new-game-form select[name="color"]', "white")
    page.fill('#new-game-form input[name="time-control"]', "")
    page.fill('#new-game-form input[name="fen"]', fen)
    page.locator('#new-game-form button[type="submit"]').click()
    page.wait_for_function("(f) => window.boardctl.state.start_fen === f", arg=fen, timeout=WAIT_MS)
    if page.locator("#setup-board").is_visible():
        page.locator("#setup-board").click()
    page.wait_for_function("() => window.boardctl.state.matching === true", timeout=WAIT_MS)

    drag(page, "a7", "b8")
    # The promotion window is open: the page highlights the choice and the square's LED.
    page.wait_for_selector("#promotion.active", timeout=WAIT_MS)
    assert "promotion" in (page.locator('#board [data-square="b8"]').get_attribute("data-led") or "")
    page.screenshot(path=str(artifacts / "09-promotion-choice.png"))
    page.locator('[data-button="promote-rook"]').click()
    page.wait_for_function("() => window.boardctl.state.moves[0] === 'a7b8r'", timeout=WAIT_MS)
    assert page.locator("#moves li span").first.inner_text() == "axb8=R+"


def test_a_whole_game_against_the_engine_on_the_page(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    """What ``make demo`` offers: a game to its end, every move made by dragging on the page.

    The human's moves come from Stockfish at a few milliseconds a move, against the daemon's engine
    at the beginner level, so the game ends in a mate within a minute or so; castling, captures,
    en passant and promotions are carried out with the hands as on wood.
    """
    import chess.engine

    with (
        run_daemon(tmp_path, "--color", "white", "--level", "beginner", "--movetime", "0.05", "--settle", "0.15") as d,
        chess.engine.SimpleEngine.popen_uci(engine_command()) as human,
    ):
        context = browser.new_context(viewport={"width": 1100, "height": 850})
        page = context.new_page()
        page.goto(d.url)
        page.wait_for_selector('#connection[data-connected="true"]', timeout=WAIT_MS)
        decided = "() => window.boardctl.state.result !== '*'"
        for _ in range(MAX_FULL_MOVES):
            s = state(page)
            board = chess.Board(s["start_fen"])
            for uci in s["moves"]:
                board.push_uci(uci)
            move = human.play(board, chess.engine.Limit(time=0.01)).move
            assert move is not None
            carry_out(page, board.fen(), move.uci())
            page.wait_for_function(
                f"(n) => ({decided})() || (window.boardctl.state.moves.length === n && window.boardctl.state.pending)",
                arg=len(board.move_stack) + 1,
                timeout=WAIT_MS,
            )
            s = state(page)
            if s["result"] != "*":
                break
            carry_out(page, s["fen"], s["pending"])
            page.wait_for_function(
                f"(n) => ({decided})() || (window.boardctl.state.moves.length === n && !window.boardctl.state.pending)",
                arg=len(board.move_stack) + 2,
                timeout=WAIT_MS,
            )
            if state(page)["result"] != "*":
                break
        else:
            resign(page)  # a long game: end it from the page
            page.wait_for_function(decided, timeout=WAIT_MS)
        s = state(page)
        page.screenshot(path=str(artifacts / "10-whole-game.png"))
        context.close()
        assert s["result"] in ("1-0", "0-1", "1/2-1/2")
        final = chess.Board(s["start_fen"])
        for uci in s["moves"]:
            final.push_uci(uci)
        if s["termination"] == "checkmate":
            assert final.is_checkmate()
        with urllib.request.urlopen(d.url + "api/pgn", timeout=5) as resp:
            pgn = chess.pgn.read_game(io.StringIO(resp.read().decode()))
        assert pgn is not None and pgn.headers["Result"] == s["result"]
        assert [m.uci() for m in pgn.mainline_moves()] == s["moves"]


def test_board_turned_round_shows_and_moves_on_the_physical_squares(browser: Any, tmp_path: Path) -> None:
    """``--orientation flipped``: the wiring's a1 is the game's h8; the page is the wood, as wired."""
    with run_daemon(tmp_path, "--orientation", "flipped", "--settle", "0.15", mode="record") as d:
        context = browser.new_context(viewport={"width": 1100, "height": 850})
        page = context.new_page()
        page.goto(d.url)
        page.wait_for_selector('#connection[data-connected="true"]', timeout=WAIT_MS)
        assert state(page)["orientation"] == "flipped"
        piece = {sq: page.locator(f'#board [data-square="{sq}"]').get_attribute("data-piece") for sq in ("h8", "e7", "a1", "d1")}
        assert piece == {"h8": "R", "e7": "P", "a1": "r", "d1": "k"}  # game a1, d2, h8, e8
        drag(page, "d7", "d5")  # the game's e2-e4, seen from the other side
        s = wait_for_moves(page, 1, pending=False)
        assert s["moves"] == ["e2e4"]
        assert page.locator('#board [data-square="d5"]').get_attribute("data-piece") == "P"
        context.close()
