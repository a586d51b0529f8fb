from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys

import chess
import chess.engine
import pytest

from boardctl.engine_client import EngineClient, resolve_command, uci_options
from boardctl.errors import EngineError
from engine.levels import LEVELS

STOCKFISH = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
needs_stockfish = pytest.mark.skipif(STOCKFISH is None, reason="stockfish not installed (apt-get install stockfish)")


def spin(min_: int | None, max_: int | None, default: int) -> chess.engine.Option:
    return chess.engine.Option("x", "spin", default, min_, max_, None)


ELO_ENGINE = {
    "UCI_LimitStrength": chess.engine.Option("UCI_LimitStrength", "check", False, None, None, None),
    "UCI_Elo": spin(1350, 2850, 1350),
    "Skill Level": spin(0, 20, 20),
}


def test_levels_map_to_standard_options() -> None:
    # Within Stockfish's UCI_Elo range: Elo; below it: our Skill Level scale (engine/levels.py).
    assert uci_options("1500", ELO_ENGINE) == {"UCI_LimitStrength": True, "UCI_Elo": 1500}
    assert uci_options("advanced", ELO_ENGINE) == {"UCI_LimitStrength": True, "UCI_Elo": LEVELS["advanced"].elo}
    assert uci_options("beginner", ELO_ENGINE) == {"UCI_LimitStrength": False, "Skill Level": LEVELS["beginner"].skill}
    assert uci_options("practice1", ELO_ENGINE) == {"UCI_LimitStrength": False, "Skill Level": LEVELS["practice1"].skill}
    assert uci_options("3200", ELO_ENGINE) == {"UCI_LimitStrength": False, "Skill Level": 20}
    skills = [uci_options(f"practice{n}", {"Skill Level": spin(0, 20, 20)})["Skill Level"] for n in range(1, 6)]
    assert skills == sorted(skills) and len(set(skills)) == 5


def test_levels_on_engines_with_fewer_options() -> None:
    skill_only = {"Skill Level": spin(0, 20, 20)}
    assert uci_options("practice2", skill_only) == {"Skill Level": LEVELS["practice2"].skill}
    assert set(uci_options("1500", skill_only)) == {"Skill Level"}
    assert uci_options("3200", {"Skill Level": spin(0, 10, 10)}) == {"Skill Level": 10}
    elo_only = {k: v for k, v in ELO_ENGINE.items() if k != "Skill Level"}
    assert uci_options("practice1", elo_only) == {"UCI_LimitStrength": True, "UCI_Elo": 1350}
    assert uci_options("master", {}) == {}
    with pytest.raises(ValueError, match="practice1-practice5"):
        uci_options("practice7", ELO_ENGINE)


def test_resolve_command() -> None:
    assert resolve_command("/opt/sf --threads 1") == ["/opt/sf", "--threads", "1"]
    default = resolve_command("")
    assert default[0].endswith(("boardctl-engine", "stockfish")) or default[1:] == ["-m", "engine"]


@needs_stockfish
def test_plays_and_survives_a_crash() -> None:
    assert STOCKFISH is not None

    async def scenario() -> None:
        async with EngineClient([STOCKFISH], level="practice1", movetime=0.05) as engine:
            board = chess.Board()
            reply = await engine.play(board)
            assert reply.move in board.legal_moves
            assert reply.score is not None
            pid = engine.pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            await asyncio.sleep(0.1)
            board.push(reply.move)
            reply = await engine.play(board)  # restarted, and the position re-sent
            assert reply.move in board.legal_moves
            assert engine.restarts == 1 and engine.pid != pid
            # A kill during the search: the request is retried on a fresh process.
            board.push(reply.move)
            task = asyncio.ensure_future(engine.play(board))
            await asyncio.sleep(0.01)
            assert engine.pid is not None
            os.kill(engine.pid, signal.SIGKILL)
            reply = await task
            assert reply.move in board.legal_moves
            assert engine.restarts == 2

    asyncio.run(scenario())


def test_an_engine_that_cannot_start_is_a_clear_error() -> None:
    async def scenario() -> None:
        engine = EngineClient([sys.executable, "-c", "import sys; sys.exit(3)"], movetime=0.01, max_restarts=1)
        with pytest.raises(EngineError, match="engine"):
            await engine.start()
        with pytest.raises(EngineError):
            await engine.play(chess.Board())
        await engine.close()

    asyncio.run(scenario())
