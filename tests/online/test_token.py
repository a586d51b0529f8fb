"""The token: stored like the PIN (config file, mode 0600), never shown in a message or a log line."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl import config
from boardctl.errors import ConfigError
from boardctl.online.token import HIDDEN, Redactor, check_private, read_token, store_token

TOKEN = "lip_s3cretTokenValue99"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("before", [
    "",
    '[web]\npin = "12345678"\n',
    '[engine]\nlevel = "advanced"\n\n[lichess]\ntoken = "lip_oldoldoldold"\nurl = "https://lichess.org"\n',
    "# my settings\n[board]\nsettle = 0.4\n",
])
def test_stored_with_mode_0600_and_the_rest_untouched(tmp_path: Path, before: str) -> None:
    path = tmp_path / "boardctl" / "config.toml"
    if before:
        path.parent.mkdir()
        path.write_text(before)
        path.chmod(0o644)  # even a file readable by others becomes private
    store_token(path, TOKEN)
    assert mode(path) == 0o600
    assert read_token(path) == TOKEN
    text = path.read_text()
    for line in before.splitlines():
        if "token" not in line:
            assert line in text
    cfg = config.load({}, files=[path])
    assert cfg.lichess_token == TOKEN
    assert TOKEN not in repr(cfg)  # a config printed in a debug line does not show it
    assert check_private(path) is None
    path.chmod(0o644)
    assert "chmod 600" in (check_private(path) or "")


@pytest.mark.parametrize("bad", ["", "short", "has space in it", "lip_\u00e9t\u00e9\u00e9\u00e9\u00e9", "x" * 300,
                                 'lip_abc"\n[web]\npin="1"'])
def test_a_bad_token_is_refused_without_showing_it(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ConfigError) as info:
        store_token(tmp_path / "c.toml", bad)
    if bad.strip():
        assert bad.strip() not in str(info.value)
    assert not (tmp_path / "c.toml").exists()


def test_a_bad_token_in_the_config_file_is_named_not_shown(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    secret = "lip_almost-a-token-but-dashed"
    path.write_text(f'[lichess]\ntoken = "{secret}"\n')
    with pytest.raises(ConfigError) as info:
        config.load({}, files=[path])
    assert "lichess.token" in str(info.value) and secret not in str(info.value)
    with pytest.raises(ConfigError) as info:
        read_token(path)
    assert secret not in str(info.value)


def test_the_redactor_takes_the_token_out_of_every_record(caplog: pytest.LogCaptureFixture) -> None:
    redactor = Redactor(TOKEN)
    handler = logging.StreamHandler()
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    keep = Keep()
    keep.addFilter(redactor)
    log = logging.getLogger("boardctl.test.redact")
    log.addHandler(keep)
    log.propagate = False
    try:
        log.warning("header Authorization: Bearer %s", TOKEN)
        log.warning(f"inline {TOKEN} twice {TOKEN}")
        try:
            raise ValueError(f"boom {TOKEN}")
        except ValueError:
            log.exception("failed")
    finally:
        log.removeHandler(keep)
        handler.close()
    assert records and all(TOKEN not in r for r in records)
    assert HIDDEN in records[0] and records[1].count(HIDDEN) == 2
    assert "details hidden" in records[2]


@pytest.mark.slow
def test_set_token_from_stdin_writes_0600_and_prints_no_token(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    done = subprocess.run([sys.executable, "-m", "boardctl", "online", "--set-token"], input=TOKEN + "\n",
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    path = tmp_path / "xdg" / "boardctl" / "config.toml"
    assert mode(path) == 0o600 and read_token(path) == TOKEN
    assert TOKEN not in done.stdout + done.stderr
    bad = subprocess.run([sys.executable, "-m", "boardctl", "online", "--set-token"], input="lip_bad token\n",
                         capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2 and "not a Lichess API token" in bad.stderr and "lip_bad" not in bad.stderr


@pytest.mark.slow
def test_no_token_is_one_clear_message(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    done = subprocess.run([sys.executable, "-m", "boardctl", "online", "--board", "sim", "--stdio", "--no-web",
                           "--lichess-url", "http://127.0.0.1:9"], input="", capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("boardctl online: error: no Lichess token") and "Traceback" not in done.stderr
