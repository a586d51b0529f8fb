"""The server's move list against the board's: what to send, show or take back (pure).

Lichess sends the whole move list in every ``gameState`` and in the ``gameFull`` that starts
each (re)connection, so nothing needs numbering: the board's list and the server's share a
prefix, and only what follows it matters. Applying the same list twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    """What makes the board's game the server's."""

    #: Our move, complete on the board, that the server has not got yet.
    send: str | None = None
    #: Plies to take back on the board (a takeback the server agreed, or a refused move).
    take_back: int = 0
    #: Server moves the board has not got, in order (normally the opponent's one move).
    show: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        return self.send is None and not self.take_back and not self.show


def plan(local: Sequence[str], server: Sequence[str], *, mine: bool, over: bool = False) -> Plan:
    """``local``: the board's moves; ``server``: Lichess's; ``mine``: the board's last move was
    ours (so, if the server lacks just that one, it is to be sent, not taken back)."""
    common = 0
    for a, b in zip(local, server, strict=False):
        if a != b:
            break
        common += 1
    if common == len(local) and common == len(server):
        return Plan()
    if not over and mine and common == len(server) == len(local) - 1:
        return Plan(send=local[-1])
    return Plan(take_back=len(local) - common, show=tuple(server[common:]))
