"""The UCI engine as a real subprocess driven by python-chess, plus the protocol fuzzed in-process."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import chess
import chess.engine
import pytest
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.searcher import Searcher
from engine.uci import ParsedPosition, UciError, UciProtocol, parse_go, parse_position

ENGINE_CMD = [sys.executable, "-m", "engine"]


@pytest.fixture(scope="module")
def warm_cache() -> None:
    """Compile (or load) the kernels here first so the subprocesses start from the cache."""
    Searcher(hash_mb=1).warm()


@pytest.fixture
def engine(warm_cache: None) -> Iterator[chess.engine.SimpleEngine]:
    eng = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=60)
    try:
        yield eng
    finally:
        eng.quit()


def _raw(lines: list[str], timeout: float = 60) -> list[str]:
    proc = subprocess.run(ENGINE_CMD, input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=timeout, check=True)
    return proc.stdout.splitlines()


@pytest.mark.slow
def test_identifies_and_lists_options(engine: chess.engine.SimpleEngine) -> None:
    assert engine.id["name"].startswith("boardctl-engine")
    for name in ("Hash", "Skill Level", "UCI_LimitStrength", "UCI_Elo", "OwnBook"):
        assert name in engine.options
    assert engine.options["UCI_Elo"].min == 800 and engine.options["UCI_Elo"].max == 2400


@pytest.mark.slow
def test_plays_a_full_game_against_a_weak_self(warm_cache: None) -> None:
    strong = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=60)
    weak = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=60)
    try:
        weak.configure({"Skill Level": 0})
        board = chess.Board()
        while not board.is_game_over(claim_draw=True) and board.ply() < 400:
            # the strong side gets a node budget, so a loaded machine cannot starve it to depth 1
            if board.turn == chess.WHITE:
                result = strong.play(board, chess.engine.Limit(nodes=20_000))
            else:
                result = weak.play(board, chess.engine.Limit(time=0.03))
            assert result.move in board.legal_moves
            board.push(result.move)
        assert board.is_game_over(claim_draw=True)
        assert board.result(claim_draw=True) in ("1-0", "1/2-1/2")
    finally:
        strong.quit()
        weak.quit()


@pytest.mark.slow
def test_analysis_reports_score_nodes_nps_and_pv(engine: chess.engine.SimpleEngine) -> None:
    engine.configure({"OwnBook": False})
    info = engine.analyse(chess.Board(), chess.engine.Limit(depth=6))
    assert info["depth"] == 6
    assert info["nodes"] > 0 and info["nps"] > 0
    assert len(info["pv"]) >= 2
    assert abs(info["score"].white().score()) < 150
    mate = engine.analyse(chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"), chess.engine.Limit(depth=4))
    assert mate["score"].white() == chess.engine.Mate(1)


@pytest.mark.slow
def test_clock_limits_and_infinite_with_stop(engine: chess.engine.SimpleEngine) -> None:
    engine.configure({"OwnBook": False})
    board = chess.Board()
    board.push_uci("e2e4")
    result = engine.play(board, chess.engine.Limit(white_clock=2, black_clock=2, white_inc=0.05, black_inc=0.05))
    assert result.move in board.legal_moves
    result = engine.play(board, chess.engine.Limit(nodes=5000))
    assert result.move in board.legal_moves
    with engine.analysis(board) as analysis:
        for info in analysis:
            if info.get("depth", 0) >= 4:
                break
        analysis.stop()
        best = analysis.wait()
    assert best.move in board.legal_moves


@pytest.mark.slow
def test_book_gives_varied_openings(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    board.push_uci("e2e4")  # 1...e5 has half the weight; 30 picks all from two moves: p < 1e-4
    replies = {engine.play(board, chess.engine.Limit(time=0.05)).move for _ in range(30)}
    assert len(replies) >= 3 and replies <= set(board.legal_moves)


@pytest.mark.slow
def test_perft_bench_and_bad_input_over_raw_pipes(warm_cache: None) -> None:
    out = _raw([
        "uci",
        "isready",
        "position startpos",
        "go perft 4",
        "flibbertigibbet",
        "position fen not/a/fen w - - 0 1",
        "position startpos moves e2e4 e7e5 e1e3",
        "position startpos moves zz99",
        "position",
        "setoption name Hash value lots",
        "setoption name Nonexistent value 3",
        "setoption name UCI_Elo value 5000",
        "go depth",
        "go sideways 3",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "bench 3",
        "isready",
        "setoption name OwnBook value false",
        "position startpos moves e2e4",
        "go depth 3",
        "isready",
        "quit",
    ])
    assert "Nodes searched: 197281" in out
    errors = [line for line in out if line.startswith("info string error:")]
    assert len(errors) == 11, errors
    assert any(line.startswith("Nodes/second") for line in out)
    assert out.count("readyok") == 3
    best = [line for line in out if line.startswith("bestmove")]
    assert len(best) == 1
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(best[0].split()[1]) in board.legal_moves


def test_parsers_reject_what_they_must() -> None:
    assert parse_go(["wtime", "100", "btime", "200", "infinite"]) == {"wtime": 100, "btime": 200, "infinite": True}
    assert parse_position(["startpos", "moves", "e2e4"]).board.fen().startswith("rnbqkbnr/pppppppp/8/8/4P3")
    for bad in (["depth", "x"], ["movetime"], ["bogus"]):
        with pytest.raises(ValueError):
            parse_go(bad)


@pytest.mark.fuzz
@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40), max_size=6))
def test_protocol_survives_arbitrary_lines(lines: list[str]) -> None:
    out: list[str] = []
    protocol = UciProtocol(out.append, warm=False)
    for line in lines:
        if line.strip().startswith(("go", "bench")):
            continue  # would start real searches; covered above
        assert protocol.handle(line.replace("\n", " ")) in (True, False)
    assert all(isinstance(x, str) for x in out)


FEN_HEAD = ["fen", "r3k2r/pp3ppp/2n5/8/8/4B3/PPP2PPP/R3K2R", "w", "KQkq", "-", "0", "1"]


def _random_moves(seed: int, head: list[str], plies: int) -> list[str]:
    import random

    rng = random.Random(seed)
    board = parse_position(head).board
    out: list[str] = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        out.append(move.uci())
        board.push(move)
    return out


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.lists(st.sampled_from(["extend", "back", "other", "same"]), max_size=12))
def test_parse_position_from_the_previous_equals_a_fresh_parse(seed: int, steps: list[str]) -> None:
    """A GUI's commands: the game grows, is taken back, switches head, repeats; every board equals a
    fresh parse of the same command, move stack (for repetitions) included, and the cached board is
    never changed by its users."""
    heads = (["startpos"], FEN_HEAD)
    games = [_random_moves(seed, head, 80) for head in heads]
    which, n = 0, 0
    previous: ParsedPosition | None = None
    for k, step in enumerate(steps):
        if step == "extend":
            n = min(n + 1 + k % 3, len(games[which]))
        elif step == "back":
            n = max(0, n - 2)
        elif step == "other":
            which, n = 1 - which, min(n, len(games[1 - which]))
        tokens = [*heads[which], "moves", *games[which][:n]] if n else list(heads[which])
        got = parse_position(tokens, previous=previous)
        fresh = parse_position(tokens)
        assert got.board.fen() == fresh.board.fen()
        assert got.board.move_stack == fresh.board.move_stack
        if previous is not None:  # the result is a board of its own: playing on it leaves the cache as it was
            before = previous.board.fen()
            got.board.push(next(iter(got.board.legal_moves), chess.Move.null()))
            assert previous.board.fen() == before
            got.board.pop()
        previous = got


@pytest.mark.parametrize(
    ("first", "then", "error"),
    [
        (["startpos", "moves", "e2e4"], ["startpos", "moves", "e2e4", "e2e4"], "illegal move e2e4"),
        (["startpos", "moves", "e2e4"], ["startpos", "moves", "e2e4", "zz"], "bad move"),
        (["startpos", "moves", "e2e4"], ["moves", "e2e4"], "position wants startpos or fen"),
        (["startpos"], ["fen", "8/8/8/8/8/8/8/8", "w", "-", "-", "0", "1"], "impossible position"),
    ],
)
def test_parse_position_from_the_previous_rejects_as_a_fresh_parse(first: list[str], then: list[str], error: str) -> None:
    previous = parse_position(first)
    for prev in (previous, None):
        with pytest.raises(UciError, match=error):
            parse_position(then, previous=prev)


def test_protocol_keeps_its_position_after_a_bad_one() -> None:
    sent: list[str] = []
    proto = UciProtocol(sent.append, warm=False)
    proto.cmd_position(["startpos", "moves", "e2e4", "e7e5"])
    with pytest.raises(UciError):
        proto.cmd_position(["startpos", "moves", "e2e4", "e7e5", "e1e3"])
    proto.cmd_position(["startpos", "moves", "e2e4", "e7e5", "g1f3"])
    assert isinstance(proto.board, chess.Board)
    assert [m.uci() for m in proto.board.move_stack] == ["e2e4", "e7e5", "g1f3"]
