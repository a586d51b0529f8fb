"""The page's Chinese characters on a machine with no CJK font (Raspberry Pi OS ships none): the
subset web font boardctl/web/static/cjk-subset.woff2 (scripts/make_cjk_font.py) covers every
Chinese character of the page, and real Chromium, given a fontconfig that knows only DejaVu,
draws the pieces, the river and the level names with it instead of tofu boxes."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import ARTIFACTS, CHROMIUM_ARGS, ensure_chromium
from xiangqi_page import xiangqi_page

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
from make_cjk_font import FONT, LICENCE, page_characters  # noqa: E402

DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
#: Four pieces' and the river's characters: a font that has them draws four different shapes.
SAMPLE = ["帥", "將", "俥", "楚"]
PRINTS = """([family, chars]) => chars.map(ch => {
    const c = document.createElement('canvas'); c.width = c.height = 48;
    const g = c.getContext('2d'); g.font = '40px ' + family; g.fillText(ch, 4, 40);
    return Array.from(g.getImageData(0, 0, 48, 48).data).join(',');
  })"""


def test_the_font_covers_every_chinese_character_of_the_page() -> None:
    from fontTools.ttLib import TTFont

    cmap = TTFont(FONT).getBestCmap()
    missing = sorted(ch for ch in page_characters() if ord(ch) not in cmap)
    assert not missing, f"not in {FONT.name}: {''.join(missing)}; run .venv/bin/python scripts/make_cjk_font.py"
    assert FONT.stat().st_size < 40_000
    assert "SIL OPEN FONT LICENSE Version 1.1" in LICENCE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def browser_without_cjk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Chromium whose fontconfig knows DejaVu only, as on a Raspberry Pi OS without CJK fonts."""
    from playwright.sync_api import sync_playwright

    if not DEJAVU.is_dir():
        pytest.skip("fonts-dejavu-core missing (make system installs it with Chromium)")
    folder = tmp_path_factory.mktemp("fontconfig")
    conf = folder / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n'
        f"<fontconfig><dir>{DEJAVU}</dir><cachedir>{folder / 'cache'}</cachedir></fontconfig>\n"
    )
    executable = ensure_chromium()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True,
                                     env={"FONTCONFIG_FILE": str(conf), "HOME": str(folder)})
        try:
            yield browser
        finally:
            browser.close()


@pytest.mark.slow
def test_the_pieces_are_drawn_with_no_system_cjk_font(browser_without_cjk: Any) -> None:
    with xiangqi_page(browser_without_cjk) as (page, _):
        page.evaluate("() => document.fonts.ready")
        # The machine really has no CJK font: without the web font, the characters are all one box.
        tofu = page.evaluate(PRINTS, ["serif", SAMPLE])
        assert len(set(tofu)) == 1, "this Chromium found a system CJK font; the test needs one without"
        family = page.eval_on_selector('#board [data-square="e0"] .piece', "e => getComputedStyle(e).fontFamily")
        assert "boardctl CJK" in family
        page.evaluate("(chars) => document.fonts.load('40px \"boardctl CJK\"', chars)", "".join(SAMPLE))
        assert page.evaluate("(chars) => document.fonts.check('40px \"boardctl CJK\"', chars)", "".join(SAMPLE))
        drawn = page.evaluate(PRINTS, [family, SAMPLE])
        assert len(set(drawn)) == len(SAMPLE), "the pieces are tofu: the web font did not load"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.locator("#board").screenshot(path=str(ARTIFACTS / "xiangqi-no-system-cjk-font.png"))
