"""XiangqiBoard: perft, legal moves against pyffish on random play, FEN, masks and bad input."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.core.geometry import XIANGQI_9X10
from boardctl.core.rules import GameBoard
from boardctl.errors import BoardctlError, PositionError
from boardctl.variants import get_variant
from boardctl.variants.xiangqi import (
    STARTING_FEN,
    VARIANT,
    IllegalMoveError,
    XiangqiBoard,
    XiangqiMove,
    perft,
)
from boardctl.variants.xiangqi.judge import VARIANT as FF_VARIANT
from boardctl.variants.xiangqi.judge import ffish, legal_moves


def random_positions(seed: int, count: int) -> list[tuple[str, list[str]]]:
    """``count`` (FEN, moves from the start) pairs reached by seeded random play; captures are
    preferred now and then so that the sample opens up (checks, pins, bare generals)."""
    rng = random.Random(seed)
    out: list[tuple[str, list[str]]] = []
    while len(out) < count:
        board = XiangqiBoard()
        for _ in range(rng.randint(20, 200)):
            moves = list(board.generate_legal_moves())
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
            out.append((board.fen(), [m.uci() for m in board.move_stack]))
            if len(out) == count:
                break
    return out


POSITIONS = random_positions(7, 1000)


@pytest.mark.parametrize(("depth", "nodes"), [(1, 44), (2, 1_920), (3, 79_666)])
def test_perft_from_the_start(depth: int, nodes: int) -> None:
    board = XiangqiBoard()
    assert perft(board, depth) == nodes
    assert board.fen() == STARTING_FEN  # push/pop left it as it was


MIDDLE_AND_END = [
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
    "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1",
    "R1N1k1b2/9/3Rba3/9/9/9/9/4B4/4A4/4KA3 w - - 0 1",
    "C1nNk4/9/9/9/9/9/n1pp5/B3C4/9/3A1K3 w - - 0 1",
    "4ka3/4a4/9/9/4N4/p8/9/4C3c/3K5/9 w - - 0 1",
    "2bak4/9/3a5/p2Np3p/3n1P3/3pc3P/P4r3/2N1B4/4A4/3AK1B2 b - - 0 1",
]


def pyffish_perft(fen: str, depth: int, moves: list[str] | None = None) -> int:
    moves = moves or []
    legal = legal_moves(fen, moves)
    if depth == 1:
        return len(legal)
    return sum(pyffish_perft(fen, depth - 1, [*moves, m]) for m in legal)


@pytest.mark.parametrize("fen", MIDDLE_AND_END)
def test_perft_matches_pyffish_on_middle_and_end_games(fen: str) -> None:
    board = XiangqiBoard(fen)
    assert perft(board, 2) == pyffish_perft(fen, 2)
    assert board.fen() == XiangqiBoard(fen).fen()


@pytest.mark.slow
def test_legal_moves_match_pyffish_on_1000_random_positions() -> None:
    sf = ffish()
    checks = captures = 0
    for fen, _ in POSITIONS:
        board = XiangqiBoard(fen)
        ours = sorted(m.uci() for m in board.generate_legal_moves())
        assert ours == sorted(legal_moves(fen)), fen
        in_check = board.is_check()
        checks += in_check
        if in_check or len(fen) % 4 == 0:  # pyffish takes milliseconds a call: a sample
            assert in_check == bool(sf.gives_check(FF_VARIANT, fen, [])), fen
        captures += any(board.is_capture(m) for m in board.generate_legal_moves())
    assert len(POSITIONS) == 1000 and checks >= 20 and captures >= 300  # the sample is varied


FAIRY = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")

# (fen, depth): middle games at depth 3, endgames at depth 4
FAIRY_PERFT = [
    ("r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1CN1C1N2/9/R1BAKABR1 w - - 4 5", 3),
    ("r2akab1r/9/1cn1b1n2/p1p1p1p1p/9/2P3c2/P3P1P1P/1CN1C1N2/9/R1BAKABR1 w - - 6 7", 3),
    ("2bakab2/9/2n1c1n2/p3p1p1p/2r6/2P1P4/P5P1P/2N1C4/4A4/2BAK1BR1 w - - 0 15", 3),
    ("r3kab2/4a4/2n1b1c2/p1p1C3p/6p2/2P3P2/P3P3P/2N1B1N2/4A4/R2AK1B1c w - - 0 20", 3),
    (MIDDLE_AND_END[0], 3),
    (MIDDLE_AND_END[7], 3),
    ("4ka3/4a4/9/9/4N4/9/9/9/4A4/3AK4 w - - 0 40", 4),
    ("3k5/9/9/9/4R4/9/9/9/9/4K4 w - - 0 50", 4),
    ("4k4/4a4/4c4/9/9/9/9/4C4/4A4/4K4 w - - 0 60", 4),
    ("2bak4/4a4/4b4/4N4/9/9/9/9/3pA4/4K4 b - - 0 70", 4),
]


def fairy_perft(fen: str, depth: int) -> int:
    """Fairy-Stockfish's ``go perft`` (Debian's 11.1, installed by make test)."""
    assert FAIRY is not None
    script = f"uci\nsetoption name UCI_Variant value xiangqi\nposition fen {fen}\ngo perft {depth}\nquit\n"
    out = subprocess.run(
        [FAIRY], input=script, capture_output=True, text=True, timeout=120, check=True
    ).stdout
    return int(next(ln for ln in out.splitlines() if ln.startswith("Nodes searched")).split(":")[1])


@pytest.mark.slow
@pytest.mark.skipif(
    FAIRY is None, reason="fairy-stockfish not installed (apt-get install fairy-stockfish)"
)
@pytest.mark.parametrize(("fen", "depth"), FAIRY_PERFT)
def test_perft_matches_fairy_stockfish(fen: str, depth: int) -> None:
    assert perft(XiangqiBoard(fen), depth) == fairy_perft(fen, depth)


def test_fen_after_moves_matches_pyffish() -> None:
    sf = ffish()
    from boardctl.variants.xiangqi.judge import to_ffish

    for fen, moves in POSITIONS[::40]:
        board = XiangqiBoard()
        for m in moves:
            board.push_uci(m)
        assert (
            board.fen() == fen == sf.get_fen(FF_VARIANT, STARTING_FEN, [to_ffish(m) for m in moves])
        )


def test_fen_round_trips() -> None:
    for fen in [*MIDDLE_AND_END, STARTING_FEN]:
        assert XiangqiBoard(fen).fen() == fen
    for fen, _ in POSITIONS[::10]:
        board = XiangqiBoard(fen)
        again = XiangqiBoard(board.fen())
        assert again.fen() == board.fen()
        assert again.occupied == board.occupied and again.turn == board.turn
        assert again.occupied_co == board.occupied_co


def test_fen_accepts_r_for_red_and_short_forms() -> None:
    placement = STARTING_FEN.split()[0]
    assert XiangqiBoard(f"{placement} r - - 0 1").fen() == STARTING_FEN
    assert XiangqiBoard(f"{placement} w").fen() == STARTING_FEN
    assert XiangqiBoard(placement).turn is True
    assert XiangqiBoard(f"{placement} b - - 3 7").fen() == f"{placement} b - - 3 7"
    # h and e are common aliases of n and b
    assert (
        XiangqiBoard("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w").fen()
        == STARTING_FEN
    )


BAD_FENS = [
    ("", "1 to 6 fields"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w", "10 ranks"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w", "rank 0"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w", "more than 9"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNQ w", "'Q' in rank 0"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", "side to move"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w KQ", "castling"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - e3", "en passant"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1", "halfmove clock"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 -1", "move number"),
    ("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "Black has no general"),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBKKABNR w", "2 generals"),
    (
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNK w",
        "Red general cannot stand on i0",
    ),
    (
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKBANR w",
        "Red elephant cannot stand on f0",
    ),
    (
        "rnbakabnr/9/1c5c1/p1p1p1p1p/4B4/9/P1P1P1P1P/1C5C1/9/RN1AKABNR w",
        "Red elephant cannot stand on e5",
    ),
    (
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/PPP1P1P1P/1C5C1/9/RNBAKABNR w",
        "Red soldier cannot stand on b3",
    ),
    ("rnbakabnr/9/1c5c1/p1p1p1p1p/P8/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "Red has 6 soldiers"),
    (
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/P8/RNBAKABNR w",
        "Red soldier cannot stand on a1",
    ),
    ("4k4/9/9/9/9/9/9/9/9/4K4 w", "generals face"),
    ("4k4/9/9/9/9/9/9/9/9/3K05 w", "'0' in rank 0"),
    ("4k4/9/9/9/9/9/9/9/9/3K\u0665 w", "in rank 0 is not a piece letter"),
    ("4k4/9/9/9/9/9/9/9/3r5/3K5 b", "Red is not to move but is in check"),
]


@pytest.mark.parametrize(("fen", "fault"), BAD_FENS, ids=[f for _, f in BAD_FENS])
def test_bad_fen_is_refused_naming_the_fault(fen: str, fault: str) -> None:
    with pytest.raises(PositionError) as info:
        XiangqiBoard(fen)
    assert fault in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, BoardctlError)


@pytest.mark.fuzz
@given(
    st.text(max_size=120)
    | st.lists(
        st.sampled_from([*"kabnrcpKABNRCP123456789/ wrb-0", " - - 0 1", "9/"]), max_size=60
    ).map("".join)
)
@settings(deadline=None)
def test_any_text_as_fen_is_a_board_or_one_value_error(text: str) -> None:
    try:
        board = XiangqiBoard(text)
    except PositionError:
        return
    assert XiangqiBoard(board.fen()).fen() == board.fen()


BAD_UCI = [
    ("h2", "two points"),
    ("h2e2x", "two points"),
    ("j2e2", "bad point 'j2'"),
    ("h2e:", "bad point 'e:'"),
    ("h2h2", "goes nowhere"),
    ("e5e6", "no piece on e5"),
    ("h7e7", "not Red's"),
    ("h2h7", "cannon cannot go from h2 to h7"),
    ("b0d1", "horse cannot go"),
    ("c0c2", "elephant cannot go"),
    ("e0e2", "general cannot go"),
    ("a3b3", "soldier cannot go"),
    ("d0e2", "advisor cannot go"),
]


@pytest.mark.parametrize(("uci", "fault"), BAD_UCI, ids=[u for u, _ in BAD_UCI])
def test_bad_uci_is_refused_naming_the_fault(uci: str, fault: str) -> None:
    board = XiangqiBoard()
    with pytest.raises(IllegalMoveError) as info:
        board.push_uci(uci)
    assert fault in str(info.value)
    assert isinstance(info.value, ValueError)
    assert board.fen() == STARTING_FEN


RULES = [
    # (fen, from point, legal destinations): one rule each
    ("5k3/9/9/9/9/9/9/9/9/3K5 w", "d0", {"d1", "e0"}),  # the palace
    ("4k4/9/9/9/9/9/9/9/9/3K5 w", "d0", {"d1"}),  # flying generals: not e0
    ("3k5/9/9/9/9/9/9/9/9/4K4 w", "e0", {"e1", "f0"}),  # flying generals: not d0
    ("5k3/9/9/9/9/9/9/9/4A4/3K5 w", "e1", {"f0", "f2", "d2"}),  # advisor inside the palace
    ("5k3/9/9/9/9/9/9/9/9/2B1K4 w", "c0", {"a2", "e2"}),  # elephant
    ("5k3/9/9/9/9/9/9/9/3N5/2B1K4 w", "c0", {"a2"}),  # elephant's eye d1 blocked
    ("5k3/9/9/9/9/2B6/9/9/9/4K4 w", "c4", {"a2", "e2"}),  # elephant never crosses the river
    ("5k3/9/9/9/9/9/9/9/9/1N2K4 w", "b0", {"a2", "c2", "d1"}),  # horse
    ("5k3/9/9/9/9/9/9/9/1C7/1N2K4 w", "b0", {"d1"}),  # horse's leg b1 blocked
    ("5k3/9/9/9/9/9/9/9/9/1C2K4 w", "b0", {"a0", "c0", "d0"} | {f"b{r}" for r in range(1, 10)}),
    (
        "5k3/9/9/1n7/9/9/9/9/9/1C2K4 w",
        "b0",
        {"a0", "c0", "d0", "b1", "b2", "b3", "b4", "b5"},
    ),  # screen, nothing behind
    (
        "5k3/1r7/9/1n7/9/9/9/9/9/1C2K4 w",
        "b0",
        {"a0", "c0", "d0", "b1", "b2", "b3", "b4", "b5", "b8"},
    ),  # over the screen
    ("5k3/9/9/9/9/9/2P6/9/9/4K4 w", "c3", {"c4"}),  # pawn before the river: forward only
    ("5k3/9/9/9/2P6/9/9/9/9/4K4 w", "c5", {"c6", "b5", "d5"}),  # across it: sideways too
    ("5k3/2P6/9/9/9/9/9/9/9/4K4 w", "c8", {"c9", "b8", "d8"}),
    ("5k3/9/9/9/9/9/9/9/9/4K4 w", "e0", {"e1", "d0"}),  # f0 faces the general on f9
    ("4k4/9/9/9/9/9/9/9/9/3K5 b", "e9", {"e8", "f9"}),  # not d9: it faces d0
    ("3k5/9/9/9/9/9/9/9/9/4K4 b", "d9", {"d8"}),  # not e9: it faces e0
    ("4k4/9/9/9/9/9/9/9/4R4/3K5 b", "e9", {"f9"}),  # in check: e8 stays on the file, d9 faces d0
    ("3k5/9/9/9/9/9/9/9/4R4/4K4 b", "d9", {"d8"}),  # the rook covers e9
    (
        "4k4/4c4/9/9/9/9/9/9/9/4K4 b",
        "e8",
        {f"e{r}" for r in range(1, 8)},
    ),  # pinned between the generals
    ("4k4/4n4/9/9/9/9/9/9/9/4K4 b", "e8", set()),  # a pinned horse cannot move at all
    ("3k5/9/9/9/9/9/9/6n2/9/4K4 w", "e0", set()),  # the horse on g2 covers e1 and f0, d0 faces d9
    (
        "3k5/9/9/9/9/9/9/5An2/9/4K4 w",
        "e0",
        {"e1"},
    ),  # the advisor on f2 blocks the horse's leg to e1
]


@pytest.mark.parametrize(("fen", "point", "targets"), RULES)
def test_rules_table(fen: str, point: str, targets: set[str]) -> None:
    board = XiangqiBoard(fen)
    sq = XIANGQI_9X10.parse(point)
    ours = {XIANGQI_9X10.square_name(m.to_square) for m in board.generate_legal_moves(1 << sq)}
    assert ours == targets
    theirs = {m[2:] for m in legal_moves(board.fen()) if m[:2] == point}
    assert theirs == targets  # the table itself agrees with pyffish


def test_masks_restrict_moves_exactly() -> None:
    rng = random.Random(3)
    for fen, _ in POSITIONS[::25]:
        board = XiangqiBoard(fen)
        every = list(board.generate_legal_moves())
        for _ in range(5):
            fm, tm = rng.getrandbits(90), rng.getrandbits(90)
            got = list(board.generate_legal_moves(fm, tm))
            assert got == [m for m in every if fm >> m.from_square & 1 and tm >> m.to_square & 1]
        captures = set(board.generate_legal_captures())
        assert captures == {m for m in every if board.is_capture(m)}


def test_push_pop_copy_and_the_interface() -> None:
    board: GameBoard = VARIANT.board()
    assert get_variant("xiangqi") is VARIANT
    assert VARIANT.color_name(True) == "red" and VARIANT.parse_color("black") is False
    assert XIANGQI_9X10.to_hex(board.occupied) == XIANGQI_9X10.to_hex(
        XIANGQI_9X10.mask(
            XIANGQI_9X10.parse(p)
            for p in [f"{f}0" for f in "abcdefghi"]
            + [f"{f}9" for f in "abcdefghi"]
            + ["b2", "h2", "b7", "h7"]
            + [f"{f}3" for f in "acegi"]
            + [f"{f}6" for f in "acegi"]
        )
    )
    assert board.occupied_by(True) | board.occupied_by(False) == board.occupied
    assert board.king(True) == XIANGQI_9X10.parse("e0") and board.king(False) == XIANGQI_9X10.parse(
        "e9"
    )
    move = board.parse_uci("h2e2")
    before = board.occupied
    copy = board.copy()
    board.push(move)
    assert board.turn is False and board.peek() == move and list(board.move_stack) == [move]
    assert board.occupied == before ^ (1 << move.from_square) ^ (1 << move.to_square)
    assert copy.fen() == STARTING_FEN and not copy.move_stack
    assert board.copy(stack=False).move_stack == []
    assert board.pop() == move and board.fen() == STARTING_FEN
    with pytest.raises(IndexError):
        board.pop()
    xb = XiangqiBoard()
    xb.push_uci("h2e2")
    xb.push_uci("h7e7")
    xb.push_uci("e2e6")  # the cannon takes the pawn over the screen
    assert xb.piece_at(XIANGQI_9X10.parse("e6")) is not None
    assert xb.fen() == "rnbakabnr/9/1c2c4/p1p1C1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR b - - 0 2"
    assert xb.is_check() and xb.root().fen() == STARTING_FEN
    assert len(xb.legal_moves) == len(list(xb.generate_legal_moves()))
    assert XiangqiMove.from_uci("e6e9") not in xb.legal_moves
    assert XiangqiMove.from_uci("e7e6") not in xb.legal_moves  # a cannon takes only over a screen
    assert xb.parse_uci("d9e8") in xb.legal_moves


def test_no_legal_move_loses_in_check_or_not() -> None:
    stalemate = XiangqiBoard("4k4/3P1P3/9/9/9/9/9/9/9/3K5 b - - 0 1")
    assert not stalemate.is_check() and not list(stalemate.legal_moves)
    outcome = stalemate.outcome()
    assert outcome is not None and outcome.winner is True and outcome.result() == "1-0"
    assert outcome.termination == "stalemate"
    mate = XiangqiBoard("4k4/3R5/9/9/9/9/9/9/9/5KR2 w - - 0 1")
    mate.push_uci("g0g9")
    assert mate.is_checkmate()
    outcome = mate.outcome()
    assert outcome is not None and outcome.termination == "checkmate" and outcome.winner is True
    assert ffish().game_result(FF_VARIANT, mate.fen(), []) < 0  # pyffish: Black to move has lost
    assert XiangqiBoard().outcome() is None


@pytest.mark.slow
def test_importing_the_rules_loads_no_engine_judge_or_chess() -> None:
    code = (
        "import sys, boardctl.variants.xiangqi as x; b = x.XiangqiBoard(); b.push_uci('h2e2');"
        " b.outcome(); x.wxf(b, b.parse_uci('h9g7')); x.export(['h2e2'], None, 'chinese');"
        " print(sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('numba', 'chess', 'pyffish', 'cchess', 'engine')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_is_valid() -> None:
    board = XiangqiBoard()
    assert board.is_valid()
    board.push_uci("h2e2")
    board.push_uci("h7e7")
    board.push_uci("e2e6")  # check: legal, and the position is still a valid set-up
    assert board.is_valid()


def test_occupied_after_and_no_promotion() -> None:
    for fen, _ in POSITIONS[::50]:
        board = XiangqiBoard(fen)
        for move in board.generate_legal_moves():
            after = board.occupied_after(move)
            assert move.promotion is None
            board.push(move)
            assert board.occupied == after
            board.pop()


def test_piece_names_and_the_plain_move_hooks() -> None:
    board = XiangqiBoard()
    names = [
        board.piece_name(XIANGQI_9X10.parse(p))
        for p in ("e0", "d0", "c0", "b0", "a0", "b2", "a3", "e5")
    ]
    assert names == [
        "general",
        "advisor",
        "elephant",
        "horse",
        "chariot",
        "cannon",
        "soldier",
        None,
    ]
    move = board.parse_uci("h2h9")  # the cannon takes the horse
    assert board.capture_square(move) == XIANGQI_9X10.parse("h9")
    assert board.move_mask(move) == (1 << move.from_square) | (1 << move.to_square)
    assert board.landing_square(move) == move.to_square and board.choices() == ()
    assert board.claimable_draw() is None and board.notation_marks_mate is False
    assert board.capture_square(board.parse_uci("h2e2")) is None
