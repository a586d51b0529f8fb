"""UCI input that once hurt the engine: long work on the input thread, a go racing its bestmove,
huge numbers and lines, bytes that are not UTF-8. In-process for speed, and as a real process
under strict locales."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import chess
import pytest
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.searcher import Searcher
from engine.uci import (
    BENCH_MAX_DEPTH,
    MAX_LINE_BYTES,
    MAX_NODES,
    MAX_TIME_MS,
    PERFT_MAX_DEPTH,
    UciError,
    UciProtocol,
    parse_go,
)

ENGINE_CMD = [sys.executable, "-m", "engine"]


@pytest.fixture(scope="module")
def warm_cache() -> None:
    Searcher(hash_mb=1).warm()


class Driver:
    """A UciProtocol whose output lines arrive on a queue, as a GUI reads them."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.protocol = UciProtocol(self.lines.put)
        self.seen: list[str] = []

    def send(self, line: str) -> None:
        self.protocol.handle(line)

    def expect(self, prefix: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            self.seen.append(line)
            if line.startswith(prefix):
                return line

    def drain(self) -> list[str]:
        out = []
        while True:
            try:
                out.append(self.lines.get_nowait())
            except queue.Empty:
                self.seen += out
                return out


@pytest.fixture
def driver(warm_cache: None) -> Iterator[Driver]:
    d = Driver()
    d.protocol._ready.wait()
    yield d
    d.send("quit")


@pytest.mark.slow
def test_a_go_sent_the_moment_bestmove_arrives_is_always_taken(driver: Driver) -> None:
    driver.send("setoption name OwnBook value false")
    errors: list[str] = []
    for i in range(1000):
        driver.send("go depth 1" if i % 2 else "go movetime 1")
        line = driver.expect("bestmove")
        errors += [x for x in driver.seen if x.startswith("info string error")]
        driver.seen.clear()
        assert chess.Move.from_uci(line.split()[1]) in chess.Board().legal_moves
    assert errors == []
    driver.send("isready")
    driver.expect("readyok")
    assert not any(x.startswith("bestmove") for x in driver.drain())  # exactly one per go


@pytest.mark.parametrize(("command", "kind"), [("go perft 7", "perft"), (f"bench {BENCH_MAX_DEPTH}", "bench")])
def test_perft_and_bench_leave_isready_and_stop_answered_at_once(driver: Driver, command: str, kind: str) -> None:
    driver.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    driver.send(command)
    time.sleep(0.3)
    started = time.monotonic()
    driver.send("isready")
    driver.expect("readyok", timeout=2)
    assert time.monotonic() - started < 0.5
    started = time.monotonic()
    driver.send("stop")
    stopped = time.monotonic() - started
    assert stopped < 2.0, stopped
    assert driver.expect(f"info string {kind} stopped", timeout=1)
    assert not any("Nodes searched" in x for x in driver.seen)
    driver.send("go depth 2")  # and the engine is free again
    driver.expect("bestmove")


def test_a_finished_perft_is_the_right_count(driver: Driver) -> None:
    driver.send("position startpos")
    driver.send("go perft 5")
    assert driver.expect("Nodes searched", timeout=60) == "Nodes searched: 4865609"
    counts = [int(x.split(": ")[1]) for x in driver.seen if re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?: \d+", x)]
    assert len(counts) == 20 and sum(counts) == 4865609


@pytest.mark.parametrize(("command", "message"), [
    ("go perft 8", f"perft depth must be in 0..{PERFT_MAX_DEPTH}"),
    ("go perft 10", f"perft depth must be in 0..{PERFT_MAX_DEPTH}"),
    ("go perft -1", "perft depth must be in"),
    ("go perft 99999999999999999999999999999999999999999999999", "perft depth must be in"),
    ("bench 30", f"bench depth must be in 1..{BENCH_MAX_DEPTH}"),
    ("bench 0", "bench depth must be in"),
    ("bench " + "9" * 5000, "bench depth must be in"),
    ("bench x", "bench wants a depth"),
])
def test_perft_and_bench_depths_are_capped(driver: Driver, command: str, message: str) -> None:
    driver.send(command)
    line = driver.expect("info string error", timeout=5)
    assert message in line and len(line) < 400
    driver.send("isready")
    driver.expect("readyok", timeout=2)
    assert not any(x.startswith(("Nodes", "bestmove")) for x in driver.seen)


#: (go arguments, the clamp message expected, or None) -- each must still end in one bestmove.
GO_TABLE = [
    ("nodes 18446744073709551616", f"go nodes '18446744073709551616' is out of range 1..{MAX_NODES}"),
    (f"nodes {2**63}", "out of range"),
    ("nodes 0", "go nodes '0' is out of range"),
    (f"movetime {2**63}", f"using {MAX_TIME_MS}"),
    ("movetime -5", "go movetime '-5' is out of range"),
    ("depth 0", "go depth '0' is out of range"),
    ("depth -3", "out of range"),
    ("depth 1000", "using 99"),
    ("depth " + "9" * 4400, "out of range"),
    (f"wtime {10**30} btime {10**30}", "go wtime"),
    ("wtime -100 btime -100 winc -1 binc -1", "go wtime '-100'"),
    ("movestogo 0 wtime 1000 btime 1000", "go movestogo '0'"),
    ("mate 0", "go mate '0'"),
    ("mate 100000", "go mate '100000'"),
    ("nodes 5000", None),
    ("depth 2", None),
]


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), GO_TABLE)
def test_go_numbers_out_of_range_are_clamped_and_still_answered(driver: Driver, args: str, message: str | None) -> None:
    failures: list[BaseException] = []
    old_hook = threading.excepthook
    threading.excepthook = lambda hook_args: failures.append(hook_args.exc_value)  # type: ignore[assignment]
    try:
        driver.send("position startpos moves e2e4")
        driver.send(f"go {args}")
        time.sleep(0.2)
        driver.send("stop")
        best = driver.expect("bestmove", timeout=30)
    finally:
        threading.excepthook = old_hook
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(best.split()[1]) in board.legal_moves
    errors = [x for x in driver.seen if x.startswith("info string error")]
    if message is None:
        assert errors == []
    else:
        assert any(message in x for x in errors), errors
    assert not any("search failed" in x for x in errors)
    assert all(len(x) < 400 for x in errors)
    assert failures == []


def test_a_huge_go_nodes_really_searches(driver: Driver) -> None:
    """It plays what a search finds, not the first legal move: mate in one is found."""
    driver.send("setoption name OwnBook value false")
    driver.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    driver.send(f"go nodes {2**64} depth 3")
    assert driver.expect("bestmove").split()[1] == "d1d8"


@pytest.mark.parametrize(("line", "needle"), [
    ("x" * 10_000_000, "unknown command 'xxxxxxxx"),
    ("setoption name " + "H" * 100_000 + " value 1", "unknown option"),
    ("setoption name Hash value " + "9" * 5000, "option Hash must be in 1..1024"),
    ("setoption name Hash value ٣", "option Hash wants an integer"),
    ("setoption name Hash value 99999999999", "option Hash must be in"),
    ("position fen " + "p" * 100_000, "bad fen"),
    ("position startpos moves e2e4 e7e5 " + "z" * 100_000, "bad move"),
    ("go " + "sideways " * 10_000, "unknown go parameter 'sideways'"),
    ("go depth " + "x" * 100_000, "go depth wants an integer"),
])
def test_long_input_is_never_echoed_whole(line: str, needle: str) -> None:
    out: list[str] = []
    protocol = UciProtocol(out.append, warm=False)
    assert protocol.handle(line)
    (error,) = out
    assert error.startswith("info string error:") and needle in error
    assert len(error) < 400


def test_parse_go_refuses_or_clamps_every_number() -> None:
    warnings: list[str] = []
    params = parse_go(["nodes", str(2**64), "movetime", str(2**63), "depth", "7"], warn=warnings.append)
    assert params == {"nodes": MAX_NODES, "movetime": MAX_TIME_MS, "depth": 7}
    assert len(warnings) == 2
    for bad in (["nodes", "1e9"], ["depth", "٣"], ["movetime", "+" + "1" * 50 + "x"]):
        with pytest.raises(UciError):
            parse_go(bad)


@pytest.mark.fuzz
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(
    st.tuples(
        st.sampled_from(["depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "mate"]),
        st.one_of(st.integers(-(2**70), 2**70), st.integers(-3, 3), st.sampled_from(["x", "", "1.5", "-0", "0x10"])),
    ),
    max_size=4,
))
def test_fuzzed_go_gets_one_bestmove_or_one_error(driver: Driver, pairs: list[tuple[str, object]]) -> None:
    driver.seen.clear()
    driver.send("position startpos moves d2d4")
    driver.send("go " + " ".join(f"{k} {v}" for k, v in pairs))
    driver.send("stop")
    driver.send("isready")
    driver.expect("readyok", timeout=30)
    driver.seen += driver.drain()
    best = [x for x in driver.seen if x.startswith("bestmove")]
    refused = [x for x in driver.seen if "wants an integer" in x or "needs a value" in x]
    assert len(best) + len(refused) == 1, driver.seen
    assert not any("search failed" in x for x in driver.seen)


# -- the real process --------------------------------------------------------------------------

LOCALES = [
    {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"},
    {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
    {"LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"},
]


@pytest.mark.slow
@pytest.mark.parametrize("locale", LOCALES, ids=["utf8-strict", "C-ascii", "utf8-mode"])
def test_invalid_bytes_under_strict_locales_are_an_error_line(warm_cache: None, locale: dict[str, str]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_CTYPE", "PYTHONUTF8", "PYTHONIOENCODING")}
    script = (b"uci\n\xff\xfe\x80 go\nposition startpos moves e2e4 \xc3\nsetoption name \xc3\xa9t\xc3\xa9 value 1\n"
              b"isready\nposition startpos moves e2e4\ngo depth 2\nisready\n")
    proc = subprocess.Popen(ENGINE_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**env, **locale})
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(script)
    proc.stdin.flush()
    out: list[bytes] = []
    while not out or not out[-1].startswith(b"bestmove"):
        out.append(proc.stdout.readline().rstrip(b"\n"))
        assert out[-1] or proc.poll() is None, out
    proc.stdin.write(b"quit\n")
    proc.stdin.flush()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert b"Traceback" not in err
    text = [x.decode("utf-8") for x in out]
    assert "info string error: input line 2 is not UTF-8 (byte 0xff at 0); ignored" in text
    assert any("input line 3 is not UTF-8" in x for x in text)
    assert "info string error: unknown option 'été'" in text  # valid UTF-8 is echoed as such
    assert text.count("readyok") >= 1


def _vm_hwm_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))


@pytest.mark.slow
def test_a_100_mb_line_without_newline_is_refused_quickly_in_bounded_memory(warm_cache: None) -> None:
    proc = subprocess.Popen(ENGINE_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"go depth 1\n")  # the kernels loaded, so what grows after is the line
    proc.stdin.flush()
    while not proc.stdout.readline().startswith(b"bestmove"):
        pass
    before = _vm_hwm_kb(proc.pid)
    chunk = b"y" * (1 << 20)
    started = time.monotonic()
    for _ in range(100):
        proc.stdin.write(chunk)
    proc.stdin.write(b"\nisready\n")
    proc.stdin.flush()
    first = proc.stdout.readline().decode()
    assert first.startswith(f"info string error: input line 2 is longer than {MAX_LINE_BYTES} bytes")
    assert proc.stdout.readline() == b"readyok\n"
    elapsed = time.monotonic() - started
    grown = _vm_hwm_kb(proc.pid) - before
    proc.stdin.write(b"quit\n")
    proc.stdin.flush()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and b"Traceback" not in err
    assert elapsed < 20, elapsed
    assert grown < 20_000, f"peak memory grew {grown} kB"


@pytest.fixture(scope="module")
def live_engine(warm_cache: None) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(ENGINE_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    yield proc
    if proc.poll() is None:
        assert proc.stdin is not None
        proc.stdin.write(b"quit\n")
        proc.stdin.flush()
        proc.communicate(timeout=30)
    assert proc.returncode == 0


UCI_WORDS = ["uci", "isready", "ucinewgame", "position", "startpos", "fen", "moves", "go", "stop", "setoption",
             "name", "value", "Hash", "OwnBook", "depth", "nodes", "perft", "bench", "e2e4", "e7e5", "debug", "on"]


@pytest.mark.slow
@pytest.mark.fuzz
@settings(max_examples=examples(40), deadline=None)
@given(st.lists(
    st.one_of(
        st.lists(st.sampled_from(UCI_WORDS) | st.integers(-(2**70), 2**70).map(str), max_size=6).map(" ".join),
        st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ").decode("latin-1")),
    ),
    max_size=5,
))
def test_fuzzed_lines_never_stop_a_live_engine(live_engine: subprocess.Popen[bytes], lines: list[str]) -> None:
    assert live_engine.stdin is not None and live_engine.stdout is not None
    payload = b"".join(
        line.encode("latin-1").replace(b"quit", b"qu1t").replace(b"bench", b"b3nch").replace(b"perft", b"p3rft") + b"\n"
        for line in lines
    )
    live_engine.stdin.write(payload + b"stop\nisready\n")
    live_engine.stdin.flush()
    while True:
        line = live_engine.stdout.readline()
        assert line, "the engine exited"
        if line == b"readyok\n":
            break
    assert live_engine.poll() is None
