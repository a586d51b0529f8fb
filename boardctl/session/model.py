"""The session's vocabulary: its settings, what it asks the engine and sends the other side, and
the record a new game starts with. Plain values and functions that every part of the session
uses (boardctl.session.game and its collaborators)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from boardctl.core.geometry import CHESS_8X8, Geometry
from boardctl.core.rules import GameBoard, Move, Variant
from boardctl.errors import BoardctlError
from boardctl.storage import GameRecord

#: After a takeback made by hand leaves the engine to move, wait this long for more takebacks.
TAKEBACK_GRACE = 2.0
#: After the engine failed for good (restarts included), wait this long before asking again.
ENGINE_RETRY = 5.0
#: Seconds the opponent gets for a first illegal move with ``arbiter`` and a clock (FIDE 7.5.5).
ARBITER_BONUS = 120.0
#: A move that loses this many centipawns (by the engine's judgement) gets a blunder warning.
BLUNDER_CP = 200
#: The version of the game log's header line (docs/events.md).
HEADER_VERSION = 1
#: Requests a ``network`` game's buttons send to the other side (docs/network-protocol.md).
NETWORK_REQUESTS = ("draw", "takeback", "resign", "claim", "accept", "decline")


@dataclass(frozen=True)
class Settings:
    """What a game is played with; the parts that matter for resuming are saved in the record."""

    mode: Literal["play", "record", "network"] = "play"
    color: str = "white"  # the human's colour in play (white, black or random); this board's in network
    level: str = "intermediate"
    orientation: str = "auto"  # auto, normal or flipped
    time_control: str = ""
    policy: str = "fide"
    arbiter: bool = False
    takeback: str = "apply"
    settle: float = 0.3
    legal_moves: bool = False
    blunder_warning: bool = False
    engine_name: str = "boardctl engine"
    variant: str = "chess"  # boardctl.variants.NAMES
    #: Xiangqi's repetition rulings: ``chinese`` (the 棋例) or ``asian`` (pyffish); its move limit.
    xiangqi_rules: str = "chinese"
    xiangqi_move_limit: int = 60
    opponent: str = ""  # the character played (play --opponent), as named in the PGN: "Ilya Inferno (2000)"
    #: A full-strength coach judges the human's moves: True (``--coach``) or False (``--no-coach``)
    #: whatever the level; None, the default, at the practice levels only.
    coach: bool | None = None


@dataclass(frozen=True)
class LocalMove:
    """A move completed on this board in a ``network`` game, to send to the other side: ``ply``
    counts from 0 (the game's first move), ``clock`` is the mover's time left (None: no clock)."""

    ply: int
    uci: str
    clock: float | None


class RemoteMoveError(BoardctlError, ValueError):
    """A remote move that cannot be applied (wrong number, not the remote side's turn, illegal)."""


@dataclass(frozen=True)
class EngineRequest:
    """Ask the engine about ``board``; the reply is used only if the game is still at ``serial``."""

    kind: Literal["move", "hint"]
    board: GameBoard
    serial: int
    not_before: float = 0.0
    #: Seconds the engine may spend by its clock (None: no clock).
    budget: float | None = None


def resume_notice(record: GameRecord) -> str:
    """What to tell the user when an unfinished game is taken up again (page, terminal, log)."""
    board = record.board()
    date = record.started[:10] or "an earlier day"
    fields = board.fen().split()
    number = fields[5] if len(fields) > 5 else "1"
    if record.mode == "play" and record.human in record.rules().color_names:
        who = f"you play {record.human.capitalize()}"
    else:
        who = "recording two players"
    return (
        f"Resuming your unfinished game of {date}, move {number}, {who}. "
        "New game: the New game button on the page, or start with --new."
    )


def rotate(bb: int, geometry: Geometry = CHESS_8X8) -> int:
    """A bitboard turned round (square ``s`` -> ``points - 1 - s``)."""
    return geometry.turn_mask(bb)


def side_index(color: str) -> int | None:
    """0 for the side that moves first (``white``, ``red``), 1 for ``black``, None otherwise."""
    return {"white": 0, "red": 0, "black": 1}.get(color)


def legal(board: GameBoard, uci: str) -> Move | None:
    """The legal move written ``uci`` on ``board``, or None."""
    try:
        return board.parse_uci(uci)
    except ValueError:
        return None


def new_record(settings: Settings, variant: Variant, fen: str, mode: str | None = None) -> GameRecord:
    """The record of a new game from ``fen``: players, sides and orientation as ``settings`` say;
    ``mode`` is a guide's own (a lesson's, a replay's), else the settings'."""
    s = settings
    names = variant.color_names
    human: str | None = None
    white, black = names[0].capitalize(), names[1].capitalize()
    if s.mode == "network":
        side = side_index(s.color)
        human = names[0 if side is None else side]
    if s.mode == "play":
        side = side_index(s.color)
        human = random.choice(names) if side is None else names[side]
        engine = s.opponent or f"{s.engine_name} ({s.level})"
        white, black = ("Human", engine) if human == names[0] else (engine, "Human")
    orientation = s.orientation
    if orientation == "auto" and (fen != variant.starting_fen or human == names[1]):
        orientation = "normal"  # only White's first move from the start tells the sides apart
    return GameRecord(
        id=GameRecord.new_id(),
        mode=mode or s.mode,
        white=white,
        black=black,
        fen=fen,
        human=human,
        level=s.level if s.mode == "play" else None,
        orientation=orientation,
        time_control=s.time_control,
        variant=variant.name,
    )
