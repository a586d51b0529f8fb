"""docs/learning.md's [speech] table names every option, with its default, and no other."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from boardctl.learning.speech import SpeechOptions
from boardctl.variants.chess.lessons import LESSON_KEYS

DOC = Path(__file__).resolve().parents[2] / "docs" / "learning.md"


def test_speech_table_matches_the_options() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+)` \| [^|]+ \| ([^|]+) \|", text, re.M)
    fields = {f.name: f.default for f in dataclasses.fields(SpeechOptions)}
    assert [k for k, _ in rows] == list(fields)
    for key, default in rows:
        value = fields[key]
        shown = default.strip().strip("`")
        if isinstance(value, bool):
            assert shown == str(value).lower(), key
        elif isinstance(value, (int, str)):
            assert shown.strip('"') == str(value), key


def test_every_lesson_is_listed() -> None:
    text = DOC.read_text(encoding="utf-8")
    for key in LESSON_KEYS:
        assert f"`{key}`" in text
