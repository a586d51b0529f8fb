"""The coach's verdicts, pure: the position, the player's move, the coach engine's best move and
the two scores in, a :class:`Verdict` (or None for a good enough move) out; and
:class:`CoachNotes`, the session's record of them. Apart from the coach's engine
(:mod:`boardctl.learning.coach`) so that the session needs nothing of the loop that runs it.

Chess motifs (a hanging piece, a fork, a pin, a skewer) come from the game's own ``tactics``
module (``boardctl.variants.chess.tactics``), so this module never touches python-chess, and a
game without one (xiangqi) still gets the mate and "loses N pawns" lines. Scores are centipawns
from the player's side; a mate in n is ``MATE_SCORE - n`` (:mod:`boardctl.reply`).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from boardctl.reply import MATE_SCORE

log = logging.getLogger(__name__)

#: A move losing this much against the best one gets a verdict (and ``?``).
MISTAKE_CP = 100
#: ... and this much a ``??``.
BLUNDER_CP = 300
#: A score this close to MATE_SCORE is a mate in (MATE_SCORE - score) moves.
MATE_BAND = 500
#: PGN's numeric annotation glyphs: $2 is ``?``, $4 is ``??``.
NAG_MISTAKE, NAG_BLUNDER = 2, 4
#: How many of the worst moves the review lists.
REVIEW_SIZE = 3


class Category(enum.StrEnum):
    ALLOWS_MATE = "allows-mate"
    MISSES_MATE = "misses-mate"
    HANGS = "hangs"
    FORK = "fork"
    PIN = "pin"
    SKEWER = "skewer"
    LOSES = "loses"


def mate_in(score: int) -> int | None:
    """Moves to mate for a score (positive: the side it belongs to mates), None if not a mate."""
    if abs(score) < MATE_SCORE - MATE_BAND:
        return None
    return MATE_SCORE - abs(score)


@dataclass(frozen=True)
class Verdict:
    """Why a move was bad, with the better one. ``ply`` counts from 0 (the game's first move)."""

    ply: int
    move: str  # UCI
    san: str
    best: str  # UCI
    best_san: str
    loss: int  # centipawns, >= MISTAKE_CP
    category: Category
    text: str  # the one line the page shows
    mate: int | None = None  # for the two mate categories
    pieces: tuple[str, ...] = ()  # for hangs/fork/pin/skewer: the player's pieces concerned
    number: str = ""  # the move's number as written before it: "12." or "12..."

    @property
    def nag(self) -> int:
        return NAG_BLUNDER if self.loss >= BLUNDER_CP else NAG_MISTAKE

    @property
    def comment(self) -> str:
        """The PGN comment: the line and the better move."""
        return f"{self.text}; better was {self.best_san}"

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "move": self.move,
            "san": self.san,
            "best": self.best,
            "best_san": self.best_san,
            "loss": self.loss,
            "category": self.category.value,
            "text": self.text,
            "mate": self.mate,
            "pieces": list(self.pieces),
            "nag": "??" if self.nag == NAG_BLUNDER else "?",
            "number": self.number,
        }


def _tactics(variant: str) -> ModuleType | None:
    """The game's motif finder (its ``tactics`` part), None if it has none."""
    from boardctl.variants import get_variant

    game = get_variant(variant)
    return game.part("tactics") if game.has_part("tactics") else None


def _pawns(cp: int) -> str:
    pawns = round(cp / 100, 1)
    text = f"{pawns:g}"
    return f"{text} pawn" if pawns == 1 else f"{text} pawns"


def _moves(n: int) -> str:
    return f"mate in {n}"


def classify(
    *,
    variant: str,
    fen: str,
    ply: int,
    move: str,
    san: str,
    best: str,
    best_san: str,
    best_score: int,
    after_score: int,
    reply: str | None,
) -> Verdict | None:
    """The verdict on ``move`` (UCI, played in ``fen``), or None when it loses less than
    :data:`MISTAKE_CP` against ``best``. ``best_score`` is the coach's score of ``fen`` (its best
    move), ``after_score`` its score after ``move``, both from the player's side; ``reply`` is the
    coach's best answer to ``move`` (the refutation), if known."""
    if move == best:
        return None
    best_mate, after_mate = mate_in(best_score), mate_in(after_score)
    loss = best_score - after_score
    if loss < MISTAKE_CP:
        return None
    common = dict(ply=ply, move=move, san=san, best=best, best_san=best_san, loss=loss, number=_number(fen))
    if after_mate is not None and after_score < 0:
        return Verdict(**common, category=Category.ALLOWS_MATE, mate=after_mate,  # type: ignore[arg-type]
                       text=f"{san} allows {_moves(after_mate)}")
    if best_mate is not None and best_score > 0:
        return Verdict(**common, category=Category.MISSES_MATE, mate=best_mate,  # type: ignore[arg-type]
                       text=f"{san} misses {_moves(best_mate)} ({best_san})")
    tactics = _tactics(variant)
    found = tactics.motif(fen, move, reply) if tactics is not None and reply else None
    shown = min(loss, 2 * MATE_SCORE)
    if found is not None:
        kind = Category(found.kind)
        pieces = tuple(found.pieces)
        if kind is Category.HANGS:
            text = f"{san} hangs the {pieces[0]}"
        elif kind is Category.FORK:
            text = f"{san} walks into a fork of the {' and the '.join(pieces)}"
        elif kind is Category.PIN:
            text = f"{san} walks into a pin of the {pieces[0]} to the {pieces[1]}"
        else:
            text = f"{san} walks into a skewer of the {pieces[0]} and the {pieces[1]}"
        return Verdict(**common, category=kind, pieces=pieces, text=text)  # type: ignore[arg-type]
    return Verdict(**common, category=Category.LOSES, text=f"{san} loses {_pawns(shown)}")  # type: ignore[arg-type]


def _number(fen: str) -> str:
    """The number written before the move to be made in ``fen`` ("2." for White, "2..." for Black)."""
    fields = fen.split()
    number = fields[5] if len(fields) > 5 and fields[5].isdigit() else "1"
    first = len(fields) < 2 or fields[1] in ("w", "r")
    return f"{number}." if first else f"{number}..."


def review(verdicts: Iterable[Verdict], *, size: int = REVIEW_SIZE) -> list[Verdict]:
    """The ``size`` worst moves, worst first (earlier first among equals), for the end of a game."""
    return sorted(verdicts, key=lambda v: (-v.loss, v.ply))[:size]


def review_lines(verdicts: Iterable[Verdict]) -> list[str]:
    """The review as lines for people ("12. Nxe5?? hangs the knight on e5; better was Nc3")."""
    lines = []
    for v in review(verdicts):
        lines.append(f"{v.number} {v.san}{'??' if v.nag == NAG_BLUNDER else '?'} {v.comment}")
    return lines


class CoachNotes:
    """The session's side of the coach (pure): the verdicts of the game so far, the line the page
    shows now, the squares to light, and the review at the end."""

    def __init__(self) -> None:
        self.verdicts: dict[int, Verdict] = {}
        self.current: Verdict | None = None

    def accept(self, verdict: Verdict | None, *, ply: int, move: str, moves: list[str]) -> bool:
        """Take the coach's answer about ``move`` at ``ply`` if the game still has that move
        there (not taken back meanwhile); True when it changed what is shown."""
        if ply >= len(moves) or moves[ply] != move:
            return False
        if verdict is None:
            self.verdicts.pop(ply, None)
            return False
        self.verdicts[ply] = verdict
        is_latest = len(moves) <= ply + 2  # the player has not moved again since
        if is_latest:
            self.current = verdict
        return is_latest

    def trim(self, plies: int) -> None:
        """Moves taken back: their verdicts go."""
        self.verdicts = {p: v for p, v in self.verdicts.items() if p < plies}
        if self.current is not None and self.current.ply >= plies:
            self.current = None

    def clear(self) -> None:
        self.verdicts.clear()
        self.current = None

    def review(self) -> list[Verdict]:
        return review(self.verdicts.values())

    def annotations(self) -> list[dict[str, Any]]:
        """The review as the record keeps it: PGN ply (1 = first move), NAG and comment."""
        return [{"ply": v.ply + 1, "nag": v.nag, "comment": v.comment} for v in self.review()]
