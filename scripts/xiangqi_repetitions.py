"""Build engine/data/xiangqi_repetitions.json: repetition cycles from real play, ruled by pyffish.

From random sparse positions (kings and a few rooks, cannons, horses, soldiers), every
four-ply cycle (a move each, then both moved back) is played twice, so the position occurs a third time; pyffish, the judge, rules on it.
The file keeps a spread of every kind (perpetual check, perpetual chase, both checking,
idle/mutual draws) for the tests and for the board's game logic. Run:
``.venv/bin/python scripts/xiangqi_repetitions.py [scale]`` (deterministic for a given seed).
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

from engine.xq_judge import VARIANT, Ending, cycles_from, ffish, ruling, sparse_position, to_ffish

OUT = Path(__file__).resolve().parent.parent / "engine" / "data" / "xiangqi_repetitions.json"


def promising(fen: str, seq: list[str]) -> bool:
    """Whether our rules kernel ends the game on this cycle other than by an idle draw (a
    prefilter only: the ruling stored is pyffish's)."""
    from engine.xq_position import DRAW, XqBoard
    from engine.xq_position import ruling as ours

    ending, optional = ours(XqBoard.from_moves(fen, seq))
    return optional and ending != DRAW


def kind(fen: str, moves: list[str], result: Ending) -> str:
    sf = ffish()
    checks = [sf.gives_check(VARIANT, fen, [to_ffish(m) for m in moves[: i + 1]]) for i in range(len(moves))]
    first = all(checks[0::2])
    second = all(checks[1::2])
    if first and second:
        return "both check"
    if first or second:
        return "perpetual check"
    if result is Ending.DRAW:
        return "idle or mutual chase"
    return "perpetual chase"


def main() -> int:
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    rng = random.Random(12)
    picked: dict[str, list[dict[str, object]]] = {}
    quota = {"perpetual check": 8 * scale, "perpetual chase": 10 * scale, "idle or mutual chase": 8 * scale,
             "both check": 2 * scale}
    tries = 0
    required = ("perpetual check", "perpetual chase", "idle or mutual chase")  # both checking is rare: kept if met
    while any(len(picked.get(k, [])) < quota[k] for k in required) and tries < 2000:
        tries += 1
        fen = sparse_position(rng)
        if fen is None:
            continue
        per_position: Counter[str] = Counter()
        for cyc in cycles_from(fen, rng):
            seq = cyc * 2
            if not promising(fen, seq) and rng.random() > 0.05:
                continue  # most cycles are idle draws: sample those, judge every other one
            verdict = ruling(fen, seq)
            if not verdict.optional or ruling(fen, seq[:4]).ending is not Ending.ONGOING:
                continue
            k = kind(fen, seq, verdict.ending)
            if len(picked.get(k, [])) >= quota.get(k, 0) or per_position[k] >= 2:
                continue
            per_position[k] += 1
            print(k, file=sys.stderr, flush=True)
            picked.setdefault(k, []).append(
                {"kind": k, "fen": fen, "moves": seq, "ruling": verdict.ending.value}
            )
    items = [x for k in sorted(picked) for x in picked[k]]
    OUT.write_text(json.dumps({
        "about": "Xiangqi repetition cycles played twice (the third occurrence), ruled by pyffish 0.0.90 "
                 "(xiangqi with nMoveRule 60); ruling is for the side to move after the moves. "
                 "Built by scripts/xiangqi_repetitions.py from random sparse positions.",
        "sequences": items}, ensure_ascii=False, indent=1) + "\n")
    print({k: len(v) for k, v in picked.items()}, "tries", tries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
