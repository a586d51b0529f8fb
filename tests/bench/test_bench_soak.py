"""``python -m bench soak`` runs end to end: a few seconds of play against the real daemon and engine."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def test_soak_smoke() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bench", "soak", "--seconds", "8", "--pages", "5", "--stalled", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=180,
    )
    out = result.stdout
    assert "Traceback" not in result.stderr + out, result.stderr
    assert re.search(r"daemon RSS: [0-9.]+ MB after warm-up -> [0-9.]+ MB", out), out
    assert re.search(r"event -> LED state line, first half: n=[1-9][0-9]* p50=[0-9.]+ ms p99=[0-9.]+ ms", out), out
    assert "errors: 0" in out, out
    assert result.returncode in (0, 1) and ("soak: flat" in out) == (result.returncode == 0)
