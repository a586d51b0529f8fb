"""Spoken moves in the daemon: a whole game of chess and of xiangqi, played on the sim board in
record mode, is said (espeak-ng, WAV files) while the event loop goes on undisturbed.

The renderer is held back until the game is over: every move, the illegal move and the result
were queued, not said, while the daemon handled the board, so speech cannot have blocked it.
Then espeak-ng renders them all. The loop's lag is measured too, generously (under load)."""

from __future__ import annotations

import asyncio
import random
import shutil
import threading
import time
import wave
from pathlib import Path

import chess
import pytest
from test_daemon_support import move_events

from boardctl.core.rules import GameBoard
from boardctl.daemon import Daemon
from boardctl.events import Button, ButtonPressed, SquareChanged, Tick
from boardctl.hw.sim import SimBoard
from boardctl.learning.speech import Speaker, SpeechOptions, espeak_render, words_for
from boardctl.session import Session, Settings
from boardctl.storage import GameStore
from boardctl.variants import get_variant

pytestmark = pytest.mark.slow

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed (make test)")

OPERA_TEXT = ("e2e4 e7e5 g1f3 d7d6 d2d4 c8g4 d4e5 g4f3 d1f3 d6e5 f1c4 g8f6 f3b3 d8e7 b1c3 c7c6 c1g5 b7b5 c3b5 c6b5 "
         "c4b5 b8d7 e1c1 a8d8 d1d7 d8d7 h1d1 e7e6 b5d7 f6d7 b3b8 d7b8 d1d8")
OPERA = OPERA_TEXT.split()


def xiangqi_game(plies: int = 40, seed: int = 7) -> list[str]:
    """Legal moves preferring captures (many different words), from the start."""
    rng = random.Random(seed)
    board = get_variant("xiangqi").board()
    moves = []
    for _ in range(plies):
        if board.outcome(claim_draw=False) is not None:
            break
        legal = list(board.generate_legal_moves())
        captures = [m for m in legal if board.capture_square(m) is not None]
        move = rng.choice(captures if captures and rng.random() < 0.7 else legal)
        moves.append(move.uci())
        board.push(move)
    return moves


def hands(board: GameBoard, uci: str) -> list[tuple[int, bool]]:
    """The (square, occupied) changes of a move by hand: the victim off first."""
    if board.geometry.name == "chess":
        return [(chess.parse_square(sq), occ) for sq, occ in move_events(board, chess.Move.from_uci(uci))]  # type: ignore[arg-type]
    move = board.parse_uci(uci)
    victim = board.capture_square(move)
    return ([(victim, False)] if victim is not None else []) + [(move.from_square, False), (move.to_square, True)]


class Gate:
    """espeak-ng, held back until opened."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.texts: list[str] = []

    def render(self, text: str, options: SpeechOptions, path: Path) -> None:
        self.open.wait(120)
        self.texts.append(text)
        espeak_render(text, voice=options.espeak_voice, rate=options.rate, path=path)


async def play_game(tmp_path: Path, variant: str, language: str, moves: list[str]) -> tuple[Speaker, Gate, float, Daemon]:
    session = Session(Settings(mode="record", variant=variant, orientation="normal"))
    board = SimBoard(session.physical_occupancy(), clock=lambda: session.t, geometry=session.geometry)
    gate = Gate()
    options = SpeechOptions(enabled=True, language=language, output="files", backlog=256)
    speaker = Speaker(options, words=words_for(variant), folder=tmp_path / "speech", render=gate.render)
    daemon = Daemon(session, store=GameStore(tmp_path / "games"), board=board, virtual_board=True,
                    virtual_time=True, speaker=speaker)
    daemon.direct = True
    board.start(daemon.feed)
    lag = 0.0
    running = True

    async def watch() -> None:
        nonlocal lag
        while running:
            t0 = time.perf_counter()
            await asyncio.sleep(0.005)
            lag = max(lag, time.perf_counter() - t0 - 0.005)

    watcher = asyncio.get_running_loop().create_task(watch())
    t = 0.0
    for i, uci in enumerate(moves):
        if i == 2:  # an illegal move first: the piece to move, onto a point it cannot reach
            game = daemon.session.board
            own = game.parse_uci(uci).from_square
            empty = next(sq for sq in range(game.geometry.points)
                         if not game.occupied >> sq & 1 and not any(m.from_square == own and m.to_square == sq
                                                                      for m in game.generate_legal_moves()))
            for sq, occ in [(own, False), (empty, True)]:
                t += 0.1
                daemon.inject(SquareChanged(t, sq, occ))
            daemon.inject(Tick(t + 0.5))
            for sq, occ in [(empty, False), (own, True)]:
                t += 0.1
                daemon.inject(SquareChanged(t, sq, occ))
            t += 0.5
            daemon.inject(Tick(t))
        for sq, occ in hands(daemon.session.board, uci):
            t += 0.1
            daemon.inject(SquareChanged(t, sq, occ))
        t += 0.5
        daemon.inject(Tick(t))
        await asyncio.sleep(0)
    if daemon.session.record.result == "*":
        daemon.handle(ButtonPressed(t + 0.1, Button.RESIGN))
    await asyncio.sleep(0.05)
    running = False
    await watcher
    return speaker, gate, lag, daemon


def _seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as w:
        return w.getnframes() / w.getframerate()


@needs_espeak
@pytest.mark.parametrize(("variant", "language"), [("chess", "en"), ("chess", "zh"), ("xiangqi", "zh"), ("xiangqi", "en")])
def test_a_whole_game_is_spoken_without_blocking_the_loop(tmp_path: Path, variant: str, language: str) -> None:
    moves = OPERA if variant == "chess" else xiangqi_game()

    async def scenario() -> None:
        speaker, gate, lag, daemon = await play_game(tmp_path, variant, language, moves)
        record = daemon.session.record
        assert record.moves == moves and record.result != "*"
        assert any(v.code == "illegal-move" for v in record.violations)
        # the whole game went by while nothing was said: everything was queued
        assert speaker.stats.said == 0 and gate.texts == []
        assert lag < 1.0, lag  # generous: the loop was never held up by speech
        gate.open.set()
        assert await asyncio.to_thread(speaker.wait_idle, 300)
        await daemon.close()
        assert speaker.stats.failed == 0 and speaker.stats.dropped == 0
        # every move, the illegal one, the reminder that the piece touched for it must move, the result
        expected = len(moves) + 3
        assert speaker.stats.said == expected and len(gate.texts) == expected
        files = sorted((tmp_path / "speech").glob("*.wav"))
        assert len(files) == expected
        assert all(f.read_bytes()[:4] == b"RIFF" and _seconds(f) > 0.2 for f in files)
        kinds = [f.name.split("-", 1)[1] for f in files]
        assert kinds.count("move.wav") == len(moves) and kinds[-1] == "result.wav"
        assert kinds.count("illegal.wav") == 1 and kinds.count("touch-move.wav") == 1
        if variant == "chess" and language == "en":
            assert gate.texts[0] == "e4" and "Rook d8, checkmate" in gate.texts
            assert gate.texts[-1] == "White wins"
            assert "Illegal move" in gate.texts and "Touch move: move the piece on g1" in gate.texts
        if variant == "xiangqi" and language == "zh":
            board = get_variant("xiangqi").board()
            from boardctl.learning.speech import move_text

            first = move_text(words_for("xiangqi"), board, board.parse_uci(moves[0]), "zh")
            assert gate.texts[0] == first and any(ch in first for ch in "进退平")

    asyncio.run(scenario())
