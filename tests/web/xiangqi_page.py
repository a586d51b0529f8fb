"""A page harness for the xiangqi board: the real page in real Chromium, its files served from
boardctl/web/static, and the daemon's side of the WebSocket played by the test.

The test sends state lines exactly as the daemon publishes them (docs/events.md, with
``"variant": "xiangqi"``) and reads back every action the page sends. Nothing here knows how the
page draws; the tests look at the DOM and at the pixels.
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardctl.core.geometry import XIANGQI_9X10

STATIC = Path(__file__).resolve().parents[2] / "boardctl" / "web" / "static"
#: A made-up origin: every request to it is answered here, none reaches a network.
ORIGIN = "http://board.test"
WAIT_MS = 15_000
XQ_START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def placement(fen: str) -> dict[str, str]:
    """A xiangqi FEN's pieces by point name (written here again, independently of the page)."""
    rows = fen.split()[0].split("/")
    assert len(rows) == 10, fen
    out: dict[str, str] = {}
    for i, row in enumerate(rows):
        rank, file = 9 - i, 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            else:
                out[XIANGQI_9X10.square_name(XIANGQI_9X10.square(file, rank))] = ch
                file += 1
        assert file == 9, row
    return out


def occupancy(fen: str) -> str:
    return XIANGQI_9X10.to_hex(XIANGQI_9X10.mask(XIANGQI_9X10.parse(n) for n in placement(fen)))


def xq_state(fen: str = XQ_START, **kw: Any) -> dict[str, Any]:
    """A xiangqi state line as the daemon publishes it, for a board that matches the game."""
    line: dict[str, Any] = {
        "variant": "xiangqi", "fen": fen, "start_fen": fen, "occupancy": occupancy(fen), "pending": None,
        "moves": [], "san": [], "leds": [], "result": "*", "termination": None,
        "turn": "red" if fen.split()[1] == "w" else "black", "mode": "record", "human": None, "level": None,
        "orientation": "normal", "clock": None, "hint": None, "eval": None, "draw_offer": False,
        "matching": True, "thinking": False, "warning": None, "game": "xq-1",
    }
    line.update(kw)
    return line


@dataclass
class FakeDaemon:
    """The daemon's side of the page's socket: what the page sent, and a way to publish a state."""

    page: Any
    actions: list[dict[str, Any]] = field(default_factory=list)
    games: list[dict[str, Any]] = field(default_factory=list)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    sockets: list[Any] = field(default_factory=list)
    state: dict[str, Any] | None = None
    #: What /api/info names as the game (None: an older server that does not say).
    variant: str | None = None

    def publish(self, state: dict[str, Any]) -> None:
        """Send a state line to the page and wait until the page has drawn it."""
        self.state = state
        for ws in self.sockets:
            ws.send(json.dumps(state))
        self.page.wait_for_function(
            "(s) => window.boardctl.state && JSON.stringify(window.boardctl.state) === JSON.stringify(s)",
            arg=state, timeout=WAIT_MS,
        )

    def events(self) -> list[tuple[str, bool]]:
        """The lift/place events the page sent, in order."""
        return [(a["action"]["event"]["square"], a["action"]["event"]["occupied"])
                for a in self.actions if "event" in a["action"]]

    def wait_for_events(self, count: int) -> list[tuple[str, bool]]:
        for _ in range(WAIT_MS // 50):
            if len(self.events()) >= count:
                break
            self.page.wait_for_timeout(50)
        return self.events()

    # -- the routes -------------------------------------------------------------------------------

    def _http(self, route: Any) -> None:
        path = route.request.url.removeprefix(ORIGIN).split("?")[0]
        if path == "/":
            path = "/static/index.html"
        if path.startswith("/static/") and (STATIC / path.removeprefix("/static/")).is_file():
            file = STATIC / path.removeprefix("/static/")
            route.fulfill(status=200, body=file.read_bytes(),
                          content_type=mimetypes.guess_type(file.name)[0] or "application/octet-stream")
        elif path == "/api/info":
            route.fulfill(status=200, json={"pin_required": False, **({"variant": self.variant} if self.variant else {})})
        elif path == "/api/games":
            route.fulfill(status=200, json={"games": self.games})
        elif path.startswith("/api/games/") and path.removeprefix("/api/games/") in self.records:
            route.fulfill(status=200, json=self.records[path.removeprefix("/api/games/")])
        else:
            route.fulfill(status=404, json={"error": f"no {path}"})

    def _socket(self, ws: Any) -> None:
        self.sockets.append(ws)

        def on_message(message: str | bytes) -> None:
            msg = json.loads(message)
            self.actions.append(msg)
            ws.send(json.dumps({"reply": msg["id"], "ok": True}))

        ws.on_message(on_message)
        if self.state is not None:
            ws.send(json.dumps(self.state))


@contextmanager
def xiangqi_page(browser: Any, state: dict[str, Any] | None = None, *, size: tuple[int, int] = (1280, 900),
                 context: Any = None) -> Iterator[tuple[Any, FakeDaemon]]:
    """The page showing ``state`` (default: the xiangqi start); fails on any script error."""
    own = context is None
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}) if own else context
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    daemon = FakeDaemon(page, state=xq_state() if state is None else state)
    page.route(f"{ORIGIN}/**", daemon._http)
    page.route_web_socket(f"{ORIGIN.replace('http', 'ws')}/ws", daemon._socket)
    page.goto(ORIGIN + "/")
    page.wait_for_selector('#connection[data-connected="true"]', timeout=WAIT_MS)
    page.wait_for_function("() => window.boardctl.state !== null", timeout=WAIT_MS)
    try:
        yield page, daemon
    finally:
        page.close()
        if own:
            ctx.close()
    assert errors == [], errors


def center(page: Any, square: str, board: str = "#board") -> tuple[float, float]:
    box = page.locator(f'{board} [data-square="{square}"]').bounding_box()
    assert box is not None, square
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page: Any, src: str, dst: str | None) -> None:
    """Drag with the mouse; ``dst=None`` drops the piece off the board."""
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
