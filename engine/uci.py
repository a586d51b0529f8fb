"""UCI front end: a line-in, lines-out protocol state machine plus a stdin/stdout transport.

``UciProtocol.handle(line)`` consumes one command and writes replies through ``send``;
it knows nothing of pipes, so tests and other transports drive it directly. Searches
run in a worker thread so ``stop`` and ``isready`` are answered while thinking. Bad
input is answered with ``info string error: ...`` and never ends the engine.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess

from engine.levels import ELO_MAX, ELO_MIN, SKILL_MAX, skill_for_elo, skill_params

if TYPE_CHECKING:  # the real imports are lazy so `uci`/`uciok` never wait for numba
    from engine.searcher import Searcher, Strength, UciMove
    from engine.xq_position import XqBoard

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
        return f"option name {self.name} type spin default {int(self.default)} min {self.lo} max {self.hi}"

    def parse(self, raw: str) -> int | bool | str:
        if self.kind == "combo":
            for choice in self.choices:
                if raw.lower() == choice.lower():
                    return choice
            raise UciError(f"option {self.name} wants one of {', '.join(self.choices)}, got {raw!r}")
        if self.kind == "check":
            if raw.lower() not in ("true", "false"):
                raise UciError(f"option {self.name} wants true or false, got {raw!r}")
            return raw.lower() == "true"
        try:
            value = int(raw)
        except ValueError:
            raise UciError(f"option {self.name} wants an integer, got {raw!r}") from None
        if not self.lo <= value <= self.hi:
            raise UciError(f"option {self.name} must be in {self.lo}..{self.hi}, got {value}")
        return value


OPTIONS = (
    Option("Hash", "spin", HASH_DEFAULT, HASH_MIN, HASH_MAX),
    Option("Skill Level", "spin", SKILL_MAX, 0, SKILL_MAX),
    Option("UCI_LimitStrength", "check", False),
    Option("UCI_Elo", "spin", ELO_MAX, ELO_MIN, ELO_MAX),
    Option("OwnBook", "check", True),
    Option("Move Overhead", "spin", 30, 0, 5000),
    Option("UCI_Variant", "combo", "chess", choices=VARIANTS),
)

_GO_INT_KEYS = ("depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "perft", "mate")


def parse_go(tokens: list[str]) -> dict[str, int | bool]:
    """Keyword/value pairs of a ``go`` command (``infinite`` and ``ponder`` are flags)."""
    out: dict[str, int | bool] = {}
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in ("infinite", "ponder"):
            out[tok] = True
            i += 1
        elif tok in _GO_INT_KEYS:
            if i + 1 >= len(tokens):
                raise UciError(f"go {tok} needs a value")
            try:
                out[tok] = int(tokens[i + 1])
            except ValueError:
                raise UciError(f"go {tok} wants an integer, got {tokens[i + 1]!r}") from None
            i += 2
        elif tok == "searchmoves":
            break  # not supported; search all moves
        else:
            raise UciError(f"unknown go parameter {tok!r}")
    return out


def parse_position(tokens: list[str]) -> chess.Board:
    """The board for ``position startpos|fen <fen> [moves ...]``; raises UciError naming the fault."""
    if not tokens:
        raise UciError("position needs startpos or fen")
    if "moves" in tokens:
        cut = tokens.index("moves")
        head, moves = tokens[:cut], tokens[cut + 1 :]
    else:
        head, moves = tokens, []
    if head[0] == "startpos" and len(head) == 1:
        board = chess.Board()
    elif head[0] == "fen" and len(head) > 1:
        fen = " ".join(head[1:])
        try:
            board = chess.Board(fen)
        except ValueError as exc:
            raise UciError(f"bad fen {fen!r}: {exc}") from None
        if not board.is_valid():
            raise UciError(f"impossible position in fen {fen!r}: {board.status()!r}")
    else:
        raise UciError(f"position wants startpos or fen, got {' '.join(head)!r}")
    for uci in moves:
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            raise UciError(f"bad move {uci!r} in position") from None
        if move not in board.legal_moves:
            raise UciError(f"illegal move {uci} in position {board.fen()}")
        board.push(move)
    return board


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

    if aot.module_path().is_file():
        return True
    return next(aot.jit_cache_dir().glob("**/search.search-*.nbi"), None) is not None


class UciProtocol:
    """UCI state: options, current position and the search thread."""

    def __init__(self, send: Callable[[str], None], *, warm: bool = True) -> None:
        self.send = send
        self.values: dict[str, int | bool | str] = {o.name: o.default for o in OPTIONS}
        self.board: chess.Board | XqBoard = chess.Board()
        self._searcher: Searcher | None = None
        self._xq_searcher: Searcher | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._cold = not _kernels_cached()
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
                raise UciError(f"unknown command {cmd!r}")
            handler(args)
        except UciError as exc:
            self.send(f"info string error: {exc}")
        except Exception as exc:  # never die on input; report what broke
            log.exception("command %r failed", line)
            self.send(f"info string error: {type(exc).__name__}: {exc}")
        return True

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
        self._stop_search()
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
            raise UciError(f"unknown option {name!r}")
        value = option.parse(raw)
        self._stop_search()
        self.values[option.name] = value
        if option.name == "Hash" and self._searcher is not None:
            self._ready.wait()
            self._searcher.set_hash(int(value))
        if option.name == "Hash" and self._xq_searcher is not None:
            self._xq_searcher.set_hash(int(value))
        if option.name == "UCI_Variant":
            self.board = self._start_board()

    def cmd_position(self, args: list[str]) -> None:
        board: chess.Board | XqBoard
        board = parse_xq_position(args) if self._is_xiangqi() else parse_position(args)
        self._stop_search()
        self.board = board

    def cmd_stop(self, args: list[str]) -> None:
        self._stop_search()

    def cmd_go(self, args: list[str]) -> None:
        params = parse_go(args)
        if "perft" in params:
            self._perft(int(params["perft"]))
            return
        if self._thread is not None and self._thread.is_alive():
            raise UciError("already searching; send stop first")
        board = self.board.copy()
        self._thread = threading.Thread(target=self._run_search, args=(board, params), daemon=True)
        self._thread.start()

    def cmd_bench(self, args: list[str]) -> None:
        depth = BENCH_DEPTH
        if args:
            try:
                depth = int(args[0])
            except ValueError:
                raise UciError(f"bench wants a depth, got {args[0]!r}") from None
        self._stop_search()
        self._wait_ready()
        fens: tuple[str, ...] = BENCH_FENS
        if self._is_xiangqi():
            from engine.xq_searcher import XqSearcher
            from engine.xq_uci import BENCH_FENS as XQ_FENS

            if not args:
                depth = 8
            fens = XQ_FENS
            nodes, elapsed = XqSearcher(hash_mb=16).bench(fens, depth)
        else:
            from engine.searcher import Searcher

            nodes, elapsed = Searcher(hash_mb=16).bench(fens, depth)
        self.send(f"info string bench: {len(fens)} positions at depth {depth}")
        self.send(f"Total time (ms) : {int(elapsed * 1000)}")
        self.send(f"Nodes searched  : {nodes}")
        self.send(f"Nodes/second    : {int(nodes / max(elapsed, 1e-9))}")

    # -- helpers ------------------------------------------------------------------------
    def _wait_ready(self) -> None:
        self._ready.wait()
        if self._warm_error is not None:
            raise UciError(f"engine kernels failed to load: {self._warm_error}")

    def _stop_search(self) -> None:
        thread = self._thread
        if thread is not None and thread.is_alive():
            if self._searcher is not None:
                self._searcher.stop()
            thread.join()
        self._thread = None

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

                self._xq_searcher = XqSearcher(hash_mb=int(self.values["Hash"]))
            return self._xq_searcher

    def _perft(self, depth: int) -> None:
        if not 0 <= depth <= 10:
            raise UciError(f"perft depth must be in 0..10, got {depth}")
        self._wait_ready()
        if not isinstance(self.board, chess.Board):
            from engine.xq_position import divide as xq_divide

            if depth == 0:
                self.send("")
                self.send("Nodes searched: 1")
                return
            xq_counts = xq_divide(self.board, depth)
            for name, count in xq_counts.items():
                self.send(f"{name}: {count}")
            self.send("")
            self.send(f"Nodes searched: {sum(xq_counts.values())}")
            return
        from engine.position import divide

        if depth == 0:
            self.send("")
            self.send("Nodes searched: 1")
            return
        counts = divide(self.board, depth)
        for move, count in counts.items():
            self.send(f"{move.uci()}: {count}")
        self.send("")
        self.send(f"Nodes searched: {sum(counts.values())}")

    def _strength(self) -> Strength:
        from engine.searcher import FULL_STRENGTH, Strength

        if self.values["UCI_LimitStrength"]:
            skill = skill_for_elo(int(self.values["UCI_Elo"]))
        else:
            skill = int(self.values["Skill Level"])
        if skill >= SKILL_MAX:
            return FULL_STRENGTH
        p = skill_params(skill)
        return Strength(max_depth=p.max_depth, max_nodes=p.max_nodes, margin=p.margin, temperature=p.temperature)

    def _run_search(self, board: chess.Board | XqBoard, params: dict[str, int | bool]) -> None:
        best: UciMove | None = None
        ponder: UciMove | None = None
        try:
            self._wait_ready()
            from engine.book import Book
            from engine.searcher import Info, Limits

            searcher = self._get_searcher() if isinstance(board, chess.Board) else self._get_xq_searcher()
            infinite = bool(params.get("infinite") or params.get("ponder"))
            if self.values["OwnBook"] and not infinite and "depth" not in params and "nodes" not in params:
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
                result = searcher.search(board, limits, strength=self._strength(), on_info=on_info)
                best, ponder = result.best, result.ponder
        except Exception as exc:
            log.exception("search failed")
            self.send(f"info string error: search failed: {type(exc).__name__}: {exc}")
            legal: list[UciMove] = list(board.legal_moves) if isinstance(board, chess.Board) else []
            if not isinstance(board, chess.Board):
                from engine.xq_position import XqMove

                legal = [XqMove(m) for m in board.legal_moves()]
            best = legal[0] if legal else None
        if best is None:
            self.send("bestmove (none)")
        elif ponder is not None:
            self.send(f"bestmove {best.uci()} ponder {ponder.uci()}")
        else:
            self.send(f"bestmove {best.uci()}")


def _warm() -> int:
    from engine import aot

    if aot.module_path().is_file():
        sys.stderr.write(f"engine kernels already compiled ahead of time: {aot.module_path()}\n")
        return 0
    try:
        path = aot.build()
    except Exception as exc:  # any build failure leaves the JIT, which must then be warmed
        log.warning("ahead-of-time build failed (%s: %s); warming numba's JIT cache instead",
                    type(exc).__name__, exc)
        from engine.searcher import Searcher

        Searcher().warm()
        return 0
    sys.stderr.write(f"engine kernels compiled ahead of time: {path}\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Speak UCI on stdin/stdout. ``warm`` as the only argument just compiles the kernels.

    ``warm`` builds the ahead-of-time module unless it is current; where that is impossible (no C compiler, no
    pycc) it fills numba's JIT cache instead, and the engine runs on the JIT.
    """
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["warm"]:
        return _warm()
    out_lock = threading.Lock()

    def send(text: str) -> None:
        with out_lock:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()

    protocol = UciProtocol(send)
    for line in sys.stdin:
        if not protocol.handle(line):
            break
    with contextlib.suppress(Exception):
        protocol.handle("stop")
    return 0
