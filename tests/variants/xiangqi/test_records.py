"""Records: Chinese-chess PGN written and read back, hostile PGN, and XQF fixtures written from
the format description, read alike by cchess and by boardctl."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import BoardctlError, GameFileError
from boardctl.variants.xiangqi import STARTING_FEN, XiangqiBoard
from boardctl.variants.xiangqi.records import (
    Record,
    export,
    position_after,
    read_pgn,
    read_record,
    read_xqf,
    write_pgn,
)
from tests.variants.xiangqi.xqf_writer import Keys, write_xqf


def random_game(rng: random.Random, fen: str = STARTING_FEN, plies: int = 80) -> list[str]:
    board = XiangqiBoard(fen)
    for _ in range(rng.randint(1, plies)):
        moves = list(board.generate_legal_moves())
        if not moves:
            break
        board.push(rng.choice(moves))
    return [m.uci() for m in board.move_stack]


SETUP = "3akab2/9/4b4/p3p3p/2p6/6P2/P3P3P/4B4/4A4/2BAK4 b - - 0 20"


def test_the_pgn_follows_the_chinese_chess_convention() -> None:
    text = write_pgn(
        ["h2e2", "h9g7", "h0g2"],
        tags={"Red": "许银川", "Black": "吕钦", "Event": "全国象棋个人赛", "Date": "2026.12.01"},
        result="1-0",
    )
    head = text.splitlines()
    assert head[:5] == [
        '[Game "Chinese Chess"]',
        '[Red "许银川"]',
        '[Black "吕钦"]',
        '[Result "1-0"]',
        '[Format "ICCS"]',
    ]
    assert '[Event "全国象棋个人赛"]' in head and '[Date "2026.12.01"]' in head
    assert text.rstrip().endswith("1. H2-E2 H9-G7 2. H0-G2 1-0")
    first = next(XiangqiBoard(SETUP).generate_legal_moves()).uci()
    setup = write_pgn([first], start_fen=SETUP)
    lines = setup.splitlines()
    assert lines[4] == f'[FEN "{SETUP}"]' and lines[5] == '[Format "ICCS"]'
    assert "20... " in setup  # Black moves first: numbered from the FEN's move number


@pytest.mark.parametrize("notation", ["iccs", "wxf", "chinese", "uci"])
def test_games_round_trip_in_every_notation(notation: str) -> None:
    rng = random.Random(notation)
    for index in range(12):
        fen = SETUP if index % 4 == 3 else STARTING_FEN
        moves = random_game(rng, fen)
        tags = {"Red": f"R{index}", "Black": 'a "quoted" \\ name', "Termination": "normal"}
        text = export(moves, fen, notation, tags=tags, result="0-1")
        record = read_pgn(text, source="game.pgn")
        assert record.moves == tuple(moves)
        assert record.start_fen == XiangqiBoard(fen).fen()
        assert record.tags["Black"] == tags["Black"] and record.tags["Result"] == "0-1"
        assert (
            record.tags["Format"]
            == {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese", "uci": "UCCI"}[notation]
        )


PUBLISHED = """[Game "Chinese Chess"]
[Event "Example"]
[Red "Red player"]
[Black "Black player"]
[Result "1-0"]

{ 中炮对屏风马 } 1.炮二平五 马８进７ 2. 马二进三 车９平８ $1
3. 车一平二 马2进3 ( 3... 卒7进1 4. 车二进六 ) 4. 兵七进一! 卒７进１ ; a remark to the line end
5. 车二进六 炮8平9 6. 车二平三 炮９退１ 1-0
"""


def test_reading_a_chinese_pgn_with_comments_variations_and_nags() -> None:
    record = read_pgn(PUBLISHED, source="book.pgn")
    assert record.moves[:6] == ("h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7")
    assert len(record.moves) == 12 and record.moves[-1] == "i7i8"
    assert record.tags["Red"] == "Red player" and record.start_fen == STARTING_FEN


def test_reading_a_gb18030_file(tmp_path: Path) -> None:
    path = tmp_path / "gbk.pgn"
    path.write_bytes(PUBLISHED.encode("gb18030"))
    assert read_record(path).moves == read_pgn(PUBLISHED).moves


def test_only_the_first_game_is_read() -> None:
    two = export(["h2e2"], None, "iccs") + "\n" + export(["b2e2", "b9c7"], None, "iccs")
    assert read_pgn(two).moves == ("h2e2",)


HOSTILE = [
    ("", "no game in it"),
    ('[Game "Chinese Chess"]\n\n1. H2-E2 { never closed\n', "book.pgn:3: a comment"),
    ('[Game "Chinese Chess"\n\n1. H2-E2\n', "book.pgn:1: a tag is"),
    ('[Game "Chinese Chess"]\n[Red "x"]\n\n1. H2-E2 H9-G7\n2. H2-E2\n', "book.pgn:5: move 3"),
    ('[Game "Chess"]\n\n1. e4 e5\n', "not Chinese chess"),
    ('[Game "Chinese Chess"]\n[FEN "9/9/9 w"]\n\n1. H2-E2\n', "FEN tag"),
    ('[Game "Chinese Chess"]\n\n1. H2-E2 ) H9-G7\n', "book.pgn:3: ')' closes"),
    ('[Game "Chinese Chess"]\n\n1. H2-E2 ( H9-G7\n\n', "never closed"),
    ('[Game "Chinese Chess"]\n\n1. 马二进四\n', "book.pgn:3: move 1"),
    ('[Game "Chinese Chess"]\n\n1. Q2-E2\n', "not a legal move"),
]


@pytest.mark.parametrize(("text", "fault"), HOSTILE, ids=[f for _, f in HOSTILE])
def test_hostile_pgn_gets_one_clear_error(text: str, fault: str, tmp_path: Path) -> None:
    path = tmp_path / "book.pgn"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GameFileError) as info:
        read_record(path)
    assert fault in str(info.value) and str(path) in str(info.value)
    assert isinstance(info.value, BoardctlError)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(GameFileError, match="cannot read"):
        read_record(tmp_path / "missing.pgn")
    binary = tmp_path / "noise.pgn"
    binary.write_bytes(b"\xff\xfe\xff\x00\x81" * 10)
    with pytest.raises(GameFileError, match="UTF-8 or GB18030"):
        read_record(binary)
    huge = tmp_path / "huge.pgn"
    huge.write_bytes(b" " * (4 * 1024 * 1024 + 10))
    with pytest.raises(GameFileError, match="larger than"):
        read_record(huge)
    fake = tmp_path / "fake.xqf"
    fake.write_bytes(b"not xqf")
    with pytest.raises(GameFileError, match="no 'XQ' magic"):
        read_record(fake)


PGN_TOKENS = [
    '[Game "Chinese Chess"]',
    '[FEN "3k5/9/9/9/9/9/9/9/4R4/4K4 w"]',
    '[Red "a\\"b"]',
    "[Bad",
    '"',
    "]",
    "1.",
    "1...",
    "2. ",
    "H2-E2",
    "h9g7",
    "C2.5",
    "炮二平五",
    "马8进7",
    "马８进７",
    "R+.3",
    "33.4",
    "{",
    "}",
    "{ note }",
    "(",
    ")",
    ";x\n",
    "$4",
    "!?",
    "1-0",
    "0-1",
    "*",
    "1/2-1/2",
    "\n",
    " ",
]


@pytest.mark.fuzz
@given(st.text(max_size=300) | st.lists(st.sampled_from(PGN_TOKENS), max_size=40).map(" ".join))
@settings(deadline=None)
def test_any_text_is_a_record_or_one_game_file_error(text: str) -> None:
    try:
        record = read_pgn(text, source="fuzz.pgn")
    except GameFileError as exc:
        assert str(exc).startswith("fuzz.pgn")
        return
    assert isinstance(record, Record)


# ---- XQF -----------------------------------------------------------------------------------

KEYS = Keys(
    mask=0xFF, product=0x1234, ors=(0x11, 0x22, 0x44, 0x88), total=91, xy=37, xyf=201, xyt=73
)


def _cchess_read(path: Path) -> tuple[str, list[str]]:
    import cchess

    game = cchess.read_from_xqf(str(path))
    return game.init_board.to_fen(), [str(m) for m in game.dump_iccs_moves()[0]]


@pytest.mark.parametrize("version", [10, 18])
def test_xqf_fixtures_are_read_alike_by_cchess_and_boardctl(version: int, tmp_path: Path) -> None:
    rng = random.Random(version)
    for index in range(8):
        fen = SETUP if index % 3 == 2 else STARTING_FEN
        moves = random_game(rng, fen, plies=60)
        path = tmp_path / f"game{index}.xqf"
        path.write_bytes(
            write_xqf(
                moves,
                fen=fen,
                version=version,
                keys=KEYS if version > 10 else None,
                red="许银川",
                black="吕钦",
                result="0-1",
                event="象棋",
                variation=random_game(random.Random(index), fen, plies=3) if index % 2 else None,
                comment="开局" if index % 2 else "",
            )
        )
        record = read_record(path)
        their_fen, their_moves = _cchess_read(path)
        assert list(record.moves) == their_moves == moves
        assert record.start_fen.split()[0] == their_fen.split()[0] == fen.split()[0]
        assert record.start_fen.split()[1] == (
            "b" if moves and XiangqiBoard(fen).turn is False else "w"
        )
        assert (
            record.tags["Red"] == "许银川"
            and record.tags["Black"] == "吕钦"
            and record.tags["Result"] == "0-1"
        )
        # and the game can be set up after any ply
        ply = rng.randint(0, len(moves))
        assert [m.uci() for m in position_after(record, ply).move_stack] == moves[:ply]


def test_hostile_xqf(tmp_path: Path) -> None:
    good = write_xqf(["h2e2", "h9g7"])
    cases = {
        "short.xqf": good[:200],
        "nokings.xqf": good[:16] + bytes([0xFF] * 32) + good[48:],
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(GameFileError) as info:
            read_xqf(path)
        assert str(path) in str(info.value)
    with pytest.raises(ValueError, match="outside the record"):
        position_after(read_record(_write(tmp_path, good)), 3)


def test_mangled_xqf_is_a_record_or_one_game_file_error(tmp_path: Path) -> None:
    rng = random.Random(9)
    base = write_xqf(random_game(rng, plies=40), version=18, keys=KEYS, red="红", black="黑")
    path = tmp_path / "mangled.xqf"
    outcomes = {"record": 0, "error": 0}
    for _ in range(150):
        data = bytearray(base)
        for _ in range(rng.randint(1, 12)):
            data[rng.randrange(2, len(data))] = rng.randrange(256)
        path.write_bytes(
            bytes(data[: rng.randint(2, len(data))]) if rng.random() < 0.3 else bytes(data)
        )
        try:
            record = read_record(path)
        except GameFileError as exc:
            assert str(path) in str(exc)
            outcomes["error"] += 1
            continue
        board = position_after(record)  # whatever was read is a legal game
        assert len(board.move_stack) == len(record.moves)
        outcomes["record"] += 1
    assert outcomes["record"] > 10 and outcomes["error"] > 10


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "ok.xqf"
    path.write_bytes(data)
    return path


# ---- the Variant hooks (storage, replay and the page use them) ------------------------------


def test_write_game_from_a_game_text_reads_back() -> None:
    from boardctl.core.rules import GameText
    from boardctl.variants.xiangqi import VARIANT

    assert VARIANT.write_pgn is not None and VARIANT.read_pgn is not None
    moves = ("h2e2", "h9g7", "h0g2", "i9h9")
    text = GameText(
        fen=STARTING_FEN,
        moves=moves,
        headers={
            "Event": "Casual game",
            "Site": "boardctl",
            "Red": "you",
            "Black": "boardctl 初级",
            "Result": "0-1",
            "Termination": "perpetual check",
        },
        comments={0: "set up", 2: "black touch-move: h9 then b9"},
        clocks=(299.6, 298.0, None, 3725.0),
        final="Red lost by perpetual check",
    )
    pgn = VARIANT.write_pgn(text)
    assert pgn.splitlines()[0] == '[Game "Chinese Chess"]'
    assert pgn.splitlines()[1:5] == [
        '[Red "you"]',
        '[Black "boardctl 初级"]',
        '[Result "0-1"]',
        '[Format "ICCS"]',
    ]
    assert "{set up} 1. H2-E2 {[%clk 0:05:00]} 1... H9-G7" in pgn
    assert "{[%clk 0:04:58] black touch-move: h9 then b9} 2. H0-G2" in pgn
    assert pgn.rstrip().endswith("I9-H9\n{[%clk 1:02:05] Red lost by perpetual check} 0-1")
    game = VARIANT.read_pgn(io.StringIO(pgn))
    assert game is not None and game.moves == moves and game.fen == STARTING_FEN and not game.errors
    assert game.headers["Termination"] == "perpetual check"
    assert VARIANT.read_pgn_headers is not None
    assert VARIANT.read_pgn_headers(io.StringIO(pgn)) == game.headers


def test_read_game_is_lenient() -> None:
    from boardctl.variants.xiangqi import VARIANT

    assert VARIANT.read_pgn is not None
    bad = '[Game "Chinese Chess"]\n[Red "x"\n\n1. H2-E2 H9-G7 2. H2-E2 H0-G2 *\n'
    game = VARIANT.read_pgn(io.StringIO(bad))
    assert game is not None and game.moves == ("h2e2", "h9g7")
    assert len(game.errors) == 2 and "a tag is" in game.errors[0] and "move 3" in game.errors[1]
    assert VARIANT.read_pgn(io.StringIO("\n\n")) is None
    setup = VARIANT.read_pgn(io.StringIO('[Game "Chinese Chess"]\n[FEN "9/9 w"]\n\n*\n'))
    assert setup is not None and setup.fen == STARTING_FEN and "FEN tag" in setup.errors[0]


def test_adopt_and_faults() -> None:
    from boardctl.variants.xiangqi import VARIANT

    board = XiangqiBoard()
    board.push_uci("h2e2")
    own = VARIANT.adopt(board)
    assert (
        own is not board
        and own.fen() == board.fen()
        and [m.uci() for m in own.move_stack] == ["h2e2"]
    )
    assert VARIANT.faults(board) == []
    broken = XiangqiBoard("4k4/9/9/9/9/9/9/9/9/3K5 w")
    broken.push(broken.parse_uci("d0d1").__class__.from_uci("d0e0"))  # unchecked: the generals face
    assert VARIANT.faults(broken) and "generals face" in VARIANT.faults(broken)[0]
