"""A broker set up as docs/broadcast.md says: TLS, a password per board, the relay's ACL file.

A board reaches the relay over TLS with its own credentials; the same credentials cannot write
another board's topic (the broker drops it), and a wrong password gets nothing in.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

import pytest

from bench.mqtt_rig import Broker, mosquitto_path
from boardctl.broadcast import mqtt
from boardctl.broadcast.relay import Relay
from boardctl.broadcast.relay_server import RelayLink, acl_text
from boardctl.broadcast.schema import parse_address
from tests.broadcast.support import EVENT, payload, record, snapshot

pytestmark = [pytest.mark.slow, pytest.mark.skipif(mosquitto_path() is None, reason="mosquitto not installed")]


def _secured_broker(folder: Path) -> Broker:
    folder.mkdir(parents=True)
    cert, key = folder / "hall.crt", folder / "hall.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    passwd = folder / "passwd"
    for index, (user, secret) in enumerate([("relay", "relay-pw"), ("board-7", "seven-pw"), ("board-8", "eight-pw")]):
        subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if index == 0 else []), str(passwd), user, secret],
                       check=True, capture_output=True)
    acl = folder / "acl"
    acl.write_text(acl_text(EVENT, ["7", "8"]), encoding="utf-8")
    return Broker(folder / "broker", listener=f"certfile {cert}\nkeyfile {key}", anonymous=False,
                  extra=f"password_file {passwd}\nacl_file {acl}\n")


def test_tls_credentials_and_the_acl(tmp_path: Path) -> None:
    with _secured_broker(tmp_path / "tls") as broker:
        ca = tmp_path / "tls" / "hall.crt"
        base = f"mqtts://{{who}}@127.0.0.1:{broker.port}/{EVENT}"

        async def scenario() -> None:
            relay = Relay(EVENT)
            link = RelayLink(relay, parse_address(base.format(who="relay:relay-pw") + f"?ca={ca}", board=False),
                             name="tls")
            link.start()
            clients = []
            for who, board, target in [("board-7:seven-pw", "7", "7"),     # its own topic: through
                                       ("board-7:seven-pw", "7x", "8"),    # board 8's topic: dropped by the ACL
                                       ("board-8:wrong", "8y", "8")]:      # a wrong password: not let in
                address = parse_address(base.format(who=who) + f"/{board}?ca={ca}", board=True)
                client = mqtt.make_client(address, f"test-{board}")
                mqtt.start(client, address)
                clients.append((client, target))
            await asyncio.sleep(2.0)
            for n, (client, target) in enumerate(clients):
                rec = record(["e2e4", "e7e5"][: n + 1])
                client.publish(f"boardctl/{EVENT}/{target}/game", payload(snapshot(rec, seq=1, board=target)), qos=1)
            deadline = time.monotonic() + 10
            while "7" not in relay.boards and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.5)  # room for anything that should not arrive
            for client, _ in clients:
                mqtt.stop(client)
            await link.close()
            snap = relay.boards["7"].snapshot
            assert snap is not None and snap.moves == ("e2e4",)
            assert "8" not in relay.boards  # neither board 7's forgery nor the wrong password reached it

        asyncio.run(scenario())
        log = (tmp_path / "tls" / "broker" / "mosquitto.log").read_text(encoding="utf-8")
        assert "not authorised" in log  # the wrong password


def test_the_acl_file_is_what_mosquitto_reads(tmp_path: Path) -> None:
    """mosquitto starts with the generated ACL and password files (it refuses a file it cannot read)."""
    broker = _secured_broker(tmp_path / "acl")
    broker.start()
    broker.stop()
    log = (tmp_path / "acl" / "broker" / "mosquitto.log").read_text(encoding="utf-8")
    assert "Error" not in log, log
