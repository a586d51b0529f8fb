"""Shared test hooks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from replay_check import check_games_dir


@pytest.fixture(autouse=True)
def _replay_saved_daemon_games(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each daemon test, every game it saved must replay to the saved PGN (docs/events.md)."""
    if not request.module.__name__.startswith("test_daemon_") or "tmp_path" not in request.fixturenames:
        yield
        return
    tmp_path = request.getfixturevalue("tmp_path")  # now, while it is still there at teardown
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed == failed:  # the test itself passed: its games must replay
        check_games_dir(tmp_path)
