"""The Asian rules: the engine's rules kernel (the search's) against pyffish, the judge."""

from __future__ import annotations

import json
import random
from importlib import resources

import numpy as np
import pytest

from engine.kernels import (
    xq_game_end,
    xq_in_check_of,
    xq_make_move,
    xq_make_null,
    xq_unmake_move,
    xq_unmake_null,
)
from engine.xq_judge import Ending, cycles_from, ruling, sparse_position
from engine.xq_movegen import HP, PIECE_CHARS, SIDE, U_CHECK
from engine.xq_position import (
    DRAW,
    LOSS,
    ONGOING,
    START_FEN,
    WIN,
    XqBoard,
    move_name,
    parse_move,
    square_name,
    tables,
)
from engine.xq_position import ruling as engine_ruling
from engine.xq_rules import R_DRAW, R_LOSS, R_NONE, R_WIN, SCRATCH

SEQUENCES = json.loads(resources.files("engine").joinpath("data/xiangqi_repetitions.json").read_text())["sequences"]
TO_ENGINE = {Ending.WIN: WIN, Ending.LOSS: LOSS, Ending.DRAW: DRAW, Ending.ONGOING: ONGOING}
VERDICT = {R_NONE: ONGOING, R_DRAW: DRAW, R_WIN: WIN, R_LOSS: LOSS}


def in_search(board: XqBoard, ply: int) -> str:
    """What the search concludes at this node, ``ply`` plies below its root."""
    pos = board.pos.copy()
    assert pos.undo[int(pos.st[HP]), U_CHECK] in (0, 1)
    sc = np.zeros(SCRATCH, dtype=np.int64)
    return VERDICT[int(xq_game_end(tables(), pos.mb, pos.st, pos.hist, pos.undo, sc, ply))]


def test_the_catalogue_covers_every_kind() -> None:
    kinds = [s["kind"] for s in SEQUENCES]
    assert len(SEQUENCES) >= 30
    for kind in ("perpetual check", "perpetual chase", "idle"):
        assert kinds.count(kind) >= 3, kind
    # every move of both sides chases; one side checks and chases by turns; checks against chases
    for kind in ("mutual chase", "one check one chase", "check against chase"):
        assert kinds.count(kind) >= 2, kind
    assert {s["ruling"] for s in SEQUENCES} >= {"win", "loss", "draw"}
    # chases by more than one kind of piece (rooks on cannons and horses, horses on rooks)
    chasers = {str(s["chases"]).split()[0] for s in SEQUENCES if s["kind"] == "perpetual chase"}
    assert {"rook", "horse"} <= chasers


@pytest.mark.parametrize("seq", SEQUENCES, ids=[f"{i}-{s['kind']}" for i, s in enumerate(SEQUENCES)])
def test_repetition_rulings_match_pyffish(seq: dict[str, object]) -> None:
    fen, moves = str(seq["fen"]), [str(m) for m in seq["moves"]]  # type: ignore[attr-defined]
    judged = ruling(fen, moves)
    assert judged.ending.value == seq["ruling"]  # the stored ruling is still pyffish's
    board = XqBoard.from_moves(fen, moves)
    assert engine_ruling(board) == (TO_ENGINE[judged.ending], True)
    # one cycle earlier the game goes on (a second occurrence only) ...
    half = XqBoard.from_moves(fen, moves[:4])
    assert engine_ruling(half) == (ONGOING, False) and ruling(fen, moves[:4]).ending is Ending.ONGOING
    # ... but inside the search one repetition already gets the same verdict
    assert in_search(half, 6) == TO_ENGINE[judged.ending]


def test_random_cycles_match_pyffish() -> None:
    rng = random.Random(5)
    checked = 0
    while checked < 40:
        board = XqBoard()
        for _ in range(rng.randint(8, 60)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
        fen = board.fen()
        start = XqBoard(fen)
        quiet = [m for m in start.legal_moves() if start.pos.mb[(m >> 7) & 127] < 0]
        if not quiet:
            continue
        a = rng.choice(quiet)
        start.push(a)
        replies = [m for m in start.legal_moves() if start.pos.mb[(m >> 7) & 127] < 0]
        if not replies:
            continue
        b = rng.choice(replies)
        cycle = [move_name(a), move_name(b), move_name(a)[2:] + move_name(a)[:2], move_name(b)[2:] + move_name(b)[:2]]
        try:
            played = XqBoard.from_moves(fen, cycle * 2)
        except ValueError:
            continue  # the way back was not legal
        judged = ruling(fen, cycle * 2)
        assert engine_ruling(played)[0] == TO_ENGINE[judged.ending], (fen, cycle)
        checked += 1


def test_sixty_moves_without_a_capture_draw() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/4K1R2 w - - 118 80"
    board = XqBoard.from_moves(fen, ["g0g1"])
    assert engine_ruling(board) == (ONGOING, False) and ruling(fen, ["g0g1"]).ending is Ending.ONGOING
    board.push_uci("d9d8")
    assert engine_ruling(board) == (DRAW, True) and ruling(fen, ["g0g1", "d9d8"]).ending is Ending.DRAW


def test_checkmate_beats_the_sixty_move_rule() -> None:
    fen = "4k4/7R1/9/9/9/9/9/9/9/R4K3 w - - 119 80"
    board = XqBoard.from_moves(fen, ["a0a9"])  # a quiet mate on the 120th ply
    assert board.legal_moves() == [] and engine_ruling(board) == (LOSS, False)
    assert ruling(fen, ["a0a9"]).ending is Ending.LOSS


@pytest.mark.slow
def test_random_cycles_in_sparse_positions_match_pyffish() -> None:
    # few pieces, random quiet cycles, no prefilter by our own rules
    rng = random.Random(99)
    rulings: list[str] = []
    while len(rulings) < 150:
        fen = sparse_position(rng)
        if fen is None:
            continue
        for cycle in cycles_from(fen, rng)[:10]:
            judged = ruling(fen, cycle * 2).ending
            assert engine_ruling(XqBoard.from_moves(fen, cycle * 2))[0] == TO_ENGINE[judged], (fen, cycle)
            rulings.append(judged.value)
    # mostly draws: this guards against chases or checks pyffish does not see; the catalogue
    # (built from every cycle our kernel rules non-draw, plus a sample) covers the offences
    assert len(rulings) >= 150


# A null move of the search (move 0) inside the plies that the repetition judge replays:
# judged as a move a0a0, it once emptied a0 on the search's board, whose root moves were then
# tested for legality against the wrong position (the illegal `b2b5` of a 2026-12-01 match).
NULL_CYCLES = [
    # (fen, moves before the null move, the cycle after it, what stands on a0)
    (START_FEN, ["h2e2"], ["b0c2", "b9c7", "c2b0", "c7b9"], "R"),
    (START_FEN, ["h2e2", "h9g7"], ["h7h5", "b0c2", "h5h7", "c2b0"], "R"),
    ("4k4/9/9/9/9/9/9/9/3K5/r3C4 w - - 0 1", ["e0e1"], ["d1d2", "e9f9", "d2d1", "f9e9"], "r"),
    ("3k5/9/9/9/9/9/9/9/4K4/n1R6 b - - 0 1", ["d9d8"], ["d8d9", "c0c1", "d9d8", "c1c0"], "n"),
]


@pytest.mark.parametrize(("fen", "before", "cycle", "on_a0"), NULL_CYCLES)
@pytest.mark.parametrize("extra", [0, 1])
def test_judging_a_cycle_past_a_null_move_leaves_the_board_alone(
        fen: str, before: list[str], cycle: list[str], on_a0: str, extra: int) -> None:
    board = XqBoard.from_moves(fen, before)
    assert PIECE_CHARS[int(board.pos.mb[0]) % 7] == on_a0.upper()
    pos = board.pos.copy()
    tb = tables()
    xq_make_null(tb, pos.st, pos.hist, pos.undo)
    # with ``extra``, the cycle repeats the position one ply after the null move instead
    moves = cycle + cycle[:extra]
    for text in moves:
        pos.undo[int(pos.st[HP]), U_CHECK] = int(xq_in_check_of(tb, pos.mb, pos.st, int(pos.st[SIDE])))
        xq_make_move(tb, pos.mb, pos.st, pos.hist, pos.undo, parse_move(text))
    hp = int(pos.st[HP])
    pos.undo[hp, U_CHECK] = int(xq_in_check_of(tb, pos.mb, pos.st, int(pos.st[SIDE])))
    mb, st, hist, undo = pos.mb.copy(), pos.st.copy(), pos.hist[:hp].copy(), pos.undo[: hp + 1].copy()
    sc = np.zeros(SCRATCH, dtype=np.int64)
    verdict = int(xq_game_end(tb, pos.mb, pos.st, pos.hist, pos.undo, sc, 8))
    assert np.array_equal(pos.mb, mb), [square_name(s) for s in range(90) if pos.mb[s] != mb[s]]
    assert np.array_equal(pos.st, st) and np.array_equal(pos.hist[:hp], hist)
    assert np.array_equal(pos.undo[: hp + 1], undo)
    assert verdict != R_NONE  # the cycle did repeat a position
    # and the search can unwind to the real position
    for text in reversed(moves):
        xq_unmake_move(tb, pos.mb, pos.st, pos.hist, pos.undo, parse_move(text))
    xq_unmake_null(pos.st, pos.hist, pos.undo)
    assert np.array_equal(pos.mb, board.pos.mb) and np.array_equal(pos.st, board.pos.st)
