"""``boardctl-engine warm`` (run by ``make demo``) says what it is doing before the compiler's long silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import aot, uci


def test_warm_says_it_is_compiling_and_how_long_it_took(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    built = tmp_path / "kernels.so"
    calls: list[str] = []

    def build() -> Path:
        calls.append(capsys.readouterr().err)  # what was said before the build started
        return built

    monkeypatch.setattr(aot, "module_path", lambda name=None: tmp_path / "missing.so")
    monkeypatch.setattr(aot, "build", build)
    assert uci.main(["warm"]) == 0
    assert len(calls) == 1 and "Compiling the engine (first run only" in calls[0]
    after = capsys.readouterr().err
    assert "engine compiled in" in after and str(built) in after


def test_warm_is_quiet_about_compiling_when_already_built(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    present = tmp_path / "kernels.so"
    present.write_bytes(b"")
    monkeypatch.setattr(aot, "module_path", lambda name=None: present)
    monkeypatch.setattr(aot, "build", lambda: pytest.fail("nothing to build"))
    assert uci.main(["warm"]) == 0
    err = capsys.readouterr().err
    assert "already compiled" in err and "Compiling" not in err
