"""Replay every game a test saved and compare it with the saved PGN (issue 10, point 7).

Not a test module: ``tests/conftest.py`` runs :func:`check_games_dir` after every daemon test,
and ``tests/replay/test_replay_daemon.py`` uses it on games made for the purpose.
"""

from __future__ import annotations

import io
from pathlib import Path

from boardctl.replay import read_events, replay


def saved_games(root: Path) -> list[Path]:
    """Every ``<id>.jsonl`` under ``root`` whose ``<id>.pgn`` was saved beside it."""
    return sorted(p for p in root.rglob("*.jsonl") if p.with_suffix(".pgn").exists())


def check_game(log: Path) -> None:
    with log.open(encoding="utf-8") as handle:
        events = read_events(handle, name=str(log))
    games, _ = replay(events)
    assert games, log
    replayed = games[-1]
    variant = replayed.record.rules()
    assert variant.read_pgn is not None
    saved = variant.read_pgn(io.StringIO(log.with_suffix(".pgn").read_text(encoding="utf-8")))
    assert saved is not None, log
    # The replayed game as its PGN text reads back, the way the saved one was read.
    again = variant.read_pgn(io.StringIO(str(replayed.to_pgn())))
    assert again is not None, log
    want, got = list(saved.moves), list(again.moves)
    assert got == want, f"{log}: replayed {got} but saved {want}"
    assert again.headers["Result"] == saved.headers["Result"], f"{log}: result {again.headers['Result']} != {saved.headers['Result']}"
    assert again.headers.get("Termination", "") == saved.headers.get("Termination", ""), log
    assert again.fen == saved.fen, log
    end_saved, end_again = variant.board(saved.fen), variant.board(again.fen)
    for board, moves in ((end_saved, saved.moves), (end_again, again.moves)):
        for uci in moves:
            board.push(board.parse_uci(uci))
    assert end_again.fen() == end_saved.fen(), log


def check_games_dir(root: Path) -> int:
    """Check every saved game under ``root``; returns how many were checked."""
    logs = saved_games(root)
    for log in logs:
        check_game(log)
    return len(logs)
