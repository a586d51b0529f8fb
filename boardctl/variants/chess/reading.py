"""Reading a chess PGN someone hands us (the page's upload, ``boardctl games open``): one game,
its main line only, within a ply limit, every fault a :class:`~boardctl.records.RecordError`."""

from __future__ import annotations

import io

import chess
import chess.pgn

from boardctl.records import ReadGame, RecordError, SeveralGames, add_comment


class _EndBoard(chess.pgn.BaseVisitor["chess.Board | None"]):
    """The main line's last position (None when the game has none, e.g. a bad FEN tag), counting
    plies (over ``max_plies`` stops the read) and keeping the first error instead of raising it;
    variations are skipped unread."""

    def __init__(self, max_plies: int) -> None:
        self.max_plies = max_plies
        self.begin_game()

    def begin_game(self) -> None:
        self.board: chess.Board | None = None
        self.skip_variation_depth = 0
        self.plies = 0
        self.has_fen = False
        self.tags: dict[str, str] = {}
        self.errors: list[Exception] = []
        self.comments: dict[int, str] = {}

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        super().visit_header(tagname, tagvalue)
        if tagname == "FEN":
            self.has_fen = True
        if len(self.tags) < 100:
            self.tags[tagname[:60]] = tagvalue[:200]

    def visit_comment(self, comment: str | list[str]) -> None:
        if not self.skip_variation_depth:
            add_comment(self.comments, self.plies, comment if isinstance(comment, str) else " ".join(comment))

    def begin_variation(self) -> chess.pgn.SkipType:
        self.skip_variation_depth += 1
        return chess.pgn.SKIP

    def end_variation(self) -> None:
        self.skip_variation_depth = max(self.skip_variation_depth - 1, 0)

    def visit_board(self, board: chess.Board) -> None:
        if not self.skip_variation_depth:
            self.board = board

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if not self.skip_variation_depth:
            self.plies += 1
            if self.plies > self.max_plies:
                raise _TooLong

    def handle_error(self, error: Exception) -> None:
        self.errors.append(error)

    def result(self) -> chess.Board | None:
        return self.board


class _TooLong(Exception):
    pass


def read_record(data: str | bytes, *, max_plies: int) -> ReadGame:
    """The one game of a PGN: refuses illegal moves, empty input, a file of several games (which
    one would be meant is not for us to guess), a game with neither moves nor a FEN tag, and
    more than ``max_plies`` main-line moves."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    else:
        text = data
    made: list[_EndBoard] = []

    def visitor() -> _EndBoard:
        made.append(_EndBoard(max_plies))
        return made[-1]

    stream = io.StringIO(text)
    try:
        board = chess.pgn.read_game(stream, Visitor=visitor)
        more = 0
        while more < 1000 and chess.pgn.read_game(stream, Visitor=chess.pgn.SkipVisitor) is not None:
            more += 1
    except _TooLong:
        raise RecordError(f"more than {max_plies} moves (plies) in the main line") from None
    except (ValueError, RecursionError) as exc:
        raise RecordError(f"not a readable PGN ({exc})") from None
    except Exception as exc:  # python-chess's reader trips on some garbage ("e5 ) !!": IndexError)
        raise RecordError(f"not a readable PGN ({type(exc).__name__})") from None
    if made and made[-1].errors:
        raise RecordError(str(made[-1].errors[0]))
    if board is None or not made:
        raise RecordError("no game found")
    if more:
        raise SeveralGames(more + 1)
    end = made[-1]
    if not end.has_fen and not board.move_stack:
        raise RecordError("the game has no moves and no FEN tag")
    return ReadGame(
        fen=board.root().fen(),
        moves=tuple(move.uci() for move in board.move_stack),
        headers=end.tags,
        has_fen=end.has_fen,
        comments=end.comments,
    )
