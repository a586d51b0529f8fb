"""Fuzzing the device -> Pi direction of the serial link, end to end through ``SerialBoard``.

A device makes a valid line stream (lifts, places, button presses, heartbeats, resets, answers
to the host's requests). Between it and the host, a channel drops, repeats, delays past the next
line, replays earlier lines, flips bytes, cuts lines short, inserts garbage and loses requests.
Whatever it does, every event the host emits must be one that really happened, in the order it
happened: a change or press is the very next thing the device did after the state the host
knew, and a snapshot is a true state no older than the last event. Once the channel is clean
again the host resyncs to the truth and passes changes on as before.

``make fuzz`` runs it with many more examples (HYPOTHESIS_PROFILE=fuzz).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.core.geometry import CHESS_8X8, XIANGQI_9X10, Geometry
from boardctl.events import ButtonPressed, Event, Snapshot, SquareChanged
from boardctl.hw.protocol import LineFramer, parse_line
from boardctl.hw.seriallink import SerialBoard

from .serialdevice import START, FakePico, examples

#: The xiangqi start position's points.
XIANGQI_START = XIANGQI_9X10.mask(
    [XIANGQI_9X10.square(f, r) for f in range(9) for r in (0, 9)]
    + [XIANGQI_9X10.parse(n) for n in ("b2", "h2", "b7", "h7")]
    + [XIANGQI_9X10.square(f, r) for f in (0, 2, 4, 6, 8) for r in (3, 6)]
)
OPS = ["pass"] * 12 + ["drop", "repeat", "hold", "replay", "replay-answer", "flip", "cut", "garbage"]
#: Lines a device makes per boot in one example stay below this, so that an old line's
#: 8-bit sequence number is never due again (the protocol's limit, see PROTOCOL.md).
MAX_LINES_PER_BOOT = 200


@pytest.fixture(autouse=True)
def _quiet() -> Iterator[None]:
    """Every fault is logged as a warning; thousands of them would only slow the search down."""
    logger = logging.getLogger("boardctl.hw.seriallink")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


class _Port:
    def __init__(self, on_write: Any) -> None:
        self.write = on_write

    def close(self) -> None:
        pass


Action = tuple[str, int, int]  # kind, a parameter, how many lines the channel then passes on
Fault = tuple[str, int, int]  # channel op, two parameters

actions_st = st.lists(
    st.tuples(st.sampled_from(["change"] * 5 + ["button", "beat", "reset"]), st.integers(0, 255), st.integers(0, 3)),
    min_size=1, max_size=40,
)
faults_st = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 2**16), st.integers(0, 255)), max_size=150)
losses_st = st.lists(st.booleans(), max_size=40)


class Link:
    """A device, a hostile channel and the host, run step by step on one thread.

    The plan (actions, channel faults, lost requests) is drawn up front: a few large draws keep
    hypothesis fast and still shrink well. When the faults run out the channel passes lines on.
    """

    def __init__(self, faults: list[Fault], losses: list[bool], geometry: Geometry = CHESS_8X8) -> None:
        self.geometry = geometry
        self.faults = iter(faults)
        self.losses = iter(losses)
        self.clean = True
        self.outbox: list[bytes] = []  # device -> host, in the device's order, not yet through the channel
        self.held: bytes | None = None
        start = START if geometry == CHESS_8X8 else XIANGQI_START
        self.dev = FakePico(self.outbox.append, occupancy=start)
        self.dev.geometry, self.dev.digits = geometry, geometry.hex_digits
        self.dev.size = f"{geometry.ranks}x{geometry.files}"
        self.version = "boardfw-2" if geometry == CHESS_8X8 else "boardfw-3"
        self.boot_start = 0
        self.actions: list[tuple[Any, ...] | None] = [None]  # action i turns truth[i-1] into truth[i]
        self.truth = [start]
        self.events: list[Event] = []
        self._framer = LineFramer()
        self.board = SerialBoard(opener=lambda: None, geometry=geometry)
        self.board.REQUEST_RETRY = 0.0  # type: ignore[misc]  # every housekeeping step may ask again
        self.board._spawn = lambda: None  # type: ignore[method-assign]  # this test is the reader thread
        self.board.start(self.events.append)
        self.board.attach(_Port(self._from_host))

    # --- the device ---------------------------------------------------------------------------------
    def _from_host(self, data: bytes) -> None:
        for raw in self._framer.feed(data):
            line = parse_line(raw)
            if line.kind != "?":
                continue
            if not self.clean:
                if len(self.dev.sent) - self.boot_start >= MAX_LINES_PER_BOOT:
                    continue
                if next(self.losses, False):
                    continue
            self.outbox.append(self.dev.snapshot("req", *line.args))

    def act(self, action: Action) -> None:
        kind, param, _ = action
        if kind == "change":
            square = param % self.geometry.points
            occupied = not self.dev.occupancy >> square & 1
            self.outbox.append(self.dev.change(self.geometry.square_name(square), occupied))
            self.actions.append(("C", square, occupied))
            self.truth.append(self.dev.occupancy)
        elif kind == "button":
            name = ("hint", "takeback", "draw", "resign")[param % 4]
            self.outbox.append(self.dev.line("B", name))
            self.actions.append(("B", name))
            self.truth.append(self.dev.occupancy)
        elif kind == "beat":
            self.outbox.append(self.dev.snapshot("beat"))
        else:
            self.boot_start = len(self.dev.sent)
            self.dev.seq = param  # a device may start counting anywhere
            self.outbox.append(self.dev.line("HELLO", self.version, self.dev.size))
            self.outbox.append(self.dev.snapshot("boot"))

    # --- the channel --------------------------------------------------------------------------------
    def _deliver(self, data: bytes) -> None:
        self.board.handle_bytes(data)
        self.board.housekeeping()

    def step(self) -> None:
        raw = self.outbox.pop(0)
        op, a, b = ("pass", 0, 0) if self.clean else next(self.faults, ("pass", 0, 0))
        if op == "drop":
            pass
        elif op == "repeat":
            self._deliver(raw)
            self._deliver(raw)
        elif op == "hold" and self.held is None:
            self.held = raw
            return
        elif op == "replay":
            old = self._seen()
            if old:
                self._deliver(old[a % len(old)])
            self._deliver(raw)
        elif op == "replay-answer":  # an earlier answer to a snapshot request, if there is one
            answers = [line for line in self._seen() if b" req " in line]
            if answers:
                self._deliver(answers[a % len(answers)])
            self._deliver(raw)
        elif op == "flip":
            i = a % (len(raw) - 1)
            self._deliver(raw[:i] + bytes([raw[i] ^ (b or 1)]) + raw[i + 1 :])
        elif op == "cut":
            self._deliver(raw[: a % len(raw)])
        elif op == "garbage":
            self._deliver(a.to_bytes(3, "little") + bytes([b]) * (a % 7) + raw)
        else:
            self._deliver(raw)
        if self.held is not None and op != "hold":
            held, self.held = self.held, None
            self._deliver(held)

    def _seen(self) -> list[bytes]:
        """Lines of this boot that have been on the wire, to replay. (Lines of another boot, or
        more than 255 lines old, may carry the sequence number due: the protocol's known limit.)"""
        return self.dev.sent[self.boot_start : len(self.dev.sent) - len(self.outbox) - 1]

    def drain(self) -> None:
        while self.outbox:
            self.step()
        if self.held is not None:
            held, self.held = self.held, None
            self._deliver(held)
            while self.outbox:
                self.step()


def _check_history(events: list[Event], actions: list[tuple[Any, ...] | None], truth: list[int]) -> None:
    """Every event happened, in order: candidates for "how far the host has got" never run out."""
    at = {0}
    for n, ev in enumerate(events):
        if isinstance(ev, Snapshot):
            at = {j for j in range(min(at), len(truth)) if truth[j] == ev.occupancy}
        elif isinstance(ev, SquareChanged):
            at = {p + 1 for p in at if p + 1 < len(actions) and actions[p + 1] == ("C", ev.square, ev.occupied)}
        elif isinstance(ev, ButtonPressed):
            at = {p + 1 for p in at if p + 1 < len(actions) and actions[p + 1] == ("B", ev.button.value)}
        assert at, f"event {n} {ev} never happened there; events {events[: n + 1]}"


@pytest.mark.fuzz
@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(actions_st, faults_st, losses_st, st.sampled_from([CHESS_8X8, XIANGQI_9X10]))
def test_a_hostile_channel_never_invents_or_reorders_events(
    actions: list[Action], faults: list[Fault], losses: list[bool], geometry: Geometry
) -> None:
    link = Link(faults, losses, geometry)
    link.drain()  # the first snapshot, cleanly
    assert link.events == [Snapshot(link.events[0].t, link.truth[0])]
    link.clean = False
    for action in actions:
        link.act(action)
        for _ in range(min(action[2], len(link.outbox))):
            link.step()
    link.drain()
    _check_history(link.events, link.actions, link.truth)

    link.clean = True  # the channel heals: the host resyncs to the truth and carries on
    link.board.request_snapshot()
    link.board.housekeeping()
    link.drain()
    assert not link.board.is_resync_pending
    assert link.board.occupancy == link.dev.occupancy
    a3 = geometry.parse("a3")
    occupied = not link.dev.occupancy >> a3 & 1
    link.outbox.append(link.dev.change("a3", occupied))
    link.actions.append(("C", a3, occupied))
    link.truth.append(link.dev.occupancy)
    link.drain()
    assert link.events[-1] == SquareChanged(link.events[-1].t, a3, occupied)
    assert link.board.refusal is None
    _check_history(link.events, link.actions, link.truth)


def test_the_checker_catches_a_stale_or_invented_event() -> None:
    """The property above can fail: a replayed change, a change out of order, and an old snapshot."""
    actions: list[tuple[Any, ...] | None] = [None, ("C", chess.G1, False), ("C", chess.F3, True), ("C", chess.F3, False)]
    truth = [START, START ^ chess.BB_G1, START ^ chess.BB_G1 ^ chess.BB_F3, START ^ chess.BB_G1]
    ok = [Snapshot(0, START), SquareChanged(1, chess.G1, False), Snapshot(2, truth[3])]
    _check_history(ok, actions, truth)
    for bad in (
        [Snapshot(0, START), SquareChanged(1, chess.F3, True)],  # skipped the g1 lift
        [Snapshot(0, START), SquareChanged(1, chess.G1, False), SquareChanged(2, chess.G1, False)],  # replayed
        [Snapshot(0, truth[2]), Snapshot(1, START)],  # a stale snapshot after a newer one
        [Snapshot(0, START), SquareChanged(1, chess.G5, True)],  # never happened
    ):
        with pytest.raises(AssertionError):
            _check_history(bad, actions, truth)
