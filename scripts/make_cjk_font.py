"""Write the page's CJK web font: Noto Serif CJK TC Bold (SIL Open Font License 1.1, Debian's
fonts-noto-cjk, which `make system` installs) cut with fontTools' subsetter down to the Chinese
characters that boardctl/web/static/ uses, as WOFF2, with the licence beside it.

A Raspberry Pi OS has no CJK font, so without this the xiangqi pieces, the river and the level
names would be tofu boxes. Run after adding a Chinese label to the page:

    .venv/bin/python scripts/make_cjk_font.py

tests/web/test_cjk_font.py fails, naming the characters, while the font lacks one the page uses.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "boardctl" / "web" / "static"
FONT = STATIC / "cjk-subset.woff2"
LICENCE = STATIC / "cjk-subset-OFL.txt"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc")
SOURCE_INDEX = 3  # the collection's Traditional Chinese face: 帥 俥 傌 漢 as the pieces are cut
COPYRIGHT = Path("/usr/share/doc/fonts-noto-cjk/copyright")
#: CJK ideographs, their punctuation and full-width forms
CJK = re.compile(r"[\u2e80-\u2fff\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def page_characters(static: Path = STATIC) -> set[str]:
    """Every CJK character in the page's own files (HTML, CSS, JavaScript)."""
    chars: set[str] = set()
    for path in sorted(static.iterdir()):
        if path.suffix in (".html", ".css", ".js"):
            chars |= set(CJK.findall(path.read_text(encoding="utf-8")))
    return chars


def main() -> int:
    from fontTools import subset

    if not SOURCE.exists():
        print(f"make_cjk_font: {SOURCE} missing: install fonts-noto-cjk (make system)", file=sys.stderr)
        return 1
    text = "".join(sorted(page_characters()))
    options = subset.Options()
    options.flavor = "woff2"
    options.font_number = SOURCE_INDEX
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    font = subset.load_font(str(SOURCE), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    subset.save_font(font, str(FONT), options)
    licence = COPYRIGHT.read_text(encoding="utf-8").split("License: SIL-1.1\n", 2)[-1].split("\nLicense: ")[0]
    LICENCE.write_text(
        "cjk-subset.woff2: a subset of Noto Serif CJK TC Bold, Copyright 2010-2012 Google Corporation,\n"
        "made by scripts/make_cjk_font.py, under the SIL Open Font License 1.1:\n\n"
        + "\n".join(line[1:] if line != " ." else "" for line in licence.splitlines()) + "\n",
        encoding="utf-8",
    )
    print(f"{FONT.name}: {len(text)} characters, {FONT.stat().st_size} bytes: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
