"""The catalogue of 棋例 rulings: short positions, one repetition cycle each, what every move of
it does and how 第26条 rules it (docs/xiangqi-rules.md prints it).

Each case is written with Red as the side the rule is about; :func:`mirrored` turns it round
(the board rotated half a turn, the colours swapped), so every case is checked in both colours.
``effects`` has one character per move of the cycle: 将 check, 杀 mate threat, 捉 chase, 闲 idle.
``loser``: ``red``/``black``, the side that must vary or loses; None, a draw if neither varies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    rule: str
    article: str
    fen: str
    moves: tuple[str, ...]
    effects: str
    loser: str | None
    #: Words the ruling's notes must hold (why a move is idle, what is chased).
    note: str = ""

    @property
    def name(self) -> str:
        return f"{self.rule}: {self.fen.split()[0]} {' '.join(self.moves)}"


def _square(name: str) -> str:
    return f"{chr(ord('a') + 8 - (ord(name[0]) - ord('a')))}{9 - int(name[1])}"


def mirrored(case: Case) -> Case:
    """The same case with the colours swapped: the board turned half round, Black moving for Red."""
    placement, side, *rest = case.fen.split()
    rows = ["".join(reversed(row)).swapcase() for row in reversed(placement.split("/"))]
    fen = " ".join(["/".join(rows), "w" if side == "b" else "b", *rest])
    moves = tuple(_square(m[:2]) + _square(m[2:]) for m in case.moves)
    loser = {"red": "black", "black": "red", None: None}[case.loser]
    note = re.sub(r"\b[a-i][0-9]\b", lambda m: _square(m.group()), case.note)
    return Case(case.rule, case.article, fen, moves, case.effects, loser, note)


def place(pieces: dict[str, str], side: str = "w") -> str:
    """A FEN from ``{"e0": "K", "f9": "k", ...}`` (Red upper-case)."""
    cells = {("abcdefghi".index(p[0]), int(p[1])): piece for p, piece in pieces.items()}
    rows = []
    for rank in range(9, -1, -1):
        row = "".join(cells.get((f, rank), "1") for f in range(9))
        rows.append(re.sub("1+", lambda m: str(len(m.group())), row))
    return "/".join(rows) + f" {side} - - 0 1"


def _shift(point: str, files: int) -> str:
    return f"{chr(ord(point[0]) + files)}{point[1]}"


def _shifted(pieces: dict[str, str], moves: str, files: int) -> tuple[str, str]:
    """A motif moved ``files`` files to the right (its generals stay where they stand)."""
    placed = {(p if piece in "Kk" else _shift(p, files)): piece for p, piece in pieces.items()}
    where = dict(pieces)  # the motif's own points, as its moves go
    out = []
    for m in moves.split():
        piece = where.pop(m[:2])
        where[m[2:]] = piece
        out.append(m if piece in "Kk" else _shift(m[:2], files) + _shift(m[2:], files))
    return place(placed), " ".join(out)


R26_CHECK = "第26条: single-sided perpetual check"
R26_MIXED = "第26条: one side forbidden, the other allowed"
R26_ALLOWED = "第26条: both sides allowed"
R26_FORBIDDEN = "第26条: both sides forbidden"


def _c(rule: str, article: str, fen: str, moves: str, effects: str, loser: str | None, note: str = "") -> Case:
    return Case(rule, article, fen, tuple(moves.split()), effects, loser, note)


CATALOGUE: list[Case] = [
    # -- 长将: perpetual check, one-sided, always loses (whatever the other side does) --------
    _c("perpetual check", R26_CHECK, "5k3/R8/9/9/9/9/9/9/9/3K5 w - - 0 1", "a8a9 f9f8 a9a8 f8f9", "将闲将闲", "red"),
    _c("perpetual check", R26_CHECK, "5k3/2N6/9/9/9/9/9/9/9/3K5 w - - 0 1", "c8e7 f9e9 e7c8 e9f9", "将闲将闲", "red"),
    _c("perpetual check", R26_CHECK, "5k3/9/9/4N4/9/9/9/9/9/3K5 w - - 0 1", "e6d8 f9f8 d8e6 f8f9", "将闲将闲", "red"),
    _c("perpetual check", R26_CHECK, "5k3/7R1/9/9/9/9/2r6/4C4/3K5/9 w - - 0 1", "h8h9 f9f8 h9h8 f8f9", "将闲将闲", "red"),
    _c("perpetual check", R26_CHECK, "8c/5k3/9/9/9/4R4/9/9/3K5/7c1 w - - 0 1", "e4f4 f8e8 f4e4 e8f8", "将闲将闲", "red"),
    _c("perpetual check", R26_CHECK, "4k4/4r4/9/4N4/9/9/4C4/9/9/3K5 w - - 0 1", "e6g7 e8g8 g7e6 g8e8", "将捉将闲", "red",
       "horse on g7 by the chariot on g8"),
    # -- 一将一杀: check and mate threat in turn ---------------------------------------------------
    _c("check and mate threat", R26_MIXED, "3k5/2P6/9/c8/1C7/9/9/4R4/5K3/9 w - - 0 1", "e2h2 d9e9 h2e2 e9d9", "杀闲将闲",
       "red"),
    # -- 一将一捉: check and chase in turn, forbidden (the Asian rules draw it) ------------------
    _c("check and chase", R26_MIXED, "3k5/9/1n6R/9/9/9/9/9/9/5K3 w - - 0 1", "i7i9 d9d8 i9i7 d8d9", "将闲捉闲", "red",
       "horse on b7 by the chariot on i7"),
    _c("check and chase", R26_MIXED, "5k3/8R/9/8c/9/9/9/9/3K5/9 w - - 0 1", "i8f8 f9e9 f8i8 e9f9", "将闲捉闲", "red",
       "cannon on i6 by the chariot on i8"),
    _c("check and chase", R26_MIXED, "4k4/R8/9/9/9/6c2/8n/9/5K3/9 w - - 0 1", "a8a3 e9e8 a3a8 e8e9", "捉闲将闲", "red",
       "horse on i3 by the chariot on a3"),
    # -- 长捉: perpetual chase of an unprotected piece (the same or another each time) -----------
    _c("perpetual chase", R26_MIXED, "9/2n6/3k5/9/9/1c7/9/5K1C1/8R/5N3 w - - 0 1", "i1i4 b4b1 i4i1 b1b4", "捉闲捉闲", "red",
       "cannon on b4 by the chariot on i4"),
    _c("perpetual chase", R26_MIXED, "3k5/8c/6r2/9/4c4/9/9/2R6/9/4K4 w - - 0 1", "c2c5 e5e2 c5c2 e2e5", "捉闲捉闲", "red",
       "cannon on e5 by the chariot on c5"),
    _c("perpetual chase", R26_MIXED, "3k5/8c/6r2/9/4c4/9/9/2R6/9/4K4 w - - 0 1", "c2i2 i8c8 i2c2 c8i8", "捉闲捉闲", "red"),
    _c("perpetual chase", R26_MIXED, "9/9/5k3/9/1r7/9/9/2N6/3K5/9 w - - 0 1", "c2a3 b5b4 a3c2 b4b5", "捉闲捉闲", "red",
       "chariot on b4 by the horse on c2"),
    _c("perpetual chase", R26_MIXED, "3k5/9/9/5N1r1/9/9/9/9/9/5K3 w - - 0 1", "f6g4 h6h5 g4f6 h5h6", "捉闲捉杀", "red",
       "chariot on h6 by the horse on g4"),  # Black's h5h6 takes the horse with check, then mates: 杀
    # one piece chasing two in turn: 长捉 by the Chinese rules (the Asian rules want one piece)
    _c("perpetual chase", R26_MIXED, "4rkN2/8c/9/4N4/9/9/9/7R1/9/3K5 w - - 0 1", "g9f7 e9e7 f7g9 e7e9", "捉闲捉闲", "red",
       "cannon on i8 by the horse on g9"),
    # a one-sided perpetual check loses even against a forbidden reply (here 长杀)
    _c("perpetual check", R26_CHECK, "2P2k3/9/9/3cN4/9/5r3/9/4p4/7r1/3K5 w - - 0 1", "e6d8 f9f8 d8e6 f8f9", "将杀将杀", "red"),
    _c("perpetual check", R26_CHECK, "9/5R3/4k4/9/8r/9/9/3K5/6Cr1/9 w - - 0 1", "f8f7 e7e8 f7f8 e8e7", "将杀将杀", "red"),
    _c("check and mate threat", R26_MIXED, "8R/1c7/5k3/9/9/9/9/7r1/9/1N1K5 w - - 0 1", "i9f9 b8f8 f9i9 f8b8", "将闲杀闲", "red"),
    _c("check and mate threat", R26_MIXED, "9/4k4/9/9/9/9/6R2/4nK3/7N1/9 w - - 0 1", "g3e3 e8d8 e3g3 d8e8", "将闲杀闲", "red"),
    _c("check and mate threat", R26_MIXED, "9/7c1/3k2c1R/9/9/9/9/9/4K4/9 w - - 0 1", "i7i6 g7g2 i6i7 g2g7", "杀闲将闲", "red"),
    _c("check and mate threat", R26_MIXED, "9/9/4k4/9/9/9/9/5C3/3K3r1/9 w - - 0 1", "d1d2 h1h5 d2d1 h5h1", "闲杀闲将", "black"),
    _c("check and mate threat", R26_MIXED, "9/9/4k4/9/4N4/P8/9/4r4/1p3Kr2/9 w - - 0 1", "f1f0 g1g8 f0f1 g8g1", "闲杀闲将",
       "black"),
    _c("check and chase", R26_MIXED, "3k5/9/9/7c1/3N5/9/9/3K5/9/6R1r w - - 0 1", "g0g9 d9d8 g9g0 d8d9", "将闲捉闲", "red",
       "chariot on i0 by the chariot on g0"),  # a chase that offers an exchange is a chase
    _c("check and chase", R26_MIXED, "9/9/5k3/9/3N5/9/9/2p6/9/1r1K5 w - - 0 1", "d0d1 b0b5 d1d0 b5b0", "闲捉闲将", "black",
       "horse on d5 by the chariot on b5"),
    _c("check and chase", R26_MIXED, "5k3/2R6/4R4/4p4/3n5/9/9/4K4/9/7N1 w - - 0 1", "c8c5 f9f8 c5c8 f8f9", "捉闲将闲", "red",
       "horse on d5 by the chariot on c5"),
    # -- 长杀: a mate threat with every move -------------------------------------------------------
    _c("perpetual mate threat", R26_MIXED, "9/3k5/4R4/9/7cR/9/9/5K3/9/1r7 w - - 0 1", "i5i3 h5d5 i3i5 d5h5", "杀闲杀闲",
       "red"),
    _c("perpetual mate threat", R26_MIXED, "5a3/9/4kc3/9/9/9/3Nr4/4p4/9/4K4 w - - 0 1", "e0d0 f7f0 d0e0 f0f7", "闲杀闲杀",
       "black", "the general's own attack is idle"),
    # 长杀 against 长将: the one-sided perpetual check loses (第26条)
    _c("perpetual mate threat", R26_CHECK, "9/3k5/9/9/4N4/9/9/4K4/6r2/2n6 w - - 0 1", "e5f7 d8d7 f7e5 d7d8", "将杀将杀",
       "red"),
    _c("perpetual mate threat", R26_CHECK, "4k3r/9/9/9/C8/9/9/9/9/3R1K3 w - - 0 1", "d0e0 e9d9 e0d0 d9e9", "将杀将杀",
       "red"),
    _c("perpetual mate threat", R26_CHECK, "8R/3k5/8R/9/9/9/4r2N1/9/4r4/2n2K3 w - - 0 1", "i7i8 d8d7 i8i7 d7d8", "将杀将杀",
       "red"),
    # -- 一杀一捉 ------------------------------------------------------------------------------------
    _c("mate threat and chase", R26_MIXED, "9/7N1/4k4/8r/9/9/9/3K5/9/9 w - - 0 1", "d2d1 i6i8 d1d2 i8i6", "闲捉闲杀", "black",
       "horse on h8 by the chariot on i8"),
    _c("mate threat and chase", R26_MIXED, "4C4/3r3c1/4k4/9/9/9/9/9/N8/5K1c1 w - - 0 1", "e9f9 d8d9 f9e9 d9d8", "闲捉闲杀",
       "black", "cannon on f9 by the chariot on d9"),
    _c("mate threat and chase", R26_MIXED, "5k3/9/9/9/3r2R2/2p6/9/4K4/1R2n4/1C7 w - - 0 1", "b1b5 d5d3 b5b1 d3d5", "杀闲捉捉",
       "red", "horse on e1 by the chariot on b1"),
    # -- a protected piece is not chased (有根), so the cycle is idle --------------------------------
    _c("protected piece", R26_ALLOWED, place({"d0": "K", "a6": "R", "e9": "k", "d9": "a", "f9": "a", "e8": "n", "g9": "b"}),
       "a6a8 g9i7 a8a6 i7g9", "闲闲闲闲", None, "horse on e8: protected"),
    _c("protected piece", R26_ALLOWED, "6R2/5cR2/4k4/4N4/6P2/9/9/9/5K3/9 w - - 0 1", "g9e9 f8e8 e9g9 e8f8", "将闲闲闲", None,
       "cannon on e8: protected"),
    _c("protected piece", R26_ALLOWED, "9/3kc4/9/1R7/9/9/9/9/4n4/4K2p1 w - - 0 1", "b6e6 e8f8 e6b6 f8e8", "闲闲闲将", None,
       "cannon on e8: protected"),
    _c("protected piece", R26_ALLOWED, "3P5/9/3k3P1/3r5/9/3r5/9/6c2/9/R2nK4 w - - 0 1", "a0a4 d4h4 a4a0 h4d4", "闲捉闲闲",
       None, "chariot on d4: protected"),
    _c("protected piece", R26_ALLOWED, "9/3k5/4n4/9/9/p4c3/9/N8/4K4/9 w - - 0 1", "e1e2 f4b4 e2e1 b4f4", "闲闲闲闲", None,
       "cannon on b4: protected"),
    # -- 兑: offering an exchange of equals is idle; a chase that offers one is a chase ------------
    _c("exchange offer", R26_ALLOWED, place({"d0": "K", "b3": "R", "d2": "N", "f9": "k", "b7": "r", "d6": "n"}),
       "b3a3 f9f8 a3b3 f8f9", "闲闲闲闲", None, "chariot on b7: protected"),
    _c("exchange offer", R26_MIXED, place({"d0": "K", "a3": "R", "b3": "R", "f9": "k", "c7": "r"}), "b3c3 c7b7 c3b3 b7c7",
       "捉闲捉闲", "red", "chariot on c7 by the chariot on c3"),
    # -- 将(帅)本身: the general's own attack is idle ------------------------------------------------
    _c("general's attack", R26_ALLOWED, place({"e1": "K", "d9": "k", "f0": "n", "f1": "c"}), "e1e0 d9d8 e0e1 d8d9",
       "闲闲闲闲", None, "the general's own attack is idle"),
    _c("general's attack", R26_ALLOWED, place({"e1": "K", "d9": "k", "f0": "c", "f1": "n"}), "e1e0 d9d8 e0e1 d8d9",
       "闲闲闲闲", None, "the general's own attack is idle"),
    _c("general's attack", R26_ALLOWED, place({"e1": "K", "f9": "k", "d0": "n", "d1": "c"}), "e1e0 f9f8 e0e1 f8f9",
       "闲闲闲闲", None, "the general's own attack is idle"),
    _c("general's attack", R26_ALLOWED, "5k3/9/9/9/9/8R/9/9/3Kc4/9 w - - 0 1", "i4i3 f9f8 i3i4 f8f9", "闲闲闲闲", None,
       "the general's own attack is idle"),
    # -- 兵(卒)本身: a pawn's own attack is idle; in a mutual perpetual attack (互打) it is a chase --
    _c("pawn's attack", R26_ALLOWED, place({"e0": "K", "e6": "P", "f9": "k", "e7": "n", "d7": "c"}), "e6d6 f9f8 d6e6 f8f9",
       "捉闲捉闲", None, "a pawn's own attack is idle"),
    _c("mutual attack", R26_FORBIDDEN,
       place({"e0": "K", "e6": "P", "a2": "N", "i2": "C", "f9": "k", "e7": "n", "d7": "c", "a5": "r"}),
       "e6d6 a5i5 d6e6 i5a5", "捉捉捉捉", None, "cannon on i2 by the chariot on i5"),
    # -- 拦: blocking a line (a check, an attack on a piece) is idle -------------------------------
    _c("blocking", R26_ALLOWED, "9/9/5k3/9/9/9/9/8N/2R6/r2KC4 w - - 0 1", "c1c0 a0a1 c0c1 a1a0", "闲闲捉将", None),
    _c("blocking", R26_ALLOWED, "1n7/5k3/9/9/9/9/5C3/3K4r/9/9 w - - 0 1", "f3f2 i2i3 f2f3 i3i2", "闲闲闲将", None),
    _c("blocking", R26_ALLOWED, "9/9/3k5/2c6/7N1/5RC2/9/4K4/9/7r1 w - - 0 1", "g4h4 h0h1 h4g4 h1h0", "闲闲闲闲", None),
    _c("blocking", R26_ALLOWED, "1r7/3k5/4P4/5n3/9/7R1/9/1R7/5K3/c8 w - - 0 1", "h4b4 a0a1 b4h4 a1a0", "闲闲闲闲", None),
    _c("blocking", R26_ALLOWED, "9/1R5r1/3k5/9/9/1C7/9/5R3/9/3nK4 w - - 0 1", "f2f8 d0c2 f8f2 c2d0", "闲闲捉闲", None),
    # -- 细则7: a formal chase whose capture is mated at once is idle ------------------------------
    _c("formal chase mated", R26_ALLOWED, "8r/7n1/4k4/9/9/9/9/9/7R1/5K3 w - - 0 1", "h1h0 i9i5 h0h1 i5i9", "闲闲闲闲", None,
       "taking would be mated at once"),
    _c("formal chase mated", R26_ALLOWED, "9/9/4k4/2P6/2r6/N7r/2n6/5K3/9/9 w - - 0 1", "c6b6 c3b1 b6c6 b1c3", "闲闲闲闲",
       None, "taking would be mated at once"),
    _c("formal chase mated", R26_ALLOWED, "9/3k5/9/4R4/3r5/n4R3/6r2/9/4K1n2/2N6 w - - 0 1", "e6f6 g3f3 f6e6 f3g3", "闲闲闲闲",
       None, "taking would be mated at once"),
    _c("formal chase mated", R26_ALLOWED, "1R5c1/9/5k3/9/c8/9/8C/1n1K5/3R5/9 w - - 0 1", "i3b3 h9e9 b3i3 e9h9", "闲闲捉闲",
       None, "taking would be mated at once"),
    _c("formal chase mated", R26_ALLOWED, "9/5R3/4k4/9/8r/9/9/3K5/6Cr1/9 w - - 0 1", "f8h8 h1h4 h8f8 h4h1", "闲闲闲捉", None,
       "taking would be mated at once"),
    # -- 占据防守要点: the lone defender's attack on an advisor or elephant is idle ----------------
    _c("defensive key point", R26_ALLOWED, "4k4/9/4b4/9/3N5/7r1/9/9/9/3K5 w - - 0 1", "d5e3 h4h1 e3d5 h1h4", "闲闲闲闲",
       None, "defensive key point"),
    _c("defensive key point", R26_ALLOWED, "4k4/9/4b4/9/3N5/7r1/9/9/9/3K5 w - - 0 1", "d5f6 h4g4 f6d5 g4h4", "闲闲闲闲",
       None, "defensive key point"),
    # -- 数将一闲, 数捉一闲: one idle move among the checks or chases makes the cycle allowed -------
    _c("checks and one idle", R26_ALLOWED, "3k5/9/9/9/9/9/9/9/9/r3K4 w - - 0 1", "e0e1 a0a2 e1e0 a2a0", "闲闲闲将", None),
    _c("checks and one idle", R26_ALLOWED, "9/9/4k4/9/3R5/8n/9/3K5/9/9 w - - 0 1", "d5d7 e7e8 d7d5 e8e7", "将闲闲闲", None),
    _c("checks and one idle", R26_ALLOWED, place({"d0": "K", "a7": "R", "f9": "k", "i0": "n"}),
       "a7a9 f9f8 a9a8 f8f9 a8a6 i0h2 a6a7 h2i0", "将闲将闲闲闲闲闲", None),
    # -- both sides forbidden: a draw if neither varies (the one-sided perpetual check excepted) -----
    _c("both forbidden", R26_FORBIDDEN, "2c6/5k3/9/3n5/9/2R6/9/9/4K4/9 w - - 0 1", "c4d4 d6b5 d4c4 b5d6", "捉捉捉捉", None),
    _c("both forbidden", R26_FORBIDDEN, "6R1r/9/5k3/9/2C3n2/r1N6/9/3K5/9/9 w - - 0 1", "c4b2 a4a5 b2c4 a5a4", "捉捉捉捉", None),
    _c("both forbidden", R26_FORBIDDEN, "4k4/3rr4/9/4N4/9/9/9/9/9/5K3 w - - 0 1", "e6g7 e8g8 g7e6 g8e8", "捉捉捉捉", None),
    _c("both forbidden", R26_FORBIDDEN, "3k5/9/9/9/9/9/9/7rR/9/4K4 w - - 0 1", "i2i7 h2h7 i7i2 h7h2", "杀捉杀捉", None),
    _c("both forbidden", R26_FORBIDDEN, "1r7/4k4/9/6R2/9/9/9/7p1/9/3K5 w - - 0 1", "g6g9 b9b6 g9g6 b6b9", "捉杀捉杀", None),
    # -- both sides allowed: a draw if neither varies (不变作和) ----------------------------------------
    _c("both allowed", R26_ALLOWED, "9/9/1c3k3/9/9/1N7/9/3K5/9/9 w - - 0 1", "b4a6 b7d7 a6b4 d7b7", "闲闲闲闲", None),
    _c("both allowed", R26_ALLOWED, "9/2n6/3k5/9/9/1c7/9/5K1C1/8R/5N3 w - - 0 1", "h2h5 c8a7 h5h2 a7c8", "闲闲闲闲", None),
    _c("both allowed", R26_ALLOWED, "5k3/7R1/9/9/9/9/2r6/4C4/3K5/9 w - - 0 1", "h8g8 c3a3 g8h8 a3c3", "闲闲闲闲", None),
    _c("both allowed", R26_ALLOWED, "9/2n6/3k5/9/9/1c7/9/5K1C1/8R/5N3 w - - 0 1", "i1i4 b4g4 i4i1 g4b4", "捉闲闲闲", None),
    _c("both allowed", R26_ALLOWED, "5k3/9/9/9/9/R8/9/4K4/9/n8 w - - 0 1", "a4a6 a0b2 a6a4 b2a0", "闲闲闲闲", None),
]

# 有根 by value: a horse that chases a protected chariot chases (the chariot is worth two horses);
# the motif on five files
_UNEQUAL = ({"f1": "K", "c2": "N", "d8": "k", "b5": "r", "b9": "r"}, "c2a3 b5b4 a3c2 b4b5")
for _files in (0, 1, 3, 5, 6):
    _fen, _moves = _shifted(*_UNEQUAL, _files)
    CATALOGUE.append(_c("unequal value", R26_MIXED, _fen, _moves, "捉闲捉闲", "red", "by the horse"))
# the general's and a pawn's attacks, the motif moved along
for _files in (1, 2, 3):
    _fen, _moves = _shifted({"e0": "K", "c6": "P", "f9": "k", "c7": "n", "b7": "c"}, "c6b6 f9f8 b6c6 f8f9", _files - 1)
    CATALOGUE.append(_c("pawn's attack", R26_ALLOWED, _fen, _moves, "捉闲捉闲", None, "a pawn's own attack is idle"))
CATALOGUE += [
    _c("perpetual check", R26_CHECK, "R8/rR7/4k4/1r7/9/9/9/9/3K2c2/9 w - - 0 1", "b8b7 e7e8 b7b8 e8e7", "将杀将杀", "red"),
    _c("pawn's attack", R26_ALLOWED, place({"e0": "K", "g6": "P", "d9": "k", "g7": "n", "h7": "c"}), "g6h6 d9d8 h6g6 d8d9",
       "捉闲捉闲", None, "a pawn's own attack is idle"),
    # with the general's help it is a chase: the horse takes, the pawn retakes, the general retakes
    _c("general's attack", R26_ALLOWED, place({"d1": "K", "f9": "k", "e1": "n", "e2": "p", "h4": "N"}),
       "h4g2 f9f8 g2h4 f8f9", "捉闲闲闲", None, "horse on e1 by the horse on g2"),
    # the same without the general next to it: protected, idle
    _c("general's attack", R26_ALLOWED, place({"d0": "K", "f9": "k", "e1": "n", "e2": "p", "h4": "N"}),
       "h4g2 f9f8 g2h4 f8f9", "闲闲闲闲", None, "horse on e1: protected"),
    _c("general's attack", R26_ALLOWED, place({"e2": "K", "d9": "k", "f2": "n", "f1": "c"}), "e2e1 d9d8 e1e2 d8d9",
       "闲闲闲闲", None, "the general's own attack is idle"),
    _c("mate threat and chase", R26_MIXED, "9/4k4/9/9/9/9/9/2R4r1/5K3/9 w - - 0 1", "c2c6 h2h9 c6c2 h9h2", "闲杀闲捉",
       "black", "chariot on c2 by the chariot on h2"),
    _c("mate threat and chase", R26_MIXED, "9/3k2P2/9/2c6/9/9/1N7/4K4/9/9 w - - 0 1", "b3d4 c6c1 d4b3 c1c6", "杀闲捉闲",
       "red", "cannon on c1 by the horse on b3"),
    _c("mate threat and chase", R26_MIXED, "1Rck5/9/5r3/9/9/9/9/4K4/4p4/9 w - - 0 1", "b9b2 f7f4 b2b9 f4f7", "杀闲捉闲",
       "red", "cannon on c9 by the chariot on b9"),
    _c("mate threat and chase", R26_MIXED, "4k4/9/7R1/9/9/9/9/C5r2/9/5KN2 w - - 0 1", "a2a6 g2g6 a6a2 g6g2", "闲杀闲捉",
       "black"),
    _c("mate threat and chase", R26_FORBIDDEN, "4k2r1/9/9/9/3C5/9/2n6/3K5/R6n1/9 w - - 0 1", "a1c1 c3a2 c1a1 a2c3",
       "捉捉捉杀", None),
    # the other side's one-sided perpetual check loses, whatever this side does
    _c("perpetual check", R26_CHECK, "3k5/2c6/9/6RC1/9/9/6p2/2N1K4/R8/4r4 w - - 0 1", "e2f2 e0f0 f2e2 f0e0",
       "闲将杀将", "black"),
    _c("checks and one idle", R26_ALLOWED, "3n5/5k3/9/6p2/9/3n5/7R1/p8/3K5/9 w - - 0 1", "h3h8 f8f7 h8h3 f7f8", "将闲闲闲",
       None),
    _c("checks and one idle", R26_ALLOWED, "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1", "a0a9 e9e8 a9a0 e8e9", "将闲闲闲", None),
    _c("checks and one idle", R26_ALLOWED, "9/9/4k4/9/1c1r5/9/2R6/3K5/9/9 w - - 0 1", "c3d3 d5g5 d3c3 g5d5", "捉闲闲将",
       None),  # 数捉一闲 beside 数将一闲
    _c("exchange offer", R26_ALLOWED, place({"d0": "K", "c3": "R", "e2": "N", "f9": "k", "c7": "r", "e6": "n"}),
       "c3b3 f9f8 b3c3 f8f9", "闲闲闲闲", None, "chariot on c7: protected"),
    _c("exchange offer", R26_ALLOWED, place({"f0": "K", "h3": "R", "f2": "N", "d9": "k", "h7": "r", "f6": "n"}),
       "h3i3 d9d8 i3h3 d8d9", "闲闲闲闲", None, "chariot on h7: protected"),
    _c("exchange offer", R26_MIXED, place({"f0": "K", "i3": "R", "h3": "R", "d9": "k", "g7": "r"}), "h3g3 g7h7 g3h3 h7g7",
       "捉闲捉闲", "red", "chariot on g7 by the chariot on g3"),
    _c("defensive key point", R26_ALLOWED, place({"d0": "K", "e9": "k", "a7": "b", "b5": "N", "h4": "r"}),
       "b5c3 h4h1 c3b5 h1h4", "闲闲闲闲", None, "defensive key point"),
    _c("defensive key point", R26_ALLOWED, place({"d0": "K", "e9": "k", "i7": "b", "h5": "N", "b4": "r"}),
       "h5g3 b4b1 g3h5 b1b4", "闲闲闲杀", None, "defensive key point"),
    _c("defensive key point", R26_ALLOWED, place({"d0": "K", "e9": "k", "d7": "a", "b6": "N", "h4": "r"}),
       "b6a4 h4h1 a4b6 h1h4", "闲闲闲杀", None, "defensive key point"),
]
# 互打: the pawn's chases count when the other side chases perpetually too, so both are forbidden
for _rank in (5, 4, 3):
    for _left, _right in (("N", "C"), ("C", "N")):
        CATALOGUE.append(_c(
            "mutual attack", R26_FORBIDDEN,
            place({"e0": "K", "e6": "P", "a2": _left, "i2": _right, "f9": "k", "e7": "n", "d7": "c", f"a{_rank}": "r"}),
            f"e6d6 a{_rank}i{_rank} d6e6 i{_rank}a{_rank}", "捉捉捉捉", None, "a pawn's own attack"))

