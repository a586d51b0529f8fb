"""Whole-file JSON state that survives a power cut: temporary file, fsync, rename, fsync of the folder.

The learning state (lesson progress, rating, tournaments) is small, so it is rewritten whole
after every change; a crash at any moment leaves either the old file or the new one.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from boardctl import storage
from boardctl.errors import BoardctlError, GameFileError

#: A state file larger than this is refused rather than read (they are a few kilobytes).
MAX_BYTES = 4 * 1024 * 1024


class StateFileError(GameFileError):
    """A learning state file cannot be read back; the message names the file and the fault."""


def write_atomically(path: Path, text: str) -> None:
    """The game store's atomic write, after making the folder (learning state may be the first file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    storage.write_atomically(path, text)


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON, written atomically."""
    write_atomically(path, json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n")


def read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, or None when there is no such file; StateFileError names the fault."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise StateFileError(f"{path}: larger than {MAX_BYTES} bytes, not a state file")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise StateFileError(f"{path}: not valid JSON: {str(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise StateFileError(f"{path}: expected a JSON object, not {type(data).__name__}")
    return data


class FieldError(BoardctlError, ValueError):
    """A JSON field of the wrong kind; raised by :func:`field` and turned into StateFileError."""


def field(data: Any, key: str, kind: type | tuple[type, ...], *, where: str) -> Any:
    """``data[key]`` checked to be ``kind`` (bool is never an int here); FieldError names it."""
    if not isinstance(data, dict):
        raise FieldError(f"{where}: expected an object")
    if key not in data:
        raise FieldError(f"{where}: missing {key!r}")
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise FieldError(f"{where}.{key}: expected {'/'.join(k.__name__ for k in kinds)}, got bool")
    if not isinstance(value, kinds):
        raise FieldError(
            f"{where}.{key}: expected {'/'.join(k.__name__ for k in kinds)}, got {type(value).__name__}"
        )
    return value


def number(data: Any, key: str, *, where: str) -> float:
    """``data[key]`` as a finite float (a JSON int or float); FieldError otherwise."""
    value = field(data, key, (int, float), where=where)
    try:
        result = float(value)
    except OverflowError:
        raise FieldError(f"{where}.{key}: too large") from None
    if not math.isfinite(result):
        raise FieldError(f"{where}.{key}: not a finite number")
    return result
