"""What the opponent's best reply does to a chess move: wins a hanging piece, forks, pins or skewers.

The coach (:mod:`boardctl.learning.coach`) asks :func:`motif` with plain strings (FEN, the
player's move and the engine's refutation in UCI) and gets a game-neutral :class:`Motif` back,
so that it never needs python-chess. Detection is static and deliberately plain: it looks at the
position after the reply only, and names the first motif found in the order hangs, fork, pin,
skewer; None when the reply does none of them (the coach then says "loses N pawns").
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

#: Piece values for "worth more than" and "free to take" (king above everything).
VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}
NAMES = {chess.PAWN: "pawn", chess.KNIGHT: "knight", chess.BISHOP: "bishop", chess.ROOK: "rook",
         chess.QUEEN: "queen", chess.KING: "king"}
_SLIDER_RAYS = {
    chess.BISHOP: ((1, 1), (1, -1), (-1, 1), (-1, -1)),
    chess.ROOK: ((1, 0), (-1, 0), (0, 1), (0, -1)),
    chess.QUEEN: ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1)),
}


@dataclass(frozen=True)
class Motif:
    """One tactic the reply plays against the player: ``kind`` is hangs, fork, pin or skewer;
    ``pieces`` names the player's pieces concerned with their squares ("knight on f3")."""

    kind: str
    pieces: tuple[str, ...]


def _named(board: chess.Board, square: chess.Square) -> str:
    piece = board.piece_type_at(square)
    assert piece is not None
    return f"{NAMES[piece]} on {chess.square_name(square)}"


def _can_recapture(board: chess.Board, square: chess.Square) -> bool:
    """Whether the side to move has a legal capture on ``square``."""
    return any(m.to_square == square for m in board.generate_legal_captures(to_mask=chess.BB_SQUARES[square]))


def _hangs(board: chess.Board, reply: chess.Move, player: chess.Color) -> Motif | None:
    """The reply takes a piece (not a pawn) for free: undefended, or worth more than the taker."""
    victim = board.piece_at(reply.to_square)
    taker = board.piece_type_at(reply.from_square)
    if victim is None or victim.color != player or victim.piece_type == chess.PAWN or taker is None:
        return None
    name = _named(board, reply.to_square)
    after = board.copy(stack=False)
    after.push(reply)
    if VALUES[victim.piece_type] > VALUES[taker] or not _can_recapture(after, reply.to_square):
        return Motif("hangs", (name,))
    return None


def _is_target(board: chess.Board, square: chess.Square, attacker: chess.PieceType, player: chess.Color) -> bool:
    """A piece the attacker threatens to win: the king (check), a piece worth more, or an undefended one."""
    piece = board.piece_at(square)
    if piece is None or piece.color != player:
        return False
    if piece.piece_type == chess.KING or VALUES[piece.piece_type] > VALUES[attacker]:
        return True
    return piece.piece_type != chess.PAWN and not board.is_attacked_by(player, square)


def _fork(after: chess.Board, reply: chess.Move, player: chess.Color) -> Motif | None:
    attacker = after.piece_type_at(reply.to_square)
    if attacker is None or attacker == chess.KING:
        return None
    targets = [sq for sq in after.attacks(reply.to_square) if _is_target(after, sq, attacker, player)]
    if len(targets) < 2 or all(after.piece_type_at(sq) == chess.PAWN for sq in targets):
        return None
    # The forking piece must survive: not simply taken for nothing by the player.
    if not after.is_attacked_by(player, reply.to_square) or VALUES[attacker] <= min(
        VALUES[after.piece_type_at(sq) or chess.PAWN] for sq in targets
    ):
        ordered = sorted(targets, key=lambda sq: -VALUES[after.piece_type_at(sq) or chess.PAWN])
        return Motif("fork", tuple(_named(after, sq) for sq in ordered))
    return None


def _line_motif(after: chess.Board, reply: chess.Move, player: chess.Color) -> Motif | None:
    """A slider that has just moved, with two of the player's pieces on one of its lines:
    the front one worth less (or the back one the king) is a pin, worth more a skewer."""
    attacker = after.piece_type_at(reply.to_square)
    if attacker not in _SLIDER_RAYS:
        return None
    file, rank = chess.square_file(reply.to_square), chess.square_rank(reply.to_square)
    for df, dr in _SLIDER_RAYS[attacker]:
        found: list[chess.Square] = []
        f, r = file + df, rank + dr
        while 0 <= f < 8 and 0 <= r < 8 and len(found) < 2:
            sq = chess.square(f, r)
            piece = after.piece_at(sq)
            if piece is not None:
                if piece.color != player:
                    break
                found.append(sq)
            f, r = f + df, r + dr
        if len(found) < 2:
            continue
        front, back = (after.piece_type_at(sq) or chess.PAWN for sq in found)
        if front == chess.PAWN:
            continue
        if back == chess.KING or (VALUES[back] > VALUES[front] and VALUES[back] > VALUES[attacker]):
            return Motif("pin", (_named(after, found[0]), _named(after, found[1])))
        if VALUES[front] > VALUES[back] and back != chess.PAWN and (
            front == chess.KING or VALUES[front] > VALUES[attacker]
        ):
            return Motif("skewer", (_named(after, found[0]), _named(after, found[1])))
    return None


def motif(fen: str, move: str, reply: str) -> Motif | None:
    """What ``reply`` (the opponent's best answer, UCI) does after the player's ``move`` (UCI)
    from ``fen``; None when it is none of hangs, fork, pin, skewer. ValueError for bad input."""
    board = chess.Board(fen)
    player = board.turn
    played = chess.Move.from_uci(move)
    if not board.is_legal(played):
        raise ValueError(f"{move!r} is not legal in {fen}")
    board.push(played)
    answer = chess.Move.from_uci(reply)
    if not board.is_legal(answer):
        raise ValueError(f"{reply!r} is not legal after {move} in {fen}")
    found = _hangs(board, answer, player)
    if found is not None:
        return found
    after = board.copy(stack=False)
    after.push(answer)
    return _fork(after, answer, player) or _line_motif(after, answer, player)


def piece_name(fen: str, square: str) -> str:
    """The piece on ``square`` in words ("knight"), for the coach's lines."""
    board = chess.Board(fen)
    piece = board.piece_type_at(chess.parse_square(square))
    return NAMES[piece] if piece is not None else ""
