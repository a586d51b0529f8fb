"""The practice coach: a full-strength search judges the player's moves and says why a move was bad.

Two parts. :func:`classify` is pure: the position, the player's move, the coach engine's best
move and the two scores in, a :class:`Verdict` (or None for a good enough move) out; chess
motifs (a hanging piece, a fork, a pin, a skewer) come from the game's own ``tactics`` module
(``boardctl.variants.chess.tactics``), so this module never touches python-chess, and a game
without one (xiangqi) still gets the mate and "loses N pawns" lines. :class:`Coach` runs the
searches on its own engine process (a second :class:`~boardctl.engine_client.EngineClient` at
full strength, never the weakened opponent): it analyses the position while the player thinks,
so that after the move only one short search stands between the move and the verdict.

Scores are centipawns from the player's side; a mate in n is ``MATE_SCORE - n``
(:mod:`boardctl.engine_client`'s convention).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from boardctl.core.rules import Color, GameBoard, Move
from boardctl.engine_client import EngineClient, Reply
from boardctl.errors import EngineError
from boardctl.learning.verdicts import (  # the verdicts are pure (and the session's); re-exported here
    BLUNDER_CP,
    MATE_BAND,
    MISTAKE_CP,
    NAG_BLUNDER,
    NAG_MISTAKE,
    REVIEW_SIZE,
    Category,
    CoachNotes,
    Verdict,
    classify,
    mate_in,
    review,
    review_lines,
)
from boardctl.reply import MATE_SCORE

log = logging.getLogger(__name__)

__all__ = ["BLUNDER_CP", "DEFAULT_NODES", "FULL_STRENGTH", "MATE_BAND", "MISTAKE_CP", "NAG_BLUNDER", "NAG_MISTAKE",
           "REVIEW_SIZE", "Analysis", "Category", "Coach", "CoachNotes", "CoachWatcher", "Verdict", "classify",
           "mate_in", "review", "review_lines"]

#: The coach's level: an Elo above every engine's UCI_Elo range, so no strength limit is set.
FULL_STRENGTH = "3200"
#: The node cap of a search when none is given: far beyond what the move time allows, it is
#: there because a search with a node limit never answers from the opening book (a book move
#: has no score, and the coach needs one).
DEFAULT_NODES = 100_000_000

# --------------------------------------------------------------------------- the searches


@dataclass(frozen=True)
class Analysis:
    """The coach's search of one position: its best move and score (side to move), and the line."""

    best: Move
    score: int
    pv: tuple[Move, ...]

    @classmethod
    def from_reply(cls, reply: Reply) -> Analysis:
        if reply.score is None:
            raise EngineError("the coach's engine gave no score")
        return cls(reply.move, reply.score, reply.pv)


def _key(board: GameBoard) -> tuple[str, tuple[str, ...]]:
    return board.root().fen(), tuple(m.uci() for m in board.move_stack)


class Coach:
    """The full-strength judge on its own engine process.

    :meth:`prepare` starts analysing the position the player is to move in (while they think);
    :meth:`judge` returns the verdict on a move made from it. Both are cached by position, so a
    takeback and the same move again costs nothing. ``nodes`` caps each search besides ``movetime``
    (a fixed node count makes tests repeatable)."""

    def __init__(self, engine: EngineClient, *, movetime: float = 0.4, nodes: int = DEFAULT_NODES) -> None:
        self.engine = engine
        self.movetime = movetime
        self.nodes = nodes
        self._analyses: dict[tuple[str, tuple[str, ...]], asyncio.Task[Analysis]] = {}

    @classmethod
    def from_command(cls, command: list[str], *, movetime: float = 0.4, nodes: int = DEFAULT_NODES) -> Coach:
        return cls(EngineClient(command, level=FULL_STRENGTH, movetime=movetime), movetime=movetime, nodes=nodes)

    async def start(self) -> None:
        self.engine.nodes = self.nodes
        await self.engine.start()

    async def close(self) -> None:
        for task in self._analyses.values():
            task.cancel()
        for task in self._analyses.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._analyses.clear()
        await self.engine.close()

    async def __aenter__(self) -> Coach:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def prepare(self, board: GameBoard) -> asyncio.Task[Analysis]:
        """The analysis of ``board`` (started now unless already under way or done)."""
        key = _key(board)
        task = self._analyses.get(key)
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            self.engine.nodes = self.nodes
            task = asyncio.get_running_loop().create_task(self._analyse(board.copy()))
            self._analyses[key] = task
            if len(self._analyses) > 64:  # an old game's positions: forget the oldest
                oldest = next(iter(self._analyses))
                self._analyses.pop(oldest).cancel()
        return task

    async def _analyse(self, board: GameBoard) -> Analysis:
        return Analysis.from_reply(await self.engine.hint(board))

    async def judge(self, board: GameBoard, move: Move, *, variant: str) -> Verdict | None:
        """The verdict on ``move`` made in ``board`` (the position before it)."""
        before = await self.prepare(board)
        if before.best.uci() == move.uci():
            return None
        after_board = board.copy()
        after_board.push(move)
        if after_board.outcome(claim_draw=False) is not None:
            outcome = after_board.outcome(claim_draw=False)
            assert outcome is not None
            after_score = MATE_SCORE if outcome.winner is not None else 0
            reply: str | None = None
        else:
            after = await self.prepare(after_board)
            after_score, reply = -after.score, after.best.uci()
        return classify(
            variant=variant,
            fen=board.fen(),
            ply=len(board.move_stack),
            move=move.uci(),
            san=board.san(move),
            best=before.best.uci(),
            best_san=board.san(before.best),
            best_score=before.score,
            after_score=after_score,
            reply=reply,
        )


# --------------------------------------------------------------------------- the daemon's side


class CoachWatcher:
    """Follows a play session and asks the coach about each of the player's moves.

    :meth:`observe` is called after every input the daemon handles (cheap: it only compares the
    move list with what it saw); verdicts come back through ``deliver`` on the loop's thread."""

    def __init__(self, coach: Coach, *, deliver: Callable[[Verdict | None, int, str], None]) -> None:
        self.coach = coach
        self.deliver = deliver
        self._judged: dict[tuple[str, tuple[str, ...]], asyncio.Task[None]] = {}
        self._last: tuple[str, tuple[str, ...]] | None = None
        self._ahead: tuple[int, str] | None = None

    def observe(self, board: GameBoard, *, human: Color | None, variant: str, over: bool,
                pending: Move | None = None) -> None:
        """``pending``: the engine's move shown on the LEDs, not yet made on the board; the
        position after it is the player's next, so the coach starts on it at once."""
        if human is None:
            return
        if board.turn == human and not over:
            self.coach.prepare(board)  # the player thinks: so does the coach
        elif pending is not None and not over and (len(board.move_stack), pending.uci()) != self._ahead:
            self._ahead = (len(board.move_stack), pending.uci())  # once per shown move, not every tick
            ahead = board.copy()
            ahead.push(pending)
            if ahead.outcome(claim_draw=False) is None:
                self.coach.prepare(ahead)
        stack = board.move_stack
        if not stack or (not board.turn) != human:
            self._last = None
            return
        key = _key(board)
        if key == self._last:
            return  # judged already (the analyses are cached: a move made again costs nothing)
        self._last = key
        before = board.copy()
        move = before.pop()
        ply = len(stack) - 1
        self._judged[key] = asyncio.get_running_loop().create_task(self._judge(before, move, ply, variant))
        if len(self._judged) > 256:
            self._judged.pop(next(iter(self._judged)))

    async def _judge(self, before: GameBoard, move: Move, ply: int, variant: str) -> None:
        try:
            verdict = await self.coach.judge(before, move, variant=variant)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the coach failing must never stop the game
            log.warning("the coach could not judge %s: %s", move.uci(), exc)
            return
        self.deliver(verdict, ply, move.uci())

    async def idle(self) -> None:
        """Wait until every move seen so far has been judged (tests, the benchmark)."""
        while pending := [t for t in self._judged.values() if not t.done()]:
            await asyncio.gather(*pending, return_exceptions=True)

    async def close(self) -> None:
        for task in self._judged.values():
            task.cancel()
        for task in self._judged.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.coach.close()


