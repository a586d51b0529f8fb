"""The MQTT client of the boards and the relay: paho-mqtt, its network loop in its own thread.

paho reconnects by itself (after 1 s, then up to :data:`RECONNECT_MAX` s apart), keeps a
persistent session (``clean_session=False``: the broker queues QoS 1 messages for a relay that
is away) and sends QoS 1 messages again until the broker acknowledges them. Its callbacks run on
its thread; callers hand what they need to their event loop themselves.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from boardctl.broadcast.schema import BrokerAddress

log = logging.getLogger(__name__)

#: Seconds between reconnection attempts, at most (a board back on the Wi-Fi publishes within this).
RECONNECT_MAX = 2
#: Seconds of silence after which the broker (and the client) take the link as dead.
KEEPALIVE = 10


def make_client(address: BrokerAddress, client_id: str, *, on_connect: Callable[[], None] | None = None,
                on_disconnect: Callable[[], None] | None = None,
                on_message: Callable[[str, bytes, bool], None] | None = None,
                on_publish: Callable[[int], None] | None = None,
                will: tuple[str, bytes] | None = None) -> paho.Client:
    """A client for ``address`` (not yet connected: call :func:`start`). ``on_message`` gets
    ``(topic, payload, retained)``, ``on_publish`` the id of each message the broker
    acknowledged; ``will``: a retained last-will ``(topic, payload)``."""
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False,
                         protocol=paho.MQTTv311)
    if address.username:
        client.username_pw_set(address.username, address.password)
    if address.tls:
        client.tls_set(ca_certs=address.ca_file)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.suppress_exceptions = True  # a failing callback is logged; the network thread goes on
    client.reconnect_delay_set(min_delay=1, max_delay=RECONNECT_MAX)
    client.max_inflight_messages_set(200)
    client.max_queued_messages_set(0)

    def connected(_c: Any, _u: Any, _flags: Any, reason: Any, _p: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("broker %s refused the connection: %s", address, reason)
            return
        log.info("connected to %s", address)
        if on_connect is not None:
            on_connect()

    def disconnected(_c: Any, _u: Any, _flags: Any, reason: Any, _p: Any = None) -> None:
        log.info("disconnected from %s (%s)", address, reason)
        if on_disconnect is not None:
            on_disconnect()

    def message(_c: Any, _u: Any, msg: paho.MQTTMessage) -> None:
        if on_message is not None:
            on_message(msg.topic, bytes(msg.payload), bool(msg.retain))

    def published(_c: Any, _u: Any, mid: int, _reason: Any = None, _p: Any = None) -> None:
        if on_publish is not None:
            on_publish(mid)

    client.on_connect = connected
    client.on_publish = published
    client.on_disconnect = disconnected
    client.on_message = message
    return client


def start(client: paho.Client, address: BrokerAddress) -> None:
    """Connect in the background and keep reconnecting until :func:`stop`."""
    client.connect_async(address.host, address.port, keepalive=KEEPALIVE)
    client.loop_start()


def stop(client: paho.Client) -> None:
    """Disconnect cleanly (no last will) and end the network thread; safe to call twice."""
    try:
        client.disconnect()
    finally:
        client.loop_stop()
