"""Game messages made the way a board makes them, for the relay's tests."""

from __future__ import annotations

import json
from typing import Any

from boardctl.broadcast.publisher import snapshot_of
from boardctl.broadcast.schema import Snapshot
from boardctl.storage import GameRecord, Violation

EVENT = "club"
OPENING = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]


def record(moves: list[str] | None = None, *, game: str = "20261205-190000-000001", result: str = "*",
           violations: list[Violation] | None = None, clocks: list[float | None] | None = None) -> GameRecord:
    moves = list(OPENING if moves is None else moves)
    if clocks is None:
        clocks = [round(900.0 - 3.5 * i, 3) for i in range(len(moves))]
    return GameRecord(id=game, mode="record", white="Ann", black="Bob", moves=moves, clocks=clocks,
                      violations=violations or [], result=result, time_control="15+10")


def snapshot(rec: GameRecord, *, seq: int, board: str = "7", clock: dict[str, Any] | None = None,
             sent: float = 1_800_000_000.0) -> Snapshot:
    running = "white" if len(rec.moves) % 2 == 0 else "black"
    clock = clock if clock is not None else {"white": 880.0, "black": 870.0, "running": running}
    return snapshot_of(rec, clock, seq=seq, event=EVENT, board=board, sent=sent)


def payload(snap: Snapshot | dict[str, Any]) -> bytes:
    data = snap.to_json() if isinstance(snap, Snapshot) else snap
    return json.dumps(data).encode()


def topic(board: str = "7", kind: str = "game") -> str:
    return f"boardctl/{EVENT}/{board}/{kind}"
