"""The tracker catalogues' little language, for either game: ``e2-`` lifts the piece on e2,
``e4+`` sets one down, a number lets that many seconds pass, ``!clock`` presses a button, ``.``
ticks now. One runner serves tests/tracker/test_tracker_catalogue.py (chess) and
tests/tracker/test_tracker_xiangqi.py, so that both games are judged the same way."""

from __future__ import annotations

from dataclasses import dataclass, field

from boardctl.core.rules import Variant
from boardctl.events import Button, ButtonPressed, Code, Event, SquareChanged, Tick
from boardctl.tracker import (
    Forfeit,
    MoveMade,
    MoveTakenBack,
    Output,
    Policy,
    TakebackMode,
    Tracker,
    Violation,
)


@dataclass
class Run:
    tracker: Tracker
    outputs: list[Output] = field(default_factory=list)
    leds: dict[str, Code] = field(default_factory=dict)

    @property
    def moves(self) -> list[str]:
        """The moves standing at the end: one taken back is dropped."""
        made: list[str] = []
        for out in self.outputs:
            if isinstance(out, MoveMade):
                made.append(out.move.uci())
            elif isinstance(out, MoveTakenBack) and made:
                made.pop()
        return made

    @property
    def taken_back(self) -> list[str]:
        return [o.move.uci() for o in self.outputs if isinstance(o, MoveTakenBack)]

    @property
    def violations(self) -> list[tuple[Code, bool]]:
        return [(o.code, o.color) for o in self.outputs if isinstance(o, Violation)]

    @property
    def forfeits(self) -> list[Forfeit]:
        return [o for o in self.outputs if isinstance(o, Forfeit)]


def script_events(variant: Variant, script: str, t: float = 10.0) -> list[Event]:
    geometry = variant.geometry
    out: list[Event] = []
    for token in script.split():
        if token[-1] in "+-" and geometry.is_name(token[:-1]):
            out.append(SquareChanged(round(t, 6), geometry.parse(token[:-1]), token[-1] == "+"))
        elif token.startswith("!"):
            out.append(ButtonPressed(round(t, 6), Button(token[1:])))
        elif token == ".":
            out.append(Tick(round(t, 6)))
        else:
            t += float(token)
    return out


def run_script(
    variant: Variant, script: str, *, pre: tuple[str, ...] = (), fen: str | None = None, policy: Policy,
    finish: bool = False, quiet: float = 5.0, **kwargs: object,
) -> Run:
    """Play ``script`` on a tracker for ``variant`` (from ``fen`` after the moves ``pre``), then
    ``quiet`` seconds with no event."""
    board = variant.board(fen)
    for uci in pre:
        board.push(board.parse_uci(uci))
    tracker = Tracker(board, policy=policy, variant=variant, **kwargs)  # type: ignore[arg-type]
    if finish:
        tracker.finish()
    result = Run(tracker)
    evs = script_events(variant, script)
    end = (evs[-1].t if evs else 10.0) + quiet
    for event in [*evs, Tick(end)]:
        step = tracker.feed(event)
        result.outputs.extend(step.outputs)
        result.leds = {variant.geometry.square_name(led.square): led.why for led in step.leds}
    return result


def replay_events(
    variant: Variant, events: list[Event], *, policy: Policy, takeback: TakebackMode = TakebackMode.APPLY,
    quiet: float = 60.0,
) -> tuple[list[str], list[Violation]]:
    """``events`` on a fresh tracker for ``variant``, then ``quiet`` seconds: the moves standing
    (UCI, one taken back dropped) and the violations."""
    tracker = Tracker(policy=policy, takeback=takeback, variant=variant)
    moves: list[str] = []
    violations: list[Violation] = []
    for event in [*events, Tick(events[-1].t + quiet)] if events else []:
        for out in tracker.feed(event).outputs:
            if isinstance(out, MoveMade):
                moves.append(out.move.uci())
            elif isinstance(out, MoveTakenBack):
                moves.pop()
            elif isinstance(out, Violation):
                violations.append(out)
    return moves, violations
