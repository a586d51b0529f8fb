"""Every LED code a square can show has a colour on the page and a line in its legend."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from boardctl.events import Code
from boardctl.hw.leds import SIGNALS

STATIC = Path(__file__).resolve().parents[2] / "boardctl" / "web" / "static"
#: Codes that sound or mark a moment but never light a square on the page.
NOT_ON_SQUARES = {Code.CLOCK, Code.NEW_GAME, Code.SELFTEST}
#: Codes that share another's colour, and so its legend line.
SHARED = {Code.SETUP: Code.MISMATCH}


@pytest.mark.parametrize("code", [c for c in SIGNALS if c not in NOT_ON_SQUARES], ids=str)
def test_each_square_code_has_a_colour_and_a_legend_line(code: Code) -> None:
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    assert re.search(rf'\[data-led~="{re.escape(code.value)}"\][^{{]*\{{[^}}]*--led:', css), code
    legend = script[script.index("const LEGEND"):script.index("];", script.index("const LEGEND"))]
    assert f'["{SHARED.get(code, code).value}",' in legend, code
