"""Follow an event's boards through an MQTT broker and serve them live over HTTP (docs/broadcast.md).

``boardctl relay mqtt://BROKER[:PORT]/EVENT`` serves the multi-game PGN that broadcast tools
poll (``/games.pgn``), a page with every board and the arbiter's panel (``/``), and JSON
(``/api/boards``, ``/api/boards/NAME``, ``/api/arbiter``, the page's stream ``/api/stream``).
It keeps no state of its own: started at any time, or twice on two machines, it shows the same
games, from the broker's retained messages and what the boards publish.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
from pathlib import Path
from typing import Any

from boardctl.broadcast.pairings import Pairing, read_pairings
from boardctl.broadcast.relay import Relay
from boardctl.broadcast.relay_server import _board_list, acl_text, serve
from boardctl.broadcast.schema import BroadcastError, parse_address

log = logging.getLogger(__name__)


def add_parser(sub: Any) -> None:
    from boardctl.cli import describe

    parser: argparse.ArgumentParser = sub.add_parser("relay", help="serve an event's boards live from an MQTT broker",
                                                     description=describe(__doc__))
    parser.add_argument("address", help="the broker and the event: mqtt://[USER[:PASSWORD]@]BROKER[:PORT]/EVENT "
                        "(mqtts:// for TLS, ?ca=FILE for its certificate authority)")
    parser.add_argument("--http", type=int, default=8090, metavar="PORT", help="HTTP port of the page and the PGN. "
                        "Default: 8090.")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP address; 0.0.0.0 for the hall's screens. "
                        "Default: 127.0.0.1.")
    parser.add_argument("--pairings", type=Path, metavar="FILE", help="who plays on which board: a .csv "
                        "(board,white,black[,round]), a FIDE .trf file or a boardctl tournament's .json. "
                        "Default: the names the boards send.")
    parser.add_argument("--round", dest="round_no", type=int, metavar="N", help="the round of a .trf file, and "
                        "the PGN's Round. Default: the last paired round.")
    parser.add_argument("--silent-after", type=float, default=20.0, metavar="SECONDS",
                        help="a board not heard for this long is listed as not reporting. Default: 20.")
    parser.add_argument("--flag-warning", type=float, default=30.0, metavar="SECONDS",
                        help="a running clock under this is listed as a flag about to fall. Default: 30.")
    parser.add_argument("--write-acl", type=Path, metavar="FILE", help="write a Mosquitto acl_file for the "
                        "boards (of --boards or --pairings) and exit. Default: serve the event")
    parser.add_argument("--boards", metavar="LIST", help="the boards of --write-acl, e.g. 1-40 or a,b,c. Default: those of --pairings")
    parser.add_argument("--lichess-round", metavar="ID", action="append", help="also push the games to this Lichess "
                        "broadcast round (its owner's token, scope study:write, as lichess.token in the config file); "
                        "again for more rounds, 64 games each. Default: no push.")
    parser.add_argument("--lichess-url", metavar="URL", help="The Lichess server. Default: https://lichess.org "
                        "(config lichess.url).")
    parser.add_argument("--name", default=socket.gethostname(), help="this relay's name: each relay keeps its "
                        "own session on the broker. Default: the host name.")


def run(args: argparse.Namespace) -> int:
    address = parse_address(args.address, board=False)
    pairings: dict[str, Pairing] = read_pairings(args.pairings, round_no=args.round_no) if args.pairings else {}
    if args.write_acl is not None:
        boards = _board_list(args.boards) if args.boards else [p.board for p in pairings.values()]
        if not boards:
            raise BroadcastError("--write-acl: name the boards with --boards 1-40 or --pairings FILE")
        args.write_acl.write_text(acl_text(address.event, boards), encoding="utf-8")
        log.warning("wrote %s: %d boards of event %s", args.write_acl, len(boards), address.event)
        return 0
    relay = Relay(address.event, pairings=pairings, round_name=str(args.round_no or ""),
                  silent_after=args.silent_after, flag_warning=args.flag_warning)
    lichess = _lichess(args)
    return asyncio.run(serve(relay, address, host=args.host, port=args.http, name=f"{args.name}-{args.http}",
                             lichess=lichess))


def _lichess(args: argparse.Namespace) -> dict[str, Any] | None:
    """The Lichess round, server and token of ``--lichess-round`` (None: no push)."""
    if not args.lichess_round:
        return None
    import re

    from boardctl import config as config_mod
    from boardctl.errors import ConfigError

    for round_id in args.lichess_round:
        if not re.fullmatch(r"[A-Za-z0-9]{4,20}", round_id):
            raise ConfigError(f"--lichess-round: not a Lichess round id: {round_id[:40]!r}")
    cfg = config_mod.load({})
    if not cfg.lichess_token:
        raise ConfigError("--lichess-round: no Lichess token; store one with scope study:write as lichess.token "
                          "(boardctl online --set-token, docs/broadcast.md)")
    return {"round": args.lichess_round, "url": args.lichess_url or cfg.lichess_url, "token": cfg.lichess_token}


