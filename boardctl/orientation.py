"""Auto orientation: which way round the board stands, told by the first completed move.

Before the first move a board set up from the start position reads the same either way round,
and players straighten their own pieces and their opponent's before every game. So nothing done
before a move decides: two trackers follow every event, one as the board reads and one with it
turned round, and the first that completes a move decides. From the start position at most one
of them can: the start position turned round has every piece of the other colour on each square,
so a piece the side to move lifts is its own in one reading and the opponent's in the other.

A violation only one reading sees (touching "one's own" rook that is in fact the opponent's) is
held back until the readings part; the one that wins has its held violations applied then. A
violation both readings see (an illegal first move either way round) is shown at once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from boardctl.core.geometry import Geometry
from boardctl.events import Event, Snapshot, SquareChanged
from boardctl.tracker import Forfeit, MoveMade, Output, Step, Tracker, Violation

log = logging.getLogger(__name__)


def turned_event(geometry: Geometry, event: Event) -> Event:
    """``event`` as the board turned round would sense it."""
    if isinstance(event, SquareChanged):
        return replace(event, square=geometry.turned(event.square))
    if isinstance(event, Snapshot):
        return replace(event, occupancy=geometry.turn_mask(event.occupancy))
    return event


def _is_violation(out: Output) -> bool:
    return isinstance(out, Violation | Forfeit)


@dataclass
class Readings:
    """The two readings of a board whose orientation is not known yet."""

    geometry: Geometry
    normal: Tracker
    turned: Tracker
    #: Violations each reading saw alone, by "turned round".
    held: dict[bool, list[Output]] = field(default_factory=lambda: {False: [], True: []})
    #: Events sensed since the game began (physical), logged once the orientation is known.
    unlogged: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.normal_start = self.normal.occupancy  # what the switches showed at first (physical)

    def feed(self, event: Event) -> tuple[bool | None, Step]:
        """Both readings take ``event`` (physical): whether the board is turned round, once a
        move tells (None before), and the step to carry out (the winning reading's)."""
        return self.judge(self.normal.feed(event), self.turned.feed(turned_event(self.geometry, event)))

    def tick(self, t: float) -> tuple[bool | None, Step]:
        return self.judge(self.normal.tick(t), self.turned.tick(t))

    def judge(self, normal: Step, turned: Step) -> tuple[bool | None, Step]:
        normal_moved = any(isinstance(o, MoveMade) for o in normal.outputs)
        if normal_moved or any(isinstance(o, MoveMade) for o in turned.outputs):
            flipped = not normal_moved  # (both at once cannot happen from the start position)
            chosen = turned if flipped else normal
            held = self.held[flipped]
            log.info("orientation: %s (the first move)", "flipped" if flipped else "normal")
            return flipped, Step((*held, *chosen.outputs), chosen.leds)
        normal_wrong = [o for o in normal.outputs if _is_violation(o)]
        turned_wrong = [o for o in turned.outputs if _is_violation(o)]
        if normal_wrong and turned_wrong:
            self.held = {False: [], True: []}  # wrong either way round: said now
            return None, normal
        self.held[False].extend(normal_wrong)
        self.held[True].extend(turned_wrong)
        return None, Step(tuple(o for o in normal.outputs if not _is_violation(o)), normal.leds)
