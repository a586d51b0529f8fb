"""The Chinese competition rules' 棋例 (中国象棋竞赛规则): what each move of a repetition cycle
does, and who must vary.

Pure functions over :class:`~.board.XiangqiBoard`, no pyffish: the daemon, ``replay`` and the page
ask them through ``XiangqiBoard.outcome()``/``notice()`` when a position recurs.

A move is, by its heaviest effect (细则 12): a check (将), a mate threat (杀: after it, the mover
would mate by checks within :data:`THREAT_DEPTH` moves if the other side passed), a chase (捉: the
mover could next win material by value, :func:`exchange`, on a piece it did not chase before, 细则
2, 3, 6), or idle (闲). Not chases: the general's own attack (第27条), a pawn's own attack (a chase
only in a mutual perpetual attack, 互打), a formal chase whose capture lets the other side mate at
once (细则 7), an attack on an advisor or elephant by a side whose only attacking piece is the
attacker (the defensive key point, our reading of 第27条: see docs/xiangqi-rules.md).

A side's moves in a cycle are forbidden (禁止着法) when none is idle: 长将, 长杀, 长捉, 一将一杀,
一将一捉, 一杀一捉; one idle move makes them allowed (数将一闲...). :func:`rule_cycle` then applies
第26条: one-sided perpetual check loses; both allowed or both forbidden draw if neither varies;
one forbidden, one allowed: the forbidden side must vary or loses.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from boardctl.core.rules import Color, Outcome
from boardctl.variants.xiangqi.board import (
    ADVISOR,
    CANNON,
    ELEPHANT,
    HORSE,
    KING,
    NAMES,
    PAWN,
    PIECE_NAMES,
    ROOK,
    XiangqiBoard,
    XiangqiMove,
)

#: 子力 values: a chariot is two horses, two cannons or a horse and a cannon; horse = cannon;
#: advisor = elephant. A crossed pawn floats (valued as an advisor, so that a pawn for a piece
#: or a piece for a pawn is never a gain); the general and an uncrossed pawn are not material.
VALUES = {ROOK: 4, HORSE: 2, CANNON: 2, ADVISOR: 1, ELEPHANT: 1, PAWN: 1, KING: 0}
#: A mate threat is a mate by consecutive checks in at most this many of the mover's moves.
THREAT_DEPTH = 2
#: Recaptures looked at by :func:`exchange` (deeper chains change no ruling we know of).
EXCHANGE_DEPTH = 6

CHECK, THREAT, CHASE, IDLE = "check", "mate threat", "chase", "idle"
#: Effects from heaviest to lightest, with their Chinese names.
EFFECTS = {CHECK: "将", THREAT: "杀", CHASE: "捉", IDLE: "闲"}


@dataclass(frozen=True, slots=True)
class MoveEffect:
    """What one move does: its heaviest ``effect``, the points of the pieces it chases (after
    the move), and ``pawn_chase`` when its only chase is a pawn's own (idle unless 互打)."""

    move: str
    side: Color
    effect: str
    chased: tuple[str, ...] = ()
    pawn_chase: bool = False
    note: str = ""

    def describe(self) -> str:
        text = f"{self.move} {self.effect} ({EFFECTS[self.effect]})"
        return text + (f": {self.note}" if self.note else "")


@dataclass(frozen=True, slots=True)
class SideVerdict:
    """A side's moves in a cycle: forbidden or allowed, and the name of the pattern."""

    side: Color
    forbidden: bool
    #: ``perpetual_check``, ``check_and_chase``..., or ``idle``, ``checks_and_idle``...
    kind: str
    chinese: str


@dataclass(frozen=True, slots=True)
class CycleRuling:
    """第26条 on one cycle: ``loser`` is the side that must vary (and loses if it goes on);
    None when the cycle is a draw if neither varies (不变作和)."""

    effects: tuple[MoveEffect, ...]
    verdicts: tuple[SideVerdict, SideVerdict]  # (Red, Black)
    loser: Color | None
    article: str
    words: str  # the ruling in English and Chinese

    def verdict(self, side: Color) -> SideVerdict:
        return self.verdicts[0] if side else self.verdicts[1]


@dataclass(frozen=True, slots=True)
class Ruling(Outcome):
    """An ending by the 棋例, its reason in English and Chinese: ``perpetual chase (长捉判负)``."""

    words: str = ""

    @property
    def reason(self) -> str:
        return f"{self.termination.replace('_', ' ')} ({self.words})" if self.words else super().reason


# ---- material and exchanges -----------------------------------------------------------------


def value_at(board: XiangqiBoard, square: int) -> int:
    """子力 of the piece on ``square``: 0 for the general, an uncrossed pawn or nothing."""
    piece = board.piece_at(square)
    if piece is None:
        return 0
    if piece.piece_type == PAWN:
        rank = square // 9
        crossed = rank >= 5 if piece.color else rank <= 4
        return VALUES[PAWN] if crossed else 0
    return VALUES[piece.piece_type]


def _recaptures(board: XiangqiBoard, square: int, depth: int) -> int:
    """The most the side to move can win by capturing on ``square`` (0: it need not capture)."""
    if depth <= 0:
        return 0
    best = 0
    for move in list(board.generate_legal_moves(to_mask=1 << square)):
        gain = value_at(board, square)
        board.push(move)
        gain -= _recaptures(board, square, depth - 1)
        board.pop()
        best = max(best, gain)
    return best


def exchange(board: XiangqiBoard, move: XiangqiMove) -> int:
    """What the capture ``move`` wins in 子力 after the best recaptures on its point (both sides
    may stop); the general recaptures only where that is legal, so a pinned or 'false' root
    protects nothing."""
    gain = value_at(board, move.to_square)
    board.push(move)
    try:
        return gain - _recaptures(board, move.to_square, EXCHANGE_DEPTH)
    finally:
        board.pop()


def mates_in_one(board: XiangqiBoard) -> bool:
    """Whether the side to move can checkmate (or stalemate, which loses too) at once."""
    for move in list(board.generate_legal_moves()):
        board.push(move)
        done = not board.has_legal_moves()
        board.pop()
        if done:
            return True
    return False


def mates_by_checks(board: XiangqiBoard, depth: int) -> bool:
    """Whether the side to move mates by consecutive checks (连将杀) in at most ``depth`` moves."""
    for move in list(board.generate_legal_moves()):
        board.push(move)
        try:
            if not board.is_check():
                if not board.has_legal_moves():
                    return True  # 困毙
                continue
            replies = list(board.generate_legal_moves())
            if not replies:
                return True
            if depth > 1 and all(_still_mates(board, reply, depth - 1) for reply in replies):
                return True
        finally:
            board.pop()
    return False


def _still_mates(board: XiangqiBoard, reply: XiangqiMove, depth: int) -> bool:
    board.push(reply)
    try:
        return mates_by_checks(board, depth)
    finally:
        board.pop()


def passed(board: XiangqiBoard) -> XiangqiBoard:
    """The position with the other side to move (a pass), its stack empty."""
    fields = board.fen().split()
    fields[1] = "b" if board.turn else "w"
    return XiangqiBoard(" ".join(fields))


# ---- one move ------------------------------------------------------------------------------


def _attacking_force(board: XiangqiBoard, side: Color) -> list[int]:
    return [
        s
        for s, p in board.piece_map().items()
        if p.color == side and p.piece_type in (ROOK, HORSE, CANNON, PAWN) and value_at(board, s)
    ]


#: Why an attack on a piece is no chase (the 棋例's words).
WHY_PROTECTED = "protected (有根): taking it wins nothing by value"
WHY_GENERAL = "the general's own attack is idle (第27条)"
WHY_KEY_POINT = "an advisor or elephant attacked from a defensive key point is idle (第27条)"
WHY_MATED = "a formal chase: taking would be mated at once (细则7)"
WHY_PAWN = "a pawn's own attack is idle unless both sides attack perpetually (第27条)"


@dataclass(frozen=True, slots=True)
class Attack:
    """An attack of the side to move on a piece (``target``, a point) by the piece on ``by``:
    a chase when ``excuse`` is empty (or only :data:`WHY_PAWN`), else why it is not."""

    target: int
    by: int
    excuse: str = ""

    @property
    def chases(self) -> bool:
        return self.excuse in ("", WHY_PAWN)


def attacks(board: XiangqiBoard) -> dict[int, Attack]:
    """The side to move's attacks on material (one per target, the strongest: a chase before a
    pawn's chase before an excused attack). A chase wins by value at once (:func:`exchange`)."""
    side = board.turn
    force = _attacking_force(board, side)
    found: dict[int, Attack] = {}
    for move in list(board.generate_legal_moves(to_mask=board.occupied_by(not side))):
        target, by = move.to_square, move.from_square
        kind = board.piece_type_at(by)
        if not value_at(board, target):
            continue
        excuse = ""
        if kind == KING:
            excuse = WHY_GENERAL
        elif exchange(board, move) <= 0:
            excuse = WHY_PROTECTED
        elif board.piece_type_at(target) in (ADVISOR, ELEPHANT) and _defending(board, force, by):
            excuse = WHY_KEY_POINT
        else:
            board.push(move)
            if mates_in_one(board):
                excuse = WHY_MATED
            board.pop()
        if not excuse and kind == PAWN:
            excuse = WHY_PAWN
        attack = Attack(target, by, excuse)
        known = found.get(target)
        if known is None or _rank(attack) < _rank(known):
            found[target] = attack
    return found


def _defending(board: XiangqiBoard, force: list[int], by: int) -> bool:
    """Our reading of the defensive key point (第27条): the attacker is the side's only attacking
    piece and the other side's attacking force is no smaller, so the attacker holds a point to
    draw rather than hunting the advisor or elephant."""
    if force != [by]:
        return False
    theirs = _attacking_force(board, not board.turn)
    return sum(value_at(board, s) for s in theirs) >= value_at(board, by)


def _rank(attack: Attack) -> int:
    return 0 if not attack.excuse else 1 if attack.excuse == WHY_PAWN else 2


def classify(board: XiangqiBoard, move: XiangqiMove) -> MoveEffect:
    """What ``move`` (legal, the side to move's) does, by its heaviest effect (细则 12)."""
    side = board.turn
    standing = attacks(board)
    before = {t for t, a in standing.items() if a.excuse == ""}
    if board.is_check():
        # in check no capture but the answer is legal: an attack that stood before still stood
        before |= _attacked_by_pieces(board, side)
    pawn_before = before | {t for t, a in standing.items() if a.chases}
    after = board.copy(stack=False)
    after.push(move)
    uci = move.uci()
    if after.is_check():
        return MoveEffect(uci, side, CHECK)
    again = passed(after)
    if mates_by_checks(again, THREAT_DEPTH) and not mates_by_checks(board.copy(stack=False), THREAT_DEPTH):
        return MoveEffect(uci, side, THREAT)  # a new threat: one that stood before is no move's
    now = attacks(again)
    # 细则 2 and 6: a chase counts when the piece was not chased before the move
    new = {
        t: a
        for t, a in now.items()
        if a.chases and t not in (pawn_before if a.excuse == WHY_PAWN else before)
    }
    name = functools.partial(_named, again)
    if not new:
        excused = [a for a in now.values() if not a.chases]
        kept = [a for t, a in now.items() if a.chases and t in before]
        note = "; ".join(
            [f"{name(a.target)}: {a.excuse}" for a in excused]
            + [f"{name(a.target)}: already chased before the move (细则6)" for a in kept]
        )
        return MoveEffect(uci, side, IDLE, note=note)
    real = {t: a for t, a in new.items() if a.excuse == ""}
    chosen = real or new
    targets = tuple(name(t) for t in sorted(chosen))
    note = "; ".join(f"{name(a.target)} by the {name(a.by)}" for a in chosen.values())
    if not real:
        note += f": {WHY_PAWN}"
    return MoveEffect(uci, side, CHASE, targets, not real, note)


def _attacked_by_pieces(board: XiangqiBoard, side: Color) -> set[int]:
    """The other side's points that ``side``'s pieces other than the general attack."""
    mask = 0
    for square, piece in board.piece_map().items():
        if piece.color == side and piece.piece_type != KING:
            mask |= board.attacks_mask(square)
    mask &= board.occupied_by(not side)
    return {s for s in range(90) if mask >> s & 1}


def _named(board: XiangqiBoard, square: int) -> str:
    return f"{PIECE_NAMES[board.piece_type_at(square) or 0]} on {NAMES[square]}"


# ---- the cycle ------------------------------------------------------------------------------

#: (effects of a side's moves) -> (kind, Chinese) for forbidden patterns.
_FORBIDDEN = {
    frozenset({CHECK}): ("perpetual_check", "长将"),
    frozenset({THREAT}): ("perpetual_mate_threat", "长杀"),
    frozenset({CHASE}): ("perpetual_chase", "长捉"),
    frozenset({CHECK, THREAT}): ("check_and_mate_threat", "一将一杀"),
    frozenset({CHECK, CHASE}): ("check_and_chase", "一将一捉"),
    frozenset({THREAT, CHASE}): ("mate_threat_and_chase", "一杀一捉"),
    frozenset({CHECK, THREAT, CHASE}): ("check_mate_threat_and_chase", "将杀捉交替"),
}
_ALLOWED = {
    CHECK: ("checks_and_idle", "数将一闲"),
    THREAT: ("mate_threats_and_idle", "数杀一闲"),
    CHASE: ("chases_and_idle", "数捉一闲"),
}


def _effect(e: MoveEffect, *, pawn_counts: bool) -> str:
    return IDLE if e.effect == CHASE and e.pawn_chase and not pawn_counts else e.effect


def side_verdict(effects: Sequence[MoveEffect], side: Color, *, pawn_counts: bool = False) -> SideVerdict:
    """Forbidden (no idle move among ``side``'s) or allowed, with the pattern's name."""
    kinds = [_effect(e, pawn_counts=pawn_counts) for e in effects if e.side == side]
    found = frozenset(kinds)
    if kinds and IDLE not in found:
        kind, chinese = _FORBIDDEN[found]
        return SideVerdict(side, True, kind, chinese)
    for effect in (CHECK, THREAT, CHASE):
        if effect in found:
            kind, chinese = _ALLOWED[effect]
            return SideVerdict(side, False, kind, chinese)
    return SideVerdict(side, False, "idle", "闲")


def rule_effects(effects: Sequence[MoveEffect]) -> CycleRuling:
    """第26条 on the classified moves of one cycle."""
    red, black = side_verdict(effects, True), side_verdict(effects, False)
    # 第27条: a pawn's own attack is a chase in a mutual perpetual attack (互打)
    if red.forbidden != black.forbidden:
        if not red.forbidden:
            red = side_verdict(effects, True, pawn_counts=True)
        else:
            black = side_verdict(effects, False, pawn_counts=True)
    verdicts = (red, black)
    checker = [v for v in verdicts if v.kind == "perpetual_check"]
    if len(checker) == 1:
        loser: Color | None = checker[0].side
        article = "第26条: single-sided perpetual check is never allowed"
    elif red.forbidden and not black.forbidden:
        loser, article = True, "第26条: one side forbidden, the other allowed"
    elif black.forbidden and not red.forbidden:
        loser, article = False, "第26条: one side forbidden, the other allowed"
    else:
        loser = None
        both = "forbidden" if red.forbidden else "allowed"
        article = f"第26条: both sides {both}, a draw if neither varies"
    if loser is None:
        words = "draw if neither side varies (双方不变作和)"
    else:
        v = red if loser else black
        name = "Red" if loser else "Black"
        words = f"{v.kind.replace('_', ' ')}: {name} must vary or loses ({v.chinese}判负)"
    return CycleRuling(tuple(effects), verdicts, loser, article, words)


@functools.lru_cache(maxsize=256)
def _rule(fen: str, moves: tuple[str, ...]) -> CycleRuling:
    board = XiangqiBoard(fen)
    effects = []
    for uci in moves:
        move = board.parse_uci(uci)
        effects.append(classify(board, move))
        board.push(move)
    return rule_effects(effects)


def rule_cycle(board: XiangqiBoard, moves: Sequence[str]) -> CycleRuling:
    """第26条 on the cycle ``moves`` played from ``board`` (the position it returns to)."""
    return _rule(board.fen(), tuple(moves))
