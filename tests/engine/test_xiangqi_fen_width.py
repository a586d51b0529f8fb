"""Issue 29, finding 7: a xiangqi FEN with more than nine points in a rank (``rnbakabnrr/...``) is
refused, by the engine's FEN reader and by its UCI loop (``info string error: ...``, the previous
position kept), as the board's own FEN reader refuses it; never cut short into another position."""

from __future__ import annotations

import pytest
from test_xiangqi_uci import START, Session

from boardctl.variants import get_variant
from engine.xq_judge import legal_moves
from engine.xq_position import XiangqiError, parse_fen

WIDE = [
    "rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",  # ten pieces on rank 9
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w - - 0 1",  # ten on rank 0
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P1/1C5C1/9/RNBAKABNR w - - 0 1",  # nine points, then a pawn
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1p/9/RNBAKABNR w - - 0 1",
]


@pytest.mark.parametrize("fen", WIDE)
def test_a_rank_of_more_than_nine_points_is_refused(fen: str) -> None:
    with pytest.raises(XiangqiError, match=r"more than 9 files|does not have 9 files"):
        parse_fen(fen)
    with pytest.raises(ValueError):  # the board's own reader agrees: one judge of a FEN
        get_variant("xiangqi").board(fen)


@pytest.fixture()
def session() -> Session:
    s = Session()
    s.send("uci")
    s.until("uciok")
    s.send("setoption name UCI_Variant value xiangqi")
    s.send("isready")
    s.until("readyok")
    yield s  # type: ignore[misc]
    s.close()


@pytest.mark.slow
def test_the_engine_refuses_it_and_keeps_the_previous_position(session: Session) -> None:
    session.send("position startpos moves h2e2")
    for fen in WIDE:
        session.send(f"position fen {fen}")
    session.send("go perft 1")
    lines = session.until("Nodes searched")
    errors = [ln for ln in lines if ln.startswith("info string error") and "9 files" in ln]
    assert len(errors) == len(WIDE), lines
    assert lines[-1] == f"Nodes searched: {len(legal_moves(START, ['h2e2']))}"
