"""PGN for chess games: python-chess's writer, fed a :class:`~boardctl.core.rules.GameText`."""

from __future__ import annotations

from typing import TextIO

import chess
import chess.pgn

from boardctl.core.rules import GameText, ReadGame


def write_pgn(text: GameText) -> str:
    """The game as PGN: the seven-tag roster first (``?`` where not given), ``FEN``/``SetUp`` only
    for a set-up, then the other tags in order; clocks as ``[%clk]``, then the comments."""
    game = chess.pgn.Game()
    game.setup(chess.Board(text.fen))  # sets FEN/SetUp only when not the standard start
    for name, value in text.headers.items():
        game.headers[name] = value
    node: chess.pgn.GameNode = game
    if text.comments.get(0):
        game.comment = text.comments[0]
    for ply, uci in enumerate(text.moves, start=1):
        node = node.add_variation(chess.Move.from_uci(uci))
        clock = text.clocks[ply - 1] if ply - 1 < len(text.clocks) else None
        if clock is not None:
            node.set_clock(clock)
        node.nags.update(text.nags.get(ply, ()))
        if text.comments.get(ply):
            node.comment = " ".join(filter(None, [node.comment, text.comments[ply]]))
    if text.final:
        node.comment = " ".join(filter(None, [node.comment, text.final]))
    return str(game)


def read_pgn(handle: TextIO) -> ReadGame | None:
    """The first game in ``handle`` (python-chess's lenient reader: errors are collected)."""
    game = chess.pgn.read_game(handle)
    if game is None:
        return None
    board = game.board()
    return ReadGame(
        headers=dict(game.headers),
        fen=board.fen(),
        moves=tuple(move.uci() for move in game.mainline_moves()),
        errors=tuple(str(e) for e in game.errors),
    )


def read_pgn_headers(handle: TextIO) -> dict[str, str] | None:
    """The tags of the next game in ``handle``, None at the end."""
    headers = chess.pgn.read_headers(handle)
    return dict(headers) if headers is not None else None
