"""docs/events.md's LED language section says what the one table in boardctl/hw/leds.py says."""

from __future__ import annotations

import re
from pathlib import Path

from boardctl.hw.leds import SIGNALS

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"


def test_led_language_section_matches_the_table() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## LED language"):]
    rows = re.findall(r"^\| (\d+) \| `([a-z-]+)` \| `([#.]{16})` \| `#([0-9a-f]{6})` \|", section, re.M)
    assert [(code, pattern, colour) for _, code, pattern, colour in rows] == [
        (str(code), s.pattern, "".join(f"{c:02x}" for c in s.colour)) for code, s in SIGNALS.items()
    ]
    assert [int(i) for i, *_ in rows] == list(range(1, len(SIGNALS) + 1))
