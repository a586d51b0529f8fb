"""The page's tournament controls in Chromium against ``boardctl play``: a new tournament, your next
game started on the board, resigned, its result in the standings, the crosstable and your rating.
Screenshot: test-artifacts/web/page-tournament-desktop.png."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from page_helpers import WAIT_MS, carry_out, open_page, resign, shot, wait_for_moves
from web_helpers import RunningDaemon, run_daemon

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-page-tournament")
    with run_daemon(tmp, "--movetime", "0.05", "--settle", "0.15") as d:
        yield d


def _post(daemon: RunningDaemon, path: str, body: bytes, content_type: str = "application/json") -> tuple[int, Any]:
    request = urllib.request.Request(daemon.url + path, data=body, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


@pytest.mark.parametrize(
    ("body", "content_type", "status", "fragment"),
    [
        (b"players=2", "application/x-www-form-urlencoded", 415, "send JSON"),
        (b"[1]", "application/json", 400, "expected a JSON object"),
        (b"{", "application/json", 400, "not JSON"),
        (b'{"players": 99}', "application/json", 400, "--players: 2 to 64"),
        (b'{"players": "8"}', "application/json", 400, "players: expected a whole number"),
        (b'{"format": "knockout"}', "application/json", 400, "knockout"),
        (b'{"time_control": "soon"}', "application/json", 400, "MINUTES+INCREMENT"),
    ],
)
def test_bad_requests_are_refused(daemon: RunningDaemon, body: bytes, content_type: str, status: int, fragment: str) -> None:
    got, data = _post(daemon, "api/tournament/new", body, content_type)
    assert got == status and fragment in data["error"]


def test_new_next_and_standings_from_the_page(browser: Any, daemon: RunningDaemon) -> None:
    with open_page(browser, daemon, "desktop") as page:
        page.wait_for_selector("#tournament")
        page.fill("#t-players", "2")
        page.click("#t-new")
        page.wait_for_function("() => document.querySelectorAll('#t-table tbody tr').length === 2", timeout=WAIT_MS)
        status = page.text_content("#t-status") or ""
        assert "round 1 of 1" in status and "Your rating: 1200" in status
        color = "white" if "Next: white against" in status else "black"
        assert f"Next: {color} against" in status
        page.click("#t-next")
        page.wait_for_function("(c) => window.boardctl.state.human === c && window.boardctl.state.moves.length === 0",
                               arg=color, timeout=WAIT_MS)
        level = page.evaluate("() => window.boardctl.state.level")
        with urllib.request.urlopen(daemon.url + "api/tournament", timeout=10) as resp:
            data = json.load(resp)
        t = data["tournament"]
        opponent = next(p for p in t["players"] if not p["is_user"])
        assert t["next"]["opponent"] == opponent["name"]
        from boardctl.learning.characters import find_character

        assert level == find_character(opponent["name"]).level  # the character's strength
        if color == "black":  # the character moves first: make its move on the board, then resign
            s = wait_for_moves(page, 0, pending=True)
            carry_out(page, s["fen"], s["pending"])
            wait_for_moves(page, 1, pending=False)
        resign(page)
        lost = "0-1" if color == "white" else "1-0"
        page.wait_for_function("(r) => window.boardctl.state.result === r", arg=lost, timeout=WAIT_MS)
        page.click("#t-standings")
        page.wait_for_function("() => (document.querySelector('#t-status').textContent || '').includes('finished')",
                               timeout=WAIT_MS)
        rows = page.eval_on_selector_all("#t-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
        assert rows[0][1] == opponent["name"] and rows[0][3] == "1" and rows[1][1] == "You" and rows[1][3] == "0"
        cross = page.eval_on_selector_all("#t-cross tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
        assert len(cross) == 3  # the head and one row a player
        status = page.text_content("#t-status") or ""
        assert "Your rating: 1200" not in status  # a loss moved it
        shot(page, "tournament", "desktop")
    with urllib.request.urlopen(daemon.url + "api/tournament", timeout=10) as resp:
        data = json.load(resp)
    assert data["tournament"]["finished"] and data["rating"]["games"] == 1 and data["rating"]["value"] < 1200


def _tournament(*, waiting: int, nxt: bool, finished: bool = False) -> dict[str, Any]:
    """A 4-player round robin's page data: your game of round 1 done, the characters' one ``waiting``."""
    names = ["You", "Ann Able", "Bob Brisk", "Cid Calm"]
    return {
        "id": "t1", "format": "round-robin", "rounds": 3, "round": 1, "time_control": "15+10", "finished": finished,
        "players": [{"number": i + 1, "name": n, "rating": 1200, "is_user": i == 0} for i, n in enumerate(names)],
        "standings": [{"rank": i + 1, "number": i + 1, "name": n, "rating": 1200, "points": 0, "buchholz": 0,
                       "sonneborn_berger": 0, "wins": 0, "games": 0} for i, n in enumerate(names)],
        "crosstable": [["" for _ in names] for _ in names],
        "pairings": [{"white": "You", "black": "Ann Able", "result": "1-0"},
                     {"white": "Bob Brisk", "black": "Cid Calm", "result": None if waiting else "1/2-1/2"}],
        "waiting": waiting,
        "next": {"round": 2, "opponent": "Bob Brisk", "rating": 1200, "color": "white"} if nxt else None,
    }


def test_next_game_waits_for_the_characters_round_then_opens(browser: Any, daemon: RunningDaemon) -> None:
    """While the characters still play the round, Next game says so and is disabled; the page
    looks again every 2 s and opens it once their games are done."""
    served: dict[str, Any] = {"tournament": _tournament(waiting=1, nxt=False), "playing": True}

    def answer(route: Any) -> None:
        if route.request.method != "GET":
            route.continue_()
            return
        body = {**served, "rating": {"value": 1216, "games": 1}}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    with open_page(browser, daemon, "desktop") as page:
        page.wait_for_selector("#tournament")
        page.route("**/api/tournament", answer)
        page.click("#t-standings")  # (a tournament of an earlier test may be shown, finished, till then)
        page.wait_for_function("() => document.querySelector('#t-next').dataset.state === 'waiting'", timeout=WAIT_MS)
        assert page.is_disabled("#t-next")
        status = page.text_content("#t-status") or ""
        assert "Round 1 is being played: 1 game(s) between characters still going" in status, status
        assert page.get_attribute("#t-next", "data-state") == "waiting"
        assert page.get_attribute("#t-next", "aria-busy") == "true"
        # The runner stopped (a restart): Next game is the way to start it again, so it is open.
        served["playing"] = False
        page.wait_for_function("() => !document.querySelector('#t-next').disabled", timeout=WAIT_MS)
        assert "Next game starts them" in (page.text_content("#t-status") or "")
        served.update(tournament=_tournament(waiting=1, nxt=False), playing=True)
        page.wait_for_function("() => document.querySelector('#t-next').disabled", timeout=WAIT_MS)
        # Their game is over: no click needed, the page finds out by itself and opens Next game.
        served["tournament"] = _tournament(waiting=0, nxt=True)
        page.wait_for_function("() => !document.querySelector('#t-next').disabled", timeout=6000)
        assert page.get_attribute("#t-next", "data-state") == "ready"
        assert "Next: white against Bob Brisk" in (page.text_content("#t-status") or "")
        served["tournament"] = _tournament(waiting=0, nxt=False, finished=True)
        page.click("#t-standings")  # not busy: the page looks every 10 s only
        page.wait_for_function("() => document.querySelector('#t-next').dataset.state === 'finished'", timeout=WAIT_MS)
        assert page.is_disabled("#t-next")
