"""The playing levels, for the engine's modules: the table itself is ``boardctl/levels.py``, one
home for the daemon and the engine alike (the daemon's side imports nothing from ``engine/``)."""

from __future__ import annotations

from boardctl.levels import *  # noqa: F403
from boardctl.levels import __all__ as __all__
