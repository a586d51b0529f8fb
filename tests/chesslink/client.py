"""A ChessLink app for the tests, written from the protocol description alone (docs/chesslink.md,
the Millennium "Magic Chessboard" protocol); it imports nothing of ``boardctl.chesslink``.

It frames commands (odd parity per character, two hex digits of XOR block parity), splits the
board's byte stream into checked replies, and follows a game as an app does: from the status
reports alone, a report that is the position after one legal move (or two, when hands overlap)
is that move, and a later report may correct the last move (a rook set down before its king
looked like a rook move; a promotion's piece chosen after the pawn landed).
"""

from __future__ import annotations

import chess

#: Moves an app looks ahead when hands overlap (a reply lifted before the move was set down), and
#: how many of its last moves it may revise when later reports explain them better.
DEPTH = 2
REVISE = 2
#: Reply letter -> length of its data (before the two check digits).
REPLY_DATA = {"v": 4, "s": 64, "l": 0, "x": 0, "w": 4, "r": 4}


def odd(char: str) -> int:
    code = ord(char)
    return code | 0x80 if bin(code).count("1") % 2 == 0 else code


def frame(text: str, *, block: bool = True) -> bytes:
    if block:
        check = 0
        for ch in text:
            check ^= ord(ch)
        text += f"{check:02X}"
    return bytes(odd(ch) for ch in text)


class ReplyReader:
    """The board's bytes in, ``(letter, data)`` replies out; every character and block checked."""

    def __init__(self, *, block: bool = True) -> None:
        self.block = block
        self.pending = ""
        self.errors: list[str] = []

    def feed(self, data: bytes) -> list[tuple[str, str]]:
        out = []
        for byte in data:
            if bin(byte).count("1") % 2 != 1:
                self.errors.append(f"even parity byte {byte:#x}")
                continue
            ch = chr(byte & 0x7F)
            if not self.pending and ch not in REPLY_DATA:
                self.errors.append(f"stray {ch!r}")
                continue
            self.pending += ch
            size = 1 + REPLY_DATA[self.pending[0]] + (2 if self.block else 0)
            if len(self.pending) == size:
                text = self.pending
                self.pending = ""
                if self.block:
                    body, check = text[:-2], text[-2:]
                    xor = 0
                    for c in body:
                        xor ^= ord(c)
                    if f"{xor:02X}" != check:
                        self.errors.append(f"bad block parity in {text!r}")
                        continue
                    text = body
                out.append((text[0], text[1:]))
        return out


def placement_of(status: str) -> str:
    """A status (a8..h8, ..., a1..h1) as a FEN placement field."""
    rows = []
    for r in range(8):
        row, empty = "", 0
        for ch in status[8 * r:8 * r + 8]:
            if ch == ".":
                empty += 1
            else:
                row += (str(empty) if empty else "") + ch
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


class GameFollower:
    """Moves from status reports alone, starting from ``fen``."""

    def __init__(self, fen: str = chess.STARTING_FEN) -> None:
        self.board = chess.Board(fen)
        self.statuses: list[str] = []

    def see(self, status: str) -> None:
        if self.statuses and self.statuses[-1] == status:
            return
        self.statuses.append(status)
        target = placement_of(status)
        if self.board.board_fen() == target:
            return
        if status.count(".") > 64 - len(self.board.piece_map()):
            # Fewer pieces than on the board: a capture, or only a piece in the air; never a
            # reason to look further ahead or to take back what was followed.
            self._extend(self.board, target, 1)
            return
        if self._extend(self.board, target, DEPTH):
            return
        taken: list[chess.Move] = []
        for _ in range(min(REVISE, len(self.board.move_stack))):  # the last moves were guessed wrong
            taken.append(self.board.pop())
            if self._extend(self.board, target, DEPTH, avoid=taken[-1]):
                return
        for move in reversed(taken):
            self.board.push(move)

    def _extend(self, board: chess.Board, target: str, depth: int, avoid: chess.Move | None = None) -> bool:
        """Push the moves (one, else up to ``depth``) that lead to ``target``, if any. Only moves
        from and to squares that differ from the target are tried (a move that reaches it is one),
        and a path must not start with ``avoid``, the move being revised."""
        goal = chess.BaseBoard(target)
        for move in list(board.generate_legal_moves(*_differing(board, goal))):
            if move == avoid:
                continue
            board.push(move)
            if board.board_fen() == target or (depth > 1 and self._extend(board, target, depth - 1)):
                return True
            board.pop()
        return False

    @property
    def moves(self) -> list[str]:
        return [m.uci() for m in self.board.move_stack]


def _differing(board: chess.Board, goal: chess.BaseBoard) -> tuple[int, int]:
    """The squares whose piece differs, as (from mask, to mask) for ``generate_legal_moves``."""
    mask = 0
    for square in chess.SQUARES:
        if board.piece_at(square) != goal.piece_at(square):
            mask |= chess.BB_SQUARES[square]
    return mask, mask
