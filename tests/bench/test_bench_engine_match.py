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


@pytest.mark.slow
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


def test_calibrate_places_each_level_against_its_own_anchor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Stockfish levels are placed at their label plus the difference, chained ones on the level above."""
    monkeypatch.setattr(chess.engine.SimpleEngine, "popen_uci", lambda *a, **k: _Dummy())
    monkeypatch.setattr(bench_engine, "_play", lambda *a: (0.5, "stalemate"))  # every pairing even
    first = bench_engine.calibrate(2, 1.0, 0.0, 3, names=["master", "intermediate", "practice2"], state=tmp_path)
    assert first == {"master": (2200, 2200, 2200), "intermediate": (1350, 1350, 1350),
                     "practice2": (1350, 1350, 1350)}
    out = capsys.readouterr().out
    assert "level practice2 (label 1200): about 1350" in out and "within 150" in out
    assert "level master (label 2200): about 2200" in out

    # a later run plays only beginner; practice1 has no saved games, so beginner is not placed
    monkeypatch.setattr(bench_engine, "_play", lambda *a: (0.0, "checkmate"))
    opened: list[object] = []
    monkeypatch.setattr(chess.engine.SimpleEngine, "popen_uci", lambda *a, **k: opened.append(a) or _Dummy())
    second = bench_engine.calibrate(2, 1.0, 0.0, 3, names=["beginner"], state=tmp_path)
    assert len(opened) == 2  # beginner's two engines; the pairings read back start none
    assert set(second) == {"master", "intermediate", "practice2"}  # read back, not replayed
    out = capsys.readouterr().out
    assert "level beginner: practice1" in out and "(practice1 not placed)" in out
    # practice1 played now: it loses both to practice2, so it is placed below it, beyond the margin
    third = bench_engine.calibrate(2, 1.0, 0.0, 3, names=["practice1"], state=tmp_path)
    assert third["practice1"][0] < 1350 - 150
    assert "level practice1 (label 1000)" in capsys.readouterr().out
