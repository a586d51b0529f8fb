"""The Lichess stand-in that the online daemon tests play against, one per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.online.driver import TOKEN
from tests.online.standin import StandIn


@pytest.fixture
def standin() -> Iterator[StandIn]:
    server = StandIn(token=TOKEN, reply_delay=0.1, accept_delay=0.2, keepalive=1.0)
    server.start_in_thread()
    yield server
    server.stop_thread()
