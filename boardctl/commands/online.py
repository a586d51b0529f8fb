"""``boardctl online``: play a game on Lichess from the board (docs/online.md).

Seek a game (``--seek 10+5``), challenge someone (``--challenge NAME``), accept a challenge
(``--accept`` or ``--accept ID``), or, with none of these, take up the game going on in your
account (one started from the Lichess site or app, or an earlier run of this command). The
opponent's moves are lit on the board to be made by hand; yours are sent when they are complete.
The token (scope ``board:play``) comes from ``lichess.token`` in the config file:
``boardctl online --set-token`` stores it there (mode 0600).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import logging
import sys
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl import config as config_mod
from boardctl.clock import TimeControl
from boardctl.commands import options, root
from boardctl.errors import ConfigError
from boardctl.online import OnlineError
from boardctl.online.client import RATE_LIMIT_WAIT, LichessClient, StreamDropped
from boardctl.online.game import OnlineGame
from boardctl.online.protocol import (
    Challenge,
    ChallengeGone,
    GameFull,
    GameLine,
    GameStart,
    is_username,
)
from boardctl.online.token import Redactor, check_private, check_token, store_token
from boardctl.session import Session, Settings
from boardctl.tracker import Policy
from boardctl.variants import get_variant

if TYPE_CHECKING:
    from boardctl.daemon import Daemon

log = logging.getLogger(__name__)


def _clock(value: str) -> tuple[float, int]:
    control = TimeControl.from_string(value) if value else None
    if control is None or not 0 < control.initial <= 180 * 60 or not 0 <= control.increment <= 180:
        raise argparse.ArgumentTypeError(f"expected minutes+increment like 10+5 (at most 180+180), got {value!r}")
    return control.initial / 60, int(control.increment)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("online", help="play on Lichess from the board", description=describe(__doc__))
    options.add_arguments(parser, mode="record")
    group = parser.add_argument_group("lichess")
    how = group.add_mutually_exclusive_group()
    how.add_argument("--seek", type=_clock, metavar="MIN+INC",
                     help="Seek a game against anyone with this clock, e.g. 10+5. Default: no seek.")
    how.add_argument("--challenge", metavar="USER", help="Challenge this Lichess user (clock from --clock). Default: no challenge.")
    how.add_argument("--accept", nargs="?", const="any", metavar="ID",
                     help="Accept the challenge ID, or without ID the first challenge that comes in. Default: accept none.")
    how.add_argument("--set-token", action="store_true",
                     help="Read a Lichess token (scope board:play) from the terminal or stdin, store it as "
                     "lichess.token in the config file (mode 0600) and exit. Default: play.")
    group.add_argument("--clock", type=_clock, default=(10.0, 5), metavar="MIN+INC",
                       help="The clock of a --challenge. Default: 10+5.")
    rated = group.add_mutually_exclusive_group()
    rated.add_argument("--rated", dest="rated", action="store_true", default=False,
                       help="A rated game (seek or challenge). Default: casual.")
    rated.add_argument("--casual", dest="rated", action="store_false",
                       help="A casual game (seek or challenge). Default: casual.")
    group.add_argument("--color", choices=["white", "black", "random"], default="random",
                       help="Your colour in a seek or challenge. Default: random.")
    group.add_argument("--lichess-url", metavar="URL",
                       help="The Lichess server. Default: https://lichess.org (config lichess.url).")
    group.add_argument("--rate-limit-wait", type=float, default=RATE_LIMIT_WAIT, help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    if args.fen or args.time_control:
        raise ConfigError("--fen/--time-control: an online game's position and clock come from Lichess")
    if args.challenge is not None and not is_username(args.challenge):
        raise ConfigError(f"--challenge: not a Lichess user name: {args.challenge[:40]!r}")
    if args.set_token:
        return _set_token(args)
    cfg = options.config_from_args(args)
    if not get_variant(cfg.game_variant).capabilities.is_online:
        raise ConfigError("--variant: Lichess games are played in chess only")
    token = cfg.lichess_token
    if not token:
        raise ConfigError(f"no Lichess token: create one with scope board:play (docs/online.md) and store it with "
                          f"'boardctl online --set-token' (in {_config_path(args)})")
    Redactor(token).install()
    warning = check_private(_config_path(args))
    if warning:
        log.warning("%s", warning)
    checked = options.options_from_args(args, mode="record", cfg=cfg)
    seeking = Seeking(seek=args.seek, challenge=args.challenge, accept=args.accept, clock=args.clock,
                      rated=args.rated, color=args.color)
    return root.run(checked, LichessPlug(token, seeking, url=args.lichess_url or cfg.lichess_url,
                                         rate_limit_wait=args.rate_limit_wait))


@dataclass(frozen=True)
class Seeking:
    """How the game is found: a seek, a challenge, a challenge accepted, or the game going on."""

    seek: tuple[float, int] | None = None
    challenge: str | None = None
    accept: str | None = None
    clock: tuple[float, int] = (10.0, 5)
    rated: bool = False
    color: str = "random"


def _config_path(args: argparse.Namespace) -> Path:
    return args.config if args.config is not None else config_mod.user_file()


def _set_token(args: argparse.Namespace) -> int:
    prompt = "Lichess token (scope board:play): "
    text = getpass.getpass(prompt) if sys.stdin.isatty() else sys.stdin.readline()
    token = check_token(text, where="the token given")
    path = _config_path(args)
    store_token(path, token)
    sys.stdout.write(f"token stored as lichess.token in {path} (mode 0600)\n")
    return 0


async def find_game(client: LichessClient, args: Seeking, stop: asyncio.Event) -> GameStart | None:
    """Follow the event stream until a game of ours starts, seeking, challenging or accepting
    on the way; None if stopped first. The event stream is opened first, as Lichess advises, and
    lists the games going on whenever it (re)opens, so a game started meanwhile is not missed."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[object] = asyncio.Queue()

    async def pump() -> None:
        wait = 0.5
        while True:
            try:
                async for event in client.events():
                    wait = 0.5
                    queue.put_nowait(event)
            except StreamDropped as exc:
                log.warning("%s; reconnecting in %g s", exc, wait)
            except OnlineError as exc:
                queue.put_nowait(exc)
                return
            await asyncio.sleep(wait)
            wait = min(wait * 2, 30.0)

    tasks: list[asyncio.Task[object]] = [loop.create_task(pump())]
    challenge_id: str | None = None
    try:
        await asyncio.sleep(0)  # the stream's request goes out first
        if args.seek is not None:
            minutes, increment = args.seek
            log.warning("seeking a %s game, %g+%d", "rated" if args.rated else "casual", minutes, increment)
            seek = loop.create_task(client.seek(rated=args.rated, minutes=minutes, increment=increment,
                                                color=args.color))
            def seek_failed(task: asyncio.Task[None]) -> None:
                if not task.cancelled() and task.exception() is not None:
                    queue.put_nowait(task.exception())

            seek.add_done_callback(seek_failed)
            tasks.append(seek)
        elif args.challenge is not None:
            minutes, increment = args.clock
            challenge_id = await client.challenge(args.challenge, rated=args.rated, minutes=minutes,
                                                  increment=increment, color=args.color)
            log.warning("challenged %s (challenge %s); waiting for an answer", args.challenge, challenge_id)
        stopper = loop.create_task(stop.wait())
        tasks.append(stopper)
        while True:
            getter = loop.create_task(queue.get())
            done, _ = await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                return None
            event = getter.result()
            if isinstance(event, BaseException):
                raise event
            if isinstance(event, GameStart) and (challenge_id is None or event.game_id == challenge_id):
                return event
            if isinstance(event, Challenge) and event.direction != "out" and args.accept in ("any", event.id):
                log.warning("accepting the challenge %s from %s", event.id, event.challenger)
                await client.accept_challenge(event.id)
            elif isinstance(event, ChallengeGone) and event.id == challenge_id:
                raise OnlineError(f"the challenge to {args.challenge} was "
                                  f"{'declined' if event.declined else 'cancelled'}")
    finally:
        for task in tasks:
            task.cancel()


async def first_full(client: LichessClient, game_id: str) -> tuple[GameFull, AsyncGenerator[GameLine, None]]:
    """The game's ``gameFull`` (its first line) and the stream it came on, to be followed on;
    tried again while the stream drops."""
    for attempt in range(10):
        stream = client.game(game_id)
        try:
            line = await anext(stream)
        except (StreamDropped, StopAsyncIteration):
            await stream.aclose()
            await asyncio.sleep(0.5 * (attempt + 1))
            continue
        if isinstance(line, GameFull):
            return line, stream
        await stream.aclose()
        break
    raise OnlineError(f"the game stream of {game_id} did not start with the game's data")


def resumed_record(store: Any, full: GameFull, *, color: str, names: dict[str, str], fen: str,
                   time_control: str, orientation: str) -> Any:
    """The record to take a game up with when the server has moves already (None: a new game).

    The board stands where it was left: the saved unfinished game of these two players whose
    moves the server's begin with is taken up (same files); else a record of the server's moves.
    Either way a last move of the opponent's is left out, to be lit and made by hand."""
    from boardctl.storage import GameRecord

    moves = list(full.state.moves)
    if not moves:
        return None
    first_is_white = full.initial_fen in ("startpos", "") or " w " in full.initial_fen
    last_is_white = ((len(moves) - 1) % 2 == 0) == first_is_white
    if last_is_white != (color == "white") and not full.state.is_over():
        moves.pop()  # the opponent's: lit by the first state, as if it came now
    saved = None
    with contextlib.suppress(OSError):
        saved = store.unfinished("network")
    if saved is None or (saved.white, saved.black) != (names["white"], names["black"]) or saved.fen != fen:
        saved = None
    elif len(saved.moves) == len(moves) + 1 and saved.moves[: len(moves)] == moves and not full.state.is_over():
        return saved  # our last move, made before the stop and never sent: it goes now
    if saved is not None and moves[: len(saved.moves)] == saved.moves:
        saved.moves, saved.clocks = moves, (saved.clocks + [None] * len(moves))[: len(moves)]
        saved.pending = None
        return saved
    return GameRecord(id=GameRecord.new_id(), mode="network", white=names["white"], black=names["black"], fen=fen,
                      moves=moves, clocks=[None] * len(moves), human=color, level=None,
                      orientation="normal" if orientation == "auto" else orientation, time_control=time_control)


class LichessPlug(root.Plug):
    """The game found on Lichess (or taken up), followed and answered by an :class:`OnlineGame`."""

    local = False
    terminal_view = False

    def __init__(self, token: str, seeking: Seeking, *, url: str, rate_limit_wait: float) -> None:
        self.token, self.url, self.rate_limit_wait = token, url, rate_limit_wait
        self.seeking = seeking
        self.game: OnlineGame | None = None
        self.stream: AsyncGenerator[GameLine, None] | None = None

    async def open_session(self, run: root.Run) -> Session | None:
        cfg = run.cfg
        client = LichessClient(self.token, url=self.url, rate_limit_wait=self.rate_limit_wait)
        run.stack.push_async_callback(client.close)
        start = await find_game(client, self.seeking, run.stop)
        if start is None:
            return None
        full, self.stream = await first_full(client, start.game_id)
        color = start.color or ("white" if full.white.name == getattr(start, "me", None) else "black")
        opponent = full.black if color == "white" else full.white
        log.warning("playing %s on Lichess as %s against %s%s", full.id, color, opponent.name,
                    f" ({opponent.rating})" if opponent.rating else "")
        variant = get_variant("chess")
        fen = variant.starting_fen if full.initial_fen in ("startpos", "") else full.initial_fen
        tc = ""
        if full.clock_initial is not None and full.clock_increment is not None:
            tc = f"{full.clock_initial / 60000:g}+{full.clock_increment / 1000:g}"
        settings = Settings(mode="network", color=color, orientation=cfg.board_orientation, time_control=tc,
                            policy=Policy(cfg.game_policy).value, arbiter=cfg.game_arbiter, takeback="off",
                            settle=cfg.board_settle, legal_moves=cfg.game_legal_moves, variant="chess")
        names = {side: p.name + (f" ({p.rating})" if p.rating else "") for side, p in
                 (("white", full.white), ("black", full.black))}
        record = resumed_record(run.store, full, color=color, names=names, fen=fen, time_control=tc,
                                orientation=cfg.board_orientation)
        session = Session(settings, record=record, fen=fen, variant=variant)
        session.set_players(names["white"], names["black"])
        session.warning = f"Lichess game {full.id}: you play {color} against {opponent.name}"
        # After the result the new-game button starts nothing here: a new Lichess game is sought anew.
        session.rematch_advice = (f"the Lichess game {full.id} is over: for another game stop this one and run "
                                  "boardctl online again (--seek 5+3, --challenge NAME or --accept)")
        if session.resumed:
            session.notice = f"Taking up Lichess game {full.id} at move {len(full.state.moves) // 2 + 1}"
        self.game = OnlineGame(client, full, color=color)
        return session

    async def attach(self, daemon: Daemon, run: root.Run) -> None:
        assert self.game is not None and self.stream is not None
        loop = asyncio.get_running_loop()
        self.game.attach(daemon)
        watcher = loop.create_task(self.game.watch(daemon.subscribe()))
        run.stack.callback(watcher.cancel)
        follower = loop.create_task(self.game.follow(run.stop, stream=self.stream))
        run.stack.callback(follower.cancel)
