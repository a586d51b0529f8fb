"""boardctl demo (make demo): play the engine on the simulated board.

It is boardctl play --board sim with both faces of the sim: the web page (opened in a browser
where there is a desktop; its address is printed either way, port 8080 unless that is taken) and
the terminal view, where you type moves (e2e4, Nf3, O-O) and buttons (!hint, !takeback). The
engine thinks half a second per move. Demo games are saved in their own folder
($XDG_DATA_HOME/boardctl/demo-games), so boardctl play never resumes one; boardctl games list
--demo lists them. An unfinished demo game is resumed by the next demo (boardctl demo --new
starts afresh).

The page reaches every capability: Opponents (a game against a character), the Tournament
panel, Lessons and Replay (step through a PGN), the coach at the practice levels (New game,
level practice1-5), and "Invite a friend": the demo then hosts a network game for a friend's
board (boardctl join ADDRESS --code CODE) or phone (the link shown); "App mode" lets a chess app
that speaks Millennium ChessLink follow the board (TCP port 37000). The page listens on this
machine only unless started with --host 0.0.0.0 (then with the PIN). --speech speaks the moves.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import socket
from pathlib import Path

from boardctl.commands import options, root
from boardctl.commands.games import demo_games_dir

#: The documented default port of the page (``web.port``).
DEFAULT_PORT = 8080

#: The defaults the demo sets itself (:func:`run`), as its ``--help`` says them.
SHOWN_DEFAULTS = {
    "board.backend": "sim (the demo's board)",
    "engine.movetime": "0.5 in the demo",
    "storage.games_dir": "$XDG_DATA_HOME/boardctl/demo-games",
    "web.port": f"{DEFAULT_PORT}, or any free port if {DEFAULT_PORT} is taken",
}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("demo", help="play the engine on the simulated board", description=describe(__doc__))
    options.add_arguments(parser, mode="demo", shown_defaults=SHOWN_DEFAULTS)


def is_port_free(host: str, port: int) -> bool:
    """Whether ``port`` on ``host`` can be listened on now (the page then gets the documented port)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return False
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        with contextlib.suppress(OSError):
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            return exc.errno not in (errno.EADDRINUSE, errno.EACCES)
    return True


def run(args: argparse.Namespace) -> int:
    given = args.games_dir
    args.board = args.board or "sim"
    args.movetime = args.movetime if args.movetime is not None else 0.5
    args.games_dir = args.games_dir or str(demo_games_dir())
    if args.port is None:
        # web.port from the config file is honoured as play and learn honour it; only the
        # documented default gives way to a free port when it is taken.
        cfg = options.config_from_args(args)
        if cfg.web_port == DEFAULT_PORT:
            args.port = DEFAULT_PORT if is_port_free(cfg.web_host, DEFAULT_PORT) else 0
    return root.run(options.options_from_args(
        args, mode="play", open_browser=True, show_games_dir=True,
        games_dir_given=bool(given) and Path(given) != demo_games_dir()))
