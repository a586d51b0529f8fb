"""The Past-games table never breaks a word inside it (issue 35, finding 12: the header read
"Resul t" on a phone). Every header, date, player name and result stays whole on both sizes of
the page in Chromium; only the opening names may hyphenate, as they are meant to."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from page_helpers import shot
from web_helpers import RunningDaemon, run_daemon

pytestmark = pytest.mark.slow

GAMES = {
    "20250102-101500-000001.pgn": ('[Event "boardctl"]\n[Date "2025.01.02"]\n[White "Human"]\n'
                                   '[Black "boardctl engine (beginner)"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n'),
    "20250104-121500-000003.pgn": ('[Event "boardctl"]\n[Date "2025.01.04"]\n'
                                   '[White "Aleksandra Konstantinova"]\n[Black "Bartholomew"]\n'
                                   '[Result "1/2-1/2"]\n\n1. e4 c5 1/2-1/2\n'),
    "20250105-121500-000004.pgn": ('[Event "boardctl"]\n[Date "2025.01.05"]\n[White "Li"]\n[Black "Wang"]\n'
                                   '[Result "0-1"]\n\n1. d4 d5 0-1\n'),
}

#: Words broken inside: for each cell of the columns that must not break, every word whose
#: characters lie on more than one line box.
BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll("#past-games th, #past-games td")) {
    if (cell.classList.contains("col-opening")) continue;  // opening names may hyphenate
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g;
      let m;
      while ((m = re.exec(node.data))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}"""


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    tmp = tmp_path_factory.mktemp("web-page-games-words")
    with run_daemon(tmp, "--settle", "0.15", mode="record") as d:
        for name, text in GAMES.items():
            (d.games_dir / name).write_text(text)
        yield d
    assert d.proc.returncode == 0, d.log()


def test_no_word_of_the_past_games_table_is_broken(page: Any, size: str) -> None:
    page.locator("#past-games summary").click()
    rows = page.locator("#games tr[data-name]")
    rows.first.wait_for()
    page.locator("#past-games").scroll_into_view_if_needed()
    shot(page, "past-games-words", size)
    headers = page.eval_on_selector_all("#past-games th", "ths => ths.map(t => t.textContent)")
    assert headers[:3] == ["Date", "Players", "Result"]
    assert page.evaluate(BROKEN_WORDS) == []
