"""The game-neutral UCI client (boardctl.uci) against real engine subprocesses: a scripted one
(tests/uci_fake_engine.py) for each behaviour, and the bundled engine playing xiangqi."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from boardctl.engine_client import MATE_SCORE, resolve_command
from boardctl.errors import EngineError
from boardctl.uci import UciEngine, UciOption, parse_info
from boardctl.variants import get_variant

FAKE = str(Path(__file__).with_name("uci_fake_engine.py"))
XIANGQI = get_variant("xiangqi")


def fake(log: Path, behaviour: str = "normal", **kwargs: object) -> UciEngine:
    return UciEngine([sys.executable, FAKE, str(log), behaviour], variant="xiangqi", **kwargs)  # type: ignore[arg-type]


def board_after(*moves: str):  # type: ignore[no-untyped-def]
    board = XIANGQI.board()
    for uci in moves:
        board.push(board.parse_uci(uci))
    return board


def test_the_game_and_the_level_are_set_and_the_whole_game_is_sent(tmp_path: Path) -> None:
    log = tmp_path / "log"

    async def scenario() -> None:
        async with fake(log, level="beginner", movetime=0.05) as engine:
            assert engine.name == "fake-xq 1"
            board = board_after("h2e2", "h9g7")
            reply = await engine.play(board)
            assert board.is_legal(reply.move) and reply.score == 42 and len(reply.pv) == 2
            await engine.set_level("1800")

    asyncio.run(scenario())
    sent = log.read_text().splitlines()
    assert "setoption name UCI_Variant value xiangqi" in sent
    assert "setoption name UCI_LimitStrength value true" in sent and "setoption name UCI_Elo value 900" in sent
    assert f"position fen {XIANGQI.starting_fen} moves h2e2 h9g7" in sent
    assert "go movetime 50" in sent and "setoption name UCI_Elo value 1800" in sent


@pytest.mark.parametrize(("words", "expected"), [
    ("info depth 5 score cp -35 pv h2e2 h9g7", (-35, ("h2e2", "h9g7"))),
    ("info depth 9 score mate 3 pv h2e2", (MATE_SCORE - 3, ("h2e2",))),
    ("info depth 9 score mate -2", (-(MATE_SCORE - 2), ())),
    ("info string book move h2e2", (None, ())),
    ("info depth 1 score cp x", (None, ())),
])
def test_info_lines(words: str, expected: tuple[int | None, tuple[str, ...]]) -> None:
    assert parse_info(words.split()) == expected


def test_option_lines() -> None:
    option = UciOption.from_line("option name Skill Level type spin default 20 min 0 max 20")
    assert option is not None and (option.name, option.min, option.max) == ("Skill Level", 0, 20)
    combo = UciOption.from_line("option name UCI_Variant type combo default chess var chess var xiangqi")
    assert combo is not None and combo.choices == ["chess", "xiangqi"]
    assert UciOption.from_line("id name x") is None


def test_an_engine_that_dies_is_restarted_and_asked_again(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with fake(tmp_path / "log", "die-once", movetime=0.02) as engine:
            reply = await engine.play(XIANGQI.board())
            assert XIANGQI.board().is_legal(reply.move) and engine.restarts == 1

    asyncio.run(scenario())


def test_a_cancelled_search_is_stopped_before_the_next(tmp_path: Path) -> None:
    log = tmp_path / "log"

    async def scenario() -> None:
        async with fake(log, "slow-once", movetime=5.0) as engine:
            task = asyncio.ensure_future(engine.play(XIANGQI.board()))
            await asyncio.sleep(0.5)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            board = board_after("h2e2")
            reply = await asyncio.wait_for(engine.hint(board), 10)
            assert board.is_legal(reply.move)  # this search's move, not the stopped one's

    asyncio.run(scenario())
    sent = log.read_text().splitlines()
    assert sent.count("stop") == 1 and sent.index("stop") < sent.index(f"position fen {XIANGQI.starting_fen} moves h2e2")


def test_mate_scores_and_book_moves(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with fake(tmp_path / "a", "mate", movetime=0.02) as engine:
            assert (await engine.play(XIANGQI.board())).score == MATE_SCORE - 3
        async with fake(tmp_path / "b", "book", movetime=0.02) as engine:
            reply = await engine.play(XIANGQI.board())
            assert reply.book and reply.score is None and reply.pv == ()

    asyncio.run(scenario())


def test_an_engine_without_the_game_is_one_clear_error(tmp_path: Path) -> None:
    async def scenario() -> None:
        engine = fake(tmp_path / "log", "no-variant")
        with pytest.raises(EngineError, match="does not play xiangqi") as info:
            await engine.start()
        assert "UCI_Variant option is missing" in str(info.value)
        with pytest.raises(EngineError, match="cannot start engine"):
            await UciEngine(["/nonexistent/engine"], variant="xiangqi").start()

    asyncio.run(scenario())


def test_a_killed_engine_mid_game_is_restarted(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with fake(tmp_path / "log", movetime=0.02) as engine:
            await engine.play(XIANGQI.board())
            assert engine.pid is not None
            os.kill(engine.pid, signal.SIGKILL)
            await asyncio.sleep(0.2)
            board = board_after("h2e2")
            reply = await engine.play(board)
            assert board.is_legal(reply.move) and engine.restarts == 1

    asyncio.run(scenario())


def test_the_bundled_engine_plays_xiangqi(tmp_path: Path) -> None:
    """Our own engine over UCI_Variant xiangqi (its kernels may compile on the first run)."""

    async def scenario() -> None:
        engine = UciEngine(resolve_command(""), variant="xiangqi", level="beginner", movetime=0.2)
        async with engine:
            board = board_after("h2e2")
            reply = await asyncio.wait_for(engine.play(board), 900)
            assert board.is_legal(reply.move)

    asyncio.run(scenario())
