"""``boardctl pin``: show the PIN a LAN client needs for the web page (creates it on first use)."""

from __future__ import annotations

import argparse
from pathlib import Path

from boardctl.web.pin import default_config_path, generate_pin, load_or_create_pin, store_pin


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "pin",
        help="show the PIN a LAN client needs for the web page (creates it on first use)",
        description="Show the PIN that phones and laptops on the LAN need to change anything on the web page.",
    )
    parser.add_argument("--config", type=Path, default=None,
                        help="The config file that holds web.pin. Default: $XDG_CONFIG_HOME/boardctl/config.toml.")
    parser.add_argument("--new", action="store_true",
                        help="Replace the PIN with a fresh random one. Default: show the current PIN.")


def run(args: argparse.Namespace) -> int:
    path: Path = args.config or default_config_path()
    if args.new:
        pin = generate_pin()
        store_pin(path, pin)
    else:
        pin = load_or_create_pin(path)
    print(pin)
    return 0
