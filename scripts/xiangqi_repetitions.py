"""Build engine/data/xiangqi_repetitions.json: repetition cycles from real play, ruled by pyffish.

From random sparse positions (kings and a few rooks, cannons, horses, soldiers), every
four-ply cycle (a move each, then both moved back) is played twice, so the position occurs a
third time; pyffish, the judge, rules on it. The file keeps a spread of every kind for the
tests and for the board's game logic: perpetual check, perpetual chase (by rooks, cannons,
horses), both sides checking, mutual chases, one side checking while the other chases
("check against chase"), one side checking and chasing by turns ("one check one chase"), and
idle repetitions; the rare kinds come from the ``CONSTRUCTED`` list (by hand or by a targeted
search). The kind is a label: which moves check is pyffish's word, which moves
chase is our rules kernel's (``engine.xq_rules.chased``); the ruling stored is pyffish's
alone. Run ``.venv/bin/python scripts/xiangqi_repetitions.py [scale]`` (deterministic).
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from engine.xq_judge import (
    VARIANT,
    Ending,
    cycles_from,
    ffish,
    placement_fen,
    ruling,
    sparse_position,
    to_ffish,
)

OUT = Path(__file__).resolve().parent.parent / "engine" / "data" / "xiangqi_repetitions.json"


def promising(fen: str, seq: list[str]) -> bool:
    """Whether our rules kernel ends the game on this cycle other than by an idle draw (a
    prefilter only: the ruling stored is pyffish's)."""
    from engine.xq_position import DRAW, XqBoard
    from engine.xq_position import ruling as ours

    ending, optional = ours(XqBoard.from_moves(fen, seq))
    return optional and ending != DRAW


TYPE_NAMES = ("soldier", "advisor", "elephant", "horse", "rook", "cannon", "king")


def checks(fen: str, moves: list[str]) -> list[bool]:
    """pyffish's word on whether each move gives check."""
    sf = ffish()
    return [sf.gives_check(VARIANT, fen, [to_ffish(m) for m in moves[: i + 1]]) for i in range(len(moves))]


def chases(fen: str, moves: list[str]) -> list[tuple[str, list[str]]]:
    """For each move: the moved piece's type and the pieces it chases (our rules kernel)."""
    from engine.xq_position import XqBoard, parse_move, square_name, tables
    from engine.xq_rules import S_BLK_OLD, S_CH, SCRATCH, _blockers, chased

    tb = tables()
    sc = np.zeros(SCRATCH, dtype=np.int64)
    board = XqBoard(fen)
    out = []
    for text in moves:
        m = parse_move(text)
        mb = board.pos.mb
        mover = TYPE_NAMES[int(mb[m & 127]) % 7]
        _blockers(tb, mb, sc, 1 - board.turn, S_BLK_OLD)
        cap = int(mb[(m >> 7) & 127])
        board.push(m)
        chased(tb, board.pos.mb, board.pos.st, sc, m, cap, S_CH)
        out.append((mover, [square_name(x) for x in range(90) if sc[S_CH + x]]))
    return out


def quick_threat(fen: str, moves: list[str]) -> bool:
    """Whether each move gives check or lands its piece attacking an enemy piece other than the
    king (a cheap prefilter before ``chases``)."""
    from engine.xq_position import XqBoard, parse_move, tables
    from engine.xq_rules import S_ATT, S_OCC, SCRATCH, _attacks, _load_occ

    tb = tables()
    sc = np.zeros(SCRATCH, dtype=np.int64)
    board = XqBoard(fen)
    gives = checks(fen, moves)
    for text, check in zip(moves, gives, strict=True):
        m = parse_move(text)
        board.push(m)
        if check:
            continue
        mb = board.pos.mb
        to = (m >> 7) & 127
        mover = 1 - board.turn
        _load_occ(mb, sc, S_OCC)
        _attacks(tb, sc, S_OCC, mover, int(mb[to]) % 7, to, S_ATT)
        lo = board.turn * 7
        if not any(sc[S_ATT + x] and lo <= mb[x] < lo + 6 for x in range(90)):
            return False
    return True


def kind(fen: str, moves: list[str], result: Ending) -> tuple[str, str]:
    """(kind, detail): detail names the chasing pieces of a chase.

    Kinds: "both check"; "check against chase" (one side checks with every move, the other
    chases with every move); "perpetual check"; "mutual chase" (every move of both sides
    chases something); "one check one chase" (one side checks and chases by turns); "idle"
    (pyffish draws and no side offends); else "perpetual chase".
    """
    gives = checks(fen, moves)
    first = all(gives[0::2])
    second = all(gives[1::2])
    if first and second:
        return "both check", ""
    chased_by = chases(fen, moves)
    chasing = [bool(c[1]) for c in chased_by]
    detail = ", ".join(sorted({f"{c[0]} chases {' '.join(c[1])}" for c in chased_by if c[1]}))
    if (first and all(chasing[1::2])) or (second and all(chasing[0::2])):
        return "check against chase", detail
    if first or second:
        return "perpetual check", ""
    if all(chasing[0::2]) and all(chasing[1::2]):
        return "mutual chase", detail
    for side in (0, 1):  # one side checks and chases by turns (every move does one, some do each)
        g, c = gives[side::2], chasing[side::2]
        if all(a or b for a, b in zip(g, c, strict=True)) and any(g) and any(c):
            return "one check one chase", detail
    if result is Ending.DRAW:
        return "idle", ""
    return "perpetual chase", detail


def sample(rng: random.Random, quota: dict[str, int], picked: dict[str, list[dict[str, object]]], *,
           wanted: tuple[str, ...], judge_all: bool, max_tries: int) -> int:
    """Add cycles from random sparse positions until every ``wanted`` kind meets its quota.

    Without ``judge_all``, a cycle our kernel rules a draw is kept only now and then (most are
    idle); with it, every cycle whose moves all threaten something is classified. The file is
    rewritten after every find, so an interrupted run keeps what it found.
    """
    tries = 0
    while any(len(picked.get(k, [])) < quota[k] for k in wanted) and tries < max_tries:
        tries += 1
        fen = sparse_position(rng)
        if fen is None:
            continue
        if judge_all:
            print(f"try {tries}: {fen}", file=sys.stderr, flush=True)
        per_position: Counter[str] = Counter()
        for cyc in cycles_from(fen, rng):
            seq = cyc * 2
            if judge_all:
                if not quick_threat(fen, cyc):
                    continue
            elif not promising(fen, seq) and rng.random() > 0.05:
                continue  # most cycles are idle draws: sample those, judge every other one
            verdict = ruling(fen, seq)
            if not verdict.optional or ruling(fen, seq[:4]).ending is not Ending.ONGOING:
                continue
            k, detail = kind(fen, seq, verdict.ending)
            if k == "perpetual chase" and judge_all:
                k_quota = f"perpetual chase by {detail.split()[0]}"  # counted by attacker, stored as a chase
            else:
                k_quota = k
            if len(picked.get(k_quota, [])) >= quota.get(k_quota, 0) or per_position[k] >= 2:
                continue
            per_position[k] += 1
            print(k, detail, file=sys.stderr, flush=True)
            item: dict[str, object] = {"kind": k, "fen": fen, "moves": seq, "ruling": verdict.ending.value}
            if detail:
                item["chases"] = detail
            picked.setdefault(k_quota, []).append(item)
            write(picked)
    return tries


def write(picked: dict[str, list[dict[str, object]]]) -> None:
    items = [x for k in sorted(picked) for x in picked[k]]
    OUT.write_text(json.dumps({
        "about": "Xiangqi repetition cycles played twice (the third occurrence), ruled by pyffish 0.0.90 "
                 "(xiangqi with nMoveRule 60); ruling is for the side to move after the moves. "
                 "kind: which moves check is pyffish's word, which chase (chases: the moved piece and what it "
                 "chases) the engine's rules kernel's. Built by scripts/xiangqi_repetitions.py from random "
                 "sparse positions; origin (when given): constructed by hand or found by a targeted search "
                 "(the script's CONSTRUCTED list).",
        "sequences": items}, ensure_ascii=False, indent=1) + "\n")


KNIGHT = ((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1))


def horse_chases(rng: random.Random, count: int) -> list[dict[str, object]]:
    """Red's horse chasing Black's rook round a four-ply cycle (the horse on h0 and h1 attacks
    the rook on r1 and r0 by turns): built by geometry, ruled by pyffish, kept when our kernel
    too sees the horse chase the rook with every move."""
    from engine.xq_judge import legal_moves

    def name(sq: tuple[int, int]) -> str:
        return "abcdefghi"[sq[0]] + str(sq[1])

    def step(sq: tuple[int, int]) -> tuple[int, int] | None:
        df, dr = rng.choice(KNIGHT)
        out = (sq[0] + df, sq[1] + dr)
        return out if 0 <= out[0] < 9 and 0 <= out[1] < 10 else None

    found: list[dict[str, object]] = []
    tries = 0
    while len(found) < count and tries < 50_000:
        tries += 1
        king, enemy_king = (rng.randint(3, 5), rng.randint(0, 2)), (rng.randint(3, 5), rng.randint(7, 9))
        h0 = (rng.randrange(9), rng.randrange(10))
        h1 = step(h0)
        r0 = step(h1) if h1 else None
        r1 = step(h0)
        if h1 is None or r0 is None or r1 is None or (r0[0] != r1[0] and r0[1] != r1[1]):
            continue
        squares = [king, enemy_king, h0, h1, r0, r1]
        if king[0] == enemy_king[0] or len(set(squares)) != 6:
            continue
        fen = placement_fen({king: "K", enemy_king: "k", h0: "N", r0: "r"})
        if ffish().validate_fen(fen, VARIANT) != 1:
            continue
        cyc = [name(h0) + name(h1), name(r0) + name(r1), name(h1) + name(h0), name(r1) + name(r0)]
        seq = cyc * 2
        if any(m not in legal_moves(fen, seq[:i]) for i, m in enumerate(seq)):
            continue
        verdict = ruling(fen, seq)
        if not verdict.optional or ruling(fen, seq[:4]).ending is not Ending.ONGOING:
            continue
        k, detail = kind(fen, seq, verdict.ending)
        if k == "perpetual chase" and detail.startswith("horse"):
            print(k, detail, file=sys.stderr, flush=True)
            found.append({"kind": k, "fen": fen, "moves": seq, "ruling": verdict.ending.value, "chases": detail})
    return found


# Four-ply cycles whose every move (of one side, or both) checks or chases: rare in random
# positions, so listed here. "by hand": constructed on the board (the horse on e6/g7 and the
# rook on e8/g8 chase each other, a cannon behind the horse checking by turns through it or
# past it). The rest were found by a targeted search (random positions of two kings and two
# to five rooks, horses, cannons, every four-ply cycle kept when each move of the side(s)
# wanted checks (pyffish) or chases (our kernel)). The builder re-rules every one by pyffish.
CONSTRUCTED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # mutual chases
    ("4C4/4k4/9/9/9/1c7/Nr7/1R7/3n5/3K5 w - - 0 1", ("b2d2", "b3i3", "d2b2", "i3b3"), "search"),
    ("2c6/5k3/9/3n5/9/2R6/9/9/4K4/9 w - - 0 1", ("c4d4", "d6b5", "d4c4", "b5d6"), "search"),
    ("6R1r/9/5k3/9/2C3n2/r1N6/9/3K5/9/9 w - - 0 1", ("c4b2", "a4a5", "b2c4", "a5a4"), "search"),
    ("4k2r1/9/9/9/3C5/9/2n6/3K5/R6n1/9 w - - 0 1", ("a1c1", "c3a2", "c1a1", "a2c3"), "search"),
    ("4k4/3rr4/9/4N4/9/9/9/9/9/5K3 w - - 0 1", ("e6g7", "e8g8", "g7e6", "g8e8"), "by hand"),
    ("9/4k4/7R1/5n3/9/9/9/7c1/5K3/9 w - - 0 1", ("h7h6", "f6h5", "h6h7", "h5f6"), "search"),
    ("4rkN2/8c/9/4N4/9/9/9/7R1/9/3K5 w - - 0 1", ("g9f7", "e9e7", "f7g9", "e7e9"), "search"),
    ("4k4/9/4Cr3/9/n1r6/9/3N5/1R7/3K5/9 w - - 0 1", ("d3e5", "f7f5", "e5d3", "f5f7"), "search"),
    # one side checks and chases by turns
    ("3k4C/9/9/9/9/9/9/4r4/4K4/9 w - - 0 1", ("e1f1", "e2i2", "f1e1", "i2e2"), "search"),
    ("5k3/8R/9/8c/9/9/9/9/3K5/9 w - - 0 1", ("i8f8", "f9e9", "f8i8", "e9f9"), "search"),
    ("4k4/9/9/9/9/1N7/6r2/2nR5/5K3/9 w - - 0 1", ("d2h2", "e9d9", "h2d2", "d9e9"), "search"),
    ("4k4/R8/9/9/9/6c2/8n/9/5K3/9 w - - 0 1", ("a8a3", "e9e8", "a3a8", "e8e9"), "search"),
    # one side checks with every move, the other chases with every move
    ("4k4/4r4/9/4N4/9/9/4C4/9/9/3K5 w - - 0 1", ("e6g7", "e8g8", "g7e6", "g8e8"), "by hand"),
    ("3k5/3r5/9/3N5/9/9/3C5/9/9/4K4 w - - 0 1", ("d6f7", "d8f8", "f7d6", "f8d8"), "by hand"),
)


def constructed() -> list[dict[str, object]]:
    """The ``CONSTRUCTED`` cycles played twice, checked legal and ruled by pyffish."""
    from engine.xq_judge import legal_moves

    out: list[dict[str, object]] = []
    for fen, cyc, origin in CONSTRUCTED:
        seq = list(cyc) * 2
        if any(m not in legal_moves(fen, seq[:i]) for i, m in enumerate(seq)):
            raise ValueError(f"{fen} {cyc}: not legal")
        verdict = ruling(fen, seq)
        if not verdict.optional or ruling(fen, seq[:4]).ending is not Ending.ONGOING:
            raise ValueError(f"{fen} {cyc}: pyffish does not end the game at the third occurrence only")
        k, detail = kind(fen, seq, verdict.ending)
        item: dict[str, object] = {"kind": k, "fen": fen, "moves": seq, "ruling": verdict.ending.value}
        if detail:
            item["chases"] = detail
        item["origin"] = origin
        out.append(item)
    return out


def main() -> int:
    """``scripts/xiangqi_repetitions.py [scale] [rare-tries] [--fresh]``: without ``--fresh`` the
    sequences already in the file are kept (re-ruled by pyffish and relabelled) and only the
    missing kinds are sought."""
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    scale = int(args[0]) if args else 1
    rare_tries = int(args[1]) if len(args) > 1 else 0
    picked: dict[str, list[dict[str, object]]] = {}
    quota = {"perpetual check": 8 * scale, "perpetual chase": 10 * scale, "idle": 8 * scale,
             "mutual chase": 8 * scale, "both check": 2 * scale, "one check one chase": 2 * scale,
             "check against chase": 2 * scale,
             "perpetual chase by horse": 4 * scale, "perpetual chase by cannon": 2 * scale,
             "perpetual chase by soldier": 1 * scale}
    tries = 0
    if OUT.exists() and "--fresh" not in sys.argv:
        for old in json.loads(OUT.read_text())["sequences"]:
            fen, seq = str(old["fen"]), [str(m) for m in old["moves"]]
            verdict = ruling(fen, seq)
            k, detail = kind(fen, seq, verdict.ending)
            item: dict[str, object] = {"kind": k, "fen": fen, "moves": seq, "ruling": verdict.ending.value}
            if detail:
                item["chases"] = detail
            if "origin" in old:
                item["origin"] = old["origin"]
            key = f"perpetual chase by {detail.split()[0]}" if k == "perpetual chase" and detail.split()[0] != "rook" else k
            picked.setdefault(key, []).append(item)
    else:
        # the offences our kernel finds, and a sample of draws
        tries += sample(random.Random(12), quota, picked, wanted=("perpetual check", "perpetual chase"),
                        judge_all=False, max_tries=2000)
    # mutual chases, checks against chases, checks and chases by turns (listed above)
    have = {(str(x["fen"]), str(x["moves"])) for k in picked for x in picked[k]}
    for item in constructed():
        if (str(item["fen"]), str(item["moves"])) not in have:
            picked.setdefault(str(item["kind"]), []).append(item)
    # chases by a horse, built by geometry (random sampling rarely meets them)
    missing = quota["perpetual chase by horse"] - len(picked.get("perpetual chase by horse", []))
    if missing > 0:
        picked.setdefault("perpetual chase by horse", []).extend(horse_chases(random.Random(14), missing))
    write(picked)
    # the rarer shapes, judging every cycle whose moves all threaten (slow: hours for a full quota)
    if rare_tries:
        tries += sample(random.Random(13), quota, picked,
                        wanted=("mutual chase", "one check one chase", "check against chase", "perpetual chase by cannon"),
                        judge_all=True, max_tries=rare_tries)
    write(picked)
    print(Counter(str(x["kind"]) for k in picked for x in picked[k]), "tries", tries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
