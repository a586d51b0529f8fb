"""The Asian rules' rulings (``rules="asian"``): XiangqiBoard.outcome() against pyffish, the judge, on the engine's table
of repetition sequences (engine/data/xiangqi_repetitions.json) and on the 60-move rule."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from importlib import resources

import pytest

from boardctl.variants.xiangqi import XiangqiBoard, judge
from boardctl.variants.xiangqi.board import from_moves

SEQUENCES = json.loads(
    resources.files("engine").joinpath("data/xiangqi_repetitions.json").read_text(encoding="utf-8")
)["sequences"]
#: Kinds whose offender checks on every move of the cycle (the others chase, or are idle).
CHECKING_KINDS = {"perpetual check", "check against chase"}


def termination_of(kind: str, ruling: str) -> str:
    """What the board must call the ending: a draw is a repetition; a loss is the offender's
    perpetual check when it checked throughout, else its perpetual chase."""
    if ruling == "draw":
        return "repetition"
    return "perpetual_check" if kind in CHECKING_KINDS else "perpetual_chase"


def test_the_table_covers_every_kind_of_ruling() -> None:
    assert len(SEQUENCES) >= 20
    assert {(s["kind"], s["ruling"]) for s in SEQUENCES} >= {
        ("perpetual check", "win"),
        ("perpetual check", "loss"),
        ("perpetual chase", "win"),
        ("perpetual chase", "loss"),
        ("idle", "draw"),
        ("mutual chase", "draw"),
        ("one check one chase", "draw"),
        ("check against chase", "loss"),
    }


@pytest.mark.parametrize(
    "seq", SEQUENCES, ids=[f"{i}-{s['kind']}" for i, s in enumerate(SEQUENCES)]
)
def test_outcome_matches_pyffish_on_every_sequence(seq: dict[str, object]) -> None:
    fen, moves = str(seq["fen"]), [str(m) for m in seq["moves"]]  # type: ignore[attr-defined]
    board = from_moves(moves, fen, rules="asian")
    ruled = judge.optional_end(fen, moves)
    expected = {"win": 1, "loss": -1, "draw": 0}[str(seq["ruling"])]
    assert ruled is not None and (ruled > 0) - (ruled < 0) == expected  # pyffish still rules so
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.winner == (
        None if expected == 0 else board.turn if expected > 0 else not board.turn
    )
    assert outcome.termination == termination_of(str(seq["kind"]), str(seq["ruling"]))
    assert board.is_game_over()
    # one cycle earlier (the second occurrence) the game goes on, for both
    half = from_moves(moves[:4], fen, rules="asian")
    assert half.needs_judge()  # the position has recurred: pyffish is asked ...
    assert (
        half.outcome() is None and judge.optional_end(fen, moves[:4]) is None
    )  # ... and lets it go on


def test_the_judge_is_not_asked_when_nothing_recurred(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(fen: str, moves: object) -> int | None:
        raise AssertionError("pyffish asked without a repetition or 60 moves")

    monkeypatch.setattr(judge, "optional_end", refuse)
    board = XiangqiBoard(rules="asian")
    for uci in ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]:
        board.push_uci(uci)
        assert not board.needs_judge() and board.outcome() is None
    board.push_uci("h0h1")
    board.push_uci("h9h8")
    board.push_uci("h1h0")
    board.push_uci("h8h9")  # the position after b9c7 again
    assert board.needs_judge()
    with pytest.raises(AssertionError, match="pyffish asked"):
        board.outcome()


# Rooks and generals only, quiet moves that never repeat a position: the count alone ends it.
SIXTY = "3k5/9/9/9/r8/9/9/9/8R/4K4 w - - {clock} 70"


#: Rooks walking so that no position recurs (Red's along rank 1, Black's up the a-file).
WALK = ["i1h1", "a5a6", "h1g1", "a6a7", "g1f1", "a7a8", "f1e1", "a8b8"]


@pytest.mark.parametrize("clock", [112, 115, 116, 117, 118, 119])
def test_sixty_moves_without_a_capture_draw_as_pyffish_rules(clock: int) -> None:
    board = XiangqiBoard(SIXTY.format(clock=clock), rules="asian")
    fen = board.fen()
    for ply, uci in enumerate(WALK, 1):
        board.push_uci(uci)
        ruled = judge.optional_end(fen, [m.uci() for m in board.move_stack])
        outcome = board.outcome()
        if ruled is None:
            assert outcome is None, (clock, ply)
        else:
            assert ruled == 0 and outcome is not None
            assert outcome.termination == "sixty_moves" and outcome.winner is None
            assert board.halfmove_clock >= 120
    assert board.halfmove_clock == clock + 8
    assert board.outcome() is not None  # 120 plies reached by the end of the walk


def test_a_capture_resets_the_count() -> None:
    board = XiangqiBoard("3k5/9/9/9/r8/9/9/9/r7R/4K4 w - - 119 70", rules="asian")
    board.push_uci("i1a1")  # takes the rook: the count starts again
    assert board.halfmove_clock == 0 and board.outcome() is None
    assert judge.optional_end("3k5/9/9/9/r8/9/9/9/r7R/4K4 w - - 119 70", ["i1a1"]) is None


BARE = [
    ("3k5/4a4/9/9/9/9/9/9/4A4/4K4 w - - 0 1", True),
    ("2bak4/4a4/4b4/9/9/9/9/3AB4/4A4/2B1K4 b - - 0 1", True),
    ("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", True),
    ("3k5/9/9/9/9/p8/9/9/9/4K4 w - - 0 1", False),  # a pawn can still attack
    ("3k5/4a4/9/9/9/9/9/9/4A4/4K1R2 w - - 0 1", False),
    ("3k5/9/9/9/9/9/9/9/4n4/4K4 w - - 0 1", False),
]


@pytest.mark.parametrize(("fen", "bare"), BARE)
def test_no_attacking_piece_on_either_side_is_a_draw(fen: str, bare: bool) -> None:
    board = XiangqiBoard(fen)
    theirs = judge.ffish().has_insufficient_material(judge.VARIANT, fen, [])
    assert (board.has_insufficient_material(True), board.has_insufficient_material(False)) == tuple(
        theirs
    )
    outcome = board.outcome()
    if bare:
        assert outcome is not None and outcome.termination == "insufficient_material"
        assert outcome.winner is None and outcome.result() == "1/2-1/2"
    else:
        assert outcome is None


def _sparse(rng: random.Random) -> XiangqiBoard | None:
    """Generals in their palaces and a few rooks, cannons, horses and crossed pawns: with few
    pieces, checks and chases that could go on for ever are common."""
    cells: dict[tuple[int, int], str] = {(rng.randint(3, 5), rng.randint(0, 2)): "K"}
    cells[(rng.randint(3, 5), rng.randint(7, 9))] = "k"
    for red in (True, False):
        for _ in range(rng.randint(1, 3)):
            kind = rng.choice("RRCCNP")
            f, r = rng.randrange(9), rng.randrange(10)
            if kind == "P" and (r < 5 if red else r > 4):
                continue
            cells.setdefault((f, r), kind if red else kind.lower())
    rows = []
    for r in range(9, -1, -1):
        row = "".join(cells.get((f, r), "1") for f in range(9))
        rows.append(re.sub("1+", lambda m: str(len(m.group())), row))
    try:
        board = XiangqiBoard("/".join(rows) + " w - - 0 1", rules="asian")
    except ValueError:
        return None
    return board if board.has_legal_moves() else None


def _cycles(board: XiangqiBoard, rng: random.Random) -> list[list[str]]:
    """Four-ply cycles of quiet moves (a move each, then both move back), those whose first
    move checks or attacks a piece first (they may be perpetual checks or chases)."""
    scored = []
    for a in board.generate_legal_moves():
        if board.is_capture(a):
            continue
        board.push(a)
        threat = 2 * board.is_check() + bool(
            board.attacks_mask(a.to_square) & board.occupied_by(board.turn)
        )
        for b in board.generate_legal_moves():
            if board.is_capture(b):
                continue
            back = [a.uci()[2:] + a.uci()[:2], b.uci()[2:] + b.uci()[:2]]
            scored.append((threat, rng.random(), [a.uci(), b.uci(), *back]))
        board.pop()
    scored.sort(reverse=True)
    return [cycle for _, _, cycle in scored]


def test_random_cycles_in_sparse_positions_match_pyffish() -> None:
    rng = random.Random(17)
    kinds: Counter[str] = Counter()
    checked = 0
    while checked < 100:
        start = _sparse(rng)
        if start is None:
            continue
        cycles = _cycles(start, rng)
        for cycle in cycles[:2] + rng.sample(cycles, min(1, len(cycles))):
            board = start.copy()
            try:
                for uci in cycle * 2:
                    board.push_uci(uci)
            except ValueError:
                continue  # a move back is not legal (a check in between)
            fen, moves = start.fen(), [m.uci() for m in board.move_stack]
            ruled = judge.optional_end(fen, moves)
            outcome = board.outcome()
            if not board.has_legal_moves():
                continue
            if ruled is None:
                assert outcome is None, (fen, moves)
            else:
                assert outcome is not None, (fen, moves)
                expected = None if ruled == 0 else board.turn if ruled > 0 else not board.turn
                assert outcome.winner == expected, (fen, moves)
                kinds[outcome.termination] += 1
            checked += 1
    # chases rarely arise this way: the table above holds them
    assert kinds["repetition"] >= 20 and kinds["perpetual_check"] >= 3, kinds
