"""UCI front end: a line-in, lines-out protocol state machine plus a stdin/stdout transport.

``UciProtocol.handle(line)`` consumes one command and writes replies through ``send``;
it knows nothing of pipes, so tests and other transports drive it directly. Searches
run in a worker thread so ``stop`` and ``isready`` are answered while thinking. Bad
input is answered with ``info string error: ...`` and never ends the engine.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

import chess

from engine.levels import ELO_MAX, ELO_MIN, SKILL_MAX, skill_for_elo
from engine.style import CONTEMPT_RANGE, SCALE_OPTIONS, SCALE_RANGES, Repertoire, Style, StyleError

if TYPE_CHECKING:  # the real imports are lazy so `uci`/`uciok` never wait for numba
    from engine.searcher import Searcher, Strength, UciMove
    from engine.xq_position import XqBoard
    from engine.xq_style import XqRepertoire

log = logging.getLogger(__name__)

NAME = "boardctl-engine 0.1"
AUTHOR = "boardctl developers"
HASH_MIN, HASH_MAX, HASH_DEFAULT = 1, 1024, 16

BENCH_FENS = (
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1BBPPP/R2QK2R w KQ - 0 9",
    "6k1/5ppp/8/8/3K4/8/5PPP/8 w - - 0 1",
    "r2q1rk1/ppp2ppp/2n1bn2/2b1p3/4P3/2NP1N2/PPP1BPPP/R1BQ1RK1 w - - 0 8",
)
BENCH_DEPTH = 9
VARIANTS = ("chess", "xiangqi")  # UCI_Variant, as Fairy-Stockfish names them

# Caps on input (docs/engine.md, "Limits"). A line longer than MAX_LINE_BYTES is refused and
# skipped; numbers outside these ranges are clamped, with an ``info string error`` saying so.
MAX_LINE_BYTES = 64 * 1024
#: perft is counted by the kernel up to this depth at once, deeper in Python so `stop` can cut in.
PERFT_KERNEL_DEPTH = 4
PERFT_MAX_DEPTH = 7
BENCH_MAX_DEPTH = 16
#: Times in milliseconds: about 35 years, well inside what a timer thread accepts.
MAX_TIME_MS = 2**40
MAX_NODES = 2**62
MAX_SEARCH_DEPTH = 99  # the kernel's MAXPLY - 1
MAX_MESSAGE_CHARS = 300


def short(text: str, limit: int = 40) -> str:
    """``repr(text)`` cut to ``limit`` characters: input is echoed in errors, never whole."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


_INTEGER = re.compile(r"[+-]?[0-9]+")


class UciError(ValueError):
    """A command the engine cannot act on; reported to the GUI, never raised out."""


@dataclass(frozen=True)
class Option:
    name: str
    kind: str
    default: int | bool | str
    lo: int = 0
    hi: int = 0
    choices: tuple[str, ...] = ()  # for kind "combo"

    def declaration(self) -> str:
        if self.kind == "combo":
            return f"option name {self.name} type combo default {self.default}" + "".join(
                f" var {c}" for c in self.choices
            )
        if self.kind == "check":
            return f"option name {self.name} type check default {str(self.default).lower()}"
        if self.kind == "string":
            return f"option name {self.name} type string default {self.default or '<empty>'}"
        return f"option name {self.name} type spin default {int(self.default)} min {self.lo} max {self.hi}"

    def parse(self, raw: str) -> int | bool | str:
        if self.kind == "combo":
            for choice in self.choices:
                if raw.lower() == choice.lower():
                    return choice
            raise UciError(f"option {self.name} wants one of {', '.join(self.choices)}, got {raw!r}")
        if self.kind == "check":
            if raw.lower() not in ("true", "false"):
                raise UciError(f"option {self.name} wants true or false, got {short(raw)}")
            return raw.lower() == "true"
        if self.kind == "string":
            return "" if raw == "<empty>" else raw
        if not _INTEGER.fullmatch(raw):
            raise UciError(f"option {self.name} wants an integer, got {short(raw)}")
        value = int(raw) if len(raw) <= 40 else self.hi + 1  # thousands of digits: out of range
        if not self.lo <= value <= self.hi:
            raise UciError(f"option {self.name} must be in {self.lo}..{self.hi}, got {short(raw)}")
        return value


OPTIONS = (
    Option("Hash", "spin", HASH_DEFAULT, HASH_MIN, HASH_MAX),
    Option("Skill Level", "spin", SKILL_MAX, 0, SKILL_MAX),
    Option("UCI_LimitStrength", "check", False),
    Option("UCI_Elo", "spin", ELO_MAX, ELO_MIN, ELO_MAX),
    Option("OwnBook", "check", True),
    Option("Move Overhead", "spin", 30, 0, 5000),
    Option("UCI_Variant", "combo", "chess", choices=VARIANTS),
    # Xiangqi repetitions at the root: the Chinese 棋例 (engine/xq_searcher.py) or the Asian rules only.
    Option("XiangqiRules", "combo", "chinese", choices=("chinese", "asian")),
    # Playing styles (engine/style.py, docs/engine.md "Styles"): percent of the normal weights.
    *(Option(name, "spin", 100, lo, hi) for name, (lo, hi) in SCALE_RANGES.items()),
    Option("Contempt", "spin", 0, CONTEMPT_RANGE[0], CONTEMPT_RANGE[1]),
    Option("Book Lines", "string", ""),
)

#: ``go`` parameters and the range each is clamped to.
GO_RANGES: dict[str, tuple[int, int]] = {
    "depth": (1, MAX_SEARCH_DEPTH),
    "nodes": (1, MAX_NODES),
    "movetime": (0, MAX_TIME_MS),
    "wtime": (0, MAX_TIME_MS),
    "btime": (0, MAX_TIME_MS),
    "winc": (0, MAX_TIME_MS),
    "binc": (0, MAX_TIME_MS),
    "movestogo": (1, 1000),
    "perft": (0, PERFT_MAX_DEPTH),
    "mate": (1, (MAX_SEARCH_DEPTH - 1) // 2),
}


def _repertoires(text: str) -> tuple[Repertoire | None, XqRepertoire | None]:
    """``Book Lines`` as a chess repertoire (SAN movetext) or a xiangqi one (UCCI moves), whichever
    the lines are; UciError when they are neither, naming why for each game."""
    from engine.xq_style import XqRepertoire

    if not text.strip(" ;") or text == "<empty>":
        return None, None
    try:
        chess_lines = Repertoire.from_text(text)
    except StyleError as chess_error:
        try:
            xq_lines = XqRepertoire.from_text(text)
        except StyleError as xq_error:
            raise UciError(f"option Book Lines: as chess, {chess_error}; as xiangqi, {xq_error}") from None
        return None, (xq_lines if xq_lines.lines else None)
    return (chess_lines if chess_lines.lines else None), None


def parse_go(tokens: list[str], *, warn: Callable[[str], None] | None = None) -> dict[str, int | bool]:
    """Keyword/value pairs of a ``go`` command (``infinite`` and ``ponder`` are flags).

    A number outside its range in :data:`GO_RANGES` is clamped into it and ``warn`` is told, so
    the GUI still gets a ``bestmove`` (``go nodes 2**64`` searches ``MAX_NODES`` nodes).
    """
    out: dict[str, int | bool] = {}
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in ("infinite", "ponder"):
            out[tok] = True
            i += 1
        elif tok in GO_RANGES:
            if i + 1 >= len(tokens):
                raise UciError(f"go {tok} needs a value")
            raw = tokens[i + 1]
            if not _INTEGER.fullmatch(raw):
                raise UciError(f"go {tok} wants an integer, got {short(raw)}")
            # Past 40 digits it is out of every range; int() of thousands of digits is refused.
            value = int(raw) if len(raw) <= 40 else (-(10**40) if raw.startswith("-") else 10**40)
            lo, hi = GO_RANGES[tok]
            if tok == "perft" and not lo <= value <= hi:  # another depth would be a wrong count
                raise UciError(f"perft depth must be in {lo}..{hi}, got {short(raw)}")
            if not lo <= value <= hi:
                clamped = max(lo, min(hi, value))
                if warn is not None:
                    warn(f"go {tok} {short(raw)} is out of range {lo}..{hi}; using {clamped}")
                value = clamped
            out[tok] = value
            i += 2
        elif tok == "searchmoves":
            break  # not supported; search all moves
        else:
            raise UciError(f"unknown go parameter {short(tok)}")
    return out


@dataclass(frozen=True)
class ParsedPosition:
    """A parsed ``position`` command: its head (startpos or fen) and moves, and the board they give.

    Kept between commands so that a GUI's next ``position ... moves`` (the same list plus a move
    or two) replays only the new moves. Checking every move's legality again cost 0.57 ms a command
    on average over a 120-ply game (0.22 ms this way). The board is never mutated; callers copy it.
    """

    head: tuple[str, ...]
    moves: tuple[str, ...]
    board: chess.Board


def parse_position(tokens: list[str], *, previous: ParsedPosition | None = None) -> ParsedPosition:
    """The board for ``position startpos|fen <fen> [moves ...]``; raises UciError naming the fault.

    With ``previous`` whose head is the same and whose moves begin this list, starts from its board.
    """
    if not tokens:
        raise UciError("position needs startpos or fen")
    if "moves" in tokens:
        cut = tokens.index("moves")
        head, moves = tuple(tokens[:cut]), tuple(tokens[cut + 1 :])
    else:
        head, moves = tuple(tokens), ()
    if previous is not None and previous.head == head and moves[: len(previous.moves)] == previous.moves:
        board = previous.board.copy()
        done = len(previous.moves)
    else:
        board = _head_board(head)
        done = 0
    for uci in moves[done:]:
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            raise UciError(f"bad move {short(uci)} in position") from None
        if move not in board.legal_moves:
            raise UciError(f"illegal move {uci} in position {board.fen()}")
        board.push(move)
    return ParsedPosition(head, moves, board)


def _head_board(head: tuple[str, ...]) -> chess.Board:
    """The board ``startpos`` or ``fen <fen>`` names."""
    if head and head[0] == "startpos" and len(head) == 1:
        return chess.Board()
    if head and head[0] == "fen" and len(head) > 1:
        fen = " ".join(head[1:])
        try:
            board = chess.Board(fen)
        except ValueError as exc:
            raise UciError(f"bad fen {short(fen, 100)}: {exc}") from None
        if not board.is_valid():
            raise UciError(f"impossible position in fen {short(fen, 100)}: {board.status()!r}")
        return board
    raise UciError(f"position wants startpos or fen, got {short(' '.join(head))}")


def parse_xq_position(tokens: list[str]) -> XqBoard:
    """The xiangqi board for ``position startpos|fen <fen> [moves ...]``; raises UciError naming the fault."""
    from engine.xq_position import START_FEN, XiangqiError, XqBoard

    if not tokens:
        raise UciError("position needs startpos or fen")
    if "moves" in tokens:
        cut = tokens.index("moves")
        head, moves = tokens[:cut], tokens[cut + 1 :]
    else:
        head, moves = tokens, []
    if head[0] == "startpos" and len(head) == 1:
        fen = START_FEN
    elif head[0] == "fen" and len(head) > 1:
        fen = " ".join(head[1:])
    else:
        raise UciError(f"position wants startpos or fen, got {' '.join(head)!r}")
    try:
        board = XqBoard(fen)
    except XiangqiError as exc:
        raise UciError(f"bad xiangqi fen: {exc}") from None
    for text in moves:
        try:
            board.push_uci(text)
        except XiangqiError as exc:
            raise UciError(f"{exc} (in position)") from None
    return board


def _kernels_cached() -> bool:
    """Whether the kernels are ready to load: an ahead-of-time build, or numba's on-disk cache.

    Looks for files by name instead of asking numba, so that answering `uci` never waits for
    the numba import.
    """
    from engine import aot

    if aot.module_path("chess").is_file():
        return True
    return next(aot.jit_cache_dir().glob("**/search.search-*.nbi"), None) is not None


class UciProtocol:
    """UCI state: options, current position and the search thread."""

    def __init__(self, send: Callable[[str], None], *, warm: bool = True) -> None:
        self.send = send
        self.values: dict[str, int | bool | str] = {o.name: o.default for o in OPTIONS}
        self.board: chess.Board | XqBoard = chess.Board()
        self._last_position: ParsedPosition | None = None  # the last chess `position`, to extend
        self._searcher: Searcher | None = None
        self._xq_searcher: Searcher | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()
        # The worker: one thread at a time runs a search, perft or bench. `_busy` is cleared just
        # before its last line (bestmove), so a `go` sent the moment that line arrives is taken.
        self._thread: threading.Thread | None = None
        self._busy = False
        self._kind = "search"  # what the worker runs: "search", "perft" or "bench"
        self._halt = threading.Event()
        self._job_searcher: Searcher | None = None
        self._cold = not _kernels_cached()
        self._repertoire: Repertoire | None = None
        self._xq_repertoire: XqRepertoire | None = None
        self._warm_error: BaseException | None = None
        if warm:
            threading.Thread(target=self._warm_up, name="engine-warm", daemon=True).start()
        else:
            self._ready.set()

    # -- kernels ------------------------------------------------------------------------
    def _warm_up(self) -> None:
        try:
            self._get_searcher().warm()
        except BaseException as exc:
            self._warm_error = exc
            log.exception("engine warm-up failed")
        finally:
            self._ready.set()

    def _get_searcher(self) -> Searcher:
        with self._lock:
            if self._searcher is None:
                from engine.searcher import Searcher

                self._searcher = Searcher(hash_mb=int(self.values["Hash"]))
            return self._searcher

    # -- dispatch -----------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Act on one line; False once ``quit`` was received."""
        tokens = line.strip().split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        try:
            if cmd == "quit":
                self._stop_search()
                return False
            handler = getattr(self, f"cmd_{cmd}", None)
            if handler is None:
                raise UciError(f"unknown command {short(cmd)}")
            handler(args)
        except UciError as exc:
            self.error(str(exc))
        except Exception as exc:  # never die on input; report what broke
            log.exception("command %s failed", short(line, 200))
            self.error(f"{type(exc).__name__}: {exc}")
        return True

    def finish(self) -> None:
        """At end of input: a perft or bench runs to its end, a search is stopped."""
        self._settle()

    def error(self, message: str) -> None:
        """Report bad input as ``info string error: ...``, cut to MAX_MESSAGE_CHARS."""
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[:MAX_MESSAGE_CHARS] + "..."
        self.send(f"info string error: {message}")

    def cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {NAME}")
        self.send(f"id author {AUTHOR}")
        for option in OPTIONS:
            self.send(option.declaration())
        if self._cold and not self._ready.is_set():
            self.send("info string compiling engine kernels in the background (first run); searches wait for it")
        self.send("uciok")

    def cmd_isready(self, args: list[str]) -> None:
        # Answered at once, even while kernels load or compile in the background: the
        # protocol is ready, and `go` itself waits for the kernels.
        self.send("readyok")

    def cmd_debug(self, args: list[str]) -> None:
        pass

    def cmd_ponderhit(self, args: list[str]) -> None:
        pass

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self._settle()
        self.board = self._start_board()
        if self._searcher is not None and self._ready.is_set():
            self._searcher.clear()
        if self._xq_searcher is not None:
            self._xq_searcher.clear()

    def cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            raise UciError("setoption wants: setoption name <id> [value <x>]")
        if "value" in args:
            cut = args.index("value")
            name, raw = " ".join(args[1:cut]), " ".join(args[cut + 1 :])
        else:
            name, raw = " ".join(args[1:]), ""
        option = next((o for o in OPTIONS if o.name.lower() == name.lower()), None)
        if option is None:
            raise UciError(f"unknown option {short(name)}")
        value = option.parse(raw)
        if option.name == "Book Lines":
            repertoire, xq_repertoire = _repertoires(str(value))
        self._settle()
        if option.name == "Book Lines":
            self._repertoire, self._xq_repertoire = repertoire, xq_repertoire
        self.values[option.name] = value
        if option.name == "Hash" and self._searcher is not None:
            self._ready.wait()
            self._searcher.set_hash(int(value))
        if option.name == "Hash" and self._xq_searcher is not None:
            self._xq_searcher.set_hash(int(value))
        if option.name == "XiangqiRules" and self._xq_searcher is not None:
            self._xq_searcher.rules = str(value)  # type: ignore[attr-defined]
        if option.name == "UCI_Variant":
            self.board = self._start_board()

    def cmd_position(self, args: list[str]) -> None:
        board: chess.Board | XqBoard
        if self._is_xiangqi():
            board = parse_xq_position(args)
        else:
            self._last_position = parse_position(args, previous=self._last_position)
            board = self._last_position.board.copy()
        self._settle()
        self.board = board

    def cmd_stop(self, args: list[str]) -> None:
        self._stop_search()

    def cmd_go(self, args: list[str]) -> None:
        params = parse_go(args, warn=self.error)
        if self._kind != "search":
            self._settle()  # a scripted `go` after `go perft` or `bench` waits for it, as before
        if "perft" in params:
            self._start_job("perft", self._perft, self.board.copy(), int(params["perft"]))
        else:
            self._start_job("search", self._run_search, self.board.copy(), params)

    def cmd_bench(self, args: list[str]) -> None:
        depth = BENCH_DEPTH
        if args:
            try:
                depth = int(args[0]) if len(args[0]) <= 40 else 10**40
            except ValueError:
                raise UciError(f"bench wants a depth, got {short(args[0])}") from None
            if not 1 <= depth <= BENCH_MAX_DEPTH:
                raise UciError(f"bench depth must be in 1..{BENCH_MAX_DEPTH}, got {short(args[0])}")
        self._settle()
        self._start_job("bench", self._bench, depth)

    # -- the worker ---------------------------------------------------------------------
    def _start_job(self, kind: str, work: Callable[..., list[str]], *args: object) -> None:
        """Run ``work(*args)`` on the worker thread; the lines it returns are sent last, after
        the worker is marked idle. The input thread stays free for `stop` and `isready`."""
        if self._busy:
            raise UciError("already searching; send stop first")
        if self._thread is not None:
            self._thread.join()  # it has sent its last line and is returning
        self._halt = threading.Event()
        self._job_searcher = None
        self._kind = kind
        self._busy = True
        self._thread = threading.Thread(target=self._run_job, args=(work, *args), name="engine-search", daemon=True)
        self._thread.start()

    def _settle(self) -> None:
        """Before a command that changes state: a search is stopped (as UCI has it), while a
        `go perft` or `bench` is waited for, so a script piped in at once gets every count.
        Only `stop` and `quit` cut those short."""
        thread = self._thread
        if self._kind != "search" and thread is not None:
            thread.join()
            self._thread = None
        self._stop_search()

    def _run_job(self, work: Callable[..., list[str]], *args: object) -> None:
        try:
            final = work(*args)
        except Exception as exc:  # a bug must not leave the GUI waiting in silence
            log.exception("engine job failed")
            final = [f"info string error: {type(exc).__name__}: {exc}"]
        self._job_searcher = None
        self._busy = False
        for line in final:
            self.send(line)

    def _stop_search(self) -> None:
        """Stop the worker's job and wait for its last line. ``stop()`` is repeated until the
        thread ends: a search that was only starting would otherwise clear the request."""
        thread = self._thread
        if thread is None:
            return
        self._halt.set()
        while thread.is_alive():
            searcher = self._job_searcher
            if searcher is not None:
                searcher.stop()
            thread.join(0.01)
        self._thread = None

    def _wait_ready(self, halt: threading.Event | None = None) -> bool:
        """Wait for the kernels; False if ``halt`` was set first."""
        while not self._ready.wait(0.05):
            if halt is not None and halt.is_set():
                return False
        if self._warm_error is not None:
            raise UciError(f"engine kernels failed to load: {self._warm_error}")
        return True

    # -- variants -----------------------------------------------------------------------
    def _is_xiangqi(self) -> bool:
        return self.values["UCI_Variant"] == "xiangqi"

    def _start_board(self) -> chess.Board | XqBoard:
        if self._is_xiangqi():
            from engine.xq_position import XqBoard

            return XqBoard()
        return chess.Board()

    def _get_xq_searcher(self) -> Searcher:
        with self._lock:
            if self._xq_searcher is None:
                from engine.xq_searcher import XqSearcher

                searcher = XqSearcher(hash_mb=int(self.values["Hash"]))
                searcher.rules = str(self.values["XiangqiRules"])
                self._xq_searcher = searcher
            return self._xq_searcher

    def _xq_perft(self, board: XqBoard, depth: int) -> list[str]:
        """As :meth:`_perft`, for xiangqi: the kernel counts up to PERFT_KERNEL_DEPTH plies at once."""
        from engine.xq_position import move_name
        from engine.xq_position import perft as xq_perft

        halt = self._halt

        def count(node: XqBoard, plies: int) -> int | None:
            if plies <= PERFT_KERNEL_DEPTH:
                return xq_perft(node, plies)
            total = 0
            for m in node.legal_moves():
                if halt.is_set():
                    return None
                child = node.copy()
                child.push(m)
                sub = count(child, plies - 1)
                if sub is None:
                    return None
                total += sub
            return total

        moves = board.legal_moves()
        total = 0
        for done, m in enumerate(moves):
            if halt.is_set():
                return [f"info string perft stopped after {done} of {len(moves)} moves"]
            child = board.copy()
            child.push(m)
            sub = count(child, depth - 1)
            if sub is None:
                return [f"info string perft stopped after {done} of {len(moves)} moves"]
            total += sub
            self.send(f"{move_name(m)}: {sub}")
        return ["", f"Nodes searched: {total}"]

    def _xq_bench(self, depth: int) -> list[str]:
        from engine.xq_searcher import XqSearcher
        from engine.xq_uci import BENCH_FENS as XQ_FENS

        nodes, elapsed = XqSearcher(hash_mb=16).bench(XQ_FENS, depth)
        return [
            f"info string bench: {len(XQ_FENS)} xiangqi positions at depth {depth}",
            f"Total time (ms) : {int(elapsed * 1000)}",
            f"Nodes searched  : {nodes}",
            f"Nodes/second    : {int(nodes / max(elapsed, 1e-9))}",
        ]

    def _bench(self, depth: int) -> list[str]:
        halt = self._halt
        if not self._wait_ready(halt):
            return ["info string bench stopped"]
        if self._is_xiangqi():
            return self._xq_bench(depth)
        from engine.searcher import Limits, Searcher

        searcher = self._job_searcher = Searcher(hash_mb=16)
        nodes, elapsed, done = 0, 0.0, 0
        for fen in BENCH_FENS:
            if halt.is_set():
                break
            searcher.clear()
            start = time.perf_counter()
            result = searcher.search(chess.Board(fen), Limits(depth=depth))
            if halt.is_set():  # cut short: not a bench figure
                break
            elapsed += time.perf_counter() - start
            nodes += result.info.nodes if result.info else 0
            done += 1
        if halt.is_set():
            return [f"info string bench stopped after {done} of {len(BENCH_FENS)} positions"]
        return [
            f"info string bench: {len(BENCH_FENS)} positions at depth {depth}",
            f"Total time (ms) : {int(elapsed * 1000)}",
            f"Nodes searched  : {nodes}",
            f"Nodes/second    : {int(nodes / max(elapsed, 1e-9))}",
        ]

    def _perft(self, board: chess.Board | XqBoard, depth: int) -> list[str]:
        """Leaf counts below each move, sent as each is known. Up to PERFT_KERNEL_DEPTH plies are
        counted by the kernel at once; above that, move by move, so `stop` ends it within one
        kernel call (a second or so)."""
        halt = self._halt
        if depth == 0:
            return ["", "Nodes searched: 1"]
        if not self._wait_ready(halt):
            return ["info string perft stopped"]
        if not isinstance(board, chess.Board):
            return self._xq_perft(board, depth)
        from engine.position import legal_moves, perft

        def count(node: chess.Board, plies: int) -> int | None:
            if plies <= PERFT_KERNEL_DEPTH:
                return perft(node, plies)
            total = 0
            for move in legal_moves(node):
                if halt.is_set():
                    return None
                node.push(move)
                sub = count(node, plies - 1)
                node.pop()
                if sub is None:
                    return None
                total += sub
            return total

        moves = legal_moves(board)
        total = 0
        for done, move in enumerate(moves):
            if halt.is_set():
                return [f"info string perft stopped after {done} of {len(moves)} moves"]
            board.push(move)
            sub = count(board, depth - 1)
            board.pop()
            if sub is None:
                return [f"info string perft stopped after {done} of {len(moves)} moves"]
            total += sub
            self.send(f"{move.uci()}: {sub}")
        return ["", f"Nodes searched: {total}"]

    def _strength(self) -> Strength:
        from engine.searcher import Strength

        if self.values["UCI_LimitStrength"]:
            skill = skill_for_elo(int(self.values["UCI_Elo"]), variant=str(self.values["UCI_Variant"]))
        else:
            skill = int(self.values["Skill Level"])
        return Strength.from_skill(skill)

    def style(self) -> Style:
        """The style the options describe (engine/style.py)."""
        scales = tuple((name, int(self.values[name])) for name in SCALE_OPTIONS)
        return Style(scales=scales, contempt=int(self.values["Contempt"]))

    def _apply_style(self, searcher: Searcher, board: chess.Board | XqBoard) -> None:
        """Give the searcher the evaluation of the current style, for the side to move (king
        attack and safety are per colour): chess's (engine/style.py) or xiangqi's
        (engine/xq_style.py). The hash table is cleared when that changes, since its scores were
        of another evaluation."""
        from engine.style import pick_weight, style_tables, supported_options

        is_chess = isinstance(board, chess.Board)
        style = Style(scales=self.style().scales)
        turn = (0 if board.turn == chess.WHITE else 1) if is_chess else int(board.turn)
        side = turn if style.is_sided else 0
        contempt = int(self.values["Contempt"])
        key = (style, side, contempt)
        previous = searcher.style_key
        if key == previous:
            return
        for name, pct in style.scales:
            if is_chess and pct != 100 and name not in supported_options():
                self.send(f"info string {name} has no effect with this build's evaluation (its weights are compiled in)")
        # the searcher starts with the neutral evaluation; a change of contempt alone keeps the tables
        if (previous[:2] != key[:2]) if previous is not None else not style.is_neutral:
            if isinstance(board, chess.Board):
                searcher.ev = style_tables(style, side)
                searcher.pick_weight = pick_weight(style)
            else:
                searcher.set_style(style, side)  # type: ignore[attr-defined]
        if previous is not None or not style.is_neutral or contempt:
            searcher.clear()  # its scores were of another evaluation, or of draws worth another value
        searcher.contempt = contempt
        searcher.style_key = key

    def _contempt(self, searcher: Searcher, board: chess.Board, best: UciMove | None, info: object) -> UciMove | None:
        """``best``, or the move contempt prefers (engine/style.py ``contempt_choice``)."""
        from engine.searcher import Limits
        from engine.style import CONTEMPT_NODES, contempt_choice

        contempt = int(self.values["Contempt"])
        if not contempt or not isinstance(best, chess.Move) or info is None:
            return best
        score = getattr(info, "score_cp", None)

        def child_score(child: chess.Board) -> int | None:
            # the other side moves first in ``child``: its draws are worth +contempt to it, as in
            # the main search, so every draw keeps the value (and hash entry) it had there
            searcher.contempt = -contempt
            try:
                result = searcher.search(child, Limits(nodes=CONTEMPT_NODES), strength=self._strength())
            finally:
                searcher.contempt = contempt
            return result.info.score_cp if result.info is not None else None

        choice = contempt_choice(board, best, score, contempt, child_score)
        if choice != best:
            self.send(f"info string contempt {contempt}: {choice.uci()} instead of the drawing {best.uci()}"
                      if contempt > 0 else f"info string contempt {contempt}: the draw {choice.uci()}")
        return choice

    def _run_search(self, board: chess.Board | XqBoard, params: dict[str, int | bool]) -> list[str]:
        best: UciMove | None = None
        ponder: UciMove | None = None
        try:
            self._wait_ready()
            from engine.book import Book
            from engine.searcher import Info, Limits

            searcher = self._job_searcher = (
                self._get_searcher() if isinstance(board, chess.Board) else self._get_xq_searcher()
            )
            infinite = bool(params.get("infinite") or params.get("ponder"))
            if not infinite:
                # A repertoire was asked for: it is the book under any limit, `go nodes` included.
                if isinstance(board, chess.Board):
                    best = self._repertoire.pick(board, searcher.rng) if self._repertoire is not None else None
                elif self._xq_repertoire is not None:
                    best = self._xq_repertoire.pick(board, searcher.rng)
                if best is not None:
                    self.send(f"info string book move {best.uci()} (repertoire)")
            if best is None and self.values["OwnBook"] and not infinite and "depth" not in params and "nodes" not in params:
                if isinstance(board, chess.Board):
                    best = Book(rng=searcher.rng).pick(board)
                else:
                    from engine.xq_book import pick as xq_book_pick

                    best = xq_book_pick(board, searcher.rng)
                if best is not None:
                    self.send(f"info string book move {best.uci()}")
            if best is None:
                depth = params.get("depth")
                if "mate" in params:
                    depth = 2 * int(params["mate"]) + 1
                limits = Limits(
                    depth=int(depth) if depth is not None else None,
                    nodes=int(params["nodes"]) if "nodes" in params else None,
                    movetime=int(params["movetime"]) if "movetime" in params else None,
                    wtime=int(params["wtime"]) if "wtime" in params else None,
                    btime=int(params["btime"]) if "btime" in params else None,
                    winc=int(params["winc"]) if "winc" in params else None,
                    binc=int(params["binc"]) if "binc" in params else None,
                    movestogo=int(params["movestogo"]) if "movestogo" in params else None,
                    infinite=infinite,
                )

                def on_info(info: Info) -> None:
                    score = f"mate {info.score_mate}" if info.score_mate is not None else f"cp {info.score_cp}"
                    pv = " ".join(m.uci() for m in info.pv)
                    self.send(
                        f"info depth {info.depth} seldepth {info.seldepth} score {score} nodes {info.nodes} "
                        f"nps {info.nps} time {info.time_ms} pv {pv}".rstrip()
                    )

                searcher.move_overhead_ms = int(self.values["Move Overhead"])
                self._apply_style(searcher, board)
                result = searcher.search(board, limits, strength=self._strength(), on_info=on_info)
                best, ponder = result.best, result.ponder
                if isinstance(board, chess.Board) and self.values["Contempt"] and not infinite:
                    chosen = self._contempt(searcher, board, best, result.info)
                    if chosen != best:
                        best, ponder = chosen, None
        except Exception as exc:
            log.exception("search failed")
            self.send(f"info string error: search failed: {type(exc).__name__}: {exc}")
            legal: list[UciMove] = list(board.legal_moves) if isinstance(board, chess.Board) else []
            if not isinstance(board, chess.Board):
                from engine.xq_position import XqMove

                legal = [XqMove(m) for m in board.legal_moves()]
            best = legal[0] if legal else None
        legal_names = _legal_names(board)
        if best is not None and best.uci() not in legal_names:
            # Never send an illegal move: a kernel bug is reported and the GUI still gets a legal one.
            log.error("search returned %s, not legal in %s", best.uci(), board.fen())
            self.send(f"info string error: search returned {best.uci()}, not legal here; playing a legal move")
            best, ponder = (_first_legal(board), None)
        if best is None:
            return ["bestmove (none)"]
        if ponder is not None:
            return [f"bestmove {best.uci()} ponder {ponder.uci()}"]
        return [f"bestmove {best.uci()}"]


def _legal_names(board: chess.Board | XqBoard) -> set[str]:
    if isinstance(board, chess.Board):
        return {m.uci() for m in board.legal_moves}
    from engine.xq_position import move_name

    return {move_name(m) for m in board.legal_moves()}


def _first_legal(board: chess.Board | XqBoard) -> UciMove | None:
    if isinstance(board, chess.Board):
        return next(iter(board.legal_moves), None)
    from engine.xq_position import XqMove

    moves = board.legal_moves()
    return XqMove(moves[0]) if moves else None


#: While the engine compiles, a line at least this often (seconds) says it is still at it.
HEARTBEAT = 20.0


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _warm_game(game: str, *, heartbeat: float = HEARTBEAT) -> None:
    """Build ``game``'s ahead-of-time kernels unless current here or in another checkout (the same
    sources' build is shared); say what is built, how far it is and how long it took last time."""
    from engine import aot

    if aot.module_path(game).is_file():
        _say(f"engine {game} kernels already compiled ahead of time: {aot.module_path(game)}")
        return
    shared = aot.from_shared(game)
    if shared is not None:
        _say(f"engine {game} kernels taken from another checkout's build of the same sources: {shared}")
        return
    last = aot.last_build_seconds(game)
    # Said before the compiler's work: what happens, that it is once, how long it took here before.
    _say(f"Compiling the engine's {game} search for this machine, once for these sources "
         "(its kernels, then a C module): "
         + (f"last time it took {aot.minutes(last)}." if last is not None
            else "no build on this machine yet; it takes from a minute to several (4 min on a busy two-core "
                 "machine, more on a Raspberry Pi)."))
    started = time.monotonic()
    done = threading.Event()

    def still_at_it() -> None:
        while not done.wait(heartbeat):
            so_far = aot.minutes(time.monotonic() - started)
            _say(f"… still compiling the engine's {game} kernels, {so_far} so far"
                 + (f" (last time {aot.minutes(last)})" if last else ""))

    ticker = threading.Thread(target=still_at_it, name="engine-build-heartbeat", daemon=True)
    ticker.start()
    try:
        path = aot.build(game, say=_say)
    except Exception as exc:  # any build failure leaves the JIT, which must then be warmed
        log.warning("ahead-of-time build of the %s kernels failed (%s: %s); warming numba's JIT cache instead",
                    game, type(exc).__name__, exc)
        _warm_jit(game)
        return
    finally:
        done.set()
        ticker.join()
    _say(f"engine {game} kernels compiled in {aot.minutes(time.monotonic() - started)}: {path}")


def _warm_jit(game: str) -> None:
    """Fill numba's on-disk cache for ``game``, where no ahead-of-time build can be made."""
    if game == "chess":
        from engine.searcher import Searcher

        Searcher().warm()
    else:
        from engine.xq_searcher import XqSearcher

        XqSearcher().warm()


def _in_background(games: list[str]) -> None:
    """Start ``warm`` for ``games`` as a process of its own that outlives this one (niced, its
    words in a log beside the builds), and say so."""
    from engine import aot

    log_path = aot.directory() / "background-build.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as out:
        nice = shutil.which("nice")
        command = [sys.executable, "-m", "engine", "warm", *games]
        subprocess.Popen(([nice, "-n", "10"] if nice else []) + command, stdin=subprocess.DEVNULL,
                         stdout=out, stderr=out, start_new_session=True)
    _say(f"The {' and '.join(games)} kernels are compiling in the background (log: {log_path}); "
         "a game of theirs started before they are ready runs on numba's JIT, slower to start.")


def _warm(games: list[str] | None = None, *, heartbeat: float = HEARTBEAT, rest_in_background: bool = False) -> int:
    """Build ``games``' kernels (default: every game, chess first), in the foreground; with
    ``rest_in_background`` the other games' are then built by a process of their own."""
    from engine import aot

    wanted = games or list(aot.GAMES)
    for game in wanted:
        _warm_game(game, heartbeat=heartbeat)
    rest = [g for g in aot.GAMES if g not in wanted and not aot.module_path(g).is_file()]
    rest = [g for g in rest if aot.from_shared(g) is None]
    if rest_in_background and rest:
        _in_background(rest)
    return 0


WARM_USAGE = "usage: python -m engine warm [chess|xiangqi ...] [--rest-in-background]"


def _warm_command(args: list[str]) -> int:
    """``warm`` and its arguments; a wrong one is one line of usage and exit 2."""
    from engine import aot

    games = [a for a in args if not a.startswith("-")]
    flags = [a for a in args if a.startswith("-")]
    unknown = [a for a in games if a not in aot.GAMES] + [f for f in flags if f != "--rest-in-background"]
    if unknown:
        _say(f"warm: unknown argument {unknown[0]!r}; {WARM_USAGE}")
        return 2
    return _warm(games, rest_in_background="--rest-in-background" in flags)


def main(argv: list[str] | None = None) -> int:
    """Speak UCI on stdin/stdout. ``warm`` as the only argument just compiles the kernels.

    ``warm`` builds the ahead-of-time module unless it is current; where that is impossible (no C compiler, no
    pycc) it fills numba's JIT cache instead, and the engine runs on the JIT.
    """
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["warm"]:
        return _warm_command(argv[1:])
    out_lock = threading.Lock()
    stdout = sys.stdout.buffer

    def send(text: str) -> None:
        # Bytes, so no locale (LC_ALL=C with PYTHONUTF8=0 is ASCII) can fail the write.
        with out_lock, contextlib.suppress(OSError):  # a GUI that closed the pipe hears nothing
            stdout.write(text.encode("utf-8", "backslashreplace") + b"\n")
            stdout.flush()

    protocol = UciProtocol(send)
    try:
        for line in read_commands(sys.stdin.buffer):
            if isinstance(line, UciError):
                protocol.error(str(line))
            elif not protocol.handle(line):
                break
        else:  # end of input, not `quit`: let a perft or bench finish, stop a search
            with contextlib.suppress(Exception):
                protocol.finish()
    except (KeyboardInterrupt, BrokenPipeError):
        # Ctrl-C at a terminal, or the GUI went away: end quietly, as at "quit".
        with contextlib.suppress(Exception):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (nothing more may reach a closed pipe)
        return 0
    return 0


def read_commands(stream: BinaryIO, *, limit: int = MAX_LINE_BYTES) -> Iterator[str | UciError]:
    """Lines of ``stream`` as text, read as bytes whatever the locale. A line that is not UTF-8,
    or longer than ``limit`` bytes, comes as a :class:`UciError` naming it instead; the rest of
    an over-long line is skipped ``limit`` bytes at a time, so memory stays bounded."""
    number = 0
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            yield UciError(f"input line {number} is longer than {limit} bytes; refused and skipped")
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(limit)
            continue
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield UciError(f"input line {number} is not UTF-8 (byte 0x{raw[exc.start]:02x} at {exc.start}); ignored")
