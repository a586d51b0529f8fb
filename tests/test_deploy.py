"""deploy/boardctl.service, the unit that starts the board at power-on: systemd itself checks it
(``systemd-analyze verify``), and its own command lines start and stop the daemon as systemd would:
ExecStartPre, then ExecStart with the unit's environment and no terminal, then KillSignal, which
must end the daemon within TimeoutStopSec with exit status 0 and the game saved (issue 30)."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
UNIT = REPO / "deploy" / "boardctl.service"
INSTALLED_AT = "/opt/boardctl"  # where deploy/README.md puts the checkout

pytestmark = pytest.mark.slow


def _service() -> dict[str, list[str]]:
    """The [Service] section's settings, each key with every value it is given (systemd lets a
    key such as Environment= repeat)."""
    settings: dict[str, list[str]] = {}
    section = ""
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "Service":
            key, _, value = line.partition("=")
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def _here(text: str) -> str:
    """The unit's paths, pointed at this checkout instead of /opt/boardctl."""
    return text.replace(INSTALLED_AT, str(REPO))


def test_systemd_verifies_the_unit(tmp_path: Path) -> None:
    tool = shutil.which("systemd-analyze")
    assert tool is not None, "systemd-analyze is part of systemd, which Debian always has"
    unit = tmp_path / "boardctl.service"
    unit.write_text(_here(UNIT.read_text()))
    out = subprocess.run([tool, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and not out.stderr.strip(), out.stderr


def test_the_unit_starts_and_stops_the_daemon(tmp_path: Path) -> None:
    service = {key: values[-1] for key, values in _service().items()}
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    for line in _service()["Environment"]:
        for assignment in shlex.split(line):
            key, _, value = assignment.partition("=")
            env[key] = value
    assert env["PYTHONUNBUFFERED"] == "1"
    # systemd gives the unit its own cache directory (CacheDirectory=): here the checkout's build,
    # so that ExecStartPre finds the engine compiled instead of compiling it for minutes.
    assert env["NUMBA_CACHE_DIR"] == "/var/cache/boardctl/numba"
    env["NUMBA_CACHE_DIR"] = os.environ.get("NUMBA_CACHE_DIR", str(REPO / ".numba-cache"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / ".config" / "boardctl"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(f'[board]\nbackend = "sim"\n\n[web]\nport = {port}\n')
    pre = shlex.split(_here(service["ExecStartPre"].lstrip("-")))
    subprocess.run(pre, env=env, cwd=tmp_path, check=True, timeout=900, capture_output=True)

    start = shlex.split(_here(service["ExecStart"]))
    log = (tmp_path / "journal.log").open("wb")
    proc = subprocess.Popen(start, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "journal.log").read_text()
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "not ready within 60 s"
                time.sleep(0.2)
        assert service["KillSignal"] == "SIGTERM"
        proc.send_signal(signal.SIGTERM)
        stop_timeout = float(service["TimeoutStopSec"])
        assert proc.wait(timeout=stop_timeout) == 0, (tmp_path / "journal.log").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
    saved = list((tmp_path / ".local" / "share" / "boardctl" / "games").glob("*.json"))
    assert saved, "the game is saved where the service's user keeps games"
    journal = (tmp_path / "journal.log").read_text()
    assert "Traceback" not in journal and " ERROR " not in journal, journal
