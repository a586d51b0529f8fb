"""bench/characters.py's figures from games: the counts, the metrics, the claims and Spearman."""

from __future__ import annotations

import chess
import pytest

from bench.characters import (
    OWN,
    RESIGN_PLIES,
    Claim,
    Metrics,
    Record,
    Resign,
    Side,
    character_verdicts,
    load_state,
    metrics,
    round_robin_jobs,
    side_counts,
    spearman,
    style_jobs,
    todo,
)
from boardctl.learning.characters import Character


@pytest.mark.parametrize(
    ("xs", "ys", "rho"),
    [([1, 2, 3, 4], [10, 20, 30, 40], 1.0), ([1, 2, 3, 4], [4, 3, 2, 1], -1.0),
     ([1, 2, 3], [1, 1, 1], 0.0), ([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], 0.8),
     ([800, 1000, 1000, 2000], [0, 1, 1, 3], 1.0)],
)
def test_spearman(xs: list[float], ys: list[float], rho: float) -> None:
    assert spearman(xs, ys) == pytest.approx(rho)


def _game(sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans.split():
        board.push_san(san)
    return board


def test_side_counts_of_scholars_mate() -> None:
    board = _game("e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#")
    white, black = side_counts(board, chess.WHITE), side_counts(board, chess.BLACK)
    # e4, Bc4 and Qh5 land 4, 4 and 3 squares from the king on e8; Qxf7 lands next to it
    assert white == Side(moves=4, near_king=1, pawn_moves=1, captures=1, deficit=0.0)
    assert black.moves == 3 and black.captures == 0 and black.pawn_moves == 1
    assert black.deficit == 0.0  # black's material after each of its moves: never behind yet


def test_deficit_counts_material_given_up() -> None:
    # A gambit for Black: after ...d5 level, after ...Nf6 and ...e6 a pawn down, after ...Bxe6
    # (two pawns taken, one back) still a pawn down
    board = _game("e4 d5 exd5 Nf6 c4 e6 dxe6 Bxe6")
    black = side_counts(board, chess.BLACK)
    assert black.deficit == pytest.approx(0 + 1 + 1 + 1)
    assert side_counts(board, chess.WHITE).deficit == 0


def test_claims_are_strict() -> None:
    zero = Metrics(1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    more = Metrics(1, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    claim = Claim("x", "a", "b", "near_king", 1.25)
    assert not claim.check({"a": zero, "b": zero})[0]  # 0 vs 0 is no difference
    assert claim.check({"a": more, "b": zero})[0]
    assert not claim.check({"a": Metrics(1, 0.24, 0, 0, 0, 0, 0, 0), "b": Metrics(1, 0.2, 0, 0, 0, 0, 0, 0)})[0]


def test_metrics_and_state_round_trip(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "state.jsonl"
    records = [
        Record("style", "vera", "level-2000", "1-0", "checkmate", 40,
               {"white": Side(20, 5, 4, 3, 10.0), "black": Side(20, 1, 6, 2, 0.0)}, "e2e4"),
        Record("style", "level-2000", "vera", "1/2-1/2", "threefold_repetition", 60,
               {"white": Side(30, 2, 5, 4, 0.0), "black": Side(30, 9, 6, 6, 5.0)}, "e2e4"),
    ]
    import json

    path.write_text("".join(json.dumps(r.to_json()) + "\n" for r in records) + '{"cut": ', encoding="utf-8")
    loaded = load_state(path)
    assert loaded == records  # the line cut by a kill is dropped
    m = metrics(loaded, "vera")
    assert m.games == 2 and m.near_king == pytest.approx(14 / 50) and m.deficit == pytest.approx(15 / 50)
    assert m.length == 50 and m.draw_rate == 0.5 and m.score == 0.75
    assert m.pawn_moves == pytest.approx(10 / 50) and m.captures == pytest.approx(9 / 50)


def _rec(white: str, black: str, result: str, plies: int, w: Side, b: Side) -> Record:
    return Record("style", white, black, result, "x", plies, {"white": w, "black": b}, "")


def test_metrics_pool_several_characters() -> None:
    records = [_rec("a", "level-own", "1-0", 40, Side(20, 4, 0, 0, 0.0), Side(20, 0, 0, 0, 0.0)),
               _rec("level-own", "b", "1/2-1/2", 60, Side(30, 0, 0, 0, 0.0), Side(30, 3, 0, 0, 30.0))]
    both = metrics(records, ("a", "b"))
    assert both.games == 2 and both.near_king == pytest.approx(7 / 50) and both.deficit == pytest.approx(30 / 50)
    assert both.draw_rate == 0.5 and both.score == 0.75 and both.length == 50
    assert metrics(records, "a").games == 1


def _char(ident: str, style: str, rating: int = 1500) -> Character:
    return Character(id=ident, name=ident, rating=rating, style=style, profile="", initials="", level="1500",
                     uci_options={}, openings=())


@pytest.mark.parametrize(("att_near", "def_near", "att_ok", "def_ok"), [
    (6, 4, True, True),  # 0.30 vs 0.20: 1.5x
    (3, 2, True, True),  # 0.15 vs 0.10
    (6, 5, False, False),  # 0.30 vs 0.25: 1.2x, below the margin
    (4, 4, False, False),
    (2, 4, False, False),
])
def test_each_character_is_judged_against_the_other_styles_pool(att_near: int, def_near: int, att_ok: bool,
                                                                 def_ok: bool) -> None:
    opp = Side(20, 0, 0, 0, 0.0)
    records = [_rec("att", "level-own", "1-0", 40, Side(20, att_near, 0, 0, 0.0), opp),
               _rec("level-own", "def", "1/2-1/2", 40, opp, Side(20, def_near, 0, 0, 0.0))]
    verdicts = character_verdicts(records, [_char("att", "attacker"), _char("def", "solid defender"),
                                            _char("idle", "gambiteer")])
    near = {v.character: v.ok for v in verdicts if v.claim.metric == "near_king"}
    assert near == {"att": att_ok, "def": def_ok}
    assert all(v.character != "idle" for v in verdicts)  # no games: not judged
    # every claim between the two styles is judged for each of them
    assert {v.claim.metric for v in verdicts if v.character == "att"} == {"near_king", "deficit", "draw_rate"}


def test_resign_after_so_many_plies_far_behind() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1")  # White 18 pawns up
    resign = Resign()
    verdicts = []
    for _ in range(RESIGN_PLIES):
        verdicts.append(resign(board))
    assert verdicts[:-1] == [None] * (RESIGN_PLIES - 1) and verdicts[-1] == ("1-0", "material")
    level = Resign()
    assert all(level(chess.Board()) is None for _ in range(3 * RESIGN_PLIES))


def test_jobs_alternate_colours_and_resume_from_the_saved_games() -> None:
    chars = [_char("att", "attacker", 1700), _char("def", "solid defender", 900)]
    jobs = style_jobs(chars, 4, OWN)
    assert len(jobs) == 8
    assert [j.white for j in jobs[:4]] == ["att", "def", "level-own", "level-own"]
    assert jobs[0].black_npc.engine_level == "1500"  # the plain engine at the character's own level
    assert not jobs[0].black_npc.uci_options
    fixed = style_jobs(chars, 2, "2000")
    assert {j.black_npc.engine_level for j in fixed[:2]} == {"2000"}
    saved = [_rec("att", "level-own", "1-0", 10, Side(), Side())]
    left = todo(jobs, saved)
    assert len(left) == 7 and left[0].white == "def"
    rr = round_robin_jobs(chars)
    assert [(j.white, j.black) for j in rr] == [("att", "def"), ("def", "att")]


def test_a_game_of_the_loop_becomes_a_saved_record() -> None:
    from boardctl.learning.npc_games import NpcGame

    game = NpcGame("Vera Vortex", "level-own", "1-0", "checkmate",
                   ("e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"), 1.0)
    record = Record.from_game("style", "vera", "level-own", game)
    assert record.plies == 7 and record.result == "1-0" and record.ending == "checkmate"
    assert record.sides["white"] == side_counts(_game("e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#"), chess.WHITE)
    assert record.moves.split() == list(game.moves)
    assert Record.from_json(record.to_json()) == record


def test_report_skips_saved_round_robin_games_when_none_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    """``--report --round-robin ''`` over a state that holds round-robin games: no Spearman, no crash."""
    from bench.characters import report
    from boardctl.learning.characters import load_characters

    characters = load_characters()
    rr = Record("rr", "benny", "max", "0-1", "checkmate", 30, {"white": Side(15), "black": Side(15)}, "")
    assert report([rr], [], [], "own", characters) == 0
    assert "Spearman" not in capsys.readouterr().out
    assert report([rr], [], ["benny", "max"], "own", characters) == 0  # the stronger won: rho 1
    assert "PASS Spearman(rating, score) = 1.000" in capsys.readouterr().out
