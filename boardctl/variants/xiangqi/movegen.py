"""Xiangqi move generation and attack tests: plain functions over the board's mailbox.

The mailbox ``b`` is 90 small ints (``type`` for Red, ``type | 8`` for Black, 0 empty) and
``occupied_co`` the two sides' bitboards, both owned by :class:`~.board.XiangqiBoard`; nothing
here keeps state. Every piece's moves come from the tables of :mod:`.points`, so generating the
legal moves of one side (what the tracker does on every settle, usually restricted by
``from_mask``/``to_mask``) costs tens of microseconds. A move is legal when it leaves its own
general neither attacked nor facing the other general on an open file.
"""

from __future__ import annotations

from collections.abc import Iterator

from boardctl.core.geometry import Square, squares_of
from boardctl.core.rules import Color
from boardctl.variants.xiangqi.points import (
    ADVISOR,
    ADVISOR_MOVES,
    ALL,
    BLACK_BIT,
    CANNON,
    DIAGONALS,
    ELEPHANT,
    ELEPHANT_MOVES,
    HORSE,
    HORSE_ATTACKS,
    HORSE_MOVES,
    KING,
    KING_MOVES,
    LINES,
    MOVES,
    NAMES,
    PAWN,
    PAWN_ATTACKS,
    PAWN_MOVES,
    PIECE_NAMES,
    POINTS,
    RAYS,
    ROOK,
    XiangqiMove,
)


def attacked(b: list[int], square: Square, by: Color) -> bool:
    """Whether ``by`` attacks ``square`` as a general's point: rook, cannon, horse, pawn, or
    the other general on an open file (advisors and elephants never reach a palace of the
    other side). False for ``square`` -1 (no general)."""
    if square < 0:
        return False
    off = 0 if by else BLACK_BIT
    rook, cannon, king = ROOK | off, CANNON | off, KING | off
    for ray in RAYS[square]:
        screened = False
        for s in ray:
            p = b[s]
            if p:
                if screened:
                    if p == cannon:
                        return True
                    break
                if p in (rook, king):
                    return True
                screened = True
    horse = HORSE | off
    for leg, f in HORSE_ATTACKS[square]:
        if b[f] == horse and not b[leg]:
            return True
    pawn = PAWN | off
    for f in PAWN_ATTACKS[by][square]:  # noqa: SIM110 (a plain loop: the hottest path)
        if b[f] == pawn:
            return True
    return False


def targets(
    b: list[int], occupied_co: list[int], s: Square, p: int, *, include_own: bool = False
) -> list[Square]:
    """Pseudo-legal destinations of the piece ``p`` on ``s`` (own pieces excluded unless
    ``include_own``)."""
    red = p < BLACK_BIT
    kind = p & 7
    own = -1 if include_own else (occupied_co[red])
    out: list[Square] = []
    if kind == ROOK:
        for ray in RAYS[s]:
            for t in ray:
                if b[t]:
                    if include_own or (b[t] < BLACK_BIT) != red:
                        out.append(t)
                    break
                out.append(t)
    elif kind == CANNON:
        for ray in RAYS[s]:
            screened = False
            for t in ray:
                if not screened:
                    if b[t]:
                        screened = True
                    else:
                        out.append(t)
                elif b[t]:
                    if include_own or (b[t] < BLACK_BIT) != red:
                        out.append(t)
                    break
    elif kind == HORSE:
        for leg, t in HORSE_MOVES[s]:
            if not b[leg]:
                out.append(t)
    elif kind == PAWN:
        out.extend(PAWN_MOVES[red][s])
    elif kind == ELEPHANT:
        for eye, t in ELEPHANT_MOVES[red][s]:
            if not b[eye]:
                out.append(t)
    elif kind == ADVISOR:
        out.extend(ADVISOR_MOVES[red][s])
    else:
        out.extend(KING_MOVES[red][s])
    if include_own or kind in (ROOK, CANNON):
        return out
    return [t for t in out if not own >> t & 1]


def leaves_king_safe(b: list[int], kings: list[Square], turn: Color, f: Square, t: Square) -> bool:
    """Whether moving the piece on ``f`` to ``t`` leaves ``turn``'s general safe (tried on the
    mailbox, which is restored before returning)."""
    p, captured = b[f], b[t]
    b[t], b[f] = p, 0
    king = t if p & 7 == KING else kings[turn]
    safe = not attacked(b, king, not turn)
    b[f], b[t] = p, captured
    return safe


def pseudo_legal_moves(
    b: list[int], occupied_co: list[int], turn: Color, from_mask: int = ALL, to_mask: int = ALL
) -> Iterator[XiangqiMove]:
    """``turn``'s moves by the pieces' rules alone, its general's safety not looked at."""
    for f in squares_of(occupied_co[turn] & from_mask):
        base = f * POINTS
        for t in targets(b, occupied_co, f, b[f]):
            if to_mask >> t & 1:
                yield MOVES[base + t]


def legal_moves(
    b: list[int],
    occupied_co: list[int],
    kings: list[Square],
    turn: Color,
    from_mask: int = ALL,
    to_mask: int = ALL,
) -> Iterator[XiangqiMove]:
    """The legal moves of ``turn`` from points of ``from_mask`` to points of ``to_mask`` (both
    bitboards, bit ``rank * 9 + file``).

    A move is tried on the board only if it could expose the general: when the general
    is in check or moves, when the piece leaves the general's file or rank or a point
    diagonally next to it (a horse's leg), or lands on its file or rank (a cannon screen).
    """
    king = kings[turn]
    if king < 0 or attacked(b, king, not turn):
        risky_from = risky_to = ALL
    else:
        risky_from, risky_to = LINES[king] | DIAGONALS[king], LINES[king]
    for f in squares_of(occupied_co[turn] & from_mask):
        base = f * POINTS
        p = b[f]
        test_all = p & 7 == KING or risky_from >> f & 1
        for t in targets(b, occupied_co, f, p):
            if to_mask >> t & 1 and (
                not (test_all or risky_to >> t & 1) or leaves_king_safe(b, kings, turn, f, t)
            ):
                yield MOVES[base + t]


def make_move(b: list[int], occupied_co: list[int], kings: list[Square], f: Square, t: Square) -> int:
    """Move the piece on ``f`` to ``t`` in the mailbox, the bitboards and the generals' points;
    returns the piece taken (0: none), for :func:`unmake_move`."""
    p, captured = b[f], b[t]
    red = p < BLACK_BIT
    occupied_co[red] ^= (1 << f) | (1 << t)
    if captured:
        occupied_co[captured < BLACK_BIT] ^= 1 << t
        if captured & 7 == KING:
            kings[captured < BLACK_BIT] = -1
    if p & 7 == KING:
        kings[red] = t
    b[t], b[f] = p, 0
    return captured


def unmake_move(
    b: list[int], occupied_co: list[int], kings: list[Square], f: Square, t: Square, captured: int
) -> None:
    """Take back :func:`make_move` of ``f`` to ``t``, which took ``captured``."""
    p = b[t]
    red = p < BLACK_BIT
    occupied_co[red] ^= (1 << f) | (1 << t)
    b[f], b[t] = p, captured
    if captured:
        occupied_co[captured < BLACK_BIT] |= 1 << t
        if captured & 7 == KING:
            kings[captured < BLACK_BIT] = t
    if p & 7 == KING:
        kings[red] = f


def illegal_reason(b: list[int], occupied_co: list[int], turn: Color, move: XiangqiMove) -> str:
    """Why ``move``, which is not legal for ``turn``, is not: no piece, the other side's piece,
    not how the piece moves, or the general left in check."""
    f, t = move.from_square, move.to_square
    p = b[f]
    if not p:
        return f"no piece on {NAMES[f]}"
    if (p < BLACK_BIT) != turn:
        return f"the piece on {NAMES[f]} is not {'Red' if turn else 'Black'}'s"
    if t not in targets(b, occupied_co, f, p):
        return f"a {PIECE_NAMES[p & 7]} cannot go from {NAMES[f]} to {NAMES[t]}"
    return "it would leave the general in check or facing the other general"
