"""The coach's verdict logic, pure: positions and engine scores in, a verdict out."""

from __future__ import annotations

import pytest

from boardctl.engine_client import MATE_SCORE
from boardctl.learning.coach import (
    NAG_BLUNDER,
    NAG_MISTAKE,
    Category,
    CoachNotes,
    Verdict,
    classify,
    mate_in,
    review,
    review_lines,
)
from boardctl.variants.chess.tactics import Motif, motif

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def verdict(**kw: object) -> Verdict | None:
    args: dict[str, object] = dict(variant="chess", fen=START, ply=0, move="e2e4", san="e4", best="d2d4",
                                   best_san="d4", best_score=30, after_score=30, reply=None)
    args.update(kw)
    return classify(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("best_score", "after_score", "category", "mate", "text"),
    [
        (30, -70, Category.LOSES, None, "e4 loses 1 pawn"),
        (30, -220, Category.LOSES, None, "e4 loses 2.5 pawns"),
        (0, -(MATE_SCORE - 1), Category.ALLOWS_MATE, 1, "e4 allows mate in 1"),
        (250, -(MATE_SCORE - 3), Category.ALLOWS_MATE, 3, "e4 allows mate in 3"),
        (MATE_SCORE - 2, 300, Category.MISSES_MATE, 2, "e4 misses mate in 2 (d4)"),
        (MATE_SCORE - 1, 0, Category.MISSES_MATE, 1, "e4 misses mate in 1 (d4)"),
        (MATE_SCORE - 1, -(MATE_SCORE - 2), Category.ALLOWS_MATE, 2, "e4 allows mate in 2"),
    ],
)
def test_categories_from_scores(best_score: int, after_score: int, category: Category, mate: int | None, text: str) -> None:
    v = verdict(best_score=best_score, after_score=after_score)
    assert v is not None
    assert (v.category, v.mate, v.text) == (category, mate, text)
    assert v.loss == best_score - after_score


@pytest.mark.parametrize(
    ("best_score", "after_score"),
    [(30, 30), (30, -69), (500, 401), (MATE_SCORE - 1, MATE_SCORE - 3), (-(MATE_SCORE - 5), -(MATE_SCORE - 2)), (-400, -450)],
)
def test_good_enough_moves_get_no_verdict(best_score: int, after_score: int) -> None:
    assert verdict(best_score=best_score, after_score=after_score) is None


def test_the_best_move_is_never_judged() -> None:
    assert verdict(move="d2d4", best_score=500, after_score=-500) is None


@pytest.mark.parametrize(("loss", "nag", "mark"), [(100, NAG_MISTAKE, "?"), (299, NAG_MISTAKE, "?"), (300, NAG_BLUNDER, "??"), (2000, NAG_BLUNDER, "??")])
def test_nags(loss: int, nag: int, mark: str) -> None:
    v = verdict(best_score=0, after_score=-loss)
    assert v is not None and v.nag == nag and v.to_json()["nag"] == mark


def test_motifs_name_the_pieces() -> None:
    # 1.e4 e5 2.Ba6?? bxa6: the bishop hangs.
    fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    v = verdict(fen=fen, move="f1a6", san="Ba6", best="g1f3", best_san="Nf3", best_score=30, after_score=-300, reply="b7a6")
    assert v is not None and v.category is Category.HANGS
    assert v.text == "Ba6 hangs the bishop on a6"
    assert v.comment == "Ba6 hangs the bishop on a6; better was Nf3"


@pytest.mark.parametrize(
    ("fen", "move", "reply", "expected"),
    [
        ("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", "d8g5", "f3g5", Motif("hangs", ("queen on g5",))),
        ("r2qk3/8/8/1N6/8/8/8/4K3 b - - 0 1", "d8d5", "b5c7",
         Motif("fork", ("king on e8", "queen on d5", "rook on a8"))),
        ("4k3/3p4/2p5/8/4N3/1B6/8/4K3 w - - 0 1", "b3c4", "d7d5", Motif("fork", ("bishop on c4", "knight on e4"))),
        ("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "e1d1", "e7d7", None),
        ("rnbqkbnr/pppp1ppp/8/4p3/8/3P4/PPP1PPPP/RNBQKBNR b KQkq - 0 2", "f8b4", "c2c3", None),
        ("4k3/8/8/8/8/8/1b6/3QK3 w - - 0 1", "d1d2", "b2c3", Motif("pin", ("queen on d2", "king on e1"))),
        ("k7/r7/8/8/2K5/8/8/1R6 w - - 0 1", "c4b5", "a7b7", Motif("skewer", ("king on b5", "rook on b1"))),
        # a defended piece taken by one worth as much is a trade, not a hanging piece
        ("4k3/8/8/3q4/8/4P3/3Q4/4K3 w - - 0 1", "d2d4", "d5d4", None),
    ],
)
def test_chess_motifs(fen: str, move: str, reply: str, expected: Motif | None) -> None:
    assert motif(fen, move, reply) == expected


def test_motif_refuses_an_illegal_reply() -> None:
    with pytest.raises(ValueError, match="not legal"):
        motif(START, "e2e4", "e2e4")
    with pytest.raises(ValueError, match="not legal"):
        motif(START, "e2e5", "e7e5")


def test_games_without_motifs_fall_back_to_pawns() -> None:
    xq = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
    v = classify(variant="xiangqi", fen=xq, ply=0, move="h2h9", san="C2+7", best="h2e2", best_san="C2.5",
                 best_score=20, after_score=-400, reply="i9h9")
    assert v is not None and v.category is Category.LOSES and v.text == "C2+7 loses 4.2 pawns"


def test_mate_in() -> None:
    assert mate_in(MATE_SCORE - 3) == 3
    assert mate_in(-(MATE_SCORE - 1)) == 1
    assert mate_in(900) is None


def _v(ply: int, loss: int) -> Verdict:
    v = verdict(ply=ply, best_score=0, after_score=-loss)
    assert v is not None
    return v


def test_review_lists_the_three_worst_moves() -> None:
    moves = [_v(0, 150), _v(2, 900), _v(4, 120), _v(6, 900), _v(8, 400)]
    assert [v.ply for v in review(moves)] == [2, 6, 8]
    lines = review_lines(moves)
    assert lines[0] == "1. e4?? e4 loses 9 pawns; better was d4"
    black = verdict(fen="rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12", best_score=0, after_score=-500)
    assert black is not None and black.number == "12..."
    assert len(lines) == 3


def test_notes_follow_takebacks_and_stale_answers() -> None:
    notes = CoachNotes()
    moves = ["e2e4", "e7e5", "f1a6"]
    v = _v(2, 300)
    assert not notes.accept(v, ply=2, move="g1f3", moves=moves)  # the move was taken back and replaced
    assert notes.accept(v, ply=2, move="f1a6", moves=moves)
    assert notes.current is v
    assert notes.annotations() == [{"ply": 3, "nag": NAG_BLUNDER, "comment": v.comment}]
    notes.trim(2)
    assert notes.current is None and notes.verdicts == {}
    # an answer about an older move is kept for the review but not shown as current
    later = ["e2e4", "e7e5", "f1a6", "b7a6", "d2d4"]
    assert not notes.accept(v, ply=2, move="f1a6", moves=later)
    assert notes.review() == [v]


@pytest.mark.parametrize(
    ("variant", "fen", "moves", "marked"),
    [
        ("chess", START, ["e2e4", "e7e5", "f1a6"], "2. Ba6 $4 { Ba6 hangs the bishop on a6; better was Nf3 }"),
        ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1", ["h2e2", "h9g7", "b2b9"],
         "B2-B9 $4 {Ba6 hangs the bishop on a6; better was Nf3}"),
    ],
)
def test_the_review_is_saved_as_nags_and_comments(variant: str, fen: str, moves: list[str], marked: str) -> None:
    from boardctl.storage import GameRecord

    record = GameRecord(id="x", mode="play", white="Human", black="engine", fen=fen, moves=moves, variant=variant,
                        review=[{"ply": 3, "nag": NAG_BLUNDER, "comment": "Ba6 hangs the bishop on a6; better was Nf3"}])
    text = record.pgn_text()
    assert marked in " ".join(text.split()), text
    again = GameRecord.from_json(record.to_json(), where="test")
    assert again.review == record.review


def test_the_watcher_analyses_ahead_and_judges_each_player_move_once() -> None:
    import asyncio

    from boardctl.learning.coach import Coach, CoachWatcher
    from boardctl.variants import get_variant

    class Recorder(Coach):
        def __init__(self) -> None:
            self.prepared: list[str] = []
            self.judged: list[str] = []

        def prepare(self, board):  # type: ignore[no-untyped-def, override]
            self.prepared.append(" ".join(m.uci() for m in board.move_stack))
            return None

        async def judge(self, board, move, *, variant):  # type: ignore[no-untyped-def, override]
            self.judged.append(move.uci())
            return None

    async def scenario() -> tuple[Recorder, list[tuple[object, int, str]]]:
        coach = Recorder()
        delivered: list[tuple[object, int, str]] = []
        watcher = CoachWatcher(coach, deliver=lambda v, ply, move: delivered.append((v, ply, move)))
        board = get_variant("chess").board()
        watcher.observe(board, human=True, variant="chess", over=False)  # the player to move: analyse
        board.push(board.parse_uci("e2e4"))
        for _ in range(3):  # ticks while the engine thinks: the move is judged once
            watcher.observe(board, human=True, variant="chess", over=False)
        pending = board.parse_uci("e7e5")
        for _ in range(3):  # the engine's move shown: the next position is analysed once, ahead
            watcher.observe(board, human=True, variant="chess", over=False, pending=pending)
        await watcher.idle()
        return coach, delivered

    coach, delivered = asyncio.run(scenario())
    assert coach.judged == ["e2e4"] and delivered == [(None, 0, "e2e4")]
    assert coach.prepared == ["", "e2e4 e7e5"]
