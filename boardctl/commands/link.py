"""``boardctl link``: the board speaks the Millennium ChessLink protocol to other apps (docs/chesslink.md).

The board records the game the hands make, as ``boardctl record`` does, and answers the app
from it: the pieces as they stand (a lifted piece absent, the sequence of a move as the hands
make it), the app's LEDs on the board. Transports: ``serial`` (a USB gadget serial port, any
pyserial URL), ``tcp`` (apps on the LAN, ``socket://HOST:PORT``) and ``ble`` (the Millennium
boards' BLE service; the ``ble`` extra). Xiangqi has no such protocol.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from boardctl.chesslink.appmode import DEFAULT_SERIAL_PORT, TRANSPORTS, attach, open_transport
from boardctl.chesslink.transports import DEFAULT_TCP_PORT
from boardctl.commands import options, root
from boardctl.errors import ConfigError
from boardctl.variants import get_variant

if TYPE_CHECKING:
    from boardctl.daemon import Daemon


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("link", help="be a Millennium ChessLink board for other chess apps",
                            description=describe(__doc__), conflict_handler="resolve")
    options.add_arguments(parser, mode="record")
    group = parser.add_argument_group("link")
    group.add_argument("--transport", choices=TRANSPORTS, default=None,
                       help="How the app reaches the board. Default: tcp (config link.transport when not off).")
    group.add_argument("--port", dest="link_port", metavar="PORT",
                       help="Where the app connects: the serial port or pyserial URL, or the TCP port "
                       f"(0: any free one). Default: {DEFAULT_SERIAL_PORT} (serial), {DEFAULT_TCP_PORT} (tcp) "
                       "(config link.port).")
    group.add_argument("--link-host", default=None, metavar="ADDRESS",
                       help="tcp: the address to listen on. Default: 0.0.0.0, the LAN (config link.host).")
    group.add_argument("--web-port", dest="port", type=int, default=None, metavar="PORT",
                       help="Port of the web page (0: any free port). Default: 8080 (config web.port).")


class LinkPlug(root.Plug):
    """The ChessLink face on the daemon, served on the transport opened before the game."""

    def __init__(self, transport: str, opened: Any) -> None:
        self.transport = transport
        self.opened = opened

    async def attach(self, daemon: Daemon, run: root.Run) -> None:
        run.stack.push_async_callback(attach(self.transport, self.opened)(daemon, run.stop))


def run(args: argparse.Namespace) -> int:
    cfg = options.config_from_args(args)
    if not get_variant(cfg.game_variant).capabilities.has_app_link:
        raise ConfigError(f"link: no app protocol exists for {cfg.game_variant} boards; "
                          "ChessLink (Millennium) is a chess protocol, so link serves chess only")
    checked = options.options_from_args(args, mode="record", cfg=cfg)
    transport = args.transport or (cfg.link_transport if cfg.link_transport != "off" else "tcp")
    opened = open_transport(transport, args.link_port or cfg.link_port or None, args.link_host or cfg.link_host)
    try:
        return root.run(checked, LinkPlug(transport, opened))
    finally:
        if opened is not None:
            opened.close()
