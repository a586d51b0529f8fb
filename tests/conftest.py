"""Hypothesis profiles: ``default`` keeps ``make test`` bounded; ``fuzz`` (``make fuzz``) runs the
same property tests, and those marked ``fuzz``, for many more examples."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "fuzz", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fuzz: a fuzz test of a parser; `make fuzz` runs these longer")
