"""The fixed-depth searches whose node counts, scores and principal variations pin the search
kernel down (tests/engine/test_search_nodes.py; recorded in tests/engine/data/search_nodes.json).

``python -m tests.engine.search_nodes_lib > tests/engine/data/search_nodes.json`` records them
with whichever kernels the environment selects (``BOARDCTL_ENGINE_JIT=1``: numba's JIT).
"""

from __future__ import annotations

import json
import sys
from typing import Any

# Chess: the Bratko-Kopec test (24) and the first Win at Chess positions (data/epd), the UCI bench
# positions and two with a history of repetitions, one of them scored with contempt.
BK = (
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "2r3k1/pppR1pp1/4p3/4P1P1/5P2/1P4K1/P1P5/8 w - - 0 1",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    "4b3/p3kp2/6p1/3pP2p/2pP1P2/4K1P1/P3N2P/8 w - - 0 1",
    "2kr1bnr/pbpq4/2n1pp2/3p3p/3P1P1B/2N2N1Q/PPP3PP/2KR1B1R w - - 0 1",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "2r1nrk1/p2q1ppp/bp1p4/n1pPp3/P1P1P3/2PBB1N1/4QPPP/R4RK1 w - - 0 1",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
    "r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - - 0 1",
    "rnb2r1k/pp2p2p/2pp2p1/q2P1p2/8/1Pb2NP1/PB2PPBP/R2Q1RK1 w - - 0 1",
    "2r3k1/1p2q1pp/2b1pr2/p1pp4/6Q1/1P1PP1R1/P1PN2PP/5RK1 w - - 0 1",
    "r1bqkb1r/4npp1/p1p4p/1p1pP1B1/8/1B6/PPPN1PPP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/1ppnbppp/p2p1nb1/3Pp3/2P1P1P1/2N2N1P/PPB1QP2/R1B2RK1 b - - 0 1",
    "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1",
    "3rr3/2pq2pk/p2p1pnp/8/2QBPP2/1P6/P5PP/4RRK1 b - - 0 1",
    "r4k2/pb2bp1r/1p1qp2p/3pNp2/3P1P2/2N3P1/PPP1Q2P/2KRR3 w - - 0 1",
    "3rn2k/ppb2rpp/2ppqp2/5N2/2P1P3/1P5Q/PB3PPP/3RR1K1 w - - 0 1",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
    "r1bqk2r/pp2bppp/2p5/3pP3/P2Q1P2/2N1B3/1PP3PP/R4RK1 b kq - 0 1",
    "r2qnrnk/p2b2b1/1p1p2pp/2pPpp2/1PP1P3/PRNBB3/3QNPPP/5RK1 w - - 0 1",
)
WAC = (
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - 0 1",
    "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
    "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
    "5k2/6pp/p1qN4/1p1p4/3P4/2PKP2Q/PP3r2/3R4 b - - 0 1",
    "7k/p7/1R5K/6r1/6p1/6P1/8/8 w - - 0 1",
)
CHESS_BENCH = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "6k1/5ppp/8/8/3K4/8/5PPP/8 w - - 0 1",
)
CHESS_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KNIGHTS_BACK = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]
CHESS_DEPTH = 8
# (fen, moves played from it, depth, contempt)
CHESS_CASES: tuple[tuple[str, list[str], int, int], ...] = (
    *((fen, [], CHESS_DEPTH, 0) for fen in BK + WAC + CHESS_BENCH),
    (CHESS_START, KNIGHTS_BACK, CHESS_DEPTH, 0),
    (CHESS_START, KNIGHTS_BACK, CHESS_DEPTH, 30),
    ("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1", [], 8, 0),  # stalemates in the tree
    ("4k3/8/8/3r4/8/8/3R4/4K3 w - - 0 1", [], 10, 50),  # repetitions in the tree, with contempt
    ("6k1/8/6K1/8/8/8/8/R7 w - - 95 80", [], 9, 0),  # mate before the fifty-move rule
)

# Xiangqi: the UCI bench positions, the tests' positions (endgames, mates, stalemates, the 60-move
# rule) and repetition cycles under both rules.
XQ_BENCH = (
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1CN1C1N2/9/R1BAKAB1R w - - 4 5",
    "r2akab1r/9/1cn1b1n2/p1p1p1p1p/9/2P3c2/P3P1P1P/1CN1C1N2/9/R1BAKABR1 w - - 6 7",
    "2bakab2/9/2n1c1n2/p3p1p1p/2r6/2P1P4/P5P1P/2N1C4/4A4/2BAK1BR1 w - - 0 15",
    "3ak4/4a4/4b4/p3p3p/9/2P6/P3P3P/4B4/4A4/2BAK4 w - - 0 30",
    "4ka3/4a4/9/9/4N4/9/9/9/4A4/3AK4 w - - 0 40",
    "3k5/9/9/9/4R4/9/9/9/9/4K4 w - - 0 50",
    "2ba1k3/4a4/4b4/9/2p6/9/4P4/4B4/4A4/2BAK1c2 b - - 0 45",
)
XQ_MORE = (
    "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1CN1C1N2/9/R1BAKABR1 w - - 4 5",
    "r3kab2/4a4/2n1b1c2/p1p1C3p/6p2/2P3P2/P3P3P/2N1B1N2/4A4/R2AK1B1c w - - 0 20",
    "rc1ak1b2/4ar3/b1n3n2/p1p1p1pcP/9/2P1P4/P2C2P2/1C7/4K4/RNBA1ABNR b - - 6 12",
    "rnbakabnr/1C7/c8/p1p3p2/4p3p/P1P3c2/4P1P1P/4C4/4A4/RNBAK1BNR b - - 11 6",
    "2bak4/4a4/4b4/4N4/9/9/9/9/3pA4/4K4 b - - 0 70",
    "2bakab2/9/9/9/9/9/9/9/4A4/R1BK1AB2 w - - 0 1",
    "3k5/4a4/9/9/9/9/2r6/9/9/4K4 w - - 0 1",
    "3k5/9/9/9/1r7/9/1p7/9/9/1C2K4 w - - 0 1",
    "3k5/9/9/9/2P3P2/9/9/9/9/4K4 w - - 0 1",
    "3k5/9/R8/9/4R4/9/9/9/9/4K4 w - - 0 1",
    "4k4/4a4/4c4/9/9/9/9/4C4/4A4/4K4 w - - 0 60",
    "4k4/7R1/9/9/9/9/9/9/9/R4K3 w - - 0 1",
    "4k4/7R1/9/9/9/9/9/9/9/R4K3 w - - 119 80",
    "3k5/9/9/9/9/9/9/9/9/4K1R2 w - - 118 80",
    "4k4/9/9/9/9/9/9/9/3K5/r3C4 w - - 0 1",
    "3k5/9/9/9/9/9/9/r6N1/9/5K3 b - - 0 1",
)
XQ_DEPTH = 7
CHECK_CYCLE = ("3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1", ["e1d1", "d9e9", "d1e1", "e9d9"])
CHASE_CYCLE = ("5k3/9/9/9/4c4/9/9/R8/9/3K5 w - - 0 1", ["a2a5", "e5e2", "a5a2", "e2e5"])
CHECK_AND_CHASE = ("3k5/9/9/2R6/9/9/9/7N1/5K3/r8 b - - 0 1",
                   ["a0a2", "f1f0", "a2a0", "f0f1"] * 2)
CHECK_AND_IDLE = ("3k5/9/9/2R6/9/9/9/7N1/5K3/r8 b - - 0 1",
                  ["a0a3", "f1f0", "a3a0", "f0f1"] * 2 + ["a0a2", "f1f0", "a2a0", "f0f1"] * 2)
XQ_START = XQ_BENCH[0]
HORSES_BACK = ["h0g2", "h9g7", "g2h0", "g7h9"] * 2
# (fen, moves, depth, rules, contempt)
XQ_CASES: tuple[tuple[str, list[str], int, str, int], ...] = (
    *((fen, [], XQ_DEPTH, "chinese", 0) for fen in XQ_BENCH + XQ_MORE),
    *((fen, moves, XQ_DEPTH, rules, 0) for fen, moves in (CHECK_CYCLE, CHASE_CYCLE, CHECK_AND_CHASE, CHECK_AND_IDLE)
      for rules in ("chinese", "asian")),
    (XQ_START, HORSES_BACK, XQ_DEPTH, "chinese", 0),
    (XQ_START, HORSES_BACK, XQ_DEPTH, "asian", 25),
)


def _iterations(searcher: Any, board: Any, depth: int) -> dict[str, Any]:
    """Each iteration's nodes, score and principal variation, and the move chosen."""
    from engine.searcher import Info, Limits

    seen: list[list[Any]] = []

    def note(info: Info) -> None:
        seen.append([info.depth, info.nodes, info.seldepth, info.score_cp, info.score_mate,
                     [m.uci() for m in info.pv]])

    searcher.clear()
    result = searcher.search(board, Limits(depth=depth), on_info=note)
    return {"best": result.best.uci() if result.best is not None else None, "iterations": seen}


def record_chess() -> list[dict[str, Any]]:
    import chess

    from engine.searcher import Searcher

    s = Searcher(hash_mb=8, seed=1)
    out = []
    for fen, moves, depth, contempt in CHESS_CASES:
        board = chess.Board(fen)
        for m in moves:
            board.push_uci(m)
        s.contempt = contempt
        out.append({"fen": fen, "moves": moves, "depth": depth, "contempt": contempt, **_iterations(s, board, depth)})
    return out


def record_xiangqi() -> list[dict[str, Any]]:
    from engine.xq_position import XqBoard
    from engine.xq_searcher import XqSearcher

    s = XqSearcher(hash_mb=8, seed=1)
    out = []
    for fen, moves, depth, rules, contempt in XQ_CASES:
        s.rules = rules
        s.contempt = contempt
        board = XqBoard.from_moves(fen, moves)
        out.append({"fen": fen, "moves": moves, "depth": depth, "rules": rules, "contempt": contempt,
                    **_iterations(s, board, depth)})
    return out


def record(games: tuple[str, ...] = ("chess", "xiangqi")) -> dict[str, Any]:
    from engine import kernels

    found: dict[str, Any] = {"compiled_ahead": {"chess": kernels.CHESS_COMPILED_AHEAD,
                                                "xiangqi": kernels.XIANGQI_COMPILED_AHEAD}}
    if "chess" in games:
        found["chess"] = record_chess()
    if "xiangqi" in games:
        found["xiangqi"] = record_xiangqi()
    return found


if __name__ == "__main__":
    json.dump(record(tuple(sys.argv[1:]) or ("chess", "xiangqi")), sys.stdout, indent=1)
    sys.stdout.write("\n")
