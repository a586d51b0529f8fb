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
import enum
import importlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from boardctl.core.rules import Color, GameBoard, Move
from boardctl.engine_client import MATE_SCORE, EngineClient, Reply
from boardctl.errors import EngineError

log = logging.getLogger(__name__)

#: A move losing this much against the best one gets a verdict (and ``?``).
MISTAKE_CP = 100
#: ... and this much a ``??``.
BLUNDER_CP = 300
#: A score this close to MATE_SCORE is a mate in (MATE_SCORE - score) moves.
MATE_BAND = 500
#: PGN's numeric annotation glyphs: $2 is ``?``, $4 is ``??``.
NAG_MISTAKE, NAG_BLUNDER = 2, 4
#: How many of the worst moves the review lists.
REVIEW_SIZE = 3
#: The coach's level: an Elo above every engine's UCI_Elo range, so no strength limit is set.
FULL_STRENGTH = "3200"
#: The node cap of a search when none is given: far beyond what the move time allows, it is
#: there because a search with a node limit never answers from the opening book (a book move
#: has no score, and the coach needs one).
DEFAULT_NODES = 100_000_000


class Category(enum.StrEnum):
    ALLOWS_MATE = "allows-mate"
    MISSES_MATE = "misses-mate"
    HANGS = "hangs"
    FORK = "fork"
    PIN = "pin"
    SKEWER = "skewer"
    LOSES = "loses"


def mate_in(score: int) -> int | None:
    """Moves to mate for a score (positive: the side it belongs to mates), None if not a mate."""
    if abs(score) < MATE_SCORE - MATE_BAND:
        return None
    return MATE_SCORE - abs(score)


@dataclass(frozen=True)
class Verdict:
    """Why a move was bad, with the better one. ``ply`` counts from 0 (the game's first move)."""

    ply: int
    move: str  # UCI
    san: str
    best: str  # UCI
    best_san: str
    loss: int  # centipawns, >= MISTAKE_CP
    category: Category
    text: str  # the one line the page shows
    mate: int | None = None  # for the two mate categories
    pieces: tuple[str, ...] = ()  # for hangs/fork/pin/skewer: the player's pieces concerned
    number: str = ""  # the move's number as written before it: "12." or "12..."

    @property
    def nag(self) -> int:
        return NAG_BLUNDER if self.loss >= BLUNDER_CP else NAG_MISTAKE

    @property
    def comment(self) -> str:
        """The PGN comment: the line and the better move."""
        return f"{self.text}; better was {self.best_san}"

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "move": self.move,
            "san": self.san,
            "best": self.best,
            "best_san": self.best_san,
            "loss": self.loss,
            "category": self.category.value,
            "text": self.text,
            "mate": self.mate,
            "pieces": list(self.pieces),
            "nag": "??" if self.nag == NAG_BLUNDER else "?",
            "number": self.number,
        }


def _tactics(variant: str) -> ModuleType | None:
    """The game's motif finder (``boardctl.variants.<game>.tactics``), None if it has none (a
    module it imports that is missing or broken raises as it is)."""
    name = f"boardctl.variants.{variant}.tactics"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


def _pawns(cp: int) -> str:
    pawns = round(cp / 100, 1)
    text = f"{pawns:g}"
    return f"{text} pawn" if pawns == 1 else f"{text} pawns"


def _moves(n: int) -> str:
    return f"mate in {n}"


def classify(
    *,
    variant: str,
    fen: str,
    ply: int,
    move: str,
    san: str,
    best: str,
    best_san: str,
    best_score: int,
    after_score: int,
    reply: str | None,
) -> Verdict | None:
    """The verdict on ``move`` (UCI, played in ``fen``), or None when it loses less than
    :data:`MISTAKE_CP` against ``best``. ``best_score`` is the coach's score of ``fen`` (its best
    move), ``after_score`` its score after ``move``, both from the player's side; ``reply`` is the
    coach's best answer to ``move`` (the refutation), if known."""
    if move == best:
        return None
    best_mate, after_mate = mate_in(best_score), mate_in(after_score)
    loss = best_score - after_score
    if loss < MISTAKE_CP:
        return None
    common = dict(ply=ply, move=move, san=san, best=best, best_san=best_san, loss=loss, number=_number(fen))
    if after_mate is not None and after_score < 0:
        return Verdict(**common, category=Category.ALLOWS_MATE, mate=after_mate,  # type: ignore[arg-type]
                       text=f"{san} allows {_moves(after_mate)}")
    if best_mate is not None and best_score > 0:
        return Verdict(**common, category=Category.MISSES_MATE, mate=best_mate,  # type: ignore[arg-type]
                       text=f"{san} misses {_moves(best_mate)} ({best_san})")
    tactics = _tactics(variant)
    found = tactics.motif(fen, move, reply) if tactics is not None and reply else None
    shown = min(loss, 2 * MATE_SCORE)
    if found is not None:
        kind = Category(found.kind)
        pieces = tuple(found.pieces)
        if kind is Category.HANGS:
            text = f"{san} hangs the {pieces[0]}"
        elif kind is Category.FORK:
            text = f"{san} walks into a fork of the {' and the '.join(pieces)}"
        elif kind is Category.PIN:
            text = f"{san} walks into a pin of the {pieces[0]} to the {pieces[1]}"
        else:
            text = f"{san} walks into a skewer of the {pieces[0]} and the {pieces[1]}"
        return Verdict(**common, category=kind, pieces=pieces, text=text)  # type: ignore[arg-type]
    return Verdict(**common, category=Category.LOSES, text=f"{san} loses {_pawns(shown)}")  # type: ignore[arg-type]


def _number(fen: str) -> str:
    """The number written before the move to be made in ``fen`` ("2." for White, "2..." for Black)."""
    fields = fen.split()
    number = fields[5] if len(fields) > 5 and fields[5].isdigit() else "1"
    first = len(fields) < 2 or fields[1] in ("w", "r")
    return f"{number}." if first else f"{number}..."


def review(verdicts: Iterable[Verdict], *, size: int = REVIEW_SIZE) -> list[Verdict]:
    """The ``size`` worst moves, worst first (earlier first among equals), for the end of a game."""
    return sorted(verdicts, key=lambda v: (-v.loss, v.ply))[:size]


def review_lines(verdicts: Iterable[Verdict]) -> list[str]:
    """The review as lines for people ("12. Nxe5?? hangs the knight on e5; better was Nc3")."""
    lines = []
    for v in review(verdicts):
        lines.append(f"{v.number} {v.san}{'??' if v.nag == NAG_BLUNDER else '?'} {v.comment}")
    return lines


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


class CoachNotes:
    """The session's side of the coach (pure): the verdicts of the game so far, the line the page
    shows now, the squares to light, and the review at the end."""

    def __init__(self) -> None:
        self.verdicts: dict[int, Verdict] = {}
        self.current: Verdict | None = None

    def accept(self, verdict: Verdict | None, *, ply: int, move: str, moves: list[str]) -> bool:
        """Take the coach's answer about ``move`` at ``ply`` if the game still has that move
        there (not taken back meanwhile); True when it changed what is shown."""
        if ply >= len(moves) or moves[ply] != move:
            return False
        if verdict is None:
            self.verdicts.pop(ply, None)
            return False
        self.verdicts[ply] = verdict
        is_latest = len(moves) <= ply + 2  # the player has not moved again since
        if is_latest:
            self.current = verdict
        return is_latest

    def trim(self, plies: int) -> None:
        """Moves taken back: their verdicts go."""
        self.verdicts = {p: v for p, v in self.verdicts.items() if p < plies}
        if self.current is not None and self.current.ply >= plies:
            self.current = None

    def clear(self) -> None:
        self.verdicts.clear()
        self.current = None

    def review(self) -> list[Verdict]:
        return review(self.verdicts.values())

    def annotations(self) -> list[dict[str, Any]]:
        """The review as the record keeps it: PGN ply (1 = first move), NAG and comment."""
        return [{"ply": v.ply + 1, "nag": v.nag, "comment": v.comment} for v in self.review()]
