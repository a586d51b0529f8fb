"""The game in progress: :class:`Session` (boardctl.session.game) and its parts, one module each.

The session is synchronous and does no I/O: the daemon feeds it events, times, the engine's replies
and the other side's input (a :class:`RemoteInput`), and each input answers with one
:class:`Effects` (LEDs, sounds, log entries, records to save, an engine request, requests for the
other side) that the daemon carries out; it reads the state line everyone sees. Its parts:
``turning`` (orientation), ``game_log`` (the game log), ``timing`` (the clock), ``referee``
(results, claims, draws), ``engine`` (engine turns), ``remote`` (network play), ``coaching`` (the
coach), ``display`` (LEDs and the state line); the vocabulary they share is ``model``, the answer
``effects``.
"""

from boardctl.session.effects import NOTHING, Effects
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
from boardctl.session.remote import RemoteInput

__all__ = [
    "ARBITER_BONUS",
    "BLUNDER_CP",
    "ENGINE_RETRY",
    "HEADER_VERSION",
    "NETWORK_REQUESTS",
    "NOTHING",
    "TAKEBACK_GRACE",
    "Effects",
    "EngineRequest",
    "LocalMove",
    "RemoteInput",
    "RemoteMoveError",
    "Session",
    "Settings",
    "resume_notice",
    "rotate",
]
