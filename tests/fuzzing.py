"""Example counts for fuzz tests: small in ``make test``, many times more under ``make fuzz``."""

from __future__ import annotations

import os

#: ``make fuzz`` sets HYPOTHESIS_PROFILE=fuzz; explicit example counts grow by this factor.
SCALE = 30 if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz" else 1


def examples(n: int) -> int:
    """``n`` examples in ``make test``, ``n * SCALE`` under ``make fuzz``."""
    return n * SCALE
