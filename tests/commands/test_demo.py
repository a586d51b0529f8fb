"""``make demo`` honours ``web.port`` from the config file, as play and learn do (issue 35,
finding 12): the demo chose 8080 (or any free port) whatever the file said."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from network.harness import free_port
from test_daemon_support import STOCKFISH, needs_engine

pytestmark = pytest.mark.slow


def _page_port(tmp_path: Path, config: str | None, *extra: str) -> int:
    home = tmp_path / "config"
    if config is not None:
        (home / "boardctl").mkdir(parents=True)
        (home / "boardctl" / "config.toml").write_text(config, encoding="utf-8")
    env = {**os.environ, "XDG_CONFIG_HOME": str(home), "XDG_DATA_HOME": str(tmp_path / "data")}
    env = {k: v for k, v in env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    out = subprocess.run([sys.executable, "-m", "boardctl", "demo", "--stdio", "--engine", str(STOCKFISH), *extra],
                         input='{"t": 0}\n', capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    match = re.search(r"Open http://127\.0\.0\.1:(\d+)/ in a browser", out.stderr)
    assert match is not None, out.stderr
    return int(match[1])


@needs_engine
@pytest.mark.parametrize("where", ["file", "file-and-flag", "flag"])
def test_the_demo_listens_where_the_config_says(tmp_path: Path, where: str) -> None:
    in_file, on_line = free_port(), free_port()
    config = f"[web]\nport = {in_file}\n" if where != "flag" else None
    extra = ["--port", str(on_line)] if where != "file" else []
    assert _page_port(tmp_path, config, *extra) == (in_file if where == "file" else on_line)

