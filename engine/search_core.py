# mypy: disable-error-code="no-any-return"
"""The one alpha-beta search of both games: PVS with a transposition table, null move, late-move
reductions, pruning and quiescence in one recursive function, written once and compiled per game.

Contract of a game's search: it returns the score of the position (side to move) when that score
lies strictly inside (alpha, beta); a score <= alpha is an upper bound and a score >= beta a lower
bound. Depth <= 0 means quiescence (captures only, unless in check). Mate scores are ``MATE -
plies to mate``. When ``ctl[STOP]`` is set the returned value is meaningless and the caller
discards the iteration. Quiescence lives inside the search so there is one recursive kernel,
entered only from Python: a call to a cached recursive kernel with a literal argument segfaults
when numba loads it from the cache (numba 0.68 here); see docs/engine.md.

How a game plugs in (:func:`specialise`): ``search`` below is a plain function, never compiled as
it stands. Every name it uses that is not defined in this module's imports (the hooks below: move
generation, make/unmake, evaluation, the node's verdict of the game's rules, move ordering) and
every constant and policy flag is a global, and a game makes its own copy of the function with a
globals dict holding its hooks, its scratch layout ``W_*``, its margins and its flags. numba
freezes a function's globals when it compiles it: the hooks become direct (inlined) calls and a
flag's dead branch is removed, so each game's copy runs as fast as a search written for it alone,
and an edit to ``search`` reaches both games. A game's position is one tuple ``pos`` of its
arrays (chess ``(tb, ev, bb, mb, st)``, xiangqi ``(tb, mb, st)``) that only its hooks unpack.

The stubs below document each hook; compiling this module's ``search`` itself fails on them.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from engine.bits import kernel
from engine.search_common import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    CAN_STOP,
    CONTEMPT,
    INF,
    MATE,
    MATE_BOUND,
    MAXPLY,
    NODE_LIMIT,
    NODES,
    SELDEPTH,
    STOP,
    tt_pack,
)

__all__ = ["HOOKS", "V_DRAW", "V_LOSS", "V_NONE", "V_WIN", "layout", "search", "specialise"]

#: A node's verdict by the game's rules (the side to move's view), from the ``verdict`` hook.
V_NONE, V_DRAW, V_WIN, V_LOSS = 0, 1, 2, 3


def layout(maxmoves: int, history_size: int) -> dict[str, int]:
    """The scratch array ``ws`` of a game: one flat int64 array (a recursive call copies every array
    argument's descriptor, so fewer arrays is faster). ``W_SIZE`` ends the search's part; a game may
    put its own scratch after it (xiangqi's repetition judge)."""
    w: dict[str, int] = {"W_MOVES": 0}  # [ply * maxmoves + i]: move lists
    w["W_SCORES"] = w["W_MOVES"] + (MAXPLY + 1) * maxmoves  # [ply * maxmoves + i]: their ordering scores
    w["W_PV"] = w["W_SCORES"] + (MAXPLY + 1) * maxmoves  # [ply * (MAXPLY + 1) + i]: principal variations
    w["W_PVL"] = w["W_PV"] + (MAXPLY + 1) * (MAXPLY + 1)  # [ply]: their lengths
    w["W_KILLERS"] = w["W_PVL"] + MAXPLY + 1  # [ply * 2 + k]
    w["W_HISTORY"] = w["W_KILLERS"] + (MAXPLY + 1) * 2  # [history_index(move)]
    w["W_CTL"] = w["W_HISTORY"] + history_size  # the ctl slots (engine/search_common.py)
    w["W_SIZE"] = w["W_CTL"] + 8
    return w


# ---- what a game supplies --------------------------------------------------------------------
# policy flags: where the games' searches differ (docs/engine.md lists which could be shared)
PSEUDO_LEGAL = False  # moves are pseudo-legal, tested by make_legal; no legal move loses (else: mate or stalemate)
REFINE_STATIC_WITH_TT = False  # a TT score whose bound is nearer the truth replaces the static score
IIR = False  # internal iterative reduction without a TT move, from IIR_MIN_DEPTH
SEE_PRUNING = False  # losing captures skipped in quiescence; captures and quiet moves pruned by exchange
HISTORY_GRAVITY = False  # history bonus with gravity and a malus for the quiet moves before the cutoff
# numbers: the layout (see layout()), margins and depths
MAXMOVES = W_MOVES = W_SCORES = W_PV = W_PVL = W_KILLERS = W_HISTORY = W_CTL = 0
RFP_MARGIN = RFP_MAX_DEPTH = NULL_MIN_DEPTH = IIR_MIN_DEPTH = LMR_MIN_DEPTH = LMR_MIN_MOVE = 0
FUTILITY_MARGIN = (0, 0, 0, 0)  # by depth, for quiet moves
LMP_BASE = LMP_SCALE = 0  # late-move pruning after LMP_BASE + LMP_SCALE * depth^2 moves, to depth 3
SEE_PRUNE_DEPTH = SEE_CAPTURE_MARGIN = SEE_QUIET_MARGIN = 0  # with SEE_PRUNING
HISTORY_MAX = HISTORY_BONUS_MAX = 1  # with HISTORY_GRAVITY
HISTORY_HALVE_AT = 1  # without it: every entry is halved when one passes this


def node_in_check(pos: Any, undo: np.ndarray) -> bool:
    """Whether the side to move is in check, on entering a node (a game may note it in ``undo``)."""
    raise NotImplementedError


def in_check(pos: Any) -> bool:
    """Whether the side to move is in check (after a move: whether it gave check)."""
    raise NotImplementedError


def verdict(pos: Any, hist: np.ndarray, undo: np.ndarray, ws: np.ndarray, ply: int, checked: bool) -> int:
    """``V_*``: whether the game's rules end the game here (repetitions, move-count rules); ply > 0."""
    raise NotImplementedError


def evaluate(pos: Any) -> int:
    """Static score for the side to move."""
    raise NotImplementedError


def tt_key(pos: Any) -> int:
    """The position's hash key, as int64."""
    raise NotImplementedError


def null_ok(pos: Any) -> bool:
    """Whether a null move is safe enough to try (the side to move is unlikely to be in zugzwang)."""
    raise NotImplementedError


def make_null(pos: Any, hist: np.ndarray, undo: np.ndarray) -> None:
    raise NotImplementedError


def unmake_null(pos: Any, hist: np.ndarray, undo: np.ndarray) -> None:
    raise NotImplementedError


def gen(pos: Any, moves: np.ndarray, qnode: bool, checked: bool, yes: bool) -> int:
    """Moves into ``moves`` (captures only for ``qnode`` out of check); returns their number.
    ``yes`` is a computed True for a game's own kernels (never a literal; see above)."""
    raise NotImplementedError


def tactical(pos: Any, m: int) -> bool:
    """Whether ``m`` changes material (capture, promotion): not pruned as quiet, no history."""
    raise NotImplementedError


def capture_order(pos: Any, m: int) -> int:
    """The ordering score of a tactical move (about 1 << 28; below 0 for one losing by exchange)."""
    raise NotImplementedError


def history_index(pos: Any, m: int) -> int:
    """The history slot of ``m`` (its piece and target square), while it is not made."""
    raise NotImplementedError


def qs_futile(pos: Any, m: int, static: int, alpha: int) -> bool:
    """Delta pruning in quiescence: even winning what ``m`` takes cannot lift ``static`` to alpha."""
    raise NotImplementedError


def see_ge(pos: Any, m: int, threshold: int) -> bool:
    """Whether the exchange ``m`` starts wins at least ``threshold`` (with SEE_PRUNING)."""
    raise NotImplementedError


def legality_info(pos: Any) -> Any:
    """What ``make_legal`` needs of the node (xiangqi: the side and its general's lines)."""
    raise NotImplementedError


def make_legal(pos: Any, hist: np.ndarray, undo: np.ndarray, m: int, checked: bool, info: Any) -> bool:
    """Make ``m``; if it leaves the own king attacked (PSEUDO_LEGAL), unmake it and return False."""
    raise NotImplementedError


def unmake(pos: Any, hist: np.ndarray, undo: np.ndarray, m: int) -> None:
    raise NotImplementedError


#: The names a game must supply (hooks, flags and numbers).
HOOKS = (
    "PSEUDO_LEGAL", "REFINE_STATIC_WITH_TT", "IIR", "SEE_PRUNING", "HISTORY_GRAVITY",
    "MAXMOVES", "W_MOVES", "W_SCORES", "W_PV", "W_PVL", "W_KILLERS", "W_HISTORY", "W_CTL",
    "RFP_MARGIN", "RFP_MAX_DEPTH", "NULL_MIN_DEPTH", "IIR_MIN_DEPTH", "LMR_MIN_DEPTH", "LMR_MIN_MOVE",
    "FUTILITY_MARGIN", "LMP_BASE", "LMP_SCALE", "SEE_PRUNE_DEPTH", "SEE_CAPTURE_MARGIN", "SEE_QUIET_MARGIN",
    "HISTORY_MAX", "HISTORY_BONUS_MAX", "HISTORY_HALVE_AT",
    "node_in_check", "in_check", "verdict", "evaluate", "tt_key", "null_ok", "make_null", "unmake_null", "gen",
    "tactical", "capture_order", "history_index", "qs_futile", "see_ge", "legality_info", "make_legal", "unmake",
)


# ---- the search ------------------------------------------------------------------------------
def search(pos: Any, hist: np.ndarray, undo: np.ndarray, tt: np.ndarray, ws: np.ndarray,
           depth: int, alpha: int, beta: int, ply: int, do_null: bool) -> int:
    # Recursive calls must not pass literal constants: numba types them as literals and
    # the cached specialisation then segfaults on load. These two are computed instead.
    yes = ply >= 0
    no = ply < 0
    ctl = ws[W_CTL:W_CTL + 8]
    pvl = ws[W_PVL:W_KILLERS]
    hh = ws[W_HISTORY:W_CTL]
    kil = W_KILLERS + 2 * ply  # this ply's two killers: ws[kil], ws[kil + 1]
    pvl[ply] = 0
    ctl[NODES] += 1
    if ply > ctl[SELDEPTH]:
        ctl[SELDEPTH] = ply
    if ctl[CAN_STOP] != 0 and (ctl[STOP] != 0 or ctl[NODES] >= ctl[NODE_LIMIT]):
        ctl[STOP] = 1
        return 0
    checked = node_in_check(pos, undo)
    draw = ctl[CONTEMPT] if ply & 1 else -ctl[CONTEMPT]  # a draw's worth to the side to move here
    if ply > 0:
        # the game's rules: repetitions (one repetition is enough in search), move-count rules
        ruled = verdict(pos, hist, undo, ws, ply, checked)
        if ruled == V_DRAW:
            return draw
        if ruled == V_WIN:
            return MATE - ply
        if ruled == V_LOSS:
            return -MATE + ply
        # mate distance pruning
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha
    if ply >= MAXPLY - 2:
        return evaluate(pos)
    if checked and depth < 1:
        depth = 1  # evade checks at the horizon instead of standing pat
    elif checked and ply > 0:
        depth += 1
    qnode = depth <= 0
    pv_node = beta - alpha > 1
    # entry i: key at tt[2 * i], packed data at tt[2 * i + 1]
    tkey = tt_key(pos)
    slot = 2 * (tkey & ((tt.shape[0] >> 1) - 1))
    tt_move = 0
    tt_hit = False
    tscore = 0
    tbound = 0
    if not qnode and tt[slot] == tkey:
        tt_hit = True
        data = tt[slot + 1]
        tt_move = data & 0x3FFFF
        tdepth = ((data >> 34) & 255) - 1
        tscore = ((data >> 18) & 0xFFFF) - 32768
        tbound = (data >> 42) & 3
        if tscore > MATE_BOUND:
            tscore -= ply
        elif tscore < -MATE_BOUND:
            tscore += ply
        if (
            not pv_node
            and ply > 0
            and tdepth >= depth
            and (
                tbound == BOUND_EXACT
                or (tbound == BOUND_LOWER and tscore >= beta)
                or (tbound == BOUND_UPPER and tscore <= alpha)
            )
        ):
            return tscore
    static = -INF
    if not checked:
        static = evaluate(pos)
        # a table score whose bound says it is nearer the truth stands in for the static score
        if REFINE_STATIC_WITH_TT and tt_hit and abs(tscore) < MATE_BOUND and (
                tbound == BOUND_EXACT or (tbound == BOUND_LOWER and tscore > static)
                or (tbound == BOUND_UPPER and tscore < static)):
            static = tscore
        if qnode:
            if static >= beta:
                return static
            if static > alpha:
                alpha = static
        elif not pv_node:
            # reverse futility pruning
            if depth <= RFP_MAX_DEPTH and static - RFP_MARGIN * depth >= beta and abs(beta) < MATE_BOUND:
                return static
            # null move pruning
            if do_null and depth >= NULL_MIN_DEPTH and static >= beta and null_ok(pos):
                r = 3 + depth // 4
                make_null(pos, hist, undo)
                score = -search(pos, hist, undo, tt, ws, depth - 1 - r, -beta, -beta + 1, ply + 1, no)
                unmake_null(pos, hist, undo)
                if ctl[STOP] != 0:
                    return 0
                if score >= beta:
                    return beta if score >= MATE_BOUND else score
    if IIR and not qnode and depth >= IIR_MIN_DEPTH and tt_move == 0:
        depth -= 1  # no TT move: likely a node not seen before, not worth a full-depth search first
    moves = ws[W_MOVES + ply * MAXMOVES:W_MOVES + (ply + 1) * MAXMOVES]
    scores = ws[W_SCORES + ply * MAXMOVES:W_SCORES + (ply + 1) * MAXMOVES]
    n = gen(pos, moves, qnode, checked, yes)
    if not PSEUDO_LEGAL and n == 0:
        if checked:
            return -MATE + ply
        if qnode:
            return static
        return draw  # stalemate
    # order: TT move, captures (MVV-LVA), killers, history (captures that lose material last)
    for i in range(n):
        m = moves[i]
        if m == tt_move:
            s = 1 << 30
        elif tactical(pos, m):
            s = capture_order(pos, m)
        elif m == ws[kil]:
            s = (1 << 27) + 1
        elif m == ws[kil + 1]:
            s = 1 << 27
        else:
            s = hh[history_index(pos, m)]
        scores[i] = s
    best = -INF if not qnode else static
    best_move = 0
    old_alpha = alpha
    searched = 0
    legal = 0
    info = legality_info(pos)
    for i in range(n):
        # selection sort step
        bi = i
        for j in range(i + 1, n):
            if scores[j] > scores[bi]:
                bi = j
        if bi != i:
            moves[i], moves[bi] = moves[bi], moves[i]
            scores[i], scores[bi] = scores[bi], scores[i]
        m = moves[i]
        is_tactical = tactical(pos, m)
        prunable = False
        if qnode and not checked:
            if SEE_PRUNING and scores[i] < 0:
                continue  # a losing capture (static exchange evaluation below zero)
            prunable = qs_futile(pos, m, static, alpha)  # delta pruning
        elif not qnode and not pv_node and not checked and searched > 0 and abs(alpha) < MATE_BOUND:
            if is_tactical:
                # a capture that loses more than SEE_CAPTURE_MARGIN a ply of depth by exchange
                if (SEE_PRUNING and scores[i] < 0 and depth <= SEE_PRUNE_DEPTH
                        and not see_ge(pos, m, -SEE_CAPTURE_MARGIN * depth)):
                    continue
            elif depth <= 3 and (static + FUTILITY_MARGIN[depth] <= alpha
                                 or searched >= LMP_BASE + LMP_SCALE * depth * depth):
                prunable = True  # futility and late-move pruning of quiet moves near the horizon
            elif SEE_PRUNING and depth <= SEE_PRUNE_DEPTH and not see_ge(pos, m, -SEE_QUIET_MARGIN * depth * depth):
                prunable = True  # a quiet move that hangs material by exchange
        if not make_legal(pos, hist, undo, m, checked, info):
            continue
        legal += 1
        # whether the move checks is needed only to exempt it from pruning or reduction
        may_reduce = (
            not qnode
            and searched > 0
            and depth >= LMR_MIN_DEPTH
            and ply > 0
            and searched + 1 > LMR_MIN_MOVE
            and not is_tactical
            and not checked
        )
        gives_check = (prunable or may_reduce) and in_check(pos)
        if prunable and not gives_check:
            unmake(pos, hist, undo, m)
            continue
        searched += 1
        if qnode:
            score = -search(pos, hist, undo, tt, ws, depth - 1, -beta, -alpha, ply + 1, no)
        elif searched == 1:
            score = -search(pos, hist, undo, tt, ws, depth - 1, -beta, -alpha, ply + 1, yes)
        else:
            r = 0
            if may_reduce and not gives_check:
                r = int(0.5 + np.log(depth) * np.log(searched) / 2.0)
                if pv_node:
                    r -= 1
                if m == ws[kil] or m == ws[kil + 1]:
                    r -= 1
                r = max(0, min(r, depth - 2))
            score = -search(pos, hist, undo, tt, ws, depth - 1 - r, -alpha - 1, -alpha, ply + 1, yes)
            if score > alpha and r > 0:
                score = -search(pos, hist, undo, tt, ws, depth - 1, -alpha - 1, -alpha, ply + 1, yes)
            if score > alpha and score < beta:
                score = -search(pos, hist, undo, tt, ws, depth - 1, -beta, -alpha, ply + 1, yes)
        unmake(pos, hist, undo, m)
        if ctl[STOP] != 0:
            return 0
        if score > best:
            best = score
            best_move = m
            if score > alpha:
                alpha = score
                row = W_PV + ply * (MAXPLY + 1)
                ws[row] = m
                k = pvl[ply + 1]
                for j in range(k):
                    ws[row + 1 + j] = ws[row + MAXPLY + 1 + j]
                pvl[ply] = k + 1
                if alpha >= beta:
                    if not is_tactical and not qnode:
                        if ws[kil] != m:
                            ws[kil + 1] = ws[kil]
                            ws[kil] = m
                        hidx = history_index(pos, m)  # the move is unmade: its piece is back
                        if HISTORY_GRAVITY:
                            bonus = min(16 * depth * depth, HISTORY_BONUS_MAX)
                            hh[hidx] += bonus - hh[hidx] * bonus // HISTORY_MAX
                            # malus: the quiet moves tried before this one failed to cut
                            for j in range(i):
                                q = moves[j]
                                if not tactical(pos, q):
                                    k = history_index(pos, q)
                                    hh[k] -= bonus + hh[k] * bonus // HISTORY_MAX
                        else:
                            h = hh[hidx] + depth * depth
                            hh[hidx] = h
                            if h > HISTORY_HALVE_AT:
                                for j in range(hh.shape[0]):
                                    hh[j] >>= 1
                    break
    if PSEUDO_LEGAL and legal == 0 and (checked or not qnode):
        return -MATE + ply  # no legal move loses, in check or not
    if qnode:
        return best
    if searched == 0:
        return static if static > -INF else alpha  # everything was pruned
    bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best > old_alpha else BOUND_UPPER)
    stored = best
    if stored > MATE_BOUND:
        stored += ply
    elif stored < -MATE_BOUND:
        stored -= ply
    tt[slot] = tkey
    tt[slot + 1] = tt_pack(best_move if bound != BOUND_UPPER else tt_move, stored, depth, bound)
    return best


def specialise(name: str, game: Mapping[str, Any]) -> Callable[..., int]:
    """``search`` compiled for one game: a copy of the function whose globals are this module's with
    ``game``'s hooks, numbers and flags (every name of :data:`HOOKS`) in place of the stubs.

    The copy is named ``name`` (numba's cache tells the games' copies apart by it) and calls itself
    through the dispatcher returned. Call ``search_<game>((arrays...), hist, undo, tt, ws, depth,
    alpha, beta, ply, do_null)``.
    """
    missing = [h for h in HOOKS if h not in game]
    unknown = [h for h in game if h not in HOOKS]
    if missing or unknown:
        raise TypeError(f"{name}: missing hooks {missing}, unknown {unknown}")
    namespace = dict(globals())
    namespace.update(game)
    code = search.__code__.replace(co_name=name, co_qualname=name)
    clone = types.FunctionType(code, namespace, name, search.__defaults__, search.__closure__)
    clone.__qualname__ = name
    clone.__module__ = __name__
    clone.__doc__ = f"The search (engine/search_core.py) over {name}'s hooks."
    compiled: Callable[..., int] = kernel(nogil=True)(clone)
    namespace["search"] = compiled
    return compiled
