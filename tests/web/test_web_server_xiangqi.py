"""The web server's game-neutral parts on xiangqi: annotations, the viewer, the games list, PGN."""

from __future__ import annotations

from pathlib import Path

from boardctl.storage import GameRecord
from boardctl.variants import get_variant
from boardctl.web.server import Annotator, game_for_viewer, list_games, pgn_from_state

XQ = get_variant("xiangqi")


def test_annotator_speaks_the_lines_game() -> None:
    annotator = Annotator()
    out = annotator.annotate({"variant": "xiangqi", "moves": ["h2e2", "h9g7"], "pending": "h0g2",
                              "orientation": "normal", "occupancy": XQ.geometry.to_hex(XQ.board().occupied)})
    assert out["san"] == ["C2.5", "H8+7"] and out["pending_san"] == "H2+3"
    assert out["opening"] == "中炮对屏风马 central cannon vs screen horses"  # the engine book's names (issue 35)
    assert out["can_promote"] is False and out["check"] is None
    # The pieces still stand as at the start: what to put where, in plain words with xiangqi names.
    assert out["board_hint"] == (
        "The board differs from the game: put back cannon e2, horse g7; take the pieces off h2, h9."
    )
    # The same annotator goes back to chess when the line does.
    assert annotator.annotate({"moves": ["e2e4"]})["san"] == ["e4"]
    assert "san" not in annotator.annotate({"variant": "shogi", "moves": ["h2e2"]})


def test_a_saved_xiangqi_game_is_listed_and_viewed(tmp_path: Path) -> None:
    record = GameRecord(id="g", mode="record", white="Red player", black="Black player", fen=XQ.starting_fen,
                        moves=["h2e2", "h9g7", "h0g2"], result="*", variant="xiangqi")
    path = tmp_path / "g.pgn"
    path.write_text(record.pgn_text(), encoding="utf-8")
    [listed] = list_games(tmp_path)
    assert (listed["white"], listed["black"]) == ("Red player", "Black player")
    data = game_for_viewer(path)
    assert data["moves"] == ["h2e2", "h9g7", "h0g2"] and len(data["fens"]) == 4
    assert data["headers"]["Game"] == "Chinese Chess" and data["errors"] == []


def test_pgn_from_a_xiangqi_state_line() -> None:
    text = pgn_from_state({"variant": "xiangqi", "moves": ["h2e2", "h9g7"], "result": "*"})
    assert text.startswith('[Game "Chinese Chess"]') and "1. H2-E2 H9-G7 *" in text
