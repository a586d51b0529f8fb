"""JSON from outside (event lines, stdio, web actions) decoded within fixed limits.

``json.loads`` alone lets one line cost a traceback or a lot of time: a 401-digit number is an
``OverflowError`` once made a float, a 4,301-digit one a ``ValueError`` from Python's int limit,
and nesting about 1,000 deep a ``RecursionError``. :func:`loads` refuses all of these, and
anything longer than ``max_bytes``, with one :class:`JsonInputError` saying what was refused;
callers put the place (``stdin:12``, ``game.jsonl:7``, ``message``) in front.

Limits (far above anything boardctl itself writes or reads):

- a document of at most :data:`MAX_LINE_BYTES` bytes (64 KiB);
- arrays and objects nested at most :data:`MAX_DEPTH` deep;
- a number literal of at most :data:`MAX_NUMBER_CHARS` characters;
- no ``NaN``/``Infinity``, which are not JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any

from boardctl.errors import BoardctlError

MAX_LINE_BYTES = 64 * 1024
MAX_DEPTH = 32
MAX_NUMBER_CHARS = 100

# A string (possibly unterminated, unrolled so a long string is one fast match) or a bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


class JsonInputError(BoardctlError, ValueError):
    """A JSON document was refused; the message says why, without the place (the caller adds it)."""


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for echoing input back in a message."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's digit limit cannot even be printed
        return f"<{type(value).__name__} too large to show>"
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _check_number(text: str) -> None:
    if len(text) > MAX_NUMBER_CHARS:
        raise JsonInputError(f"number too long ({len(text)} characters, at most {MAX_NUMBER_CHARS})")


def _parse_int(text: str) -> int:
    _check_number(text)
    return int(text)


def _parse_float(text: str) -> float:
    _check_number(text)
    return float(text)


def _parse_constant(name: str) -> Any:
    raise JsonInputError(f"{name} is not a JSON number")


def nesting_depth(text: str, *, limit: int = MAX_DEPTH) -> int:
    """How deep arrays and objects nest in ``text`` (brackets inside strings do not count);
    stops counting once past ``limit``, so the answer is at most ``limit + 1``."""
    if text.count("[") + text.count("{") <= limit:
        return min(text.count("[") + text.count("{"), limit)  # cannot be deeper than this
    depth = deepest = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif token in "]}":
            depth = max(0, depth - 1)
    return deepest


def loads(data: str | bytes, *, max_bytes: int = MAX_LINE_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """Decode one JSON document within the limits above, or raise :class:`JsonInputError`."""
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise JsonInputError(f"larger than {max_bytes} bytes ({size} bytes)")
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonInputError(
                f"not UTF-8 text (byte 0x{data[exc.start]:02x} at position {exc.start})"
            ) from None
    else:
        text = data
    if nesting_depth(text, limit=max_depth) > max_depth:
        raise JsonInputError(f"nested more than {max_depth} deep")
    try:
        return json.loads(
            text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
        )
    except json.JSONDecodeError as exc:
        raise JsonInputError(f"not valid JSON ({exc})") from None
    except RecursionError:  # not reachable within MAX_DEPTH; kept so no input can escape as one
        raise JsonInputError(f"nested more than {max_depth} deep") from None
