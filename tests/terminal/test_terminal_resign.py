"""``!resign`` asks first (issue 35, finding 12): as the page's Resign, a second ``!resign``
within 5 s confirms; anything else typed, or waiting, withdraws it."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from test_terminal_session import Pty, assert_quiet
from test_terminal_xiangqi import FakeDaemon, state

from boardctl.events import Button
from boardctl.terminal import RESIGN_CONFIRM, TerminalView

#: (what is typed, each line with the seconds since the start, the buttons pressed)
TYPED = [
    ([(0, "!resign")], []),
    ([(0, "!resign"), (1, "!resign")], [Button.RESIGN]),
    ([(0, "resign"), (4.9, "resign")], [Button.RESIGN]),
    ([(0, "!resign"), (RESIGN_CONFIRM + 0.5, "!resign")], []),  # too late: it asks again
    ([(0, "!resign"), (RESIGN_CONFIRM + 0.5, "!resign"), (RESIGN_CONFIRM + 1, "!resign")], [Button.RESIGN]),
    ([(0, "!resign"), (1, "."), (2, "!resign")], []),  # anything else withdraws it
    ([(0, "!resign"), (1, "!hint"), (2, "!resign")], [Button.HINT]),
    ([(0, "!resign"), (1, "!resign"), (2, "!resign")], [Button.RESIGN]),  # the third asks afresh
    ([(0, "!draw"), (1, "!takeback")], [Button.DRAW, Button.TAKEBACK]),  # other buttons at once
]


@pytest.mark.parametrize(("lines", "pressed"), TYPED, ids=[" ".join(t for _, t in c[0]) + f" {i}"
                                                            for i, c in enumerate(TYPED)])
def test_resign_is_confirmed_by_a_second_resign(lines: list[tuple[float, str]], pressed: list[Button]) -> None:
    daemon = FakeDaemon(state())
    now = [0.0]
    out = io.StringIO()
    view = TerminalView(daemon, out=out, style="unicode", clock=lambda: now[0])

    async def typing() -> None:
        for at, text in lines:
            now[0] = at
            assert await view.apply(text)

    asyncio.run(typing())
    assert [what for kind, what in daemon.board.done if kind == "press"] == pressed
    if lines[0][1].endswith("resign"):
        assert "Resign the game? Type !resign again within 5 s to confirm" in out.getvalue()


@pytest.mark.slow
def test_resign_in_the_terminal_asks_then_ends_the_game(tmp_path: Path) -> None:
    games = tmp_path / "games"
    term = Pty(tmp_path, "record", "--board", "sim", "--no-web", "--games-dir", str(games))
    try:
        term.expect(r"> ")
        term.type("e2e4")
        term.expect(r"1\. e4")
        term.type("!resign")
        term.expect(r"Resign the game\? Type !resign again")
        term.type("!resign")
        term.expect(r"black resigned")
        term.type("quit")
        assert term.wait() == 0
        assert_quiet(term.out)
    finally:
        term.close()
    (saved,) = games.glob("*.json")
    assert json.loads(saved.read_text(encoding="utf-8"))["result"] == "1-0"
