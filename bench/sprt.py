"""A sequential probability ratio test between two engine builds, as fishtest runs them.

``python -m bench sprt --name NAME --base REV --new REV [--nodes 3000 | --tc 5+0.05]`` plays
colour-swapped game pairs from a varied opening book and updates the generalized SPRT's
log-likelihood ratio (fishtest's ``LLR_logistic`` on the pentanomial of pair scores) after
each pair, until it crosses a bound (H0: elo0, H1: elo1; defaults 0 and 5, alpha = beta = 0.05)
or ``--max-games`` is reached.

A build is a git revision of this repository (checked out into its own worktree under
``--builds`` with its own numba cache, kernels built once) or ``.`` for this checkout as it is,
plus UCI options (``--base-option NAME=VALUE``). The state is a JSON file,
``bench/results/sprt/NAME.json``, rewritten after every pair: stop the test at any time and
rerun the command (or just ``--name NAME``) to resume it. ``NAME.md`` beside it is the summary
meant to be committed as evidence: W/D/L, pentanomial, LLR and bounds, Elo estimate, the load,
and the command that reproduces the test.

To use more cores, run the same test again under another name with another ``--seed`` (other
openings), then ``--pool NAME1 NAME2 --name POOLED`` sums their pairs as fishtest sums its
workers' and writes the pooled summary, ``POOLED.md``.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import math
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "sprt"
DATA = ROOT.parents[1] / "shared" / "data"
if not (DATA / "openings").is_dir():
    DATA = Path("/work/shared/data")
BUILDS = Path(os.environ.get("BOARDCTL_SPRT_BUILDS", "/tmp/boardctl-sprt-builds"))
MAX_PLIES = 400  # a game this long is scored a draw

# ---- the statistics (fishtest's LLRcalc, logistic Elo) ----------------------------------


def logistic_score(elo: float) -> float:
    """Expected score of a side ``elo`` points stronger."""
    return 1 / (1 + 10 ** (-elo / 400))


def score_elo(score: float) -> float:
    """Logistic Elo of an expected score, clamped as fishtest does (1e-3 .. 1 - 1e-3)."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / score - 1)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: accept H0 below the first, H1 above the second."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _pdf(counts: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """(N, [(score, frequency)]) with empty cells replaced by 1e-3 (fishtest's regularize)."""
    regular = [c if c > 0 else 1e-3 for c in counts]
    total = sum(regular)
    k = len(regular) - 1
    return total, [(i / k, c / total) for i, c in enumerate(regular)]


def _stats(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Mean and variance of a discrete distribution."""
    mean = sum(a * p for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def _secular(pdf: Sequence[tuple[float, float]]) -> float:
    """The root x of sum_i p_i a_i / (1 + x a_i) = 0 between the poles (decreasing in x)."""
    lo_a = min(a for a, _ in pdf)
    hi_a = max(a for a, _ in pdf)
    if not lo_a < 0 < hi_a:
        raise ValueError("the expected score must lie strictly inside the observed scores")
    eps = 1e-9
    lo, hi = -1 / hi_a + eps, -1 / lo_a - eps
    for _ in range(200):
        mid = (lo + hi) / 2
        value = sum(p * a / (1 + mid * a) for a, p in pdf)
        if value > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return (lo + hi) / 2


def _mle_expected(pdf: Sequence[tuple[float, float]], s: float) -> list[tuple[float, float]]:
    """The distribution nearest (in likelihood) to ``pdf`` whose mean is ``s``."""
    x = _secular([(a - s, p) for a, p in pdf])
    return [(a, p / (1 + x * (a - s))) for a, p in pdf]


def llr_logistic(elo0: float, elo1: float, counts: Sequence[float]) -> float:
    """fishtest's generalized LLR of H1 (elo1) against H0 (elo0) in logistic Elo.

    ``counts`` is a trinomial (losses, draws, wins) or a pentanomial (pairs scoring 0, 1/2,
    1, 3/2, 2 points). Zero when there are no results yet.
    """
    if len(counts) not in (3, 5):
        raise ValueError(f"counts must have 3 or 5 entries, got {len(counts)}")
    if sum(counts) == 0:
        return 0.0
    total, pdf = _pdf(counts)
    s0, s1 = logistic_score(elo0), logistic_score(elo1)
    p0, p1 = _mle_expected(pdf, s0), _mle_expected(pdf, s1)
    return total * sum(p * (math.log(b) - math.log(a)) for (_, p), (_, a), (_, b) in zip(pdf, p0, p1, strict=True))


def elo_estimate(penta: Sequence[int]) -> tuple[float, float, float]:
    """Elo and its 95% interval from the pentanomial (the pairs' score variance)."""
    n = sum(penta)
    if n == 0:
        return 0.0, -math.inf, math.inf
    pdf = [(i / 4, c / n) for i, c in enumerate(penta)]
    mean, var = _stats(pdf)
    se = math.sqrt(var / n)
    return score_elo(mean), score_elo(mean - 1.96 * se), score_elo(mean + 1.96 * se)


# ---- builds ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Build:
    """An engine to test: a git revision (or ``.``, this checkout) and its UCI options."""

    rev: str
    options: dict[str, str] = field(default_factory=dict)
    sha: str = ""  # the resolved commit ('.': HEAD plus whatever is uncommitted)

    def label(self) -> str:
        opts = " ".join(f"{k}={v}" for k, v in self.options.items())
        short = self.sha[:10] if self.sha else self.rev
        return f"{self.rev} ({short})" + (f" [{opts}]" if opts else "")


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def resolve(rev: str) -> str:
    """The commit a revision names; for ``.`` HEAD, marked dirty when the tree has edits."""
    if rev == ".":
        dirty = bool(_git("status", "--porcelain", "--", "engine"))
        return _git("rev-parse", "HEAD") + ("+dirty" if dirty else "")
    return _git("rev-parse", "--verify", f"{rev}^{{commit}}")


def checkout(build: Build, builds: Path = BUILDS) -> tuple[Path, dict[str, str]]:
    """The directory to run the build's engine in and its environment; prepared on first use.

    A revision gets its own detached git worktree and its own numba cache, so building its
    kernels never removes another build's (engine/aot.py keeps one module per game per cache).
    """
    env = dict(os.environ)
    if build.rev == ".":
        directory = ROOT
        env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba-cache"))
    else:
        directory = builds / build.sha[:12]
        if not (directory / "engine").is_dir():
            directory.parent.mkdir(parents=True, exist_ok=True)
            _git("worktree", "add", "--detach", "--force", str(directory), build.sha)
        env["NUMBA_CACHE_DIR"] = str(directory / ".numba-cache")
    env["PYTHONPATH"] = str(directory)
    marker = Path(env["NUMBA_CACHE_DIR"]) / f"sprt-warm-{build.sha.replace('+', '-')}"
    if not marker.exists() or build.sha.endswith("+dirty"):
        log.info("building the kernels of %s in %s", build.label(), directory)
        subprocess.run([sys.executable, "-m", "engine", "warm"], cwd=directory, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    return directory, env


def open_engine(build: Build, builds: Path = BUILDS) -> chess.engine.SimpleEngine:
    directory, env = checkout(build, builds)
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "engine"], cwd=directory, env=env,
                                                  timeout=120)
    engine.configure({"OwnBook": False, "Hash": 16, **build.options})
    return engine


# ---- games ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Control:
    """Fixed nodes per move (``nodes``), or a clock of ``base`` seconds plus ``inc`` per move."""

    nodes: int | None = 3000
    base: float = 0.0
    inc: float = 0.0

    def describe(self) -> str:
        return f"{self.nodes} nodes per move" if self.nodes else f"{self.base:g}+{self.inc:g} s"


@functools.cache
def book_lines() -> tuple[tuple[str, ...], ...]:
    """Every named opening of 4 to 12 plies in ../shared/data/openings, as UCI moves."""
    out: list[tuple[str, ...]] = []
    for path in sorted((DATA / "openings").glob("*.tsv")):
        for row in path.read_text(encoding="utf-8").splitlines()[1:]:
            parts = row.split("\t")
            if len(parts) < 3:
                continue
            board = chess.Board()
            try:
                moves = [board.push_san(tok).uci() for tok in parts[2].split() if not tok[0].isdigit()]
            except ValueError:
                log.warning("%s: unreadable opening %r", path, parts[2])
                continue
            if 4 <= len(moves) <= 12:
                out.append(tuple(moves))
    return tuple(out)


def openings(count: int, seed: int) -> list[list[str]]:
    """``count`` opening lines drawn at random (by ``seed``) from :func:`book_lines`."""
    lines = book_lines()
    rng = random.Random(seed)
    picked = rng.sample(lines, min(count, len(lines)))
    while len(picked) < count:  # more pairs than lines: reuse them in a new order
        picked += rng.sample(lines, min(count - len(picked), len(lines)))
    return [list(line) for line in picked]


RESIGN_CP = 700  # adjudicated a win once both engines agree on this margin for RESIGN_MOVES moves each
RESIGN_MOVES = 3
DRAW_CP = 10  # adjudicated a draw after DRAW_PLY when both have said within 10 cp for DRAW_MOVES moves each
DRAW_PLY = 80
DRAW_MOVES = 6


def play_game(white: chess.engine.SimpleEngine, black: chess.engine.SimpleEngine, opening: Sequence[str],
              control: Control, max_plies: int = MAX_PLIES, *, adjudicate: bool = True) -> float:
    """White's score in one game from ``opening``: 1, 0.5 or 0 (a flag fall loses).

    With ``adjudicate`` (as fishtest's workers do) a game ends early when both engines agree
    that one side is RESIGN_CP ahead, or that the game is dead level; this halves the time
    per game and, applied to both builds alike, does not bias the test.
    """
    board = chess.Board()
    for uci in opening:
        board.push_uci(uci)
    engines = {chess.WHITE: white, chess.BLACK: black}
    clocks = {chess.WHITE: control.base, chess.BLACK: control.base}
    game = object()  # a new game key: python-chess sends ucinewgame to each engine
    white_pov: list[int | None] = []  # each move's reported score, from White's side
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        if control.nodes:
            limit = chess.engine.Limit(nodes=control.nodes)
        else:
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=control.inc, black_inc=control.inc)
        t = time.perf_counter()
        result = engines[board.turn].play(board, limit, game=game, info=chess.engine.INFO_SCORE)
        if not control.nodes:
            clocks[board.turn] -= time.perf_counter() - t
            if clocks[board.turn] < 0:
                return 0.0 if board.turn == chess.WHITE else 1.0
            clocks[board.turn] += control.inc
        if result.move is None:
            break
        score = result.info.get("score")
        white_pov.append(score.white().score(mate_score=100_000) if score is not None else None)
        board.push(result.move)
        if adjudicate:
            verdict = _adjudicate(white_pov, board.ply())
            if verdict is not None:
                return verdict
    outcome = board.outcome(claim_draw=True)
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner == chess.WHITE else 0.0


def _adjudicate(white_pov: Sequence[int | None], ply: int) -> float | None:
    """White's score if the last moves' reported scores settle the game, else None."""
    last = white_pov[-2 * RESIGN_MOVES:]
    if len(last) == 2 * RESIGN_MOVES and all(s is not None for s in last):
        if all(s >= RESIGN_CP for s in last if s is not None):
            return 1.0
        if all(s <= -RESIGN_CP for s in last if s is not None):
            return 0.0
    last = white_pov[-2 * DRAW_MOVES:]
    if ply >= DRAW_PLY and len(last) == 2 * DRAW_MOVES and all(s is not None and abs(s) <= DRAW_CP for s in last):
        return 0.5
    return None


# ---- the test and its state ---------------------------------------------------------------


@dataclass(kw_only=True)
class State:
    """Everything a test needs to resume; ``config`` must match on resume."""

    name: str
    config: dict[str, Any]
    penta: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    wdl: list[int] = field(default_factory=lambda: [0, 0, 0])  # new's wins, draws, losses
    pairs: list[list[float]] = field(default_factory=list)  # new's score with White, with Black
    status: str = "running"
    command: str = ""
    load: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return sum(self.wdl)

    def add_pair(self, as_white: float, as_black: float) -> None:
        self.pairs.append([as_white, as_black])
        self.penta[round(2 * (as_white + as_black))] += 1
        for s in (as_white, as_black):
            self.wdl[0 if s == 1.0 else 1 if s == 0.5 else 2] += 1

    def llr(self) -> float:
        c = self.config
        return llr_logistic(c["elo0"], c["elo1"], self.penta)

    def bounds(self) -> tuple[float, float]:
        return bounds(self.config["alpha"], self.config["beta"])

    def decide(self) -> str:
        lower, upper = self.bounds()
        llr = self.llr()
        if llr >= upper:
            return "H1 accepted (the change gains)"
        if llr <= lower:
            return "H0 accepted (no gain of elo1)"
        if self.games >= self.config["max_games"]:
            return "inconclusive (game limit reached)"
        return "running"

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(asdict(self), indent=1) + "\n")
        tmp.replace(path)

    @classmethod
    def load_file(cls, path: Path) -> State:
        data = json.loads(path.read_text())
        return cls(**data)

    def summary(self) -> str:
        c = self.config
        lower, upper = self.bounds()
        elo, lo, hi = elo_estimate(self.penta)
        w, d, l_ = self.wdl
        return "\n".join([
            f"# SPRT {self.name}",
            "",
            f"- new:  {c['new']}",
            f"- base: {c['base']}",
            f"- games: {self.games} ({len(self.pairs)} colour-swapped pairs), {c['control']}, "
            f"openings from the named-openings book (seed {c['seed']}); adjudication: "
            f"{c.get('adjudication', 'none')}",
            f"- new vs base: +{w} ={d} -{l_}; pentanomial (0, 1/2, 1, 3/2, 2 points per pair): {self.penta}",
            f"- LLR {self.llr():.2f} in [{lower:.2f}, {upper:.2f}] for elo0 {c['elo0']:g}, elo1 {c['elo1']:g}, "
            f"alpha {c['alpha']:g}, beta {c['beta']:g} (logistic Elo, pentanomial GSPRT as fishtest)",
            f"- Elo {elo:+.1f} [{lo:+.1f}, {hi:+.1f}] 95%",
            f"- result: {self.status}",
            f"- time: {self.seconds / 60:.1f} min of play; load average (uptime) during the test: "
            f"{', '.join(self.load[-3:]) or 'not recorded'}",
            f"- reproduce: `{self.command}`",
            "",
        ])


Player = Callable[[Build, Build, Sequence[str], Control], float]


class EnginePlayer:
    """Plays games between two builds, keeping one engine process per build."""

    def __init__(self, builds: Path = BUILDS) -> None:
        self.builds = builds
        self._engines: dict[str, chess.engine.SimpleEngine] = {}

    def engine(self, build: Build) -> chess.engine.SimpleEngine:
        key = build.label()
        if key not in self._engines:
            self._engines[key] = open_engine(build, self.builds)
        return self._engines[key]

    def __call__(self, white: Build, black: Build, opening: Sequence[str], control: Control) -> float:
        return play_game(self.engine(white), self.engine(black), opening, control)

    def close(self) -> None:
        for engine in self._engines.values():
            engine.quit()
        self._engines.clear()


def _load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def run(state: State, base: Build, new: Build, player: Player, path: Path, *,
        max_pairs: int | None = None) -> State:
    """Play pairs until the SPRT decides, the game limit, or ``max_pairs`` more pairs; saves each."""
    c = state.config
    control = Control(**c["control_args"])
    book = openings(c["max_games"] // 2 + 1, c["seed"])
    played = 0
    state.status = state.decide()
    while state.status == "running" and (max_pairs is None or played < max_pairs):
        opening = book[len(state.pairs) % len(book)]
        t = time.perf_counter()
        as_white = player(new, base, opening, control)
        as_black = 1.0 - player(base, new, opening, control)
        state.seconds += time.perf_counter() - t
        state.add_pair(as_white, as_black)
        played += 1
        if len(state.pairs) % 10 == 1:
            state.load.append(_load_average())
        state.status = state.decide()
        state.save(path)
        path.with_suffix(".md").write_text(state.summary())
        log.info("%s: %d games +%d =%d -%d LLR %.2f", state.name, state.games, *state.wdl, state.llr())
    state.load.append(_load_average())
    state.save(path)
    path.with_suffix(".md").write_text(state.summary())
    return state


STOPPED = "stopped undecided (by hand; rerun the command to resume)"
#: what must agree for tests to be pooled: the same question asked on other openings
POOL_KEYS = ("base_build", "control_args", "elo0", "elo1", "alpha", "beta", "adjudication")


def pool(name: str, states: Sequence[State], *, code: Callable[[State], str] | None = None) -> State:
    """Tests of one change on different opening seeds (fishtest's workers), counted as one.

    Their new builds may differ only outside the engine (``code``, by default the git tree of
    the build's engine/ folder, must be equal), and everything in ``POOL_KEYS`` must be equal.
    The pooled decision is the GSPRT on the summed pentanomial, as fishtest sums its workers' pairs.
    """
    if len(states) < 2:
        raise ValueError("pooling needs at least two tests")
    code = code or (lambda state: engine_tree(state.config["new_build"]["sha"]))
    first, first_code = states[0].config, code(states[0])
    for other in states[1:]:
        for key in POOL_KEYS:
            if other.config.get(key) != first.get(key):
                raise ValueError(f"{other.name} differs from {states[0].name} in {key!r}: not the same test")
        if code(other) != first_code:
            raise ValueError(f"{other.name} plays other engine code than {states[0].name}")
    if len({s.config["seed"] for s in states}) < len(states):
        raise ValueError("pooled tests must use different opening seeds, or they repeat games")
    config = dict(first, seed=", ".join(str(s.config["seed"]) for s in states),
                  new=" + ".join(s.config["new"] for s in states),
                  max_games=sum(s.config["max_games"] for s in states))
    state = State(name=name, config=config, command="python -m bench sprt --pool "
                  + " ".join(s.name for s in states) + f" --name {name}")
    for s in states:
        for as_white, as_black in s.pairs:
            state.add_pair(as_white, as_black)
        state.seconds += s.seconds
        state.load += s.load[-1:]
    state.status = state.decide()
    if state.status == "running" and all(s.status != "running" for s in states):
        state.status = "stopped undecided (resume the pooled tests, then pool them again)"
    return state


def engine_tree(sha: str) -> str:
    """The git tree of a commit's engine/ folder: equal trees play the same games."""
    if not sha or sha.endswith("+dirty"):
        raise ValueError(f"build {sha or '.'} is not a commit: its engine cannot be compared")
    try:
        return _git("rev-parse", f"{sha}:engine")
    except subprocess.CalledProcessError as exc:
        raise ValueError(f"commit {sha[:10]} is not in this repository") from exc


def mark_stopped(state: State, path: Path) -> None:
    """Record that a still-running test was stopped by hand, so its summary says undecided."""
    if state.status == "running":
        state.status = STOPPED
    state.save(path)
    path.with_suffix(".md").write_text(state.summary())


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _options(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in pairs:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise SystemExit(f"an option is NAME=VALUE, got {item!r}")
        out[name] = value
    return out


def _without_max_pairs(argv: Sequence[str]) -> list[str]:
    """The command line minus ``--max-pairs N``, which only pauses a test."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--max-pairs":
            skip = True
        elif not arg.startswith("--max-pairs="):
            out.append(arg)
    return out


def make_config(args: argparse.Namespace, base: Build, new: Build) -> dict[str, Any]:
    if args.tc:
        b, _, i = args.tc.partition("+")
        control = Control(nodes=None, base=float(b), inc=float(i or 0))
    else:
        control = Control(nodes=args.nodes)
    return {
        "base": base.label(), "new": new.label(),
        "base_build": asdict(base), "new_build": asdict(new),
        "control": control.describe(), "control_args": asdict(control),
        "elo0": args.elo0, "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta,
        "seed": args.seed, "max_games": args.max_games,
        "adjudication": f"win when both report {RESIGN_CP} cp for {RESIGN_MOVES} moves each; draw from ply "
                        f"{DRAW_PLY} when both report within {DRAW_CP} cp for {DRAW_MOVES} moves each",
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.sprt", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", help="the test's name (state in bench/results/sprt/NAME.json)")
    parser.add_argument("--base", default=None, help="git revision of the reference build, or '.'")
    parser.add_argument("--new", default=".", help="git revision of the tested build, or '.' (this checkout)")
    parser.add_argument("--base-option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--new-option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--nodes", type=int, default=3000, help="fixed nodes per move (the default control)")
    parser.add_argument("--tc", default=None, help="base+increment seconds instead of fixed nodes, e.g. 5+0.05")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-games", type=int, default=4000)
    parser.add_argument("--max-pairs", type=int, default=None, help="stop (resumable) after this many more pairs")
    parser.add_argument("--builds", type=Path, default=BUILDS, help="where revisions are checked out")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--nice", type=int, default=10, help="raise this process's (and the engines') niceness")
    parser.add_argument("--pool", nargs="+", metavar="NAME", default=None,
                        help="count these stored tests (one change, other seeds) as one test, --name")
    parser.add_argument("--stop", action="store_true",
                        help="only mark the stored test NAME as stopped undecided (its summary says so)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.name is None:  # `python -m bench` runs every module: list the stored tests
        for path in sorted(args.results.glob("*.json")):
            state = State.load_file(path)
            print(f"-- SPRT {state.name}: {state.games} games, LLR {state.llr():.2f}, {state.status}")
        return 0
    path = args.results / f"{args.name}.json"
    if args.pool:
        try:
            pooled = pool(args.name, [State.load_file(args.results / f"{n}.json") for n in args.pool])
        except (OSError, ValueError) as exc:
            raise SystemExit(f"cannot pool {args.pool}: {exc}") from exc
        path.with_suffix(".md").write_text(pooled.summary())
        print(pooled.summary())
        return 0
    if args.stop:
        if not path.exists():
            raise SystemExit(f"no stored test {path}")
        state = State.load_file(path)
        mark_stopped(state, path)
        print(path.with_suffix(".md").read_text())
        return 0
    if path.exists():
        state = State.load_file(path)
        base = Build(**state.config["base_build"])
        new = Build(**state.config["new_build"])
        if args.base is not None:
            fresh = make_config(args, Build(rev=args.base, options=_options(args.base_option), sha=base.sha),
                                Build(rev=args.new, options=_options(args.new_option), sha=new.sha))
            keep = {k: v for k, v in state.config.items() if k != "max_games"}
            if {k: v for k, v in fresh.items() if k != "max_games"} != keep:
                raise SystemExit(f"{path} holds a test with other settings; choose another --name")
            state.config["max_games"] = args.max_games
        print(f"resuming {args.name} after {state.games} games")
    else:
        if args.base is None:
            raise SystemExit("a new test needs --base (and usually --new)")
        base = Build(rev=args.base, options=_options(args.base_option), sha=resolve(args.base))
        new = Build(rev=args.new, options=_options(args.new_option), sha=resolve(args.new))
        state = State(name=args.name, config=make_config(args, base, new))
        state.command = "python -m bench sprt " + shlex.join(_without_max_pairs(argv))
    if args.nice:
        os.nice(args.nice)
    player = EnginePlayer(args.builds)
    signal.signal(signal.SIGTERM, _interrupt)  # `kill PID` stops a test as Ctrl-C does
    try:
        run(state, base, new, player, path, max_pairs=args.max_pairs)
    except KeyboardInterrupt:
        mark_stopped(state, path)
        print("stopped; rerun the same command to resume")
    finally:
        player.close()
    print(path.with_suffix(".md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
