"""Notation: ICCS, WXF and Chinese from published examples, cross-checked against pyffish's WXF
and cchess's Chinese on random positions, and read back in every form."""

from __future__ import annotations

import random

import pytest

from boardctl.variants.xiangqi import STARTING_FEN, IllegalMoveError, XiangqiBoard
from boardctl.variants.xiangqi.board import CANNON, FILES, HORSE, PAWN, ROOK
from boardctl.variants.xiangqi.judge import VARIANT as FF_VARIANT
from boardctl.variants.xiangqi.judge import ffish, to_ffish
from boardctl.variants.xiangqi.notation import (
    chinese,
    iccs,
    parse_line,
    parse_move,
    write_line,
    wxf,
)

START = STARTING_FEN
HALF_TO_FULL = str.maketrans("123456789", "１２３４５６７８９")
AFTER_C25 = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"

# (fen, move, ICCS, WXF, Chinese): opening moves as the books write them, then the tandem
# cases of the WXF notation page (wxf.org), then Black's mirror of them.
EXAMPLES = [
    (START, "h2e2", "H2-E2", "C2.5", "炮二平五"),
    (START, "b2e2", "B2-E2", "C8.5", "炮八平五"),
    (START, "b0c2", "B0-C2", "H8+7", "马八进七"),
    (START, "h0g2", "H0-G2", "H2+3", "马二进三"),
    (START, "c3c4", "C3-C4", "P7+1", "兵七进一"),
    (START, "g3g4", "G3-G4", "P3+1", "兵三进一"),
    (START, "c0e2", "C0-E2", "E7+5", "相七进五"),
    (START, "g0e2", "G0-E2", "E3+5", "相三进五"),
    (START, "f0e1", "F0-E1", "A4+5", "仕四进五"),
    (START, "d0e1", "D0-E1", "A6+5", "仕六进五"),
    (START, "e0e1", "E0-E1", "K5+1", "帅五进一"),
    (START, "a0a2", "A0-A2", "R9+2", "车九进二"),
    (START, "i0i1", "I0-I1", "R1+1", "车一进一"),
    (START, "h2h9", "H2-H9", "C2+7", "炮二进七"),
    (START, "b2b6", "B2-B6", "C8+4", "炮八进四"),
    (AFTER_C25, "h9g7", "H9-G7", "H8+7", "马8进7"),
    (AFTER_C25, "b9c7", "B9-C7", "H2+3", "马2进3"),
    (AFTER_C25, "b7e7", "B7-E7", "C2.5", "炮2平5"),
    (AFTER_C25, "h7e7", "H7-E7", "C8.5", "炮8平5"),
    (AFTER_C25, "g6g5", "G6-G5", "P7+1", "卒7进1"),
    (AFTER_C25, "c9e7", "C9-E7", "E3+5", "象3进5"),
    (AFTER_C25, "f9e8", "F9-E8", "A6+5", "士6进5"),
    (AFTER_C25, "i9i7", "I9-I7", "R9+2", "车9进2"),
    (AFTER_C25, "h7h3", "H7-H3", "C8+4", "炮8进4"),
    (AFTER_C25, "e9e8", "E9-E8", "K5+1", "将5进1"),
    # retreats
    ("3k5/9/9/9/9/9/2R6/9/9/4K4 w", "c3c1", "C3-C1", "R7-2", "车七退二"),
    ("3k5/9/9/9/9/9/2r6/9/9/4K4 b", "c3c8", "C3-C8", "R3-5", "车3退5"),
    ("3k5/9/6N2/9/9/9/9/9/9/4K4 w", "g7f5", "G7-F5", "H3-4", "马三退四"),
    # two like pieces on a file: front and rear (R+.3, C--1 on the WXF page)
    ("3k5/9/9/5R3/9/9/9/5R3/9/4K4 w", "f6g6", "F6-G6", "R+.3", "前车平三"),
    ("3k5/9/9/5R3/9/9/9/5R3/9/4K4 w", "f2f1", "F2-F1", "R--1", "后车退一"),
    ("3k5/9/3c5/9/9/3c5/9/9/9/4K4 b", "d4d3", "D4-D3", "C++1", "前炮进1"),
    ("3k5/9/3c5/9/9/3c5/9/9/9/4K4 b", "d7d8", "D7-D8", "C--1", "后炮退1"),
    ("3k5/9/9/9/9/2N6/9/2N6/9/4K4 w", "c4b6", "C4-B6", "H++8", "前马进八"),
    ("3k5/9/9/9/9/2N6/9/2N6/9/4K4 w", "c2e1", "C2-E1", "H--5", "后马退五"),
    # advisors and elephants keep their file even in tandem
    ("3k5/9/9/9/9/9/9/3A5/9/3AK4 w", "d2e1", "D2-E1", "A6-5", "仕六退五"),
    ("3k5/9/9/9/9/9/9/3A5/9/3AK4 w", "d0e1", "D0-E1", "A6+5", "仕六进五"),
    # tandem pawns, as on the WXF page: 5, 4 and 3 on the third file going to the fourth
    ("3k2P2/6P2/6P2/6P2/6P2/9/9/9/9/4K4 w", "g9f9", "G9-F9", "++.4", "前兵平四"),
    ("3k2P2/6P2/6P2/6P2/6P2/9/9/9/9/4K4 w", "g8f8", "G8-F8", "P+.4", "二兵平四"),
    ("3k2P2/6P2/6P2/6P2/6P2/9/9/9/9/4K4 w", "g7f7", "G7-F7", "P3.4", "三兵平四"),
    ("3k2P2/6P2/6P2/6P2/6P2/9/9/9/9/4K4 w", "g6f6", "G6-F6", "P-.4", "四兵平四"),
    ("3k2P2/6P2/6P2/6P2/6P2/9/9/9/9/4K4 w", "g5f5", "G5-F5", "--.4", "后兵平四"),
    ("3k5/6P2/6P2/6P2/P5P2/9/9/9/9/4K4 w", "g8f8", "G8-F8", "++.4", "前兵平四"),
    ("3k5/6P2/6P2/6P2/P5P2/9/9/9/9/4K4 w", "g7f7", "G7-F7", "P+.4", "二兵平四"),
    ("3k5/6P2/6P2/6P2/P5P2/9/9/9/9/4K4 w", "g6f6", "G6-F6", "P-.4", "三兵平四"),
    ("3k5/6P2/6P2/6P2/P5P2/9/9/9/9/4K4 w", "g5f5", "G5-F5", "--.4", "后兵平四"),
    ("3k5/9/6P2/6P2/6P2/9/9/9/9/4K4 w", "g7f7", "G7-F7", "P+.4", "前兵平四"),
    ("3k5/9/6P2/6P2/6P2/9/9/9/9/4K4 w", "g6f6", "G6-F6", "P3.4", "中兵平四"),
    ("3k5/9/6P2/6P2/6P2/9/9/9/9/4K4 w", "g5f5", "G5-F5", "P-.4", "后兵平四"),
    ("3k5/9/9/9/6P2/9/9/9/9/4K4 w", "g5g6", "G5-G6", "P3+1", "兵三进一"),
    ("3k5/9/9/9/6P2/6P2/9/9/9/4K4 w", "g5g6", "G5-G6", "P++1", "前兵进一"),
    # tandem pawns on two files: the file replaces the letter (3 on the 3rd, 2 on the 7th)
    ("3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w", "g7f7", "G7-F7", "3+.4", "前三平四"),
    ("3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w", "g6f6", "G6-F6", "33.4", "中三平四"),
    ("3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w", "g5f5", "G5-F5", "3-.4", "后三平四"),
    ("3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w", "c6d6", "C6-D6", "7+.6", "前七平六"),
    ("3k5/9/6P2/2P3P2/2P3P2/9/9/9/9/4K4 w", "c5d5", "C5-D5", "7-.6", "后七平六"),
    # Black's pawns: front is the lower rank; digits in Chinese
    ("3k5/9/9/9/9/2p6/2p6/9/9/4K4 b", "c3c2", "C3-C2", "P++1", "前卒进1"),
    ("3k5/9/9/9/9/2p6/2p6/9/9/4K4 b", "c4b4", "C4-B4", "P-.2", "后卒平2"),
]


@pytest.mark.parametrize(("fen", "uci", "iccs_text", "wxf_text", "chinese_text"), EXAMPLES)
def test_published_examples(
    fen: str, uci: str, iccs_text: str, wxf_text: str, chinese_text: str
) -> None:
    board = XiangqiBoard(fen)
    move = board.parse_uci(uci)
    assert iccs(move) == iccs_text
    assert wxf(board, move) == wxf_text
    assert board.san(move) == wxf_text
    # Black's digits full-width by default, as Chinese PGN files print them (马８进７); ASCII on request
    full_width = chinese_text.translate(HALF_TO_FULL)
    assert chinese(board, move) == full_width
    assert chinese(board, move, ascii_digits=True) == chinese_text
    assert write_line([uci], "chinese", fen=board.fen()) == [full_width]
    assert write_line([uci], "chinese-ascii", fen=board.fen()) == [chinese_text]
    for text in (iccs_text, wxf_text, chinese_text, full_width, uci):
        assert parse_move(board, text) == move, text


@pytest.mark.parametrize(
    ("text", "uci"),
    [
        ("C2=5", "h2e2"),  # '=' for across
        ("c2.5", "h2e2"),
        ("N8+7", "b0c2"),  # N for horse
        ("B3+5", "g0e2"),  # B for elephant
        ("炮２平５", "h2e2"),  # full-width digits
        ("砲二平五", "h2e2"),  # traditional characters
        ("傌八進七", "b0c2"),
        ("俥九進二", "a0a2"),
        ("h2-e2", "h2e2"),
        (" H2E2 ", "h2e2"),
    ],
)
def test_parse_accepts_common_variants(text: str, uci: str) -> None:
    board = XiangqiBoard()
    assert parse_move(board, text).uci() == uci


def test_parse_reads_the_older_plain_file_form_when_only_one_move_fits() -> None:
    board = XiangqiBoard("3k5/9/9/5R3/9/9/9/5R3/9/4K4 w")
    with pytest.raises(IllegalMoveError, match="ambiguous"):
        parse_move(board, "R4.3")  # either rook could go across
    board = XiangqiBoard("3k5/9/9/9/9/5R3/5R3/9/9/4K4 w")
    assert parse_move(board, "R4+5").uci() == "f4f9"  # the rear rook is blocked by the front one


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("", "not a xiangqi move"),
        ("C2.6x", "not a legal move"),
        ("C3.5", "not a legal move"),  # no cannon on Red's third file
        ("马二进四", "not a legal move"),
        ("h2h9h", "not a legal move"),
        ("h2h7", "cannon cannot go"),
        ("a" * 50, "not a xiangqi move"),
    ],
)
def test_parse_refuses_naming_the_fault(text: str, fault: str) -> None:
    with pytest.raises(IllegalMoveError) as info:
        parse_move(XiangqiBoard(), text)
    assert fault in str(info.value)


def _random_boards(seed: int, count: int) -> list[XiangqiBoard]:
    rng = random.Random(seed)
    out: list[XiangqiBoard] = []
    while len(out) < count:
        board = XiangqiBoard()
        for _ in range(rng.randint(10, 150)):
            moves = list(board.generate_legal_moves())
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.4 else moves))
        out.append(board.copy(stack=False))
    return out


def _tandem(board: XiangqiBoard, square: int, kinds: tuple[int, ...] = (PAWN,)) -> bool:
    """Whether the piece on ``square`` is one of ``kinds`` and shares its file with a like one."""
    p = board._b[square]
    if p & 7 not in kinds:
        return False
    return sum(1 for s in range(square % FILES, 90, FILES) if board._b[s] == p) > 1


@pytest.mark.slow
def test_wxf_matches_pyffish_and_every_form_reads_back() -> None:
    sf = ffish()
    compared = 0
    tandems = [XiangqiBoard(fen) for fen in {e[0] for e in EXAMPLES}]
    for board in _random_boards(21, 25) + tandems:
        fen = board.fen()
        for move in board.generate_legal_moves():
            text = wxf(board, move)
            assert parse_move(board, text) == move
            assert parse_move(board, chinese(board, move)) == move
            if _tandem(board, move.from_square, (PAWN, ROOK, CANNON, HORSE)):
                # pyffish writes + and - only when the file number is ambiguous (R4-3 where WXF
                # has R+-3) and numbers tandem pawns its own way (13=4): the table covers those
                continue
            theirs = sf.get_san(
                FF_VARIANT, fen, to_ffish(move.uci()), False, sf.NOTATION_XIANGQI_WXF
            )
            assert text == theirs.replace("=", "."), (fen, move.uci())
            compared += 1
    assert compared > 500


@pytest.mark.slow
def test_chinese_matches_cchess() -> None:
    import cchess
    from cchess.common import full2half

    compared = 0
    for board in _random_boards(22, 60) + [XiangqiBoard(fen) for fen in {e[0] for e in EXAMPLES}]:
        theirs_board = cchess.ChessBoard(board.fen())
        for move in board.generate_legal_moves():
            if _tandem(board, move.from_square):
                continue  # cchess leaves several files of tandem pawns as a TODO
            f, t = move.from_square, move.to_square
            played = theirs_board.copy().move((f % FILES, f // FILES), (t % FILES, t // FILES))
            assert played is not None
            # cchess writes Black's digits full-width (炮９退１), as we do; ASCII on request (炮9退1)
            assert chinese(board, move) == played.to_text(), (board.fen(), move.uci())
            assert chinese(board, move, ascii_digits=True) == full2half(played.to_text()), (board.fen(), move.uci())
            compared += 1
    assert compared > 1000


def test_write_and_parse_a_whole_line() -> None:
    line = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "c6c5", "g3g4"]
    assert write_line(line, "iccs") == [m.upper()[:2] + "-" + m.upper()[2:] for m in line]
    chinese_line = write_line(line, "chinese")
    assert chinese_line[:4] == ["炮二平五", "马８进７", "马二进三", "车９平８"]
    assert write_line(line, "chinese-ascii")[:4] == ["炮二平五", "马8进7", "马二进三", "车9平8"]
    for notation in ("iccs", "wxf", "chinese", "chinese-ascii", "uci"):
        assert [m.uci() for m in parse_line(write_line(line, notation))] == line
    with pytest.raises(IllegalMoveError, match="move 2"):
        write_line(["h2e2", "h2e2"], "wxf")
    with pytest.raises(ValueError, match="unknown xiangqi notation"):
        write_line(line, "san")
