"""What stands where, as the hands leave it: the pieces a ChessLink status reports, pure.

A reed board senses only occupancy; the game the tracker follows names the pieces. Fed the
game's position (FEN) and the switches' occupancy after every event, :class:`PieceView` keeps a
piece on every occupied square and answers the statuses the app should see, in order:

- a lifted piece is absent while it is in the air (it is *in the hand*);
- a piece set down is the one from the hand the game explains there (a legal move of the game's
  position from where it was lifted, or its own square), else the piece lifted last; a pawn set
  down on its last rank by a legal move is shown as a queen, the piece it becomes unless chosen;
- when the game completes a move (its position changes), or the board matches the game again,
  the game's pieces are taken as they are, a square whose piece changes going empty first
  (victim off, capturer on), so an app never sees a piece jump;
- a piece that appears with nothing in the hand is the game's piece there, else the last piece
  that left the board (a captured piece put back), else a pawn of the side to move.

It never changes the tracker's rules: it only names the pieces of what the tracker already saw.
"""

from __future__ import annotations

from boardctl.chesslink.protocol import status_from_pieces
from boardctl.core.geometry import squares_of
from boardctl.core.rules import GameBoard, Variant
from boardctl.variants import get_variant

#: Pieces per FEN letter that a pawn becomes on its last rank unless the player chooses otherwise.
_PROMOTED = {"P": "Q", "p": "q"}


def placement(fen: str) -> dict[int, str]:
    """The pieces of a chess FEN's placement field (a1=0 .. h8=63 -> letter)."""
    out: dict[int, str] = {}
    rows = fen.split()[0].split("/") if fen.strip() else []
    for i, row in enumerate(rows[:8]):
        rank = 7 - i
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            elif file < 8:
                out[rank * 8 + file] = ch
                file += 1
    return out


class PieceView:
    """The physical board as pieces, from the game's position and the occupancy (see module doc)."""

    def __init__(self, variant: Variant | None = None) -> None:
        self.variant = variant or get_variant("chess")
        self.pieces: dict[int, str] = {}
        #: Lifted pieces not yet set down: (square lifted from, piece), oldest first.
        self.hand: list[tuple[int, str]] = []
        #: Pieces that left the board (captured), newest last.
        self.gone: list[str] = []
        self._fen: str | None = None
        self._board: GameBoard | None = None

    @property
    def status(self) -> str:
        return status_from_pieces(self.pieces)

    def update(self, fen: str, occupancy: int, promotion: str | None = None) -> list[str]:
        """The statuses the app should see, in order, for the game's ``fen`` and the switches'
        ``occupancy`` (a1=bit 0, game orientation) and the open ``promotion`` (UCI, the piece
        chosen so far: shown on its square at once); empty when nothing it reports changed."""
        game = placement(fen)
        before = self.status
        steps: list[str] = []
        if self._fen is None:
            self.pieces = {sq: self._stranger(game, sq) for sq in squares_of(occupancy)}
            self._fen = fen
            return [self.status]
        moved = fen != self._fen
        if moved:
            # The game completed (or corrected) a move: that came first, before what this event did.
            self._board = None
            steps.extend(self._agree(game, self._occupancy(), exact=False))
        lifted = [sq for sq in self.pieces if not occupancy >> sq & 1]
        for sq in lifted:
            self.hand.append((sq, self.pieces.pop(sq)))
        if lifted:
            steps.append(self.status)
        for sq in squares_of(occupancy):
            if sq not in self.pieces:
                self.pieces[sq] = self._set_down(sq, fen, game)
                steps.append(self.status)
        exact = occupancy == sum(1 << sq for sq in game)
        if exact:
            steps.extend(self._agree(game, occupancy, exact=True))
        steps.extend(self._promoted(promotion, fen))
        self._fen = fen
        out: list[str] = []
        last = before
        for status in steps:
            if status != last:
                out.append(status)
                last = status
        return out

    def _promoted(self, promotion: str | None, fen: str) -> list[str]:
        """The piece an open promotion has chosen so far, on its square if a piece stands there."""
        if not promotion or len(promotion) != 5 or promotion[4] not in "qrbn":
            return []
        square = "abcdefgh".find(promotion[2]) + 8 * ("12345678".find(promotion[3]))
        white = " b " not in f" {fen} "
        piece = promotion[4].upper() if white else promotion[4]
        held = self.pieces.get(square)
        if held is None or held == piece or not 0 <= square < 64:
            return []
        self.pieces.pop(square)
        steps = [self.status]
        self.pieces[square] = piece
        return [*steps, self.status]

    def _occupancy(self) -> int:
        return sum(1 << sq for sq in self.pieces)

    def _agree(self, game: dict[int, str], occupancy: int, *, exact: bool) -> list[str]:
        """Take the game's pieces where it has them (all of them when the board matches it)."""
        target = dict(game) if exact else {sq: game.get(sq, piece) for sq, piece in self.pieces.items()}
        wrong = [sq for sq, piece in self.pieces.items() if target.get(sq) != piece]
        steps: list[str] = []
        if wrong:
            for sq in wrong:
                self.gone.append(self.pieces.pop(sq))
            steps.append(self.status)
        self.pieces = {sq: piece for sq, piece in target.items() if occupancy >> sq & 1}
        steps.append(self.status)
        still = [(sq, piece) for sq, piece in self.hand if not occupancy >> sq & 1 and game.get(sq) == piece]
        self.gone.extend(piece for sq, piece in self.hand if (sq, piece) not in still)
        self.hand = still
        del self.gone[:-32]
        return steps

    def _set_down(self, square: int, fen: str, game: dict[int, str]) -> str:
        if not self.hand:
            return self._stranger(game, square)
        board = self._game_board(fen)
        for i in range(len(self.hand) - 1, -1, -1):
            origin, piece = self.hand[i]
            if board is not None and game.get(origin) == piece:
                moves = list(board.generate_legal_moves(1 << origin, 1 << square))
                if moves:
                    del self.hand[i]
                    if any(board.choice_of(m) is not None for m in moves):
                        return _PROMOTED.get(piece, piece)
                    return piece
        for i in range(len(self.hand) - 1, -1, -1):
            if self.hand[i][0] == square:
                return self.hand.pop(i)[1]
        return self.hand.pop()[1]

    def _stranger(self, game: dict[int, str], square: int) -> str:
        """A piece from nowhere: the game's there unless that one stands elsewhere already, else
        the last piece captured, else a pawn of the side to move."""
        expected = game.get(square)
        if expected is not None:
            standing = sum(1 for piece in self.pieces.values() if piece == expected)
            standing += sum(1 for _, piece in self.hand if piece == expected)
            if standing < sum(1 for piece in game.values() if piece == expected) or not self.gone:
                return expected
        if self.gone:
            return self.gone.pop()
        return "p" if self._fen is not None and " b " in f" {self._fen} " else "P"

    def _game_board(self, fen: str) -> GameBoard | None:
        if self._board is None:
            try:
                self._board = self.variant.board(fen)
            except ValueError:
                return None
        return self._board



