"""Chess moves in words for speech: ``Nf3+`` is "Knight f3, check" or "马 f3，将军"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from boardctl.errors import BoardctlError

_SAN = re.compile(
    r"(?P<piece>[KQRBN])?(?P<from_file>[a-h])?(?P<from_rank>[1-8])?(?P<capture>x)?"
    r"(?P<to>[a-h][1-8])(?:=(?P<promotion>[QRBN]))?(?P<suffix>[+#])?"
)
_CASTLE = re.compile(r"(?P<castle>O-O(?:-O)?)(?P<suffix>[+#])?")

PIECES = {
    "en": {"K": "King", "Q": "Queen", "R": "Rook", "B": "Bishop", "N": "Knight", "": "pawn"},
    "zh": {"K": "王", "Q": "后", "R": "车", "B": "象", "N": "马", "": "兵"},
}
@dataclass(frozen=True)
class _Lexicon:
    takes: str
    check: str
    mate: str
    castles: dict[str, str]
    promotes: str
    sides: tuple[str, str]


_WORDS = {
    "en": _Lexicon(
        takes="takes",
        check=", check",
        mate=", checkmate",
        castles={"O-O": "castles kingside", "O-O-O": "castles queenside"},
        promotes=", promotes to {piece}",
        sides=("White", "Black"),
    ),
    "zh": _Lexicon(
        takes="吃",
        check="，将军",
        mate="，将死",
        castles={"O-O": "王翼易位", "O-O-O": "后翼易位"},
        promotes="，升变为{piece}",
        sides=("白方", "黑方"),
    ),
}
LANGUAGES = tuple(_WORDS)


class SpokenMoveError(BoardctlError, ValueError):
    """A move that is not SAN, or a language without words."""


def _words(language: str) -> _Lexicon:
    if language not in _WORDS:
        raise SpokenMoveError(f"no chess words for language {language[:10]!r}: choose {', '.join(LANGUAGES)}")
    return _WORDS[language]


def move_words(san: str, language: str) -> str:
    """The SAN move ``san`` as words to speak in ``language`` ("en" or "zh")."""
    words = _words(language)
    pieces = PIECES[language]
    castle = _CASTLE.fullmatch(san)
    match = _SAN.fullmatch(san)
    if castle is not None:
        text = words.castles[castle["castle"]]
        suffix = castle["suffix"]
    elif match is not None and (match["piece"] or match["from_file"] or not match["capture"]):
        piece = match["piece"] or ""
        origin = (match["from_file"] or "") + (match["from_rank"] or "")
        if language == "en":
            if piece:
                parts = [pieces[piece]] + ([origin] if origin else [])
            else:
                parts = [origin] if origin else []
            if match["capture"]:
                parts.append(words.takes)
            parts.append(match["to"])
            text = " ".join(parts)
        else:
            text = pieces[piece] + (f" {origin}" if origin and piece else f"{origin}" if origin else "")
            text += (words.takes if match["capture"] else " ") + match["to"]
        if match["promotion"]:
            promoted = pieces[match["promotion"]]
            text += words.promotes.format(piece=promoted.lower() if language == "en" else promoted)
        suffix = match["suffix"]
    else:
        raise SpokenMoveError(f"{san[:12]!r} is not a SAN move")
    if suffix == "+":
        text += words.check
    elif suffix == "#":
        text += words.mate
    return text


def side_words(is_first: bool, language: str) -> str:
    """White (True) or Black in ``language``."""
    sides = _words(language).sides
    return sides[0] if is_first else sides[1]


class ChessWords:
    """The chess vocabulary for :class:`boardctl.learning.speech.Speaker`."""

    languages = LANGUAGES

    def move(self, san: str, language: str) -> str:
        return move_words(san, language)

    def side(self, is_first: bool, language: str) -> str:
        return side_words(is_first, language)


def words() -> ChessWords:
    """The game's vocabulary (``Variant.part("spoken")``, boardctl/learning/speech.py)."""
    return ChessWords()
