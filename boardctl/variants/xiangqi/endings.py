"""How a xiangqi game ends: no legal move, bare material, and the rulings of repetitions and the
move limit. Plain functions of a :class:`~.board.XiangqiBoard`, read through its public face; the
board answers its ``outcome``, ``claimable_draw``, ``notice`` and ``cycle_ruling`` with them.

Beyond a side with no legal move (it loses, checkmated or stalemated) and bare material, the
game is ruled by the board's ``rules``: the Chinese competition rules' 棋例 (:mod:`.chinese_rules`,
the default) or the Asian rules as pyffish rules them (:mod:`.judge`); either is consulted only
when a position has recurred or the capture-free count nears the move limit (``needs_judge``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from boardctl.core.rules import Color, Notice, Outcome
from boardctl.variants.xiangqi.points import BLACK, RED

if TYPE_CHECKING:
    from boardctl.variants.xiangqi.board import XiangqiBoard
    from boardctl.variants.xiangqi.chinese_rules import CycleRuling


def outcome(board: XiangqiBoard, *, claim_draw: bool = False) -> Outcome | None:
    """How the game has ended, or None.

    ``checkmate``/``stalemate``: no legal move, the side to move loses (困毙 too).
    ``insufficient_material``: neither side has a piece that can cross the river.
    Then by ``board.rules``: ``chinese`` (:func:`_chinese_outcome`: a forbidden cycle that goes
    on after its warning loses, the move limit draws; a cycle of allowed moves is a draw
    only when claimed, ``claim_draw``) or ``asian`` (:func:`_asian_outcome`, pyffish).
    """
    if not board.has_legal_moves():
        return Outcome("checkmate" if board.is_check() else "stalemate", not board.turn)
    if (
        board.occupied.bit_count() <= 10
        and board.has_insufficient_material(RED)
        and board.has_insufficient_material(BLACK)
    ):
        return Outcome("insufficient_material", None)
    if not board.needs_judge():
        return None
    if board.rules == "asian":
        return _asian_outcome(board)
    return _chinese_outcome(board, claim_draw=claim_draw)


def cycle_ruling(board: XiangqiBoard, start: int, end: int | None = None) -> CycleRuling:
    """第26条 on the moves ``move_stack[start:end]`` (a cycle: the position at ``end``
    is the one at ``start``), by :mod:`.chinese_rules`."""
    from boardctl.variants.xiangqi.chinese_rules import rule_cycle

    end = len(board.move_stack) if end is None else end
    before = board.copy()
    while len(before.move_stack) > start:
        before.pop()
    return rule_cycle(before, [m.uci() for m in board.move_stack[start:end]])


def claimable_draw(board: XiangqiBoard) -> str | None:
    """Under the Chinese rules, the draw of a cycle kept by both sides (不变作和): the
    position's third occurrence, no side having to vary. The Asian rules rule by themselves."""
    if board.rules != "chinese" or len(board.earlier_occurrences()) < 2:
        return None
    last, _ = _rulings(board)
    return "repetition (双方不变作和)" if last is not None and last.loser is None else None


def notice(board: XiangqiBoard) -> Notice | None:
    """Under the Chinese rules, what a repetition calls for while the game goes on: the side
    that must vary (必须变着), or the draw either player may claim."""
    if board.rules != "chinese" or not board.is_repetition(2):
        return None
    last, _ = _rulings(board)
    if last is None:
        return None
    if last.loser is not None:
        name = "Red" if last.loser else "Black"
        verdict = last.verdict(last.loser)
        return Notice(
            f"{name} must vary (必须变着): {verdict.kind.replace('_', ' ')} ({verdict.chinese}) "
            f"loses if the cycle goes on",
            last.loser,
        )
    if len(board.earlier_occurrences()) >= 2:
        return Notice("draw by repetition: claim or agree it (双方不变作和), or vary to play on")
    return None


def _limit_reached(board: XiangqiBoard) -> bool:
    return board.halfmove_clock >= 2 * board.move_limit


def _limit_outcome(board: XiangqiBoard) -> Outcome:
    from boardctl.variants.xiangqi.chinese_rules import Ruling

    n = board.move_limit
    return Ruling(
        "sixty_moves" if n == 60 else "move_limit", None,
        "自然限着作和" if n == 60 else f"{n}回合自然限着作和",
    )


def _rulings(board: XiangqiBoard) -> tuple[CycleRuling | None, CycleRuling | None]:
    """The rulings of the last cycle and the one before it (None where there is none)."""
    occ = board.earlier_occurrences()
    last = cycle_ruling(board, occ[-1]) if occ else None
    before = cycle_ruling(board, occ[-2], occ[-1]) if len(occ) >= 2 else None
    return last, before


def _chinese_outcome(board: XiangqiBoard, *, claim_draw: bool) -> Outcome | None:
    """The 棋例: the offender of a forbidden cycle loses when the position comes a third
    time and both cycles were its (it was warned at the second); allowed cycles and
    cycles forbidden to both sides draw only when claimed; the move limit draws."""
    from boardctl.variants.xiangqi.chinese_rules import Ruling

    last, before = _rulings(board)
    if last is not None and before is not None:
        if last.loser is not None and before.loser == last.loser:
            verdict = last.verdict(last.loser)
            return Ruling(verdict.kind, not last.loser, f"{verdict.chinese}判负")
        if claim_draw and last.loser is None:
            return Ruling("repetition", None, "双方不变作和")
    if _limit_reached(board):
        return _limit_outcome(board)
    return None


def _asian_outcome(board: XiangqiBoard) -> Outcome | None:
    """The Asian rules as pyffish rules them (they apply by themselves)."""
    if board.move_limit < 60 and _limit_reached(board):
        return _limit_outcome(board)
    from boardctl.variants.xiangqi.judge import optional_end

    result = optional_end(board.root_fen(), [m.uci() for m in board.move_stack])
    if result is None:
        return None
    repeated = board.is_repetition(2)
    if result == 0:
        return Outcome("repetition" if repeated else "sixty_moves", None)
    loser = board.turn if result < 0 else not board.turn
    if not repeated:
        return Outcome("sixty_moves", not loser)
    return Outcome(
        "perpetual_check" if _checked_throughout(board, loser) else "perpetual_chase", not loser
    )


def _checked_throughout(board: XiangqiBoard, side: Color) -> bool:
    """Whether every move of ``side`` since the current position last occurred gave check."""
    start = board.earlier_occurrences()[-1]
    back = board.copy()
    for _ in range(len(board.move_stack) - start):
        if back.turn != side and not back.is_check():
            return False
        back.pop()
    return True
