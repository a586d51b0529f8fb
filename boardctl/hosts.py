"""Where a server is reachable: loopback only, or this machine's address on the LAN. Below every
face, so the page, the two-board link and the ChessLink TCP server decide it the same way."""

from __future__ import annotations

import contextlib
import ipaddress
import socket


def is_loopback_host(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine only.

    Only loopback literals, and names whose every address is loopback, count; ``""``, ``0.0.0.0``,
    ``::``, LAN addresses and names that do not resolve are not loopback (LAN mode).
    """
    name = host.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if not name:
        return False
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    addresses = {info[4][0] for info in infos}
    try:
        return bool(addresses) and all(ipaddress.ip_address(str(a).split("%", 1)[0]).is_loopback for a in addresses)
    except ValueError:
        return False


def lan_address() -> str:
    """This machine's address on the LAN (the route out), else 127.0.0.1."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.255.255.255", 1))
        return str(probe.getsockname()[0])
    return "127.0.0.1"
