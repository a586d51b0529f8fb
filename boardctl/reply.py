"""What an engine answers, as the game in progress sees it: the move, its score and line.

Its own module, below the session, so that the session, the coach's notes and replay read replies
without the engine client that runs the process (boardctl/engine_client.py)."""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.core.rules import Move

#: Centipawns standing for a mate: a mate in n moves scores MATE_SCORE - n (python-chess's mate_score).
MATE_SCORE = 10000


@dataclass(frozen=True)
class Reply:
    move: Move
    #: Evaluation after the move from the mover's point of view, in centipawns (mate ~ +-10000).
    score: int | None
    #: The engine's principal variation from the position it was asked about, the line its score
    #: belongs to; at a reduced level ``move`` may be another move. Empty when it sent none (a book
    #: move, an engine without ``pv``).
    pv: tuple[Move, ...] = ()
    #: The move came from the engine's opening book (our engine says ``info string book move …``).
    book: bool = False
