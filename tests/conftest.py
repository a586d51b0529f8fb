"""Shared test hooks and hypothesis profiles.

``default`` keeps ``make test`` bounded; ``fuzz`` (``make fuzz``) runs the same property tests, and
those marked ``fuzz``, for many more examples. After each daemon test, every game it saved must
replay to the saved PGN (docs/events.md)."""

from __future__ import annotations

import os
from collections.abc import Iterator

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
    """After each daemon test, every game it saved must replay to the saved PGN (docs/events.md)."""
    module = request.module.__name__.rsplit(".", 1)[-1]  # tests/online/test_daemon_*.py too
    if not module.startswith("test_daemon_") or "tmp_path" not in request.fixturenames:
        yield
        return
    tmp_path = request.getfixturevalue("tmp_path")  # now, while it is still there at teardown
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed == failed:  # the test itself passed: its games must replay
        check_games_dir(tmp_path)
