"""A catalogue of hand-made situations, each run under both policies where the rules agree.

Every case is a script of what hands do: ``e2-`` lifts the piece on e2, ``e4+`` sets one down on
e4, a number lets that many seconds pass (with no event), ``!clock`` presses a button, ``.`` ticks
now. After the script five quiet seconds pass. A case says which moves must come out (after the
moves played before it) and which violations, by code and colour, in order.

The classes follow issue 10: blitz replies (gaps and overlapping hands), captures whose square
never reads empty, one violation per completed wrong move, FIDE 4.3-4.6 touch-move, moves out of
turn, clearing up after the result, and the old staples (promotion, en passant, castling both
ways, takebacks, phantom captures).
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import pytest
from tracker_script import Run, run_script

from boardctl.events import Code
from boardctl.tracker import (
    GameStarted,
    Policy,
)
from boardctl.variants import get_variant

BOTH = (Policy.FIDE, Policy.CASUAL)
W, B = chess.WHITE, chess.BLACK
ITALIAN = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6")
PROMO = "8/1P5k/8/8/8/8/6K1/8 w - - 0 1"
CHESS = get_variant("chess")


def run(
    script: str, *, pre: tuple[str, ...] = (), fen: str | None = None, policy: Policy = Policy.FIDE,
    finish: bool = False, quiet: float = 5.0, **kwargs: object,
) -> Run:
    return run_script(CHESS, script, pre=pre, fen=fen, policy=policy, finish=finish, quiet=quiet, **kwargs)


@dataclass(frozen=True)
class Case:
    id: str
    script: str
    moves: tuple[str, ...]
    violations: tuple[tuple[Code, chess.Color], ...] = ()
    pre: tuple[str, ...] = ()
    fen: str | None = None
    policies: tuple[Policy, ...] = BOTH


def m(*ucis: str) -> tuple[str, ...]:
    return ucis


# -- 1. blitz replies ------------------------------------------------------------------------------

#: (name, position before, the mover's script, the move it makes, the reply's script, the reply)
MOVERS = [
    ("pawn", (), None, "e2- 0.3 e4+", "e2e4", "e7- 0.3 e5+", "e7e5"),
    ("knight", (), None, "g1- 0.25 f3+", "g1f3", "g8- 0.3 f6+", "g8f6"),
    ("capture-victim-first", ("e2e4", "d7d5"), None, "d5- 0.4 e4- 0.3 d5+", "e4d5", "d8- 0.3 d5+", None),
    ("capture-victim-second", ("e2e4", "d7d5"), None, "e4- 0.2 d5- 0.3 d5+", "e4d5", "g8- 0.3 f6+", "g8f6"),
    ("castling-king-first", ITALIAN, None, "e1- 0.3 g1+ 0.2 h1- 0.3 f1+", "e1g1", "f8- 0.3 e7+", "f8e7"),
    ("castling-both-hands", ITALIAN, None, "e1- 0.05 h1- 0.3 g1+ 0.05 f1+", "e1g1", "f8- 0.3 e7+", "f8e7"),
    ("en-passant-victim-first", ("e2e4", "a7a6", "e4e5", "d7d5"), None, "d5- 0.5 e5- 0.3 d6+", "e5d6", "c7- 0.3 d6+", None),
    ("en-passant-victim-after", ("e2e4", "a7a6", "e4e5", "d7d5"), None, "e5- 0.3 d6+ 0.2 d5-", "e5d6", "g8- 0.3 f6+", "g8f6"),
    ("bishop-slide", ("e2e4", "e7e5"), None, "f1- 0.05 e2+ 0.05 e2- 0.05 d3+ 0.05 d3- 0.05 c4+", "f1c4", "g8- 0.3 f6+", "g8f6"),
    ("queen-capture", ("e2e4", "e7e5", "d1h5", "b8c6"), None, "f7- 0.4 h5- 0.3 f7+", "h5f7", "e8- 0.3 f7+", None),
    ("black-mover", ("e2e4",), None, "c7- 0.3 c5+", "c7c5", "g1- 0.3 f3+", "g1f3"),
    ("promotion", (), PROMO, "b7- 0.3 b8+", "b7b8q", "h7- 0.3 h6+", "h7h6"),
    ("promotion-preselected-knight", (), PROMO, "!promote-knight 0.2 b7- 0.3 b8+", "b7b8n", "h7- 0.3 h6+", "h7h6"),
]
GAPS = [0.0, 0.05, 0.1, 0.2, 0.29, 0.35]
OVERLAPS = [0.05, 0.1, 0.2, 0.29]


def _blitz_cases() -> list[Case]:
    cases = []
    for name, pre, fen, mover, move, reply, reply_move in MOVERS:
        if reply_move is None:  # the reply recaptures on the square just taken: lift the capturer first
            target = chess.square_name(chess.Move.from_uci(move).to_square)
            reply = f"{target}- 0.3 {reply}"
            board = chess.Board(fen) if fen else chess.Board()
            for uci in (*pre, move):
                board.push_uci(uci)
            src = reply.split()[2][:2]
            reply_move = f"{src}{target}"
            assert chess.Move.from_uci(reply_move) in board.legal_moves, (name, reply_move)
        for gap in GAPS:
            if gap < 0.1 and "capture" in name and reply.startswith(chess.square_name(chess.Move.from_uci(move).to_square)):
                continue  # lifting the capturer within the brush time of its landing reads as a blink
            cases.append(Case(f"blitz-{name}-gap-{gap}", f"{mover} {gap} {reply}", m(move, reply_move), pre=pre, fen=fen))
    return cases


def _overlap_cases() -> list[Case]:
    """The reply's first lift comes before the mover's piece touches down."""
    cases = []
    for ov in OVERLAPS:
        cases += [
            Case(f"overlap-pawn-{ov}", f"e2- {0.5 - ov} e7- {ov} e4+ 0.3 e5+", m("e2e4", "e7e5")),
            Case(f"overlap-quick-hand-{ov}", f"e7- {ov - 0.02 if ov > 0.1 else 0.0} e2- {0.02 if ov > 0.1 else ov} e4+ 0.4 e5+",
                 m("e2e4", "e7e5")),
            Case(f"overlap-knight-{ov}", f"g1- {0.6 - ov} g8- {ov} f3+ 0.4 f6+", m("g1f3", "g8f6")),
            Case(f"overlap-castling-{ov}", f"e1- 0.3 g1+ 0.2 h1- {0.4 - ov} f8- {ov} f1+ 0.3 e7+", m("e1g1", "f8e7"), pre=ITALIAN),
            Case(f"overlap-capture-{ov}", f"d5- 0.4 e4- {0.4 - ov} g8- {ov} d5+ 0.3 f6+", m("e4d5", "g8f6"), pre=("e2e4", "d7d5")),
        ]
    return cases


BLITZ = [
    *_blitz_cases(),
    *_overlap_cases(),
    Case("blitz-three-moves-at-zero-gaps", "e2- 0.3 e4+ e7- 0.3 e5+ g1- 0.3 f3+ b8- 0.3 c6+", m("e2e4", "e7e5", "g1f3", "b8c6")),
    Case("blitz-reply-after-touch-move-violation-is-still-refused",
         "d2- 0.5 d2+ 0.5 e2- 0.3 e4+ 0.05 e7- 0.3 e7+ 0.5 e4- 0.3 e2+ 0.5 d2- 0.3 d4+", m("d2d4"),
         ((Code.TOUCH_MOVE, W),), policies=(Policy.FIDE,)),
    Case("blitz-clock-button-then-reply", "e2- 0.3 e4+ 0.02 !clock 0.02 e7- 0.3 e5+", m("e2e4", "e7e5")),
]


# -- 2. captures whose square never reads empty ------------------------------------------------------

HIDDEN_ONE = ("e2e4", "d7d5")  # exd5 is the pawn's only capture
HIDDEN_TWO = ("e2e4", "d7d5", "b1c3", "b7b5")  # ...and Nc3 can take d5 or b5
HIDDEN = [
    Case("pushed-off-then-opponent-lifts", "e4- 0.4 . 0.1 g8- 0.3 f6+", m("e4d5", "g8f6"), pre=HIDDEN_ONE),
    Case("pushed-off-then-opponent-lifts-at-once", "e4- 0.4 g8- 0.4 f6+", m("e4d5", "g8f6"), pre=HIDDEN_ONE),
    Case("pushed-off-then-a-quick-reply", "e4- 0.4 g8- 0.15 f6+", m("e4d5", "g8f6"), pre=HIDDEN_ONE),
    Case("pushed-off-then-a-quick-reply-at-once", "e4- 0.35 g8- 0.12 f6+", m("e4d5", "g8f6"), pre=HIDDEN_ONE),
    Case("overlap-exactly-settle-before-touchdown", "e7- 0.1 e2- 0.2 e4+ 0.4 e5+", m("e2e4", "e7e5")),
    Case("pushed-off-then-clock", "e4- 0.4 !clock", m("e4d5"), pre=HIDDEN_ONE),
    Case("pushed-off-with-a-blink", "e4- 0.3 d5- 0.05 d5+", m("e4d5"), pre=HIDDEN_ONE),
    Case("pushed-off-then-mismatch-delay", "e4- 1.0 . 1.0 .", m("e4d5"), pre=HIDDEN_ONE),
    Case("pushed-off-two-victims-blink-decides", "c3- 0.3 b5- 0.04 b5+", m("c3b5"), pre=HIDDEN_TWO),
    Case("pushed-off-two-victims-confirmed", "c3- 0.3 !clock 0.5 d5- 0.3 d5+", m("c3d5"), pre=HIDDEN_TWO),
    Case("pushed-off-two-victims-confirmed-other", "c3- 2.0 . 0.5 b5- 0.2 b5+", m("c3b5"), pre=HIDDEN_TWO),
    Case("pushed-off-two-victims-then-opponent-lift-waits", "c3- 0.3 a7- 0.3 . 1.0 d5- 0.3 d5+ 0.5 a7+", m("c3d5"), pre=HIDDEN_TWO),
    Case("pushed-off-capture-then-reply-blitz", "e4- 0.3 d5- 0.05 d5+ 0.1 g8- 0.3 f6+", m("e4d5", "g8f6"), pre=HIDDEN_ONE),
    Case("piece-in-the-hand-without-a-capture-records-nothing", "g1- 3.0 .", m(), pre=HIDDEN_ONE),
    Case("piece-in-the-hand-put-down-normally", "e4- 0.8 e5+", m("e4e5"), pre=HIDDEN_ONE),
    Case("phantom-capture-before-the-lift-is-no-capture", "d5- 0.2 d5+ 0.3 e4- 0.9 e5+", m("e4e5"), pre=HIDDEN_ONE),
    Case("phantom-capture-kept-off-under-casual", "d5- 0.5 d5+ 0.3 e4- 0.9 e5+", m("e4e5"), pre=HIDDEN_ONE, policies=(Policy.CASUAL,)),
]


# -- 3. one wrong move, one violation -----------------------------------------------------------------

NO_CASTLE = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1f1", "f8c5", "f1e1", "c5f8")  # the king has moved
ONE = [
    Case("refused-castling-counted-once", "e1- 0.3 g1+ 0.5 h1- 0.3 f1+ 1.0 f1- 0.3 h1+ 0.5 g1- 0.3 e1+ 0.5 e1- 0.3 e2+",
         m("e1e2"), ((Code.ILLEGAL_MOVE, W),), pre=NO_CASTLE),
    Case("refused-castling-king-back-first", "e1- 0.3 g1+ 0.5 h1- 0.3 f1+ 1.0 g1- 0.3 e1+ 0.5 f1- 0.3 h1+ 0.5 d2- 0.3 d3+",
         m("d2d3"), ((Code.ILLEGAL_MOVE, W),), pre=NO_CASTLE, policies=(Policy.CASUAL,)),
    Case("illegal-move-put-back-slowly", "e2- 0.3 e5+ 0.5 e5- 1.0 e2+ 0.5 e2- 0.3 e4+", m("e2e4"), ((Code.ILLEGAL_MOVE, W),)),
    Case("illegal-then-same-piece-on-to-a-legal-square", "e2- 0.3 e5+ 0.5 e5- 0.5 e4+", m("e2e4"), ((Code.ILLEGAL_MOVE, W),)),
    Case("two-separate-illegal-moves", "e2- 0.3 e5+ 0.5 e5- 0.3 e2+ 0.5 e2- 0.3 e6+ 0.5 e6- 0.3 e2+ 0.5 e2- 0.3 e4+",
         m("e2e4"), ((Code.ILLEGAL_MOVE, W), (Code.ILLEGAL_MOVE, W))),
    Case("illegal-capture-restored-piece-by-piece", "d1- 0.2 d7- 0.3 d7+ 0.5 d7- 0.5 d1+ 0.5 d7+ 0.5 d1- 0.3 h5+",
         m("d1h5"), ((Code.ILLEGAL_MOVE, W),), pre=("e2e4", "e7e5")),
]


# -- 4. touch-move, FIDE 4.3-4.6 -----------------------------------------------------------------------

TOUCH = [
    Case("opponent-piece-kept-off-then-put-back-must-be-captured", "d5- 0.6 d5+ 0.5 g1- 0.3 f3+ 0.5 f3- 0.3 g1+ 0.5 e4- 0.2 d5- 0.3 d5+",
         m("e4d5"), ((Code.TOUCH_MOVE, W),), pre=HIDDEN_ONE, policies=(Policy.FIDE,)),
    Case("opponent-piece-kept-off-then-captured", "d5- 0.6 d5+ 0.5 e4- 0.2 d5- 0.3 d5+", m("e4d5"), pre=HIDDEN_ONE),
    Case("opponent-piece-first-then-own-piece-touched", "d5- 0.6 d5+ 0.3 g1- 0.5 g1+ 0.5 e4- 0.2 d5- 0.3 d5+",
         m("e4d5"), pre=HIDDEN_ONE),
    Case("own-piece-first-then-opponent-piece-own-must-move", "g1- 0.5 g1+ 0.3 d5- 0.6 d5+ 0.5 e4- 0.2 d5- 0.3 d5+ 0.5 d5- 0.2 e4+ 0.2 d5+ 0.5 g1- 0.3 f3+",
         m("g1f3"), ((Code.TOUCH_MOVE, W),), pre=HIDDEN_ONE, policies=(Policy.FIDE,)),
    Case("own-piece-and-victim-that-it-can-capture", "e4- 0.5 e4+ 0.3 d5- 0.6 d5+ 0.5 e4- 0.2 d5- 0.3 d5+", m("e4d5"), pre=HIDDEN_ONE),
    Case("opponent-piece-back-within-settle-is-adjustment", "d5- 0.2 d5+ 0.5 g1- 0.3 f3+", m("g1f3"), pre=HIDDEN_ONE),
    Case("opponent-piece-that-cannot-be-captured-obliges-nothing", "d8- 0.6 d8+ 0.5 g1- 0.3 f3+", m("g1f3"), pre=HIDDEN_ONE),
    Case("opponent-piece-kept-off-casual-no-obligation", "d5- 0.6 d5+ 0.5 g1- 0.3 f3+", m("g1f3"), pre=HIDDEN_ONE,
         policies=(Policy.CASUAL,)),
    Case("first-own-piece-touched-decides", "d2- 0.4 d2+ 0.3 e2- 0.4 e2+ 0.4 e2- 0.3 e4+ 0.5 e4- 0.3 e2+ 0.5 d2- 0.3 d4+",
         m("d2d4"), ((Code.TOUCH_MOVE, W),), policies=(Policy.FIDE,)),
    Case("king-released-on-castling-square-must-castle", "e1- 0.3 g1+ 0.5 g1- 0.3 e1+ 0.5 e1- 0.3 f1+ 0.5 f1- 0.3 e1+ 0.5 e1- 0.3 g1+ 0.3 h1- 0.3 f1+",
         m("e1g1"), ((Code.TOUCH_MOVE, W),), pre=ITALIAN, policies=(Policy.FIDE,)),
    Case("king-released-on-castling-square-casual-may-change", "e1- 0.3 g1+ 0.5 g1- 0.3 e1+ 0.5 e1- 0.3 f1+", m("e1f1"), pre=ITALIAN,
         policies=(Policy.CASUAL,)),
    Case("rook-first-refused-under-fide", "h1- 0.1 f1+ 0.1 e1- 0.2 g1+ 0.5 g1- 0.2 e1+ 0.3 f1- 0.2 h1+ 0.5 h1- 0.3 f1+",
         m("h1f1"), ((Code.CASTLING_ROOK_FIRST, W),), pre=ITALIAN, policies=(Policy.FIDE,)),
    Case("rook-first-is-castling-under-casual", "h1- 0.1 f1+ 0.1 e1- 0.2 g1+", m("e1g1"), pre=ITALIAN, policies=(Policy.CASUAL,)),
    Case("after-illegal-move-put-back-first-touched-piece-must-move", "e2- 0.3 e5+ 0.5 e5- 0.3 e2+ 0.5 d2- 0.3 d4+ 0.5 d4- 0.3 d2+ 0.5 e2- 0.3 e4+",
         m("e2e4"), ((Code.ILLEGAL_MOVE, W), (Code.TOUCH_MOVE, W)), policies=(Policy.FIDE,)),
    Case("after-illegal-move-casual-any-move", "e2- 0.3 e5+ 0.5 e5- 0.3 e2+ 0.5 d2- 0.3 d4+", m("d2d4"), ((Code.ILLEGAL_MOVE, W),),
         policies=(Policy.CASUAL,)),
    Case("casual-no-touch-move-warnings", "d2- 0.5 d2+ 0.5 b1- 0.5 b1+ 0.5 e2- 0.3 e4+", m("e2e4"), policies=(Policy.CASUAL,)),
    Case("adjust-button-suspends-touch-move", "!adjust 0.1 d2- 0.5 d2+ 0.5 e2- 0.3 e4+", m("e2e4")),
]


# -- 5. moving out of turn, or the opponent's piece -----------------------------------------------------

TURN = [
    Case("black-moves-out-of-turn", "e7- 0.3 e5+ 0.5 e5- 0.3 e7+ 0.5 e2- 0.3 e4+", m("e2e4"), ((Code.ILLEGAL_MOVE, W),)),
    Case("white-moves-blacks-piece", "d7- 0.3 d5+ 1.0 d5- 0.3 d7+ 0.5 d2- 0.3 d4+", m("d2d4"), ((Code.ILLEGAL_MOVE, W),)),
    Case("opponent-adjustment-is-no-illegal-move", "e4- 0.5 e4+ 0.5 e7- 0.3 e5+", m("e7e5"), pre=("e2e4",)),
    Case("takeback-is-no-illegal-move", "e4- 0.3 e2+", m(), pre=("e2e4",)),
]


# -- 6. clearing up after the result --------------------------------------------------------------------

MATE = ("f2f3", "e7e5", "g2g4", "d8h4")
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
CLEARING = [
    Case("mate-then-pieces-moved-back", "h4- 0.3 d8+ 0.5 g4- 0.3 g2+ 0.5 f3- 0.3 f2+ 0.5 e5- 0.3 e7+", m(), pre=MATE),
    Case("mate-then-board-cleared", " ".join(f"{chess.square_name(s)}- 0.15" for s in chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_8 | chess.BB_RANK_7) if s not in (chess.E7, chess.F2, chess.G2, chess.D8)),
         m(), pre=MATE),
    Case("stalemate-then-pieces-moved", "h8- 0.3 h7+ 0.5 f7- 0.3 a1+", m(), fen=STALEMATE),
]


# -- the staples: promotion, en passant, castling both ways, takebacks, resets ---------------------------

EP = ("e2e4", "a7a6", "e4e5", "d7d5")
PROMO_CAPTURE = "2r4k/1P6/8/8/8/8/6K1/8 w - - 0 1"
STAPLES = [
    Case("promotion-set-down-then-swapped", "b7- 0.3 b8+ 0.5 b8- 0.4 b8+ 3.0", m("b7b8q"), fen=PROMO),
    Case("promotion-straight-off", "b7- 1.0 b8+ 3.0", m("b7b8q"), fen=PROMO),
    Case("promotion-to-knight-by-button", "b7- 0.3 b8+ 0.5 !promote-knight 3.0", m("b7b8n"), fen=PROMO),
    Case("promotion-cycled-to-bishop", "b7- 0.3 b8+ 0.5 !promote 0.2 !promote 3.0", m("b7b8b"), fen=PROMO),
    Case("promotion-capture-victim-first", "c8- 0.4 b7- 0.3 c8+ 3.0", m("b7c8q"), fen=PROMO_CAPTURE),
    Case("promotion-capture-victim-second", "b7- 0.3 c8- 0.3 c8+ 0.5 !promote-rook 3.0", m("b7c8r"), fen=PROMO_CAPTURE),
    Case("promotion-closed-by-the-reply", "b7- 0.3 b8+ 0.5 h7- 0.3 h6+", m("b7b8q", "h7h6"), fen=PROMO),
    Case("en-passant-victim-first", "d5- 0.5 e5- 0.3 d6+", m("e5d6"), pre=EP),
    Case("en-passant-victim-after", "e5- 0.3 d6+ 0.6 d5-", m("e5d6"), pre=EP),
    Case("castling-kingside-king-first", "e1- 0.3 g1+ 0.6 h1- 0.3 f1+", m("e1g1"), pre=ITALIAN),
    Case("castling-queenside-king-first", "e1- 0.3 c1+ 0.6 a1- 0.3 d1+", m("e1c1"),
         pre=("d2d4", "d7d5", "b1c3", "b8c6", "c1f4", "c8f5", "d1d2", "d8d7")),
    Case("castling-black-kingside", "e8- 0.3 g8+ 0.4 h8- 0.3 f8+", m("e8g8"), pre=(*ITALIAN, "d2d3", "f8e7", "c2c3")),
    Case("takeback-one-move", "e5- 0.3 e7+", m(), pre=("e2e4", "e7e5")),
    Case("takeback-capture-needs-the-victim-back", "d5- 0.3 e4+ 0.5 d5+ 0.5 g1- 0.3 f3+", m("g1f3"), pre=("e2e4", "d7d5", "e4d5")),
    Case("takeback-two-in-a-row", "e5- 0.3 e7+ 0.6 e4- 0.3 e2+", m(), pre=("e2e4", "e7e5")),
    Case("takeback-then-another-move", "e5- 0.3 e7+ 0.6 c7- 0.3 c5+", m("c7c5"), pre=("e2e4", "e7e5")),
    Case("brush-is-nothing", "d2- 0.05 d2+ 0.3 e2- 0.3 e4+", m("e2e4")),
    Case("slide-over-empty-squares", "f1- 0.05 e2+ 0.05 e2- 0.05 d3+ 0.05 d3- 0.05 c4+", m("f1c4"), pre=("e2e4", "e7e5")),
    Case("clock-completes-at-once", "e2- 0.2 e4+ 0.01 !clock 0.01 e7- 0.2 e5+", m("e2e4", "e7e5")),
]


CATALOGUE = [*BLITZ, *HIDDEN, *ONE, *TOUCH, *TURN, *CLEARING, *STAPLES]
PARAMS = [pytest.param(case, policy, id=f"{case.id}-{policy.value}") for case in CATALOGUE for policy in case.policies]


@pytest.mark.parametrize(("case", "policy"), PARAMS)
def test_catalogue(case: Case, policy: Policy) -> None:
    result = run(case.script, pre=case.pre, fen=case.fen, policy=policy)
    assert result.moves == list(case.moves)
    assert result.violations == list(case.violations)


def test_catalogue_is_broad() -> None:
    assert len(PARAMS) >= 250


# -- cases that look at more than moves and violations ------------------------------------------------


@pytest.mark.parametrize("policy", BOTH)
def test_two_possible_victims_light_which_capture_and_record_nothing_yet(policy: Policy) -> None:
    r = run("c3- 2.0 .", pre=HIDDEN_TWO, policy=policy)
    assert r.moves == []
    assert {sq for sq, why in r.leds.items() if why is Code.WHICH_CAPTURE} == {"b5", "d5"}
    assert r.tracker.which_capture == (chess.B5, chess.D5)


@pytest.mark.parametrize("policy", BOTH)
def test_which_capture_confirmation_shorter_than_the_brush_is_no_answer(policy: Policy) -> None:
    r = run("c3- 2.0 . 0.3 d5- 0.05 d5+", pre=HIDDEN_TWO, policy=policy)
    assert r.moves == []
    assert r.tracker.which_capture == (chess.B5, chess.D5)


def test_arbiter_does_not_forfeit_while_the_rook_is_in_the_hand() -> None:
    r = run("e1- 0.3 g1+ 0.5 h1- 3.0 . 0.5 f1+ 0.5 g1- 0.3 e1+ 0.5 f1- 2.0 .", pre=NO_CASTLE, arbiter=True)
    assert r.forfeits == []
    assert r.violations == [(Code.ILLEGAL_MOVE, W)]


def test_arbiter_refused_castling_counts_once_and_nobody_forfeits() -> None:
    r = run("e1- 0.3 g1+ 0.5 h1- 0.3 f1+ 1.0 f1- 0.3 h1+ 0.5 g1- 0.3 e1+ 1.0", pre=NO_CASTLE, arbiter=True)
    assert r.violations == [(Code.ILLEGAL_MOVE, W)]
    assert r.tracker.illegal_counts == {W: 1, B: 0}
    assert r.forfeits == []


def test_arbiter_second_completed_illegal_move_forfeits_with_the_clock_button() -> None:
    r = run("e2- 0.3 e5+ 0.5 e5- 0.3 e2+ 0.5 e2- 0.3 e6+ 0.01 !clock", arbiter=True, quiet=0.0)
    assert [f.loser for f in r.forfeits] == [W]


def test_blitz_reply_without_arbiter_forfeit() -> None:
    """The issue's symptom: a fast reply made white 'touch' black's piece and forfeit."""
    r = run("e2- 0.3 e4+ 0.05 e7- 0.3 e5+ 0.05 g1- 0.3 f3+ 0.02 b8- 0.3 c6+", arbiter=True)
    assert r.moves == ["e2e4", "e7e5", "g1f3", "b8c6"]
    assert r.violations == [] and r.forfeits == []


@pytest.mark.parametrize("policy", BOTH)
def test_mate_then_start_position_is_a_new_game_without_violations(policy: Policy) -> None:
    script = "h4- 0.3 d8+ 0.5 g4- 0.3 g2+ 0.5 f3- 0.3 f2+ 0.5 e5- 0.3 e7+"
    r = run(script, pre=MATE, policy=policy)
    assert [o for o in r.outputs if isinstance(o, GameStarted)]
    assert r.violations == []
    assert r.tracker.board.move_stack == []


@pytest.mark.parametrize("policy", BOTH)
def test_finished_game_is_cleared_up_without_moves_or_lights(policy: Policy) -> None:
    r = run("e2- 0.3 e4+ 0.5 d7- 0.3 d5+ 2.0", policy=policy, finish=True)
    assert r.moves == [] and r.violations == []
    assert not r.leds


@pytest.mark.parametrize("policy", BOTH)
def test_promotion_with_blitz_reply_keeps_a_button_choice_made_before(policy: Policy) -> None:
    r = run("b7- 0.3 b8+ 0.1 !promote-rook 0.05 h7- 0.3 h6+", fen=PROMO, policy=policy)
    assert r.moves == ["b7b8r", "h7h6"]


@pytest.mark.parametrize("order", ["king-first", "rook-first"])
def test_castling_in_both_orders_under_casual(order: str) -> None:
    script = "e1- 0.3 g1+ 0.5 h1- 0.3 f1+" if order == "king-first" else "h1- 0.3 f1+ 0.5 e1- 0.3 g1+"
    r = run(script, pre=ITALIAN, policy=Policy.CASUAL)
    assert r.tracker.board.move_stack[-1] == chess.Move.from_uci("e1g1")
    assert r.violations == []


@pytest.mark.parametrize("policy", BOTH)
def test_takeback_of_a_blitz_pair(policy: Policy) -> None:
    r = run("e2- 0.3 e4+ 0.02 e7- 0.3 e5+ 0.6 e5- 0.3 e7+ 0.5 e4- 0.3 e2+", policy=policy)
    assert r.taken_back == ["e7e5", "e2e4"]
    assert r.tracker.board.move_stack == []


@pytest.mark.parametrize("policy", BOTH)
def test_move_out_of_turn_lights_illegal_move_on_release(policy: Policy) -> None:
    r = run("e7- 0.3 e5+ 0.35 .", policy=policy, quiet=0.0)
    assert r.violations == [(Code.ILLEGAL_MOVE, W)]
    assert {sq for sq, why in r.leds.items() if why is Code.ILLEGAL_MOVE} == {"e7", "e5"}


@pytest.mark.parametrize("policy", BOTH)
def test_opponent_piece_put_back_stays_lit_as_touch_move_under_fide(policy: Policy) -> None:
    r = run("d5- 0.6 d5+ 0.4 .", pre=HIDDEN_ONE, policy=policy, quiet=0.0)
    lit = {sq for sq, why in r.leds.items() if why is Code.TOUCH_MOVE}
    assert lit == ({"d5"} if policy is Policy.FIDE else set())
