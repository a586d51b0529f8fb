"""Replay every game a test saved and compare it with the saved PGN (issue 10, point 7).

Not a test module: ``tests/conftest.py`` runs :func:`check_games_dir` after every daemon test,
and ``tests/test_replay_daemon.py`` uses it on games made for the purpose.
"""

from __future__ import annotations

import io
from pathlib import Path

import chess.pgn

from boardctl.replay import read_events, replay


def saved_games(root: Path) -> list[Path]:
    """Every ``<id>.jsonl`` under ``root`` whose ``<id>.pgn`` was saved beside it."""
    return sorted(p for p in root.rglob("*.jsonl") if p.with_suffix(".pgn").exists())


def check_game(log: Path) -> None:
    saved = chess.pgn.read_game(io.StringIO(log.with_suffix(".pgn").read_text(encoding="utf-8")))
    assert saved is not None, log
    with log.open(encoding="utf-8") as handle:
        events = read_events(handle, name=str(log))
    games, _ = replay(events)
    assert games, log
    replayed = games[-1].to_pgn()
    want = [m.uci() for m in saved.mainline_moves()]
    got = [m.uci() for m in replayed.mainline_moves()]
    assert got == want, f"{log}: replayed {got} but saved {want}"
    assert replayed.headers["Result"] == saved.headers["Result"], f"{log}: result {replayed.headers['Result']} != {saved.headers['Result']}"
    assert replayed.headers.get("Termination", "") == saved.headers.get("Termination", ""), log
    assert replayed.end().board().fen() == saved.end().board().fen(), log


def check_games_dir(root: Path) -> int:
    """Check every saved game under ``root``; returns how many were checked."""
    logs = saved_games(root)
    for log in logs:
        check_game(log)
    return len(logs)
