"""Shared test hooks and hypothesis profiles.

``default`` keeps ``make test`` bounded; ``fuzz`` (``make fuzz``) runs the same property tests, and
those marked ``fuzz``, for many more examples. After each daemon test, every game it saved must
replay to the saved PGN (docs/events.md)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from replay_check import check_games_dir

settings.register_profile(
    "fuzz", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: a fuzz test of a parser; `make fuzz` runs these longer")


@pytest.fixture(autouse=True)
def _replay_saved_daemon_games(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each daemon test, every game it saved must replay to the saved PGN."""
    wanted = request.module.__name__.startswith("test_daemon_") and "tmp_path" in request.fixturenames
    # Taken before the test runs: after it, tmp_path may already be torn down.
    tmp_path: Path | None = request.getfixturevalue("tmp_path") if wanted else None
    yield
    if tmp_path is None or request.session.testsfailed:
        return  # not a daemon test, or one failure at a time
    check_games_dir(tmp_path)
