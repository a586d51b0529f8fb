"""Xiangqi rules speed (boardctl.variants.xiangqi, pure Python): perft, masked move generation
as the tracker asks for it on every settle, the cost of ``outcome()`` when no judge is needed, and
the Chinese rules' ruling of a repetition cycle.

``python -m bench xiangqi_rules [--depth 4] [--positions 300]``. CPU times (process_time), so a
loaded machine shows less than wall clock.
"""

from __future__ import annotations

import argparse
import random
import time

from boardctl.variants.xiangqi import XiangqiBoard, perft


def _positions(count: int, seed: int) -> list[XiangqiBoard]:
    rng = random.Random(seed)
    out: list[XiangqiBoard] = []
    while len(out) < count:
        board = XiangqiBoard()
        for _ in range(rng.randint(10, 120)):
            moves = list(board.generate_legal_moves())
            if not moves:
                break
            board.push(rng.choice(moves))
        out.append(board.copy(stack=False))
    return out


def _per_call(fn: object, boards: list[XiangqiBoard], repeat: int) -> float:
    assert callable(fn)
    start = time.process_time()
    for _ in range(repeat):
        for board in boards:
            fn(board)
    return (time.process_time() - start) / (repeat * len(boards))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.xiangqi_rules")
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--positions", type=int, default=300)
    args = parser.parse_args(argv)
    for depth in range(1, args.depth + 1):
        board = XiangqiBoard()
        start = time.process_time()
        nodes = perft(board, depth)
        spent = time.process_time() - start
        print(
            f"perft {depth}: {nodes:,} leaves in {spent:.2f} s CPU ({nodes / max(spent, 1e-9) / 1000:,.0f} k leaves/s)"
        )
    boards = _positions(args.positions, seed=11)
    every = _per_call(lambda b: sum(1 for _ in b.generate_legal_moves()), boards, 3)
    print(f"all legal moves of one position: {every * 1e6:.0f} us")

    pieces = sum(bin(b.occupied_by(b.turn)).count("1") for b in boards)

    def one_piece(b: XiangqiBoard) -> None:
        # the tracker's common question: where may the piece lifted from this point go?
        for sq in b.geometry.squares_in(b.occupied_by(b.turn)):
            sum(1 for _ in b.generate_legal_moves(1 << sq))

    per_piece = _per_call(one_piece, boards, 1) * len(boards) / pieces
    print(f"legal moves of one lifted piece (from_mask of one point): {per_piece * 1e6:.0f} us")
    to_one = _per_call(
        lambda b: sum(1 for _ in b.generate_legal_moves(b.occupied_by(b.turn), 1 << 40)), boards, 3
    )
    print(f"legal moves onto one point (to_mask of one point): {to_one * 1e6:.0f} us")
    ends = _per_call(lambda b: b.outcome(), boards, 3)
    print(f"outcome() with no repetition (the judge not asked): {ends * 1e6:.0f} us")
    _cycles()
    return 0


def _cycles() -> None:
    """The 棋例 ruling of one repetition cycle (no cache): the engine table's 44 four-ply cycles."""
    import json
    import statistics
    from importlib import resources

    from boardctl.variants.xiangqi.chinese_rules import classify, rule_effects

    sequences = json.loads(
        resources.files("engine").joinpath("data/xiangqi_repetitions.json").read_text(encoding="utf-8")
    )["sequences"]
    times = []
    for seq in sequences:
        start = time.process_time()
        board = XiangqiBoard(seq["fen"])
        effects = []
        for uci in seq["moves"][:4]:
            move = board.parse_uci(uci)
            effects.append(classify(board, move))
            board.push(move)
        rule_effects(effects)
        times.append(time.process_time() - start)
    print(
        f"棋例 ruling of a four-ply cycle ({len(times)} cycles): median {statistics.median(times) * 1e3:.1f} ms, "
        f"max {max(times) * 1e3:.1f} ms"
    )
