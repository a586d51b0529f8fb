"""One root exception; each subclass is also the builtin that fits, so callers may catch either."""

from __future__ import annotations


class BoardctlError(Exception):
    """Root of every error boardctl raises on purpose."""


class EventFormatError(BoardctlError, ValueError):
    """An event line (file, stdio, serial, web) is malformed. The message names where."""


class ConfigError(BoardctlError, ValueError):
    """A bad value in the config file or on the command line. The message names the key."""


class ProtocolError(BoardctlError, ValueError):
    """A line from the microcontroller failed its checksum or grammar."""


class HardwareError(BoardctlError, OSError):
    """A device could not be opened or stopped answering."""


class EngineError(BoardctlError, RuntimeError):
    """The UCI engine failed in a way a restart did not fix."""


class GameFileError(BoardctlError, OSError):
    """A saved game or state file cannot be read back."""


class PositionError(BoardctlError, ValueError):
    """A FEN that cannot be read, or that describes an impossible position. The message names the fault."""


class TimerError(BoardctlError, RuntimeError):
    """The game's timer (settle windows, clocks) failed; the game was saved and the run ends."""


class PinError(BoardctlError, PermissionError):
    """A state-changing request came from a LAN client without the right PIN."""
