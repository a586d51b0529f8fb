from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import signal
import sys
from pathlib import Path

import chess
import chess.engine
import pytest

from boardctl.engine_client import EngineClient, Reply, resolve_command, uci_options
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_an_engine_that_cannot_start_is_a_clear_error() -> None:
    async def scenario() -> None:
        engine = EngineClient([sys.executable, "-c", "import sys; sys.exit(3)"], movetime=0.01, max_restarts=1)
        with pytest.raises(EngineError, match="engine"):
            await engine.start()
        with pytest.raises(EngineError):
            await engine.play(chess.Board())
        await engine.close()

    asyncio.run(scenario())


ENGINE_CMD = [sys.executable, "-m", "engine"]


def _stress(seed: int, steps: int) -> tuple[int, int]:
    """The daemon's pattern against the real engine: each request cancels the one before it, 1-5 ms
    apart (hints pressed fast, takebacks, new games at another level, moves). Returns how many
    requests were answered and how many were left to finish."""
    rng = random.Random(seed)
    problems: list[object] = []

    async def scenario() -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, context: problems.append(context))
        answered = finished = 0
        async with EngineClient(ENGINE_CMD, level="practice2", movetime=0.05) as engine:
            board = chess.Board()
            current: asyncio.Task[Reply] | None = None
            asked: chess.Board | None = None

            def check(task: asyncio.Task[Reply], position: chess.Board) -> int:
                if task.cancelled():
                    return 0
                exc = task.exception()
                if exc is not None:
                    problems.append(exc)
                    return 0
                assert task.result().move in position.legal_moves
                return 1

            for _ in range(steps):
                kind = rng.choice(["hint", "hint", "hint", "move", "takeback", "new-game"])
                if kind == "move" and not board.is_game_over():
                    board.push(rng.choice(list(board.legal_moves)))
                elif kind == "takeback" and board.move_stack:
                    board.pop()
                elif kind == "new-game":
                    board = chess.Board()
                    await engine.set_level(rng.choice(["beginner", "practice1", "1500", "intermediate"]))
                if board.is_game_over():
                    board = chess.Board()
                if current is not None and not current.done():
                    current.cancel()
                if current is not None and asked is not None:
                    with contextlib.suppress(asyncio.CancelledError):
                        await asyncio.sleep(0)
                    if current.done():
                        answered += check(current, asked)
                asked = board.copy()
                current = loop.create_task(engine.hint(asked) if kind == "hint" else engine.play(asked))
                if rng.random() < 0.1:  # now and then, wait for the answer
                    await asyncio.wait({current})
                else:
                    await asyncio.sleep(rng.uniform(0.001, 0.005))
            assert current is not None and asked is not None
            await asyncio.wait({current}, timeout=30)
            assert current.done() and not current.cancelled()
            finished = check(current, asked)
            answered += finished
        return answered, finished

    answered, finished = asyncio.run(scenario())
    assert problems == []
    return answered, finished


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_rapid_cancelled_requests_never_break_the_client(seed: int) -> None:
    answered, finished = _stress(seed, 150)
    assert finished == 1  # the last request, not cancelled, was answered
    assert answered >= 5  # the ones left to finish were answered too


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("option name Skill Level type spin default 20 min 0 max 20", ("Skill Level", "spin", 20, 0, 20, ())),
        ("option name UCI_Variant type combo default chess var chess var xiangqi",
         ("UCI_Variant", "combo", "chess", None, None, ("chess", "xiangqi"))),
        ("option name UCI_LimitStrength type check default false", ("UCI_LimitStrength", "check", False, None, None, ())),
        ("option name Clear Hash type button", ("Clear Hash", "button", None, None, None, ())),
        ("option name UCI_Elo type spin default -5 min -10 max 3200", ("UCI_Elo", "spin", -5, -10, 3200, ())),
        ("option name", None),
        ("id name boardctl engine", None),
        ("option name X default 3", None),
    ],
)
def test_option_lines(line: str, expected: tuple[object, ...] | None) -> None:
    from boardctl.engine_client import parse_option

    option = parse_option(line)
    got = None if option is None else (option.name, option.type, option.default, option.min, option.max, option.var)
    assert got == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("info depth 5 score cp -35 nodes 100 pv e7e5 g1f3", {"score": -35, "pv": ["e7e5", "g1f3"]}),
        ("info depth 9 score mate 2 pv h5f7", {"score": 9998, "pv": ["h5f7"]}),
        ("info depth 9 score mate -3 upperbound pv e7e5 nodes 4", {"score": -9997, "pv": ["e7e5"]}),
        ("info multipv 2 score cp 10 pv a2a3", {"multipv": 2, "score": 10, "pv": ["a2a3"]}),
        ("info string book move e7e5", {"string": "book move e7e5"}),
        ("info depth 3 score cp x pv", {"pv": []}),
        ("info", {}),
    ],
)
def test_info_lines(line: str, expected: dict[str, object]) -> None:
    from boardctl.engine_client import parse_info

    assert parse_info(line) == expected


@pytest.mark.slow
def test_the_bundled_engine_plays_xiangqi_through_uci_variant() -> None:
    from boardctl.variants import get_variant

    xiangqi, chess_game = get_variant("xiangqi"), get_variant("chess")

    async def scenario() -> None:
        async with EngineClient(ENGINE_CMD, level="practice1", movetime=0.05) as engine:
            board = xiangqi.board()
            for _ in range(3):
                reply = await engine.play(board)
                assert board.is_legal(reply.move)
                board.push(reply.move)
            assert engine._variant == "xiangqi"
            back = chess_game.board()  # and back to chess on the same process
            reply = await engine.play(back)
            assert back.is_legal(reply.move) and engine._variant == "chess"

    asyncio.run(scenario())


@pytest.mark.slow
def test_the_board_s_xiangqi_rules_reach_the_engine() -> None:
    from boardctl.variants.xiangqi import XiangqiBoard

    async def scenario() -> None:
        async with EngineClient(ENGINE_CMD, level="practice1", movetime=0.05) as engine:
            assert engine.options["XiangqiRules"].default == "chinese"
            board = XiangqiBoard(rules="asian")
            reply = await engine.play(board)
            assert board.is_legal(reply.move) and engine._rules == "asian"
            board = XiangqiBoard()  # chinese again
            reply = await engine.play(board)
            assert board.is_legal(reply.move) and engine._rules == "chinese"

    asyncio.run(scenario())


@pytest.mark.slow
def test_an_engine_without_xiangqi_is_refused_in_words() -> None:
    if STOCKFISH is None:
        pytest.skip("stockfish not installed")
    from boardctl.variants import get_variant

    async def scenario() -> None:
        async with EngineClient([STOCKFISH], movetime=0.01) as engine:
            with pytest.raises(EngineError, match="does not play xiangqi"):
                await engine.play(get_variant("xiangqi").board())
            reply = await engine.play(chess.Board())  # still fine for chess
            assert reply.move in chess.Board().legal_moves

    asyncio.run(scenario())


FAIRY_STOCKFISH = shutil.which("fairy-stockfish") or (
    "/usr/games/fairy-stockfish" if Path("/usr/games/fairy-stockfish").exists() else None
)


@pytest.mark.parametrize(
    ("text", "by", "expected"),
    [("h2e2", 1, "h3e3"), ("a9a8", 1, "a10a9"), ("a10a9", -1, "a9a8"), ("i0i1", 1, "i1i2"),
     ("e9e8q", 1, "e10e9q"), ("(none)", 1, "(none)"), ("0000", -1, "0000"), ("", 1, "")],
)
def test_ranks_are_shifted_for_engines_that_count_from_one(text: str, by: int, expected: str) -> None:
    from boardctl.engine_client import shift_ranks

    assert shift_ranks(text, by) == expected


@pytest.mark.slow
def test_fairy_stockfish_plays_xiangqi_through_the_same_client() -> None:
    """Fairy-Stockfish numbers xiangqi ranks 1-10; its moves and ours still mean the same points."""
    if FAIRY_STOCKFISH is None:
        pytest.skip("fairy-stockfish not installed (make test installs it)")
    from boardctl.variants import get_variant

    async def scenario() -> None:
        async with EngineClient([FAIRY_STOCKFISH], movetime=0.05) as engine:
            board = get_variant("xiangqi").board()
            board.push(board.parse_uci("h2e2"))  # a move on rank 2: sent as h3e3
            for _ in range(6):
                reply = await engine.play(board)
                assert board.is_legal(reply.move)
                probe = board.copy()
                for step in reply.pv:  # the principal variation is read back in our numbering too
                    assert probe.is_legal(step)
                    probe.push(step)
                board.push(reply.move)

    asyncio.run(scenario())
