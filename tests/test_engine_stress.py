"""Hints pressed 1-5 ms apart, on either side's turn, between moves, against the real engine
process through the daemon: no exception anywhere, and the engine's move is never lost.
(Takebacks and new games in the same rush are in test_engine_client.py, at the client.)"""

from __future__ import annotations

import asyncio
import logging
import random
import sys
from pathlib import Path

import chess
import pytest
from test_daemon_inprocess import make, play

from boardctl.engine_client import EngineClient
from boardctl.events import Button, ButtonPressed
from boardctl.session import Settings

pytestmark = pytest.mark.slow

ENGINE_CMD = [sys.executable, "-m", "engine"]


@pytest.mark.parametrize("seed", [3, 4])
def test_a_rush_of_hints_between_moves_never_loses_the_engine_move(
    tmp_path: Path, seed: int, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(seed)
    problems: list[object] = []
    engine_moves = 0
    finals: list[chess.Board] = []

    async def scenario() -> None:
        nonlocal engine_moves
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: problems.append(context))
        engine = EngineClient(ENGINE_CMD, level="practice1", movetime=0.03)
        await engine.start()
        daemon, _ = make(tmp_path, Settings(mode="play", color="white"), engine)
        daemon.inject(ButtonPressed(0.0, Button.CLOCK))  # the game starts
        session = daemon.session
        while len(session.board.move_stack) < 16 and not session.board.is_game_over():
            for _ in range(rng.randint(1, 6)):  # hints 1-5 ms apart, whoever is to move
                daemon.inject(ButtonPressed(session.t + 0.01, Button.HINT))
                await asyncio.sleep(rng.uniform(0.001, 0.005))
            if session.board.turn == chess.WHITE:
                play(daemon, rng.choice(list(session.board.legal_moves)).uci())
            else:
                await daemon.idle()
                pending = daemon.state()["pending"]
                assert isinstance(pending, str), daemon.state()  # the engine's move was not lost
                play(daemon, pending)
                engine_moves += 1
        finals.append(session.board.copy())
        await daemon.close()

    with caplog.at_level(logging.WARNING):
        asyncio.run(scenario())
    assert problems == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    # Sixteen plies unless the random mover was mated first (1. f3 e5 2. g4 Qh4#).
    assert engine_moves >= 7 or finals[0].is_checkmate(), (engine_moves, finals[0].fen())
