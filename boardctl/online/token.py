"""The Lichess token: kept as ``lichess.token`` in the user's config file (mode 0600), never logged.

Stored as the LAN PIN is (:mod:`boardctl.web.pin`): the line is put under ``[lichess]`` (or the
table is appended), the result is parsed back to check it says what we meant, and the file is
replaced atomically, always with mode 0600 (the token plays games in the owner's name). No
message of this module contains the token; :class:`Redactor` takes it out of every log record
too, in case a library (``requests``, ``berserk``) ever writes it.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import tomllib
from pathlib import Path

from boardctl.errors import ConfigError

#: Lichess personal tokens are ``lip_`` and letters/digits; older ones are 16 letters/digits.
_TOKEN_RE = re.compile(r"[A-Za-z0-9_]{8,200}")
_TABLE_RE = re.compile(r"^\s*\[\s*lichess\s*\]\s*(#.*)?$")
#: What a token is replaced by in log lines and messages.
HIDDEN = "[token hidden]"


def is_token(text: str) -> bool:
    return bool(_TOKEN_RE.fullmatch(text))


def check_token(text: str, *, where: str) -> str:
    """``text`` stripped, if it looks like a token; else a ConfigError that does not show it."""
    token = text.strip()
    if not is_token(token):
        raise ConfigError(f"{where}: not a Lichess API token (8 to 200 letters, digits or _; "
                          "create one at https://lichess.org/account/oauth/token/create?scopes[]=board:play)")
    return token


def read_token(config_path: Path) -> str | None:
    """``lichess.token`` from the config file; None when it is not set."""
    try:
        data = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{config_path}: cannot read the config ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        raise ConfigError(f"{config_path}: not valid TOML (run boardctl play once to see where)") from None
    table = data.get("lichess", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{config_path}: lichess: expected a [lichess] table")
    token = table.get("token")
    if token is None or token == "":
        return None
    if not isinstance(token, str):
        raise ConfigError(f"{config_path}: lichess.token: expected a string in quotes")
    return check_token(token, where=f"{config_path}: lichess.token")


def _with_token(text: str, token: str) -> str:
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if _TABLE_RE.match(line):
            end = i + 1
            while end < len(lines) and not lines[end].lstrip().startswith("["):
                end += 1
            body = [ln for ln in lines[i + 1 : end] if not re.match(r"^\s*token\s*=", ln)]
            return "".join([*lines[: i + 1], f'token = "{token}"\n', *body, *lines[end:]])
    sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    return f'{text}{sep}[lichess]\ntoken = "{token}"\n'


def store_token(config_path: Path, token: str) -> None:
    """Set ``lichess.token`` in the config file, which is (re)written with mode 0600."""
    token = check_token(token, where="lichess.token")
    try:
        text = config_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise ConfigError(f"{config_path}: cannot read the config ({exc.strerror or exc})") from None
    new_text = _with_token(text, token)
    try:
        check = tomllib.loads(new_text).get("lichess", {})
    except tomllib.TOMLDecodeError:
        check = {}
    if not isinstance(check, dict) or check.get("token") != token:
        raise ConfigError(f"{config_path}: cannot add lichess.token automatically (the [lichess] settings are "
                          "written in a form this tool does not edit); add token = \"...\" under [lichess] by hand")
    config_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{config_path.name}.", dir=config_path.parent)
    try:
        os.fchmod(fd, 0o600)  # before a byte is written: nobody else may ever read it
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(new_text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, config_path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ConfigError(f"{config_path}: cannot write the token ({exc.strerror or 'error'})") from None


def check_private(config_path: Path) -> str | None:
    """A warning when the file holding the token can be read by others (it should be 0600)."""
    try:
        mode = config_path.stat().st_mode & 0o777
    except OSError:
        return None
    if mode & 0o077:
        return f"{config_path} holds the Lichess token but has mode {mode:04o}; run chmod 600 {config_path}"
    return None


class Redactor(logging.Filter):
    """Replaces the token in every record it sees (installed on the root logger's handlers)."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.token:
            return True
        message = record.getMessage()
        if self.token in message:
            record.msg, record.args = message.replace(self.token, HIDDEN), None
        if record.exc_info and record.exc_info[1] is not None and self.token in str(record.exc_info[1]):
            record.exc_info, record.exc_text = None, None
            record.msg = f"{record.msg} (details hidden: they held the token)"
        return True

    def redact(self, text: str) -> str:
        return text.replace(self.token, HIDDEN) if self.token else text

    def install(self) -> None:
        """On every handler of the root logger (and the root logger itself, for new handlers)."""
        root = logging.getLogger()
        root.addFilter(self)
        for handler in root.handlers:
            handler.addFilter(self)
