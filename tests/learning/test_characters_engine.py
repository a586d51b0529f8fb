"""Characters through the engine: every character's options are accepted by our engine over UCI,
its repertoire is its book, styles change the evaluation, and ``play --opponent`` plays one."""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import chess
import chess.engine
import numpy as np
import pytest

from boardctl.engine_client import level_of
from boardctl.learning.characters import (
    BOOK_OPTION,
    NEUTRAL_OPTIONS,
    STYLES,
    Character,
    find_character,
    load_characters,
)
from engine.evaluate import eval_tables
from engine.searcher import Limits, Searcher, Strength
from engine.style import (
    Repertoire,
    Style,
    StyleError,
    contempt_choice,
    is_drawing,
    is_near_enemy_king,
    pick_weight,
    style_tables,
)
from engine.uci import OPTIONS, UciProtocol

ENGINE_CMD = [sys.executable, "-m", "engine"]
CHARACTERS = load_characters(user_file=Path("/nonexistent/characters.toml"))


@pytest.fixture(scope="module")
def engine() -> Iterator[chess.engine.SimpleEngine]:
    Searcher(hash_mb=1).warm()
    eng = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=120)
    try:
        yield eng
    finally:
        eng.quit()


def _protocol() -> tuple[UciProtocol, list[str]]:
    out: list[str] = []
    return UciProtocol(out.append, warm=False), out


def _go(proto: UciProtocol, out: list[str], command: str) -> str:
    """Send ``command`` (a ``go``) and wait up to 60 s for its ``bestmove``; the move, as UCI."""
    proto.handle(command)
    deadline = time.monotonic() + 60
    while not any(line.startswith("bestmove") for line in out) and time.monotonic() < deadline:
        time.sleep(0.01)
    found = [line for line in out if line.startswith("bestmove")]
    assert found, out[-3:]
    return found[-1].split()[1]


@pytest.mark.parametrize("character", CHARACTERS, ids=lambda c: c.id)
def test_every_option_of_every_character_is_accepted(character: Character) -> None:
    proto, out = _protocol()
    c = character
    options = {**{k: str(v) for k, v in level_of(c.level).uci_options().items()}, **c.uci_options}
    for name, value in options.items():
        proto.handle(f"setoption name {name} value {value}")
    assert not [line for line in out if "error" in line], out
    assert proto.values[BOOK_OPTION] == c.uci_options[BOOK_OPTION]
    assert proto._repertoire is not None and proto._repertoire.lines == len(c.book_lines)


def test_neutral_options_are_the_engine_defaults() -> None:
    defaults = {o.name: o.default for o in OPTIONS}
    for name, value in NEUTRAL_OPTIONS.items():
        assert str(defaults[name]) == value or (value == "<empty>" and defaults[name] == "")


def test_options_are_declared() -> None:
    proto, out = _protocol()
    proto.handle("uci")
    assert "option name Style KingAttack type spin default 100 min 0 max 400" in out
    assert "option name Style KingSafety type spin default 100 min 0 max 400" in out
    assert "option name Contempt type spin default 0 min -200 max 200" in out
    assert "option name Book Lines type string default <empty>" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [("1. e4 xx", "'xx' is not a legal move after 1 plies"),
     ("1. e4 e5 2. Qh5 Qxh5", "'Qxh5' is not a legal move after 3 plies"),
     ("1. e4 e5;2. Ke2", "book line 2"),
     ("Nf3 Nf6 Ng1 Ng8 " * 16, "longer than 60 plies"),
     ("x" * 70_000, "longer than 60000 characters")],
)
def test_bad_book_lines_are_refused_by_name(text: str, message: str) -> None:
    with pytest.raises(StyleError, match=message):
        Repertoire.from_text(text)
    proto, out = _protocol()
    proto.handle("setoption name Book Lines value 1. d4")
    proto.handle(f"setoption name Book Lines value {text}")
    assert any(message.split("'")[0] in line and "error" in line for line in out), out
    assert proto._repertoire is not None and proto._repertoire.lines == 1  # the old book stays


@pytest.mark.slow
def test_repertoire_is_the_book_even_at_fixed_nodes(engine: chess.engine.SimpleEngine) -> None:
    """Every move a character plays from its repertoire position is one of its lines' moves."""
    c = find_character("felix", characters=CHARACTERS)
    engine.configure({BOOK_OPTION: c.uci_options[BOOK_OPTION], "OwnBook": False})
    repertoire = Repertoire.from_text(c.uci_options[BOOK_OPTION])
    seen = set()
    for _ in range(12):
        board = chess.Board()
        while True:
            result = engine.play(board, chess.engine.Limit(nodes=200), info=chess.engine.INFO_ALL)
            assert result.move is not None
            if repertoire._moves.get(board.epd()) is None:
                break
            assert result.move.uci() in repertoire._moves[board.epd()], (board.fen(), result.move)
            board.push(result.move)
            if board.ply() > 30:
                break
        seen.add(" ".join(m.uci() for m in board.move_stack))
        assert board.ply() >= 3  # 1. e4 e5 2. Nf3 ... or 1. d4 Nf6 2. c4 ...: at least the first moves
    assert len(seen) >= 2  # the repertoire's lines vary from game to game
    engine.configure({BOOK_OPTION: "<empty>", "OwnBook": True})


def test_book_lines_answer_as_black() -> None:
    rep = Repertoire.from_text("1. e4 c6;1. d4 d5 2. c4 c6")
    rng = __import__("random").Random(1)
    board = chess.Board()
    board.push_san("e4")
    assert rep.pick(board, rng) == chess.Move.from_uci("c7c6")
    board = chess.Board()
    for san in ("d4", "d5", "c4"):
        board.push_san(san)
    assert rep.pick(board, rng) == chess.Move.from_uci("c7c6")
    board.push_san("e6")  # not in the lines (and not Black's turn): out of book
    assert rep.pick(board, rng) is None


def test_material_scale_changes_piece_values_only() -> None:
    base = np.asarray(eval_tables())
    heavy = np.asarray(style_tables(Style(scales=(("Style Material", 150),))))
    assert heavy.shape == base.shape and (heavy != base).any()
    assert (np.asarray(style_tables(Style(scales=(("Style Material", 100),)))) == base).all()


SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]  # ...f6g8 repeats the start a third time


def _fake_child(ours: dict[str, int]) -> Callable[[chess.Board], int | None]:
    """A child search: the score for the side to move after our move, so minus ours (-5 unless given)."""
    return lambda child: -ours.get(child.peek().uci(), -5)


@pytest.mark.parametrize(
    ("contempt", "best", "score", "children", "expected"),
    [
        (0, "f6g8", 0, {}, "f6g8"),                      # no contempt: the search's move
        (50, "f6g8", 0, {}, "not-f6g8"),                  # avoids the repetition: others are -5 >= -50
        (50, "f6g8", 0, {"e7e5": 80}, "e7e5"),            # the best of the others
        (3, "f6g8", 0, {}, "f6g8"),                        # the others (-5) are worse than -contempt (-3)
        (-50, "e7e5", 10, {}, "f6g8"),                     # seeks the draw: not better by 50
        (-50, "e7e5", 60, {}, "e7e5"),                     # better by more than 50: plays on
    ],
)
def test_contempt_choice(contempt: int, best: str, score: int, children: dict[str, int], expected: str) -> None:
    board = chess.Board()
    for uci in SHUFFLE:
        board.push_uci(uci)
    assert is_drawing(board, chess.Move.from_uci("f6g8"))
    move = contempt_choice(board, chess.Move.from_uci(best), score, contempt, _fake_child(children)).uci()
    if expected.startswith("not-"):
        assert move not in expected.split("-")[1:] and not is_drawing(board, chess.Move.from_uci(move)), move
    else:
        assert move == expected


@pytest.mark.parametrize(("contempt", "draws"), [(-150, True), (150, False)])
def test_contempt_over_uci(contempt: int, draws: bool) -> None:
    proto, out = _protocol()
    proto.handle(f"setoption name Contempt value {contempt}")
    proto.handle("position startpos moves " + " ".join(SHUFFLE))
    move = _go(proto, out, "go nodes 3000")
    assert (move == "f6g8") == draws, out[-3:]


#: (plies of SHUFFLE played, contempt, whether the search repeats, the score it must give or None):
#: White to move after 4 plies (slightly better) and Black after 5 (slightly worse) can each repeat
#: a position once, which the search scores as a draw: worth -contempt to the side to move.
CONTEMPT_IN_SEARCH = [
    (4, -60, True, 60),    # White takes the draw, now worth +60 to it
    (4, -100, True, 100),
    (4, 0, False, None),   # better than a draw: plays on
    (4, 60, False, None),
    (5, -60, True, 60),    # Black, worse, takes the draw at any contempt below its deficit
    (5, -150, True, 150),  # a solid defender's contempt
    (5, 0, True, 0),
    (5, 100, False, None),  # a draw worth -100 is worse than its position: plays on
    (5, 200, False, None),
]


@pytest.mark.parametrize(("plies", "contempt", "repeats", "score"), CONTEMPT_IN_SEARCH)
def test_search_scores_draws_by_contempt(plies: int, contempt: int, repeats: bool, score: int | None) -> None:
    board = chess.Board()
    for uci in SHUFFLE[:plies]:
        board.push_uci(uci)
    repeat = chess.Move.from_uci(SHUFFLE[plies])
    searcher = Searcher(hash_mb=1)
    searcher.contempt = contempt
    result = searcher.search(board, Limits(depth=6))
    assert result.info is not None
    assert (result.best == repeat) == repeats, (result.best, result.info.score_cp)
    if score is not None:
        assert result.info.score_cp == score
    else:
        assert result.info.score_cp is not None and result.info.score_cp > -contempt


def test_contempt_option_reaches_the_search() -> None:
    """Over UCI, Black (worse) repeats with Contempt -60, scoring the draw +60, and not with 100."""
    for contempt, repeats in ((-60, True), (100, False)):
        proto, out = _protocol()
        proto.handle(f"setoption name Contempt value {contempt}")
        proto.handle("position startpos moves " + " ".join(SHUFFLE[:5]))
        move = _go(proto, out, "go depth 6")
        assert (move == SHUFFLE[5]) == repeats, out[-3:]
        if repeats:
            assert any(" score cp 60 " in line for line in out if line.startswith("info depth 6")), out[-3:]


def test_styles_search_differently() -> None:
    """A position where grabbing material and keeping it safe pull apart: the materialist's and
    the attacker's searches score it differently (same nodes, same position)."""
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"  # Kiwipete: nothing cancels
    scores = {}
    for style in ("materialist", "attacker", "solid defender"):
        proto, out = _protocol()
        for name, value in STYLES[style].items():
            proto.handle(f"setoption name {name} value {value}")
        proto.handle(f"position fen {fen}")
        _go(proto, out, "go depth 4")
        infos = [line for line in out if line.startswith("info depth 4 ")]
        assert infos, out
        scores[style] = infos[-1].split(" score ")[1].split(" nodes")[0]
    assert len(set(scores.values())) == 3, scores


#: (Style KingAttack, position, move, the factor on its chance in the weakened pick). White: king
#: e6, knight g5, rook a1; Black: king e8 (and, Black to move, a knight b8 and a rook h1).
PICK_WEIGHTS = [
    (340, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "g5f7", 3.4),   # next to the king
    (340, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "g5h7", 1.0),   # three squares away
    (340, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "e6d6", 1.0),   # the king itself does not count
    (340, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "a1a7", 1.0),
    (340, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "a1a8", 1.0),   # a8 is four files from e8
    (340, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "a1c1", 1.0),
    (220, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "g5f7", 2.2),   # the gambiteer's
    (40, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "g5f7", 0.4),    # the defender keeps them home
    (40, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "g5e4", 1.0),
    (0, "4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1", "g5f7", 0.1),     # never quite never
    (340, "1n2k3/8/4K3/6N1/8/8/8/5r2 b - - 0 1", "f1f5", 3.4),  # Black: near the white king
    (340, "1n2k3/8/4K3/6N1/8/8/8/5r2 b - - 0 1", "f1a1", 1.0),
    (340, "1n2k3/8/4K3/6N1/8/8/8/5r2 b - - 0 1", "b8c6", 3.4),  # two files from e6
    (340, "1n2k3/8/4K3/6N1/8/8/8/5r2 b - - 0 1", "b8a6", 1.0),
]


@pytest.mark.parametrize(("attack", "fen", "uci", "factor"), PICK_WEIGHTS)
def test_pick_weight_favours_moves_near_the_enemy_king(attack: int, fen: str, uci: str, factor: float) -> None:
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    assert move in board.legal_moves
    weight = pick_weight(Style(scales=(("Style KingAttack", attack), ("Style Material", 80))))
    assert weight is not None
    assert weight(board, move) == pytest.approx(factor)


def test_no_pick_weight_without_a_king_attack_scale() -> None:
    assert pick_weight(Style()) is None
    assert pick_weight(Style(scales=(("Style KingAttack", 100), ("Style Material", 150)))) is None


@functools.cache
def _middle_games(count: int) -> tuple[str, ...]:
    """Varied middle games: the ends of the longest named opening lines, played on 16 plies by
    the plain engine at 400 nodes a move (deterministic)."""
    from importlib import resources

    rows = resources.files("boardctl").joinpath("data/openings.tsv").read_text(encoding="utf-8").splitlines()[1:]
    rows.sort(key=lambda row: (-row.split("\t")[2].count("."), row))
    searcher = Searcher(hash_mb=1)
    out = []
    for row in rows[:count]:
        board = chess.Board(row.split("\t")[3] + " 0 1")
        for _ in range(16):
            move = searcher.search(board, Limits(nodes=400)).best
            if not isinstance(move, chess.Move):
                break
            board.push(move)
        if not board.is_game_over():
            out.append(board.fen())
    return tuple(out)


def _near_king_share(style: Style, *, weighted: bool, skill: int) -> float:
    strength = Strength.from_skill(skill)
    searcher = Searcher(hash_mb=1, seed=7)
    searcher.pick_weight = pick_weight(style) if weighted else None
    near = total = 0
    for fen in _middle_games(30):
        board = chess.Board(fen)
        searcher.ev = style_tables(style, 0 if board.turn == chess.WHITE else 1)
        searcher.clear()
        for _ in range(3):
            move = searcher.search(board, Limits(nodes=300), strength=strength).best
            assert isinstance(move, chess.Move) and move in board.legal_moves
            near += is_near_enemy_king(board, move)
            total += 1
    return near / total


@pytest.mark.slow
@pytest.mark.parametrize("skill", [3, 8])
def test_a_weakened_attacker_errs_towards_the_king(skill: int) -> None:
    """Below full strength the random pick among near-best moves drowned the attacker's king attack
    (docs/learning.md); with the style's pick weight the attacker brings pieces near the king more
    often than without it, and more than the defender does (seeded: the same picks every run)."""
    attacker = Style(scales=tuple(sorted((k, int(v)) for k, v in STYLES["attacker"].items() if k != "Contempt")))
    defender = Style(scales=tuple(sorted((k, int(v)) for k, v in STYLES["solid defender"].items() if k != "Contempt")))
    plain = _near_king_share(attacker, weighted=False, skill=skill)
    weighted = _near_king_share(attacker, weighted=True, skill=skill)
    home = _near_king_share(defender, weighted=True, skill=skill)
    assert weighted >= 1.25 * plain, (plain, weighted)
    assert weighted >= 1.5 * home, (weighted, home)


def test_king_attack_option_sets_the_pick_weight() -> None:
    proto, out = _protocol()
    proto.handle("setoption name Style KingAttack value 340")
    proto.handle("position fen 4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1")
    _go(proto, out, "go depth 2")
    searcher = proto._searcher
    assert searcher is not None and searcher.pick_weight is not None
    board = chess.Board("4k3/8/4K3/6N1/8/8/8/R7 w - - 0 1")
    assert searcher.pick_weight(board, chess.Move.from_uci("g5f7")) == pytest.approx(3.4)
    out.clear()
    proto.handle("setoption name Style KingAttack value 100")
    _go(proto, out, "go depth 2")
    assert searcher.pick_weight is None


def test_contempt_alone_keeps_the_style_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The style's evaluation tables are rebuilt when the style or the side changes, not when only
    the contempt does (the hash table is still cleared: its draws were worth another value)."""
    import engine.style

    built: list[tuple[Style, int]] = []
    real = engine.style.style_tables

    def counting(style: Style, side: int = 0) -> np.ndarray:
        built.append((style, side))
        return real(style, side)

    monkeypatch.setattr(engine.style, "style_tables", counting)
    proto, out = _protocol()
    for name, value in STYLES["attacker"].items():
        proto.handle(f"setoption name {name} value {value}")
    steps = [("startpos", None, 1), ("startpos", "-150", 1), ("startpos moves e2e4", None, 2),
             ("startpos moves e2e4", "0", 2), ("startpos", None, 3)]
    for position, contempt, tables in steps:
        if contempt is not None:
            proto.handle(f"setoption name Contempt value {contempt}")
        out.clear()
        proto.handle(f"position {position}")
        _go(proto, out, "go depth 1")
        assert len(built) == tables, (position, contempt, built)
    assert [side for _, side in built] == [0, 1, 0]


def _support() -> object:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import test_daemon_support

    return test_daemon_support


@pytest.mark.slow
def test_play_opponent_plays_the_character_and_rates_the_game(tmp_path: Path) -> None:
    support = _support()
    games = tmp_path / "games"
    data = tmp_path / "data"
    daemon = support.Daemon("play", games, "--color", "white", "--opponent", "Gus Gambit", engine="",  # type: ignore[attr-defined]
                            env={"XDG_DATA_HOME": str(data)})
    first = daemon.send({"t": 0})
    assert first["opponent"] == "Gus Gambit (1000)" and first["level"] == find_character("gus").level
    board = chess.Board()
    line = daemon.play(chess.Move.from_uci("e2e4"), board)
    board.push_san("e4")
    reply = daemon.engine_line()
    # Gus's repertoire answers 1. e4 with the Elephant Gambit's 1... e5 (Danish, Elephant, Englund)
    assert reply["pending"] == "e7e5", reply
    assert line["opponent"] == "Gus Gambit (1000)"
    resigned = daemon.button("resign")
    assert resigned["result"] == "0-1"
    assert daemon.close() == 0, daemon.stderr
    (pgn,) = games.glob("*.pgn")
    assert '[Black "Gus Gambit (1000)"]' in pgn.read_text()
    rating = json.loads((data / "boardctl" / "rating.json").read_text())
    assert rating["history"][0]["opponent"] == "Gus Gambit" and rating["history"][0]["score"] == 0.0
    assert rating["rating"] < 1200


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "message"),
    [(("--opponent", "nobody-at-all"), "no character 'nobody-at-all'"),
     (("--opponent", "gus", "--level", "beginner"), "--opponent and --level: choose one"),
     (("--opponent", "gus", "--variant", "xiangqi"), "--opponent: Gus Gambit plays chess, not xiangqi"),
     (("--opponent", "laozhang"), "--opponent: Old Zhang plays xiangqi, not chess")],
)
def test_play_opponent_refuses_clearly(tmp_path: Path, extra: tuple[str, ...], message: str) -> None:
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "boardctl", "play", "--board", "sim", "--stdio", "--no-web",
                           "--games-dir", str(tmp_path / "games"), *extra], input="", capture_output=True,
                          text=True, timeout=60, env={**__import__("os").environ, "XDG_CONFIG_HOME": str(tmp_path)})
    assert proc.returncode != 0
    assert message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.slow
def test_a_resumed_game_keeps_its_character(tmp_path: Path) -> None:
    support = _support()
    games = tmp_path / "games"
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    first = support.Daemon("play", games, "--color", "white", "--opponent", "gus", engine="", env=env)  # type: ignore[attr-defined]
    first.send({"t": 0})
    first.play(chess.Move.from_uci("e2e4"), chess.Board())
    assert first.engine_line()["pending"] == "e7e5"
    assert first.close() == 0, first.stderr
    again = support.Daemon("play", games, engine="", env=env)  # type: ignore[attr-defined]
    assert again.send({"t": 0})["opponent"] == "Gus Gambit (1000)"
    assert again.close() == 0
    other = support.Daemon("play", games, "--opponent", "ilya", engine="", env=env)  # type: ignore[attr-defined]
    assert other.send({"t": 0})["opponent"] == "Gus Gambit (1000)"
    assert other.close() == 0
    assert "the unfinished game is against Gus Gambit (1000)" in other.stderr


XIANGQI_CHARACTERS = load_characters(user_file=Path("/nonexistent/characters.toml"), game="xiangqi")


@pytest.mark.parametrize("character", XIANGQI_CHARACTERS, ids=lambda c: c.id)
def test_every_xiangqi_character_is_played_by_the_xiangqi_engine_from_its_repertoire(character: Character) -> None:
    """Issue 35, finding 11: xiangqi characters, their styles through the xiangqi engine's options
    (engine/xq_style.py) and their openings from the xiangqi book as the engine's repertoire."""
    proto, out = _protocol()
    proto.handle("setoption name UCI_Variant value xiangqi")
    options = {**{k: str(v) for k, v in level_of(character.level).uci_options().items()}, **character.uci_options}
    for name, value in options.items():
        proto.handle(f"setoption name {name} value {value}")
    assert not [line for line in out if "error" in line], out
    assert proto._xq_repertoire is not None and proto._xq_repertoire.lines == len(character.book_lines)
    first_moves = {line.split()[0] for line in character.book_lines}
    proto.handle("position startpos")
    assert _go(proto, out, "go movetime 50") in first_moves
    assert any("(repertoire)" in line for line in out)
