"""Which game a record is of, over a catalogue of real records (issue 35, finding 1).

Fifteen master games in Chinese notation were refused by ``games open --variant xiangqi``
because they carry no ``[Game "Chinese Chess"]`` tag, as many published xiangqi PGNs do not.
The catalogue in ``tests/data/xiangqi_records`` (how it was written: ``make.py`` there) holds
published games in the forms people publish them: Chinese with full-width or ASCII digits or
traditional characters, ICCS, WXF, with and without tags, a FEN set-up, comments and variations,
GB18030 and UTF-8 (with a BOM and CRLF). Each must read to its last move with ``--variant
xiangqi``, and without it; ``--variant chess`` is refused naming why. Real chess records are
still chess, and refused for xiangqi naming why.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.commands.games import read_opened
from boardctl.records import RecordError, read_any_record, what_record_says
from boardctl.stepper import read_game_data
from boardctl.variants import get_variant

HERE = Path(__file__).parent / "data" / "xiangqi_records"
EXPECTED = dict(line.split(" ", 1) for line in (HERE / "moves.txt").read_text(encoding="ascii").splitlines())
XIANGQI_FILES = sorted(HERE.glob("*.pgn"))

#: Why each xiangqi file is refused for chess: what it says of itself, else its moves.
WHY_NOT_CHESS = {
    "game-tag": 'its [Game "Chinese Chess"] tag',
    "fen": "its FEN tag has 10 ranks",
}

MORPHY = ("1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 8. Nc3 c6 9. Bg5 b5 "
          "10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 "
          "17. Rd8# 1-0\n")
MORPHY_TAGS = ('[Event "Paris"]\n[Site "Paris FRA"]\n[Date "1858.??.??"]\n[White "Paul Morphy"]\n'
               '[Black "Duke Karl / Count Isouard"]\n[Result "1-0"]\n\n')
#: (name, record, why it is refused for xiangqi)
CHESS_RECORDS = [
    ("tags", MORPHY_TAGS + MORPHY, "its moves are legal chess (e2e4 e7e5 g1f3 d7d6 ...), not xiangqi"),
    ("no-tags", MORPHY, "its moves are legal chess (e2e4 e7e5 g1f3 d7d6 ...), not xiangqi"),
    ("variant-standard", '[Variant "Standard"]\n' + MORPHY_TAGS + MORPHY, 'its [Variant "Standard"] tag'),
    ("game-chess", '[Game "Chess"]\n' + MORPHY_TAGS + MORPHY, 'its [Game "Chess"] tag'),
    ("fen", '[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n\n1. e4 Kd7 *\n', "its FEN tag has 8 ranks"),
    ("latin-1", ('[White "Réti"]\n[Black "Tartakower"]\n\n1. e4 c6 2. d4 d5 3. Nc3 dxe4 4. Nxe4 Nf6 *\n')
     .encode("latin-1"), "its moves are legal chess (e2e4 c7c6 d2d4 d7d5 ...), not xiangqi"),
]


def _stem(path: Path) -> str:
    return path.name.split(".")[0]


def _xiangqi_end(stem: str, fen: str) -> str:
    board = get_variant("xiangqi").board(fen)
    for uci in EXPECTED[stem].split():
        board.push(board.parse_uci(uci))
    return board.fen()


def test_the_catalogue_is_whole() -> None:
    forms = {".".join(p.name.split(".")[1:-1]) for p in XIANGQI_FILES}
    assert len(XIANGQI_FILES) >= 9 and len(forms) == len(XIANGQI_FILES)
    assert sum("game-tag" not in p.name for p in XIANGQI_FILES) >= 8  # all but the control file lack the tag
    for path in XIANGQI_FILES:
        assert _stem(path) in EXPECTED


@pytest.mark.parametrize("named", [None, "xiangqi"], ids=["no-variant", "variant-xiangqi"])
@pytest.mark.parametrize("path", XIANGQI_FILES, ids=lambda p: p.name)
def test_every_real_xiangqi_record_reads_to_its_last_move(path: Path, named: str | None) -> None:
    variant, game = read_any_record(path.read_bytes(), named=named)
    assert variant.name == "xiangqi"
    assert list(game.moves) == EXPECTED[_stem(path)].split()


@pytest.mark.parametrize("path", XIANGQI_FILES, ids=lambda p: p.name)
def test_a_xiangqi_record_is_refused_for_chess_naming_why(path: Path) -> None:
    why = next((w for key, w in WHY_NOT_CHESS.items() if f".{key}." in path.name),
               "its moves are legal xiangqi")
    with pytest.raises(RecordError) as caught:
        read_any_record(path.read_bytes(), named="chess")
    message = str(caught.value)
    assert message.startswith("a xiangqi record") and why in message and "--variant chess was given" in message


@pytest.mark.parametrize(("name", "record", "why"), CHESS_RECORDS, ids=[c[0] for c in CHESS_RECORDS])
def test_a_real_chess_record_is_chess_and_refused_for_xiangqi_naming_why(name: str, record: str | bytes,
                                                                         why: str) -> None:
    for named in (None, "chess"):
        variant, game = read_any_record(record, named=named)
        assert variant.name == "chess" and game.moves
    with pytest.raises(RecordError) as caught:
        read_any_record(record, named="xiangqi")
    assert str(caught.value).startswith("a chess record") and why in str(caught.value), caught.value


@pytest.mark.parametrize(("text", "said"), [
    ('[Game "Chinese Chess"]\n', ("xiangqi", 'its [Game "Chinese Chess"] tag')),
    ('[Game "中国象棋"]\n', ("xiangqi", 'its [Game "中国象棋"] tag')),
    ('[Variant "xiangqi"]\n', ("xiangqi", 'its [Variant "xiangqi"] tag')),
    ('[Variant "Chess960"]\n', ("chess", 'its [Variant "Chess960"] tag')),
    ('[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r - - 0 1"]\n',
     ("xiangqi", "its FEN tag has 10 ranks")),
    ('[Event "x"]\n\n1. 炮二平五 *\n', None),
    ("1. e4 *\n", None),
])
def test_what_a_record_says_of_itself(text: str, said: tuple[str, str] | None) -> None:
    assert what_record_says(text) == said
    assert what_record_says(text.encode("gb18030")) == said


def test_an_xqf_file_says_it_is_xiangqi() -> None:
    assert what_record_says(b"XQ\x0a" + bytes(1021)) == ("xiangqi", "an XQF file")


@pytest.mark.parametrize("path", XIANGQI_FILES, ids=lambda p: p.name)
def test_games_open_and_step_take_the_record_without_a_game_tag(path: Path) -> None:
    variant, fen, _ = read_opened(argparse.Namespace(file=path, ply=None, variant=None))
    start = get_variant("xiangqi").starting_fen if ".fen." not in path.name else read_any_record(
        path.read_bytes())[1].fen
    assert variant == "xiangqi" and fen == _xiangqi_end(_stem(path), start)
    replay = read_game_data(path.read_bytes(), source=str(path), name=path.name, variant_name="xiangqi")
    assert replay.variant == "xiangqi" and list(replay.moves) == EXPECTED[_stem(path)].split()


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "liu-dianzhong-liu-dahua-1997.chinese-fullwidth.tags.gb18030.pgn",
    "liu-dahua-huang-yong-1991.chinese-fullwidth.notags.utf8.pgn",
])
@pytest.mark.parametrize("extra", [[], ["--variant", "xiangqi"]], ids=["no-variant", "variant-xiangqi"])
def test_games_open_on_the_real_daemon(tmp_path: Path, name: str, extra: list[str]) -> None:
    """The report's command: ``games open FILE --variant xiangqi`` on a record without the tag."""
    out = subprocess.run(
        [sys.executable, "-m", "boardctl", "games", "open", str(HERE / name), "--mode", "record", "--board", "sim",
         "--stdio", "--no-web", "--games-dir", str(tmp_path / "games"), *extra],
        input='{"t": 0}\n', capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    first = json.loads(out.stdout.splitlines()[0])
    assert first["variant"] == "xiangqi"
    assert first["fen"] == _xiangqi_end(name.split(".")[0], get_variant("xiangqi").starting_fen)


@pytest.mark.parametrize(("text", "fault"), [
    ("1. 炮二平五 马８进７ 2. 马二进四 *\n", "马二进四"),  # the horse's leg is blocked by the elephant
    ('[Event "x"]\n\n1. H2-E2 H9-G7 2. H0-H5 *\n', "a horse cannot go from h0 to h5"),
    ("1. C2.5 H8+7 2. H2+4 *\n", "H2+4"),
    ("1. e4 e5 2. Ke3 *\n", "Ke3"),
])
def test_a_broken_record_names_its_fault_in_the_game_it_looks_like(text: str, fault: str) -> None:
    with pytest.raises(RecordError) as caught:
        read_any_record(text)
    assert fault in str(caught.value), caught.value
