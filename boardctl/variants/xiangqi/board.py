"""Xiangqi rules: a position with its move stack, shaped like python-chess's ``Board``.

Points are ``a0``..``i9`` (files a-i from Red's left, ranks 0-9 from Red's side); a point is
the int ``rank * 9 + file``, as in :data:`boardctl.core.geometry.XIANGQI_9X10`. Red is
``True`` (it moves first), Black ``False``. Moves are engine coordinates (``h2e2``).

:class:`XiangqiBoard` owns the whole state (the mailbox of 90 small ints, a bitboard per side,
the generals' points, the counters, the move stack and the keys of earlier positions) and
changes it in ``set_fen``, ``push`` and ``pop``; its parts are plain functions over that state,
each module one responsibility: :mod:`.points` (pieces, moves and the tables built at import),
:mod:`.movegen` (legal moves and attack tests), :mod:`.fen` (reading and writing a set-up),
:mod:`.endings` (mate, material, repetitions and the move limit, ``move_limit`` moves a side
without a capture, 60 by default, under the ``rules``: the Chinese 棋例 or the Asian rules)
and :mod:`.notation` (``san`` writes WXF, ``C2.5``; ICCS and Chinese too).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

from boardctl.core.rules import Color, Move, Notice, Outcome, PlainMoves
from boardctl.errors import PositionError
from boardctl.variants.xiangqi import endings
from boardctl.variants.xiangqi.base_board import XiangqiBaseBoard
from boardctl.variants.xiangqi.fen import parse_fen, shown
from boardctl.variants.xiangqi.movegen import (
    attacked,
    illegal_reason,
    leaves_king_safe,
    legal_moves,
    pseudo_legal_moves,
    targets,
)
from boardctl.variants.xiangqi.points import (
    ADVISOR,
    ALL,
    BLACK,
    BLACK_BIT,
    CANNON,
    ELEPHANT,
    FILES,
    HORSE,
    KING,
    MOVES,
    NAMES,
    PAWN,
    PIECE_NAMES,
    PIECE_TYPES,
    POINTS,
    RANKS,
    RED,
    ROOK,
    ZOBRIST,
    ZOBRIST_BLACK,
    IllegalMoveError,
    Piece,
    XiangqiMove,
    own_move,
    position_key,
)

if TYPE_CHECKING:
    from boardctl.variants.xiangqi.chinese_rules import CycleRuling

#: What other modules import from here (the vocabulary itself lives in :mod:`.points`).
__all__ = [
    "ADVISOR",
    "BLACK",
    "BLACK_BIT",
    "CANNON",
    "ELEPHANT",
    "FILES",
    "HORSE",
    "KING",
    "MOVES",
    "NAMES",
    "PAWN",
    "PIECE_NAMES",
    "PIECE_TYPES",
    "POINTS",
    "RANKS",
    "RED",
    "ROOK",
    "RULES",
    "STARTING_FEN",
    "IllegalMoveError",
    "LegalMoveGenerator",
    "Piece",
    "XiangqiBoard",
    "XiangqiMove",
    "from_moves",
    "own_move",
    "perft",
]

#: The rule sets that rule repetitions: the Chinese 棋例 (the default) and the Asian (pyffish).
RULES = ("chinese", "asian")

STARTING_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


@dataclass(frozen=True, slots=True)
class _Undo:
    move: XiangqiMove
    captured: int
    halfmove_clock: int
    key: int


class LegalMoveGenerator:
    """``board.legal_moves``: iterable, sized, and answers ``move in`` (as python-chess's)."""

    __slots__ = ("_board",)

    def __init__(self, board: XiangqiBoard) -> None:
        self._board = board

    def __iter__(self) -> Iterator[XiangqiMove]:
        return self._board.generate_legal_moves()

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def count(self) -> int:
        return len(self)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def __contains__(self, move: object) -> bool:
        return isinstance(move, XiangqiMove) and self._board.is_legal(move)

    def __repr__(self) -> str:
        return f"<LegalMoveGenerator ({', '.join(m.uci() for m in self)})>"


class XiangqiBoard(XiangqiBaseBoard, PlainMoves):
    """A xiangqi position and the moves that led to it (implements ``core.rules.GameBoard``).

    The pieces are :class:`~.base_board.XiangqiBaseBoard`'s; this class owns the side to move,
    the counters, the move stack and the keys of the positions on it. Every xiangqi move is one
    piece from one point to another, so the tracker's hooks for castling, en passant and
    promotion are :class:`~boardctl.core.rules.PlainMoves`' answers.
    """

    uci_variant = "xiangqi"
    starting_fen = STARTING_FEN

    def __init__(
        self, fen: str | None = STARTING_FEN, *, rules: str = "chinese", move_limit: int = 60
    ) -> None:
        if rules not in RULES:
            raise ValueError(f"xiangqi rules are {' or '.join(RULES)}, got {rules!r:.20}")
        if not 1 <= move_limit <= 60:
            raise ValueError(f"the xiangqi move limit is 1 to 60 moves a side, got {move_limit!r:.20}")
        #: ``chinese`` (the 棋例, :mod:`.chinese_rules`) or ``asian`` (pyffish, :mod:`.judge`).
        self.rules = rules
        #: Moves by each side without a capture that draw (自然限着, at most 60).
        self.move_limit = move_limit
        super().__init__()
        self.turn: Color = RED
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self.move_stack: list[XiangqiMove] = []
        self._undo: list[_Undo] = []
        self._key = 0
        self._keys: list[int] = []  # the key of every earlier position of the stack
        self._root_fen = ""
        if fen is None:
            self._root_fen = self.fen()
        else:
            self.set_fen(fen)

    # ---- set-up and FEN ------------------------------------------------------------------

    def clear(self) -> None:
        """Remove every piece, Red to move, and forget the moves."""
        self._set_placement([0] * POINTS, [0, 0], [-1, -1])
        self.turn = RED
        self.halfmove_clock, self.fullmove_number = 0, 1
        self.clear_stack()

    def clear_stack(self) -> None:
        self.move_stack = []
        self._undo = []
        self._keys = []
        self._key = position_key(self._b, self.turn)
        self._root_fen = self.fen()

    def set_fen(self, fen: str) -> None:
        """Set the position from a xiangqi FEN (``w`` or ``r`` for Red to move, ``b`` for Black).

        Raises :class:`PositionError` (a ValueError) naming what is wrong: the field, the rank,
        the piece and point that cannot be there (:func:`.fen.parse_fen`), or a side not to move
        left in check.
        """
        setup = parse_fen(fen)
        self._set_placement(setup.board, setup.occupied_co, setup.kings)
        self.turn = setup.turn
        self.halfmove_clock, self.fullmove_number = setup.halfmove_clock, setup.fullmove_number
        if attacked(self._b, self._kings[not self.turn], self.turn):
            side = "Black" if self.turn else "Red"
            raise PositionError(
                f"xiangqi FEN {shown(fen)!r}: {side} is not to move but is in check (or the generals face each other)"
            )
        self.clear_stack()

    def fen(self) -> str:
        """The standard xiangqi FEN, ``w`` for Red to move (as Fairy-Stockfish and Pikafish)."""
        side = "w" if self.turn else "b"
        return f"{self.board_fen()} {side} - - {self.halfmove_clock} {self.fullmove_number}"

    def epd(self) -> str:
        return f"{self.board_fen()} {'w' if self.turn else 'b'} - -"

    def copy(self, *, stack: bool = True) -> Self:
        """A copy; with ``stack=False`` its move stack starts empty at this position."""
        other = type(self).__new__(type(self))
        self._copy_placement_to(other)
        other.turn = self.turn
        other.rules, other.move_limit = self.rules, self.move_limit
        other.halfmove_clock = self.halfmove_clock
        other.fullmove_number = self.fullmove_number
        other._key = self._key
        if stack:
            other.move_stack = self.move_stack.copy()
            other._undo = self._undo.copy()
            other._keys = self._keys.copy()
            other._root_fen = self._root_fen
        else:
            other.move_stack, other._undo, other._keys = [], [], []
            other._root_fen = self.fen()
        return other

    def __copy__(self) -> Self:
        return self.copy()

    def root(self) -> Self:
        """The position before the first move of the stack (its stack empty)."""
        return type(self)(self._root_fen, rules=self.rules, move_limit=self.move_limit)

    def root_fen(self) -> str:
        return self._root_fen

    def ply(self) -> int:
        """Plies played since the start of the game (from the FEN's move number)."""
        return 2 * (self.fullmove_number - 1) + (not self.turn)

    # ---- check and moves ---------------------------------------------------------------

    def is_check(self) -> bool:
        return attacked(self._b, self._kings[self.turn], not self.turn)

    def gives_check(self, move: Move) -> bool:
        self.push(move)
        try:
            return self.is_check()
        finally:
            self.pop()

    def checkers_mask(self) -> int:
        k = self._kings[self.turn]
        return self.attackers_mask(not self.turn, k) if k >= 0 else 0

    def generate_pseudo_legal_moves(
        self, from_mask: int = ALL, to_mask: int = ALL
    ) -> Iterator[XiangqiMove]:
        yield from pseudo_legal_moves(self._b, self.occupied_co, self.turn, from_mask, to_mask)

    def generate_legal_moves(
        self, from_mask: int = ALL, to_mask: int = ALL
    ) -> Iterator[XiangqiMove]:
        """The legal moves of the side to move from points of ``from_mask`` to points of
        ``to_mask`` (both bitboards, bit ``rank * 9 + file``), by :func:`.movegen.legal_moves`."""
        yield from legal_moves(self._b, self.occupied_co, self._kings, self.turn, from_mask, to_mask)

    def generate_legal_captures(
        self, from_mask: int = ALL, to_mask: int = ALL
    ) -> Iterator[XiangqiMove]:
        return self.generate_legal_moves(from_mask, to_mask & self.occupied_co[not self.turn])

    @property
    def legal_moves(self) -> LegalMoveGenerator:
        return LegalMoveGenerator(self)

    def is_pseudo_legal(self, move: Move) -> bool:
        f, t = move.from_square, move.to_square
        if not (0 <= f < POINTS and 0 <= t < POINTS):
            return False
        p = self._b[f]
        if not p or (p < BLACK_BIT) != self.turn:
            return False
        return t in targets(self._b, self.occupied_co, f, p)

    def is_legal(self, move: Move) -> bool:
        return self.is_pseudo_legal(move) and leaves_king_safe(
            self._b, self._kings, self.turn, move.from_square, move.to_square
        )

    def is_capture(self, move: Move) -> bool:
        return bool(self._b[move.to_square])

    def is_zeroing(self, move: Move) -> bool:
        """A capture resets the 60-move count."""
        return self.is_capture(move)

    def has_legal_moves(self) -> bool:
        return any(True for _ in self.generate_legal_moves())

    # ---- the stack ---------------------------------------------------------------------

    def push(self, move: Move) -> None:
        """Play ``move`` (not checked for legality, as python-chess's push)."""
        move = own_move(move)
        f, t = move.from_square, move.to_square
        p, key = self._b[f], self._key
        if not p:
            raise IllegalMoveError(f"no piece on {NAMES[f]} to play {move.uci()} in {self.fen()}")
        self._undo.append(_Undo(move, self._b[t], self.halfmove_clock, key))
        self._keys.append(key)
        self.move_stack.append(move)
        captured = self._move_piece(f, t)
        key ^= ZOBRIST[p][f] ^ ZOBRIST[p][t] ^ ZOBRIST_BLACK
        if captured:
            key ^= ZOBRIST[captured][t]
            self.halfmove_clock = 0
        else:
            self.halfmove_clock += 1
        self._key = key
        if not self.turn:
            self.fullmove_number += 1
        self.turn = not self.turn

    def pop(self) -> XiangqiMove:
        """Take back the last move; IndexError if there is none."""
        undo = self._undo.pop()
        self.move_stack.pop()
        self._keys.pop()
        move = undo.move
        self._unmove_piece(move.from_square, move.to_square, undo.captured)
        self.turn = not self.turn
        if not self.turn:
            self.fullmove_number -= 1
        self.halfmove_clock = undo.halfmove_clock
        self._key = undo.key
        return move

    def peek(self) -> XiangqiMove:
        """The last move played; IndexError if there is none."""
        return self.move_stack[-1]

    def parse_uci(self, uci: str) -> XiangqiMove:
        """The legal move ``uci`` (``h2e2``); IllegalMoveError (a ValueError) says why not."""
        move = XiangqiMove.from_uci(uci)
        if not self.is_legal(move):
            why = illegal_reason(self._b, self.occupied_co, self.turn, move)
            raise IllegalMoveError(f"illegal move {uci} in {self.fen()}: {why}")
        return move

    def push_uci(self, uci: str) -> XiangqiMove:
        move = self.parse_uci(uci)
        self.push(move)
        return move

    # ---- notation ----------------------------------------------------------------------

    def san(self, move: Move) -> str:
        """WXF notation (``C2.5``), the usual short form in Western xiangqi books."""
        from boardctl.variants.xiangqi.notation import wxf

        return wxf(self, own_move(move))

    def parse_san(self, text: str) -> XiangqiMove:
        """A legal move written in WXF, ICCS (``H2-E2``), Chinese (``炮二平五``) or coordinates."""
        from boardctl.variants.xiangqi.notation import parse_move

        return parse_move(self, text)

    def push_san(self, text: str) -> XiangqiMove:
        move = self.parse_san(text)
        self.push(move)
        return move

    def san_and_push(self, move: Move) -> str:
        text = self.san(move)
        self.push(move)
        return text

    def variation_san(self, moves: Iterable[Move]) -> str:
        """Moves from this position in WXF, numbered (``1. C2.5 H8+7``)."""
        from boardctl.variants.xiangqi.notation import variation

        return variation(self, moves)

    # ---- game end ----------------------------------------------------------------------

    def is_valid(self) -> bool:
        """Whether the position would be accepted as a set-up (see :meth:`set_fen`)."""
        try:
            type(self)(self.fen())
        except PositionError:
            return False
        return True

    def is_checkmate(self) -> bool:
        return self.is_check() and not self.has_legal_moves()

    def is_stalemate(self) -> bool:
        """No legal move and not in check: in xiangqi that loses."""
        return not self.is_check() and not self.has_legal_moves()

    def is_repetition(self, count: int = 3) -> bool:
        """Whether the position has occurred ``count`` times (this time included)."""
        return self._keys.count(self._key) + 1 >= count

    def needs_judge(self) -> bool:
        """Whether a repetition or the move limit could end the game now (the rulings, and
        pyffish under the Asian rules, are asked only then)."""
        return self.halfmove_clock >= min(100, 2 * self.move_limit) or self._key in self._keys

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None:
        """How the game has ended, or None (:func:`.endings.outcome`: no legal move, bare
        material, then the repetition rulings of :attr:`rules` and the move limit; a cycle of
        allowed moves is a draw under the Chinese rules only when claimed, ``claim_draw``)."""
        return endings.outcome(self, claim_draw=claim_draw)

    def earlier_occurrences(self) -> list[int]:
        """The plies (indexes into ``move_stack``) at which the current position stood before."""
        return [i for i, key in enumerate(self._keys) if key == self._key]

    def cycle_ruling(self, start: int, end: int | None = None) -> CycleRuling:
        """第26条 on the moves ``move_stack[start:end]`` (a cycle: the position at ``end``
        is the one at ``start``), by :mod:`.chinese_rules`."""
        return endings.cycle_ruling(self, start, end)

    def claimable_draw(self) -> str | None:
        """Under the Chinese rules, the draw of a cycle kept by both sides (不变作和)."""
        return endings.claimable_draw(self)

    def notice(self) -> Notice | None:
        """Under the Chinese rules, the side that must vary (必须变着) or the draw to claim."""
        return endings.notice(self)

    def is_game_over(self, *, claim_draw: bool = False) -> bool:
        return self.outcome(claim_draw=claim_draw) is not None

    def result(self, *, claim_draw: bool = False) -> str:
        outcome = self.outcome(claim_draw=claim_draw)
        return outcome.result() if outcome else "*"

    # ---- display -----------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.fen()!r})"

    def __eq__(self, other: object) -> bool:
        """Same position, side to move and counters (as python-chess, the stacks are ignored)."""
        return isinstance(other, XiangqiBoard) and self.fen() == other.fen()

    __hash__ = None  # type: ignore[assignment]


def perft(board: XiangqiBoard, depth: int) -> int:
    """Leaf count of the legal move tree (bulk-counted at the last ply)."""
    if depth <= 1:
        return sum(1 for _ in board.generate_legal_moves()) if depth == 1 else 1
    total = 0
    for move in list(board.generate_legal_moves()):
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def from_moves(moves: Sequence[str], fen: str = STARTING_FEN, *, rules: str = "chinese") -> XiangqiBoard:
    """The board after playing the ``moves`` (coordinates) from ``fen`` under ``rules``;
    IllegalMoveError names the first that is not legal and its number."""
    board = XiangqiBoard(fen, rules=rules)
    for i, uci in enumerate(moves):
        try:
            board.push_uci(uci)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"move {i + 1}: {exc}") from None
    return board
