"""Shared test hooks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from replay_check import check_games_dir


@pytest.fixture(autouse=True)
def _replay_saved_daemon_games(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each daemon test, every game it saved must replay to the saved PGN (docs/events.md)."""
    wanted = request.module.__name__.startswith("test_daemon_") and "tmp_path" in request.fixturenames
    # Taken before the test runs: after it, tmp_path may already be torn down.
    tmp_path: Path | None = request.getfixturevalue("tmp_path") if wanted else None
    yield
    if tmp_path is None or request.session.testsfailed:
        return  # not a daemon test, or one failure at a time
    check_games_dir(tmp_path)
