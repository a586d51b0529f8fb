"""Xiangqi moves in words for speech: Chinese notation (``炮二平五``), or WXF read out in English.

Unlike chess's SAN, a xiangqi move's words depend on the position (which file counts from
which side, front and rear pieces), so :meth:`XiangqiWords.notation` writes them from the
board; :meth:`XiangqiWords.move` then says that text as it is.
"""

from __future__ import annotations

from boardctl.core.rules import GameBoard, Move
from boardctl.variants.xiangqi.board import XiangqiBoard, own_move
from boardctl.variants.xiangqi.notation import chinese, wxf

LANGUAGES = ("zh", "en")
_EN_PIECES = {"K": "General", "A": "Advisor", "E": "Elephant", "H": "Horse", "R": "Chariot", "C": "Cannon",
              "P": "Soldier"}
_EN_OPS = {"+": "forward", "-": "back", ".": "across"}
_CHECK = {"zh": "，将军", "en": ", check"}
_MATE = {"zh": "，将死", "en": ", checkmate"}


def english(text: str) -> str:
    """WXF (``C2.5``, ``R+.3``, ``P+.1``) read out: "Cannon 2 across 5", "front Chariot across 3"."""
    words: list[str] = []
    for i, c in enumerate(text):
        if c in _EN_PIECES and i == 0:
            words.append(_EN_PIECES[c])
        elif c in _EN_OPS and i >= len(text) - 2:
            words.append(_EN_OPS[c])
        elif c == "+":
            words.insert(0, "front")
        elif c == "-":
            words.insert(0, "rear")
        else:
            words.append(c)
    return " ".join(words)


class XiangqiWords:
    """The xiangqi vocabulary for :class:`boardctl.learning.speech.Speaker`."""

    languages: tuple[str, ...] = LANGUAGES

    def notation(self, board: GameBoard, move: Move, language: str) -> str:
        """The words for ``move`` in ``board`` (before it), check and mate included."""
        assert isinstance(board, XiangqiBoard)
        mine = own_move(move)
        text = chinese(board, mine, ascii_digits=True) if language == "zh" else english(wxf(board, mine))
        after = board.copy(stack=False)
        after.push(mine)
        if after.is_check():
            outcome = after.outcome(claim_draw=False)
            text += (_MATE if outcome is not None and outcome.winner is not None else _CHECK)[language]
        return text

    def move(self, san: str, language: str) -> str:
        return san

    def side(self, is_first: bool, language: str) -> str:
        if language == "zh":
            return "红方" if is_first else "黑方"
        return "Red" if is_first else "Black"


def words() -> XiangqiWords:
    """The game's vocabulary (``Variant.part("spoken")``, boardctl/learning/speech.py)."""
    return XiangqiWords()
