"""The firmware's own tests (``test_firmware_cases.py``) under real MicroPython 1.27.

The official WebAssembly port (npm ``@micropython/micropython-webassembly-pyscript``, installed
by ``scripts/ensure-micropython.sh`` into ``build/micropython/``) runs in Node. ``mpy_runner.mjs``
writes ``firmware/boardfw/*.py``, ``firmware/main.py``, the fake ``machine`` module and the test
cases into its filesystem and runs a small harness that calls every ``test_*`` function. Skipped
only when Node or npm is not installed.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from . import test_firmware_cases

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FIRMWARE = ROOT / "firmware"
PACKAGE = "@micropython/micropython-webassembly-pyscript"
PREFIX = ROOT / "build" / "micropython"
MODULE = PREFIX / "node_modules" / PACKAGE / "micropython.mjs"

HARNESS = """
import sys
import test_firmware_cases as cases

print("IMPL", sys.implementation.name, ".".join(str(v) for v in sys.implementation.version[:3]))
names = sorted(n for n in dir(cases) if n.startswith("test_"))
passed = failed = 0
for name in names:
    try:
        getattr(cases, name)()
    except Exception as exc:
        failed += 1
        print("FAIL", name, type(exc).__name__, exc)
        sys.print_exception(exc)
    else:
        passed += 1
        print("PASS", name)
print("SUMMARY passed=%d failed=%d" % (passed, failed))
"""


def _case_names() -> list[str]:
    return sorted(n for n in dir(test_firmware_cases) if n.startswith("test_"))


@pytest.fixture(scope="module")
def micropython() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js and npm are not installed (apt-get install nodejs npm): MicroPython's WebAssembly port needs them")
    if not MODULE.is_file():
        subprocess.run(["sh", str(ROOT / "scripts" / "ensure-micropython.sh")], check=True, timeout=300)
    return MODULE


def _files(tmp_path: Path) -> dict[str, str]:
    """MicroPython path -> host file: the firmware, the fake ``machine``, and the test cases."""
    files = {f"/lib/boardfw/{p.name}": str(p) for p in sorted((FIRMWARE / "boardfw").glob("*.py"))}
    files["/lib/main.py"] = str(FIRMWARE / "main.py")
    files["/lib/machine.py"] = str(HERE / "fake_machine.py")
    neopixel = tmp_path / "neopixel.py"
    neopixel.write_text("from machine import NeoPixel\n")
    files["/lib/neopixel.py"] = str(neopixel)
    files["/lib/test_firmware_cases.py"] = str(HERE / "test_firmware_cases.py")
    return files


def _run(micropython: Path, tmp_path: Path, files: dict[str, str], code: str = HARNESS) -> subprocess.CompletedProcess[str]:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"files": files, "code": code, "heapsize": 16 * 1024 * 1024}))
    return subprocess.run(
        ["node", str(HERE / "mpy_runner.mjs"), str(micropython), str(spec)],
        capture_output=True, text=True, timeout=300,
    )


def test_firmware_tests_pass_under_micropython(micropython: Path, tmp_path: Path) -> None:
    proc = _run(micropython, tmp_path, _files(tmp_path))
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    assert re.search(r"^IMPL micropython 1\.27\.\d+$", proc.stdout, re.M), report
    passed = re.findall(r"^PASS (\w+)$", proc.stdout, re.M)
    failed = re.findall(r"^FAIL (\w+) .*$", proc.stdout, re.M)
    assert failed == [], report
    assert sorted(passed) == _case_names(), report  # every case ran, none was skipped or lost
    assert f"SUMMARY passed={len(_case_names())} failed=0" in proc.stdout


def test_the_runner_reports_a_failure(micropython: Path, tmp_path: Path) -> None:
    """The harness can fail: a firmware that lets a bad checksum through is reported, not hidden."""
    broken = tmp_path / "protocol.py"
    broken.write_text((FIRMWARE / "boardfw" / "protocol.py").read_text().replace('raise BadLine("checksum")', "pass"))
    files = {**_files(tmp_path), "/lib/boardfw/protocol.py": str(broken)}
    one = HARNESS.replace('if n.startswith("test_")', 'if n == "test_parse_rejects_with_a_reason"')
    proc = _run(micropython, tmp_path, files, one)
    assert re.search(r"^FAIL test_parse_rejects_with_a_reason ", proc.stdout, re.M), proc.stdout + proc.stderr
    assert "SUMMARY passed=0 failed=1" in proc.stdout
    # An exception outside any case fails the run itself.
    proc = _run(micropython, tmp_path, files, "import test_firmware_cases\nraise ValueError('boom')")
    assert proc.returncode == 1 and "ValueError: boom" in proc.stderr
