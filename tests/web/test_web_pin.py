"""The LAN PIN is created once, stored as web.pin without disturbing the rest of the config."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest

from boardctl.errors import ConfigError
from boardctl.web.pin import PIN_DIGITS, load_or_create_pin, read_pin, store_pin


def test_first_start_creates_a_private_config_with_the_pin(tmp_path: Path) -> None:
    path = tmp_path / "boardctl" / "config.toml"
    pin = load_or_create_pin(path)
    assert pin.isdigit() and len(pin) == PIN_DIGITS == 8
    assert tomllib.loads(path.read_text())["web"]["pin"] == pin
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # Later starts read the same PIN back.
    assert load_or_create_pin(path) == pin


def test_pin_goes_under_an_existing_web_table_and_keeps_everything_else(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    original = '# my board\n[board]\nbackend = "gpio"\n\n[web]\nport = 8081 # phone\n\n[engine]\nlevel = "master"\n'
    path.write_text(original)
    path.chmod(0o640)
    pin = load_or_create_pin(path)
    data = tomllib.loads(path.read_text())
    assert data == {"board": {"backend": "gpio"}, "web": {"port": 8081, "pin": pin}, "engine": {"level": "master"}}
    assert "# my board" in path.read_text() and "# phone" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_config_without_web_table_gets_one_appended(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[engine]\nlevel = "beginner"')  # no trailing newline
    pin = load_or_create_pin(path)
    assert tomllib.loads(path.read_text()) == {"engine": {"level": "beginner"}, "web": {"pin": pin}}


def test_an_empty_pin_means_generate_one(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[web]\npin = ""\nport = 8080\n')
    pin = load_or_create_pin(path)
    assert tomllib.loads(path.read_text()) == {"web": {"pin": pin, "port": 8080}}


def test_store_replaces_an_old_pin(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[web]\npin = "1111"\nhost = "0.0.0.0"\n')
    store_pin(path, "987654")
    assert tomllib.loads(path.read_text()) == {"web": {"pin": "987654", "host": "0.0.0.0"}}


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[web]\npin = 1234\n", "web.pin: expected 4 to 12 digits in quotes"),
        ('[web]\npin = "12ab"\n', "web.pin: expected a string of 4 to 12 digits"),
        ('[web]\npin = "12"\n', "web.pin"),
        ("[web\n", "not valid TOML"),
        ('web = "x"\n', "web: expected a table"),
    ],
)
def test_bad_pins_in_the_config_name_the_key(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        read_pin(path)


def test_inline_web_table_is_not_silently_broken(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    original = 'web = { port = 8081 }\n'
    path.write_text(original)
    with pytest.raises(ConfigError, match="by hand"):
        load_or_create_pin(path)
    assert path.read_text() == original
