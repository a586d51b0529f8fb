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
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

#: Test folders (no ``__init__``, like tests/engine) whose drivers other folders import by name:
#: the daemon's stdio driver, the terminal's, the session's fixtures and the tracker's script runner.
SHARED_FOLDERS = ("daemon", "session", "terminal", "tracker")
sys.path[:0] = [str(Path(__file__).resolve().parent / name) for name in SHARED_FOLDERS]

from replay_check import check_games_dir  # noqa: E402  (after the folders above, as every test imports)

settings.register_profile(
    "fuzz", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# `make test` draws the same examples every run (a red CI run is then one anyone can rerun);
# `make fuzz` (the `fuzz` profile) and HYPOTHESIS_PROFILE=random search afresh.
settings.register_profile("ci", derandomize=True)
settings.register_profile("random")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or "ci")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fail-on-skip", action="store_true",
                     help="a skipped test fails, unless its reason is one this machine may have (make test sets it)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: a fuzz test of a parser; `make fuzz` runs these longer")


#: Why a test may skip even under ``make test``: facts of the machine that ``make test`` does not
#: (and should not) change. Anything else that skips there (a tool missing, a package that does not
#: import) would let a broken install pass, so it fails instead.
SKIPS_THE_MACHINE_DECIDES = (
    "no arm64 emulation here",  # tests/test_arm64.py: make pi-check (root, minutes) arms it
    "no arm64 root that passed make pi-check",
    "the package's dependencies changed since the arm64 root was installed",
    "chroot into the arm64 root needs root",
    "this machine has GPIO",  # tests/hw/test_start_errors.py: only a machine without pins can test that
    "a pin factory is already set in this process",
    "the BLE library is installed here",  # tests/chesslink/test_transports.py
)


def skip_reason(report: pytest.TestReport) -> str:
    """The reason a skipped report gives (pytest keeps it as (file, line, "Skipped: reason"))."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.skipped and not hasattr(report, "wasxfail") and item.config.getoption("--fail-on-skip"):
        reason = skip_reason(report)
        if not reason.startswith(SKIPS_THE_MACHINE_DECIDES):
            report.outcome = "failed"
            report.longrepr = (f"skipped under --fail-on-skip (make test): {reason}\n"
                               "make test installs everything its tests need; a skip here hides a broken install")
    return report


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
