"""The ticket files: mode 0600, written whole, a damaged one ignored; codes readable, tokens long."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from boardctl.network.tokens import (
    CODE_ALPHABET,
    CODE_LENGTH,
    Ticket,
    TicketStore,
    new_code,
    new_token,
    same_secret,
)


def test_a_ticket_round_trips_with_mode_0600(tmp_path: Path) -> None:
    store = TicketStore(tmp_path / "games")
    ticket = Ticket("join", "20260101-000000-000001", token=new_token(), address="ws://h:1/net", color="black")
    os.umask(0o022)
    store.save(ticket)
    assert store.load("join") == ticket
    assert stat.S_IMODE(os.stat(store.path("join")).st_mode) == 0o600
    assert store.load("host") is None
    used = Ticket("host", "g", code=new_code()).with_token("t" * 20)
    assert used.code is None and used.token == "t" * 20
    store.forget("join")
    assert store.load("join") is None


@pytest.mark.parametrize("text", ["", "{", "[]", '{"role": "host"}', '{"role": "join", "game": "g"}', '{"role": 1, "game": 2}'])
def test_a_damaged_ticket_is_ignored(tmp_path: Path, text: str) -> None:
    store = TicketStore(tmp_path)
    store.path("host").write_text(text)
    assert store.load("host") is None


def test_codes_and_tokens() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    assert len(new_token()) >= 40
    assert same_secret("ABC", "ABC") and not same_secret("ABC", "ABD")
    assert not same_secret(None, "ABC") and not same_secret("ABC", None) and not same_secret(None, None)
