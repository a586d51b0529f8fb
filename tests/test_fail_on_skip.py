"""``make test`` runs with ``--fail-on-skip`` (tests/conftest.py): a test that skips because a tool or a
package is missing fails there, so a broken install cannot pass CI quietly; only the reasons the
machine decides (arm64 emulation, GPIO pins) may still skip."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

CASES = '''
import pytest

def test_a_tool_missing():
    pytest.skip("stockfish not installed (apt-get install stockfish)")

@pytest.mark.skipif(True, reason="this machine has GPIO")
def test_the_machine_decides():
    pass

def test_a_package_missing():
    pytest.importorskip("no_such_package_here")

@pytest.mark.xfail(reason="known")
def test_an_expected_failure():
    assert False

def test_a_pass():
    pass
'''


def _run(folder: Path, *options: str) -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfsx", "-p", "no:cacheprovider", *options, str(folder)],
                          cwd=folder, capture_output=True, text=True, timeout=120)
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "two workers"])
def test_only_the_machines_reasons_may_skip(tmp_path: Path, workers: list[str]) -> None:
    for name in ("conftest.py", "replay_check.py"):
        shutil.copy(TESTS / name, tmp_path / name)
    (tmp_path / "test_cases.py").write_text(CASES, encoding="utf-8")
    strict = _run(tmp_path, "--fail-on-skip", *workers)
    assert "2 failed, 1 passed, 1 skipped, 1 xfailed" in strict, strict
    assert "test_a_tool_missing - skipped under --fail-on-skip" in strict
    assert "test_a_package_missing - skipped under --fail-on-skip" in strict
    assert "this machine has GPIO" in strict
    assert "1 passed, 3 skipped, 1 xfailed" in _run(tmp_path, *workers)


def test_make_test_fails_on_skips() -> None:
    makefile = (TESTS.parent / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "--fail-on-skip" in recipe
