"""The game in progress: :class:`Session` (boardctl.session.game) and its parts, one module each.

The session is synchronous and does no I/O: the daemon feeds it events and times, asks it what
the engine should be asked and hands back the replies, and reads back state lines, LEDs, sounds
and log entries. Its parts: ``turning`` (orientation), ``game_log`` (the game log), ``timing`` (the
clock), ``referee`` (results, claims, draws), ``engine`` (engine turns), ``remote`` (network
play), ``coaching`` (the coach), ``display`` (LEDs and the state line); the vocabulary they share
is ``model``.
"""

from boardctl.session.game import Session
from boardctl.session.model import (
    ARBITER_BONUS,
    BLUNDER_CP,
    ENGINE_RETRY,
    HEADER_VERSION,
    NETWORK_REQUESTS,
    TAKEBACK_GRACE,
    EngineRequest,
    LocalMove,
    RemoteMoveError,
    Settings,
    resume_notice,
    rotate,
)

__all__ = [
    "ARBITER_BONUS",
    "BLUNDER_CP",
    "ENGINE_RETRY",
    "HEADER_VERSION",
    "NETWORK_REQUESTS",
    "TAKEBACK_GRACE",
    "EngineRequest",
    "LocalMove",
    "RemoteMoveError",
    "Session",
    "Settings",
    "resume_notice",
    "rotate",
]
