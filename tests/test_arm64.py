"""The cheap arm64 guard of ``make test``: this checkout's package imported, and one ``--stdio``
line answered, by Python on Debian bookworm arm64 (what Raspberry Pi OS 64-bit is) under qemu.

It reuses the root that ``make pi-check`` (scripts/pi-check) built and passed in, with that
check's dependencies installed for aarch64, and runs this checkout's own ``boardctl`` and
``engine`` packages there (copied in, first on PYTHONPATH), so an x86-only change (an import,
a dependency, a wheel) is seen in seconds. Skipped, with the reason, where there is no
emulation, no such root, no root privileges for chroot, or dependencies (pyproject.toml's
[project] list and the pi extra) other than those the root was installed with; ``make pi-check``
is the full run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from pi_drive import dependencies_digest

ROOT = Path(os.environ.get("PI_CHECK_ROOT", "/var/cache/boardctl/pi-check/bookworm-arm64"))
PYTHON = "/root/boardctl/.venv/bin/python"  # the venv pi-check installed, inside the root
REPO = Path(__file__).resolve().parent.parent
BINFMT = Path("/proc/sys/fs/binfmt_misc/qemu-aarch64")
CHROOT = shutil.which("chroot") or shutil.which("/usr/sbin/chroot")


def _why_not() -> str | None:
    if not BINFMT.exists() or "enabled" not in BINFMT.read_text():
        return "no arm64 emulation here (binfmt_misc qemu-aarch64 not enabled; scripts/pi-check sets it up)"
    if not (ROOT / ".pi-check-passed").is_file() or not (ROOT / PYTHON.lstrip("/")).exists():
        return f"no arm64 root that passed make pi-check at {ROOT} (make pi-check builds one, several minutes)"
    if os.geteuid() != 0 or CHROOT is None:
        return "chroot into the arm64 root needs root (and chroot)"
    marker = dict(line.split(" ", 1) for line in (ROOT / ".pi-check-passed").read_text().splitlines() if " " in line)
    if marker.get("dependencies") != dependencies_digest((REPO / "pyproject.toml").read_text(encoding="utf-8")):
        return (f"the package's dependencies changed since the arm64 root was installed (make pi-check at "
                f"{marker.get('commit', '?')[:10]}): they may be missing there; rerun make pi-check")
    return None


pytestmark = [pytest.mark.slow, pytest.mark.skipif(_why_not() is not None, reason=_why_not() or "")]


@pytest.fixture(scope="module")
def code_in_root() -> Iterator[str]:
    """This checkout's packages, copied into the root; yields their folder as the root sees it."""
    folder = Path(tempfile.mkdtemp(prefix="arm64-guard-", dir=ROOT / "tmp"))
    try:
        for package in ("boardctl", "engine"):
            shutil.copytree(REPO / package, folder / package, ignore=shutil.ignore_patterns("__pycache__"))
        yield "/" + str(folder.relative_to(ROOT))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def in_root(code: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8", "PYTHONPATH": code,
           "XDG_CONFIG_HOME": "/nonexistent", "PYTHONDONTWRITEBYTECODE": "1"}
    assert CHROOT is not None
    return subprocess.run([CHROOT, str(ROOT), PYTHON, *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def test_the_package_imports_on_arm64(code_in_root: str) -> None:
    result = in_root(code_in_root, "-c", "import platform, boardctl, boardctl.cli, boardctl.daemon, engine.aot; "
                     "print(platform.machine(), boardctl.__file__)")
    assert result.returncode == 0, result.stderr
    machine, where = result.stdout.split()
    assert machine == "aarch64"
    assert where.startswith(code_in_root)  # this checkout's code, not the root's clone


def test_one_stdio_line_on_arm64(code_in_root: str) -> None:
    result = in_root(code_in_root, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
                     "--games-dir", f"{code_in_root}/games", stdin='{"t": 0}\n')
    assert result.returncode == 0, result.stderr
    (line,) = result.stdout.splitlines()
    state = json.loads(line)
    assert state["input"] == 1 and state["moves"] == [] and state["result"] == "*"
    assert state["fen"].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w")
