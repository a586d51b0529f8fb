"""Broker addresses and topics: what a board's --broadcast and the relay accept."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.broadcast.schema import BroadcastError, parse_address, parse_topic, redacted
from boardctl.config import ConfigError, load

GOOD = [
    ("mqtt://broker/club/7", True, ("broker", 1883, "club", "7", False, None)),
    ("mqtt://10.0.0.2:1884/open-2026/b12", True, ("10.0.0.2", 1884, "open-2026", "b12", False, None)),
    ("mqtts://board-7:s3cret@hall.example/club/7", True, ("hall.example", 8883, "club", "7", True, "board-7")),
    ("mqtts://hall.example:9883/club/7?ca=/etc/ssl/club.pem", True, ("hall.example", 9883, "club", "7", True, None)),
    ("mqtt://broker/club", False, ("broker", 1883, "club", None, False, None)),
]


@pytest.mark.parametrize(("text", "board", "want"), GOOD)
def test_good_addresses(text: str, board: bool, want: tuple[object, ...]) -> None:
    address = parse_address(text, board=board)
    assert (address.host, address.port, address.event, address.board, address.tls, address.username) == want


def test_the_password_never_shows() -> None:
    address = parse_address("mqtt://board-7:s3cret@broker/club/7", board=True)
    assert address.password == "s3cret"
    assert "s3cret" not in str(address) and "s3cret" not in repr(address)
    for bad in ("http://board-7:s3cret@broker/club/7", "mqtt://board-7:s3cret@broker/club"):
        with pytest.raises(BroadcastError) as info:
            parse_address(bad, board=True)
        assert "s3cret" not in str(info.value)
    assert redacted("mqtt://board-7:s3cret@broker/club/7") == "mqtt://board-7:***@broker/club/7"
    cfg = load({"broadcast.url": "mqtt://board-7:s3cret@broker/club/7"}, files=[])
    assert "s3cret" not in repr(cfg)
    with pytest.raises(ConfigError) as bad_key:
        load({"broadcast.url": "mqtt://board-7:s3cret@broker/club"}, files=[])
    assert "s3cret" not in str(bad_key.value)


BAD = [
    ("http://broker/club/7", True, "must look like"),
    ("mqtt:///club/7", True, "must look like"),
    ("mqtt://broker/club", True, "must look like"),
    ("mqtt://broker/club/7/extra", True, "must look like"),
    ("mqtt://broker/club/7", False, "must look like"),
    ("mqtt://broker/club/+", True, "is not a name"),
    ("mqtt://broker/cl#ub/7", True, "must look like"),
    ("mqtt://broker:99999/club/7", True, "port"),
    ("mqtt://broker/club/7?password=x", True, "unknown option"),
    ("mqtt://bro ker/club/7", True, "must look like"),
    ("", True, "must look like"),
]


@pytest.mark.parametrize(("text", "board", "said"), BAD)
def test_bad_addresses(text: str, board: bool, said: str) -> None:
    with pytest.raises(BroadcastError, match=said):
        parse_address(text, board=board)


def test_the_config_key_is_checked_when_read() -> None:
    assert load({"broadcast.url": "mqtt://broker/club/7"}, files=[]).broadcast_url == "mqtt://broker/club/7"
    with pytest.raises(ConfigError, match=r"broadcast\.url"):
        load({"broadcast.url": "mqtt://broker/club"}, files=[])


@pytest.mark.parametrize(("topic", "ok"), [
    ("boardctl/club/7/game", True), ("boardctl/club/7/status", True), ("boardctl/club/7/other", False),
    ("boardctl/club/7", False), ("boardctl/other/7/game", False), ("x/club/7/game", False),
    ("boardctl/club/+/game", False), ("boardctl/club//game", False), ("boardctl/club/7/game/x", False),
])
def test_topics(topic: str, ok: bool) -> None:
    if ok:
        assert parse_topic(topic, "club")[0] == "7"
    else:
        with pytest.raises(BroadcastError):
            parse_topic(topic, "club")


@given(st.text(max_size=80))
def test_any_text_is_an_address_or_one_error(text: str) -> None:
    try:
        address = parse_address(text, board=True)
    except BroadcastError:
        return
    if address.password is None and address.ca_file is None:  # what a log shows reads back as the same address
        assert parse_address(str(address), board=True) == address
