"""Shared test hooks and hypothesis profiles.

``default`` keeps ``make test`` bounded; ``fuzz`` (``make fuzz``) runs the same property tests, and
those marked ``fuzz``, for many more examples. After each daemon test, every game it saved must
replay to the saved PGN (docs/events.md).

A test that starts a process (a daemon, an engine, Chromium, a shell tool) is marked ``slow``
(``pytest -m "not slow"`` is the fast loop over the pure core); one that is not marked and starts
a process fails at once, naming the marker, so the fast loop stays fast."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings
from replay_check import check_games_dir

settings.register_profile(
    "fuzz", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# `make test` draws the same examples every run (a red CI run is then one anyone can rerun);
# `make fuzz` (the `fuzz` profile) and HYPOTHESIS_PROFILE=random search afresh.
settings.register_profile("ci", derandomize=True)
settings.register_profile("random")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or "ci")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: a fuzz test of a parser; `make fuzz` runs these longer")


#: Audit events (PEP 578) by which a test starts another process.
_PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.fork",
                             "os.forkpty", "os.spawn"})
_process_allowed = True  # outside a test's setup and call (collection, teardown) anything may start
_refused: list[str] = []


def _refuse_processes_in_fast_tests(event: str, args: tuple[object, ...]) -> None:
    if not _process_allowed and event in _PROCESS_EVENTS:
        _refused.append(f"{event} {str(args)[:160]}")
        raise RuntimeError(f"a test not marked slow starts a process ({_refused[-1]}): "
                           "mark it @pytest.mark.slow (tests/conftest.py)")


sys.addaudithook(_refuse_processes_in_fast_tests)


def _unless_slow(item: pytest.Item) -> Iterator[None]:
    """Run a setup or call phase refusing processes unless ``item`` is marked slow; a refusal
    that the code under test caught still fails the test (it would have run another path)."""
    global _process_allowed
    _process_allowed = item.get_closest_marker("slow") is not None
    _refused.clear()
    try:
        yield
    finally:
        _process_allowed = True
    if _refused:
        pytest.fail(f"not marked slow, and started a process: {_refused[0]}; mark it @pytest.mark.slow")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    yield from _unless_slow(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield from _unless_slow(item)


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
