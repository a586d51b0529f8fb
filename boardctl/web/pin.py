"""The LAN PIN: generated on first start, kept as ``web.pin`` in the config, shown by ``boardctl pin``.

A Pi has no screen, so the PIN has to be somewhere the owner can read it: the config file
(``boardctl pin`` prints it) and the log line the daemon writes when it serves in LAN mode.
The file is edited in place: the PIN line is added under ``[web]`` (or a ``[web]`` table is
appended), the result is parsed back to make sure it says what we meant, and the file is
replaced atomically. Nothing else in the file changes.
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from boardctl.errors import ConfigError

#: Eight digits: with the server's global back-off (boardctl.web.server) guessing takes centuries.
PIN_DIGITS = 8
_PIN_RE = re.compile(r"^[0-9]{4,12}$")
_WEB_TABLE_RE = re.compile(r"^\s*\[\s*web\s*\]\s*(#.*)?$")


def default_config_path() -> Path:
    """The user's config file, ``$XDG_CONFIG_HOME/boardctl/config.toml`` (where the daemon looks)."""
    from boardctl.config import user_file

    return user_file()


def generate_pin(*, digits: int = PIN_DIGITS) -> str:
    """A random PIN from the OS's CSPRNG."""
    return f"{secrets.randbelow(10**digits):0{digits}d}"


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config ({exc.strerror or exc})") from exc
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc


def read_pin(config_path: Path) -> str | None:
    """``web.pin`` from the config, validated; None when it is not set."""
    _, data = _read(config_path)
    web = data.get("web", {})
    if not isinstance(web, dict):
        raise ConfigError(f"{config_path}: web: expected a table, got {type(web).__name__}")
    pin = web.get("pin")
    if pin is None or pin == "":  # empty means "generate one", as in boardctl.config
        return None
    if isinstance(pin, int) and not isinstance(pin, bool):
        raise ConfigError(
            f"{config_path}: web.pin: expected 4 to 12 digits in quotes, e.g. pin = \"004217\" "
            f"(a bare number loses its leading zeros), got {pin}"
        )
    if not isinstance(pin, str) or not _PIN_RE.match(pin):
        raise ConfigError(f"{config_path}: web.pin: expected a string of 4 to 12 digits, got {pin!r}")
    return pin


def _with_pin(text: str, pin: str) -> str:
    """The config text with ``pin = "..."`` set under ``[web]`` (replacing an old pin line there)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if _WEB_TABLE_RE.match(line):
            end = i + 1
            while end < len(lines) and not lines[end].lstrip().startswith("["):
                end += 1
            body = [ln for ln in lines[i + 1 : end] if not re.match(r"^\s*pin\s*=", ln)]
            return "".join([*lines[: i + 1], f'pin = "{pin}"\n', *body, *lines[end:]])
    sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    return f'{text}{sep}[web]\npin = "{pin}"\n'


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def store_pin(config_path: Path, pin: str) -> None:
    """Set ``web.pin`` in the config file (created, mode 0600, when missing)."""
    if not _PIN_RE.match(pin):
        raise ConfigError(f"web.pin: expected 4 to 12 digits, got {pin!r}")
    text, _ = _read(config_path)
    new_text = _with_pin(text, pin)
    try:
        check = tomllib.loads(new_text).get("web", {})
    except tomllib.TOMLDecodeError:
        check = {}
    if not isinstance(check, dict) or check.get("pin") != pin:
        raise ConfigError(
            f"{config_path}: cannot add web.pin automatically (the [web] settings are written in a form "
            f'this tool does not edit); add pin = "{pin}" under [web] by hand'
        )
    try:
        _write_atomically(config_path, new_text)
    except OSError as exc:
        raise ConfigError(f"{config_path}: cannot write the PIN ({exc.strerror or exc})") from exc


def load_or_create_pin(config_path: Path) -> str:
    """The PIN from ``web.pin``; on first use a new one is generated and stored there."""
    pin = read_pin(config_path)
    if pin is None:
        pin = generate_pin()
        store_pin(config_path, pin)
    return pin
