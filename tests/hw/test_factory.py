"""open_board picks backends by name; importing boardctl.hw touches no hardware library."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import chess
import pytest

from boardctl.events import Event, Snapshot
from boardctl.hw import asyncio_callback, open_board
from boardctl.hw.seriallink import SerialBoard
from boardctl.hw.sim import SimBoard


@pytest.mark.slow
def test_import_opens_nothing() -> None:
    code = "import sys, boardctl.hw; bad = {'gpiozero', 'serial'} & set(sys.modules); assert not bad, bad"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_serial_and_sim_by_name() -> None:
    with open_board("serial", url="loop://") as board:
        assert isinstance(board, SerialBoard) and board.url == "loop://"
    with open_board("sim", occupancy=chess.BB_RANK_1) as board:
        assert isinstance(board, SimBoard) and board.occupancy == chess.BB_RANK_1


def test_asyncio_callback_hands_events_to_the_loop_from_another_thread() -> None:
    async def main() -> Event:
        queue: asyncio.Queue[Event] = asyncio.Queue()
        board = SimBoard(chess.BB_E2)
        callback = asyncio_callback(asyncio.get_running_loop(), queue)
        await asyncio.to_thread(board.start, callback)  # delivered from a worker thread
        return await asyncio.wait_for(queue.get(), 2.0)

    event = asyncio.run(main())
    assert isinstance(event, Snapshot) and event.occupancy == chess.BB_E2
