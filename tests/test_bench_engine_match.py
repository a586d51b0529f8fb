"""bench/engine.py's match keeps each game in a state file and resumes from it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chess
import chess.engine
import pytest

from bench import engine as bench_engine


class _Dummy:
    def configure(self, options: dict[str, Any]) -> None:
        pass

    def quit(self) -> None:
        pass


def test_match_resumes_from_its_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chess.engine.SimpleEngine, "popen_uci", lambda *a, **k: _Dummy())
    played: list[tuple[str, bool]] = []

    def fake_play(ours: Any, theirs: Any, opening: list[chess.Move], ours_white: bool, base: float,
                  inc: float) -> tuple[float, str]:
        played.append((opening[0].uci(), ours_white))
        return (1.0, "checkmate") if ours_white else (0.5, "stalemate")

    monkeypatch.setattr(bench_engine, "_play", fake_play)
    state = tmp_path / "m.json"
    first = bench_engine.match("x", ["x"], {}, 4, 1.0, 0.0, 5, state=state)
    assert first is not None and (first.wins, first.draws, first.losses) == (2, 2, 0)
    assert len(json.loads(state.read_text())["games"]) == 4
    before = list(played)
    more = bench_engine.match("x", ["x"], {}, 8, 1.0, 0.0, 5, state=state)
    assert more is not None and (more.wins, more.draws) == (4, 4)
    assert len(played) == 8  # only the 4 new games were played
    assert played[:4] == before
    with pytest.raises(SystemExit):
        bench_engine.match("other", ["x"], {}, 8, 1.0, 0.0, 5, state=state)
