"""bench/xiangqi.py's pieces that need no engine: time controls and resuming a match from its state file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.xiangqi import GoFor, match


@pytest.mark.parametrize(
    ("text", "command", "has_clock"),
    [
        ("10+0.1", "wtime 9000 btime 8000 winc 100 binc 100", True),
        ("2+0.05", "wtime 9000 btime 8000 winc 50 binc 50", True),
        ("nodes=300", "nodes 300", False),
        ("movetime=250", "movetime 250", False),
    ],
)
def test_time_controls(text: str, command: str, has_clock: bool) -> None:
    go = GoFor.from_text(text)
    assert go.command([9.0, 8.0]) == command
    assert go.has_clock is has_clock


def test_a_match_resumes_from_its_state_file(tmp_path: Path) -> None:
    state = tmp_path / "match.jsonl"
    rows = [
        {"match": "m", "game": 1, "ours_red": True, "score": 1.0, "ending": "no legal move", "moves": ["h2e2"]},
        {"match": "m", "game": 2, "ours_red": False, "score": 0.5, "ending": "repetition or 60 moves", "moves": []},
        {"match": "other", "game": 1, "ours_red": True, "score": 0.0, "ending": "lost on time", "moves": []},
        {"match": "m", "game": 3, "ours_red": True, "score": 0.0, "ending": "no legal move", "moves": []},
    ]
    state.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # every game asked for is already in the file: no engine is started, the score is the file's
    score = match("m", {}, ["/nonexistent-engine"], {}, 3, GoFor.from_text("nodes=1"), 1, theirs_ffish=False,
                  state=state)
    assert (score.wins, score.draws, score.losses) == (1, 1, 1)
    assert score.endings["no legal move"] == 2
