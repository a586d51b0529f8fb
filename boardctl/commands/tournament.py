"""``boardctl tournament``: a tournament against the characters, your games on the board.

``new`` picks the characters rated closest to you, pairs round 1 and starts the games between
characters in the background (a low-priority process, engine against engine at a fixed node
budget, their PGNs saved). ``next`` plays your next game on the board exactly as ``boardctl
play`` does (the same options: ``--board sim --stdio`` works), enters the result and updates
your rating; it waits for the round's other games first when they are still being played.
``standings`` prints the table with Buchholz and Sonneborn-Berger and the crosstable.

Everything is saved atomically as it happens: a power cut at any moment loses at most the move
being made, and ``next`` takes up the same game again.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from boardctl.commands import options, root
from boardctl.errors import BoardctlError
from boardctl.learning import npc_games
from boardctl.learning.rating import default_store
from boardctl.learning.tournament import (
    Format,
    Tournament,
    TournamentError,
    TournamentStore,
    swiss_rounds,
)
from boardctl.learning.tournament_runner import (
    LINGER,
    Assignment,
    GameFollower,
    active_id,
    assignment,
    candidates,
    ensure_runner,
    enter_result,
    new_tournament,
    tournaments_folder,
    wait_for_round,
)

if TYPE_CHECKING:
    from boardctl.daemon import Daemon

log = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from boardctl.cli import describe

    parser = sub.add_parser("tournament", help="a tournament against the characters", description=describe(__doc__))
    actions = parser.add_subparsers(dest="tournament_action", required=True, metavar="ACTION")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--id", dest="tournament_id", help="the tournament (default: the newest unfinished one)")

    new = actions.add_parser("new", help="start a tournament", description="Start a tournament of you and the "
                             "characters rated closest to you; round 1 is paired and its other games start.")
    new.add_argument("--players", type=int, default=8, help="players, you included (2-64). Default: 8.")
    new.add_argument("--format", choices=[f.value for f in Format], default=Format.ROUND_ROBIN.value,
                     help="round-robin (Berger tables) or swiss (FIDE Dutch). Default: round-robin.")
    new.add_argument("--rounds", type=int, help="Swiss rounds (a round robin has players - 1). Default: half the players, at most 5.")
    new.add_argument("--time-control", dest="tournament_time_control", default="15+10", metavar="MIN+INC",
                     help="your games' clock. Default: 15+10.")
    new.add_argument("--no-background", dest="background", action="store_false",
                     help="do not start the games between characters now (next starts them). Default: start.")
    new.add_argument("--games-dir", help="where games are saved (the tournament beside them). Default: from the config.")
    new.add_argument("--config", type=Path, metavar="FILE", help="settings file. Default: the user's.")
    new.add_argument("--engine", default=None, help="UCI engine for the characters' games. Default: from the config.")

    nxt = actions.add_parser("next", help="play your next game on the board", description="Play your next "
                             "tournament game on the board, as boardctl play does (same options).")
    common(nxt)
    options.add_arguments(nxt, mode="play")

    standings = actions.add_parser("standings", help="the table and the crosstable", description="The standings "
                                   "with Buchholz and Sonneborn-Berger, and the crosstable.")
    common(standings)
    standings.add_argument("--games-dir", help="where games are saved. Default: from the config.")
    standings.add_argument("--config", type=Path, metavar="FILE", help="settings file. Default: the user's.")


def _config(args: argparse.Namespace) -> Any:
    from boardctl.commands import options

    if not hasattr(args, "config"):
        args.config = None
    return options.config_from_args(args)


def run(args: argparse.Namespace) -> int:
    try:
        if args.tournament_action == "new":
            return run_new(args, out=sys.stdout)
        if args.tournament_action == "standings":
            return run_standings(args, out=sys.stdout)
        # with --stdio, standard output carries the state lines: what is said goes to standard error
        return run_next(args, out=sys.stderr if args.stdio else sys.stdout)
    except TournamentError as exc:
        print(f"boardctl tournament: {exc}", file=sys.stderr)
        return 2


def run_new(args: argparse.Namespace, *, out: TextIO) -> int:
    cfg = _config(args)
    store = TournamentStore(tournaments_folder(cfg.games_dir))
    me = default_store().load()
    fmt = Format(args.format)
    rounds = args.rounds
    if fmt is Format.SWISS and rounds is None:
        rounds = swiss_rounds(args.players)
    t = new_tournament(store, me.rounded, players=args.players, format=fmt, rounds=rounds,
                       time_control=args.tournament_time_control, pool=candidates())
    out.write(f"Tournament {t.tournament_id}: {fmt.value}, {t.rounds} rounds, {len(t.players)} players, "
              f"your rating {me.rounded}\n")
    out.write(describe_round(t))
    engine = args.engine if args.engine is not None else cfg.engine_path
    if args.background:
        ensure_runner(store, t, engine=engine)
    return 0


def describe_round(t: Tournament) -> str:
    lines = [f"Round {t.current_round}:"]
    for g in t.round_games(t.current_round):
        w = t.player(g.white)
        if g.black is None:
            lines.append(f"  {w.name} has a bye")
            continue
        b = t.player(g.black)
        shown = g.result or "…"
        lines.append(f"  {w.name} ({w.rating}) - {b.name} ({b.rating})  {shown}")
    return "\n".join(lines) + "\n"


def standings_text(t: Tournament) -> str:
    rows = [f"Tournament {t.tournament_id}: {t.format.value}, round {t.current_round} of {t.rounds}"
            + (" (finished)" if t.is_finished() else "")]
    width = max(20, *(len(p.name) for p in t.players))
    rows.append(f"{'Rk':>2}  {'Name':<{width}} {'Elo':>4} {'Points':>6} {'Buchholz':>8} {'Sonneborn-Berger':>16}")
    for s in t.standings():
        you = " (you)" if s.player.is_user else ""
        rows.append(f"{s.rank:>2}. {s.player.name:<{width}} {s.player.rating:>4} {s.points:6.1f} {s.buchholz:8.1f} "
                    f"{s.sonneborn_berger:16.2f}{you}")
    rows.append("")
    rows.append(t.crosstable_text())
    return "\n".join(rows) + "\n"


def run_standings(args: argparse.Namespace, *, out: TextIO) -> int:
    cfg = _config(args)
    store = TournamentStore(tournaments_folder(cfg.games_dir))
    t = store.load(active_id(store, args.tournament_id))
    out.write(standings_text(t))
    return 0


def prepare_next(store: TournamentStore, tid: str, *, out: TextIO, engine: str = "") -> Assignment | None:
    """The user's next game, pairing rounds (after waiting for their other games) as needed; None
    when the tournament is over."""
    while True:
        t = store.load(tid)
        job = assignment(t)
        if job is not None:
            ensure_runner(store, t, engine=engine)
            return job
        if t.is_finished():
            return None
        if t.current_round == 0 or t.is_round_complete(t.current_round):
            paired = store.pair_next_round(tid)
            if paired.current_round == t.current_round:  # the next round cannot be paired: it ends here
                out.write(f"Round {t.current_round + 1} cannot be paired without a rematch: the tournament "
                          f"ends after round {t.current_round}\n")
            else:
                out.write(describe_round(paired))
            continue
        user = t.user()
        mine = user is not None and any(
            user.number in (g.white, g.black) and g.is_bye for g in t.round_games(t.current_round)
        )
        if mine:
            out.write(f"Round {t.current_round}: you have a bye (1 point)\n")
        wait_for_round(store, tid, out=out, engine=engine)


def _resumable(games: Any, game_id: str | None) -> tuple[str | None, Any]:
    """(``"resume"``/``"done"``/None, the record) for the user's game already started."""
    if game_id is None:
        return None, None
    try:
        record = games.load(game_id)
    except (OSError, BoardctlError):
        return None, None
    if record.result != "*":
        return "done", record
    unfinished = games.unfinished("play")
    if not record.is_finished() and unfinished is not None and unfinished.id == game_id:
        return "resume", record
    return None, record


class FollowerPlug(root.Plug):
    """The tournament game followed: its result entered and rated when it ends."""

    def __init__(self, follower: GameFollower) -> None:
        self.follower = follower

    async def attach(self, daemon: Daemon, run: root.Run) -> None:
        self.follower.attach(daemon, run.stop)


def run_next(args: argparse.Namespace, *, out: TextIO) -> int:
    from boardctl.storage import GameStore

    cfg = _config(args)
    store = TournamentStore(tournaments_folder(cfg.games_dir))
    rating = default_store()
    tid = active_id(store, args.tournament_id)
    job = prepare_next(store, tid, out=out, engine=cfg.engine_path)
    if job is None:
        out.write("The tournament is over.\n")
        out.write(standings_text(store.load(tid)))
        return 0
    games = GameStore(cfg.games_dir)
    state, record = _resumable(games, job.game_id)
    if state == "done":  # the game ended but the power went before its result was entered
        enter_result(store, rating, job, record.id, record.result)
        out.write(f"Round {job.round}: {record.result} entered\n")
        return run_next(args, out=out)
    out.write(f"Round {job.round}: you play {job.color} against {job.opponent} ({job.opponent_rating}), "
              f"{job.time_control}\n")
    out.flush()
    args.color = job.color
    args.time_control = job.time_control
    if job.opponent in npc_games.load_npcs([job.opponent]):
        args.opponent = job.opponent  # boardctl play --opponent: the character's level, style and book
        args.level = None
    else:  # not a character (any more): the engine at the player's tournament rating
        args.opponent = None
        args.level = npc_games.Npc(job.opponent, job.opponent_rating).engine_level
    args.new = state != "resume"
    args.fen = None
    follower = GameFollower(store, rating, job, linger=None if args.stdio else LINGER)
    code = root.run(options.options_from_args(args, mode="play"), FollowerPlug(follower))
    if follower.task is not None and follower.result is None:
        # the game ended as the daemon stopped (the last input line): enter it from the saved file
        with contextlib.suppress(OSError, BoardctlError):
            saved = games.load(follower.game_id or "")
            if saved.result != "*":
                enter_result(store, rating, job, saved.id, saved.result)
                follower.result = saved.result
    if follower.result is not None:
        me = rating.load()
        out.write(f"Round {job.round}: {follower.result}; your rating {me.rounded}\n")
    return code
