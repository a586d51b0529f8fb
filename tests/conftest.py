"""Shared test hooks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from replay_check import check_games_dir


@pytest.fixture(autouse=True)
def _replay_saved_daemon_games(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each daemon test, every game it saved must replay to the saved PGN (docs/events.md)."""
    yield
    if not request.module.__name__.startswith("test_daemon_") or "tmp_path" not in request.fixturenames:
        return
    if request.session.testsfailed:
        return  # one failure at a time
    tmp_path: Path = request.getfixturevalue("tmp_path")
    check_games_dir(tmp_path)
