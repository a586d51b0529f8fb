"""``boardctl host`` / ``join`` refuse bad command lines with one clear line and status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.cli import main

CASES = [
    (["join", "http://127.0.0.1:8080"], "is not an address like ws://HOST:PORT"),
    (["join", "ws://127.0.0.1:99999"], "bad port"),
    (["join", "ws://127.0.0.1:9"], "give --code CODE"),
    (["join", "ws://127.0.0.1:9", "--code", "ABCD2345", "--fingerprint", "AA"], "need a wss:// address"),
    (["join", "wss://127.0.0.1:9", "--code", "ABCD2345", "--fingerprint", "AA"], "64 hex digits"),
    (["host", "--no-web"], "do not give --no-web"),
    (["host", "--tls-cert", "cert.pem"], "give both --tls-cert and --tls-key"),
    (["host", "--tls-cert", "missing.pem", "--tls-key", "missing.pem"], "cannot load"),
]


@pytest.mark.parametrize(("argv", "message"), CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_bad_command_lines(argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    status = main([*argv, "--board", "sim", "--stdio", "--games-dir", str(tmp_path / "games")])
    err = capsys.readouterr().err
    assert status == 2 and message in err, err
    assert "Traceback" not in err
