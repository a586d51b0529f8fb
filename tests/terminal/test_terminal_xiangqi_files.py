"""The xiangqi terminal view numbers the files as boards print them and shows Red in red
(issue 35, finding 12): Red's 一..九 from Red's right on Red's edge, Black's １..９ from
Black's right on Black's edge, whichever side is at the bottom; ASCII digits in the letters
style; Red's pieces in red on a terminal that shows colour (not for NO_COLOR, TERM=dumb, a pipe)."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from test_terminal import state as chess_state
from test_terminal_session import Pty
from test_terminal_xiangqi import columns, state

from boardctl.terminal import NO_INK, RED_INK, render, shows_colour

ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: (who is at the bottom, style, the top numbers row, the bottom one), as drawn left to right.
ROWS = [
    ("red", "unicode", "１２３４５６７８９", "九八七六五四三二一"),
    ("black", "unicode", "一二三四五六七八九", "９８７６５４３２１"),
    ("red", "letters", "123456789", "987654321"),
    ("black", "letters", "123456789", "987654321"),
]


@pytest.mark.parametrize(("bottom", "style", "top_row", "bottom_row"), ROWS)
def test_each_side_numbers_its_files_on_its_edge(bottom: str, style: str, top_row: str, bottom_row: str) -> None:
    line = state(mode="play", human=bottom) if bottom == "black" else state()
    lines = render(line, style=style).splitlines()
    first_rank = next(i for i, text in enumerate(lines) if re.match(r" \d  ", text))
    last_rank = max(i for i, text in enumerate(lines) if re.match(r" \d  ", text))
    above, below = lines[first_rank - 1], lines[last_rank + 1]
    assert "".join(above.split()) == top_row, above
    assert "".join(below.split()) == bottom_row, below
    # each number stands over its file's column (the letters row below them)
    letters = lines[last_rank + 2]
    assert list(columns(above)) == list(columns(below)) == list(columns(letters))


def test_red_is_red_on_a_colour_terminal() -> None:
    text = render(state(), colour=True)
    inked = re.findall(re.escape(RED_INK) + r"(.)" + re.escape(NO_INK), text)
    assert sorted(inked) == sorted("俥傌相仕帥仕相傌俥炮炮兵兵兵兵兵")  # Red's sixteen, Black's never
    assert ANSI.sub("", text) == render(state(), colour=False)  # ink takes no columns
    assert "\x1b" not in render(state()) and "\x1b" not in render(chess_state(), colour=True)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("out", "env", "shown"), [
    (_Tty(), {}, True),
    (_Tty(), {"NO_COLOR": "1"}, False),
    (_Tty(), {"TERM": "dumb"}, False),
    (io.StringIO(), {}, False),
])
def test_colour_only_where_it_shows(monkeypatch: pytest.MonkeyPatch, out: io.StringIO, env: dict[str, str],
                                    shown: bool) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert shows_colour(out) is shown


@pytest.mark.slow
def test_the_xiangqi_view_in_a_terminal(tmp_path: Path) -> None:
    env_before = os.environ.pop("NO_COLOR", None)
    try:
        term = Pty(tmp_path, "record", "--variant", "xiangqi", "--board", "sim", "--no-web",
                   "--games-dir", str(tmp_path / "games"))
    finally:
        if env_before is not None:
            os.environ["NO_COLOR"] = env_before
    try:
        term.expect(r"> ")
        assert f"{RED_INK}帥{NO_INK}" in term.out and f"{RED_INK}將" not in term.out
        plain = ANSI.sub("", term.out)
        assert "１  ２  ３  ４  ５  ６  ７  ８  ９" in plain and "九  八  七  六  五  四  三  二  一" in plain
        term.type("quit")
        assert term.wait() == 0
    finally:
        term.close()
