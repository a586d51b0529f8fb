"""Playing on Lichess from the board (``boardctl online``, docs/online.md).

The parts, one per module: :mod:`~boardctl.online.protocol` reads what Lichess sends (pure),
:mod:`~boardctl.online.token` keeps the token (config file, mode 0600, never logged),
:mod:`~boardctl.online.client` speaks to Lichess through ``berserk`` (429 back-off, streams in
threads), :mod:`~boardctl.online.sync` compares the server's move list with the board's (pure),
:mod:`~boardctl.online.game` runs one game through the daemon. The tests play against a local
stand-in of the Lichess endpoints used (``tests/online/standin.py``, not in the package).
"""

from __future__ import annotations

from boardctl.errors import BoardctlError


class OnlineError(BoardctlError, RuntimeError):
    """Lichess could not be reached or refused a request; the message says which and why."""


class PayloadError(OnlineError, ValueError):
    """Lichess (or something pretending to be it) sent a line we do not accept; names the line."""
