from __future__ import annotations

import chess

from boardctl.events import REASON_ONLY, Code, LedIntent
from boardctl.hw.leds import SIGNALS, STEPS, LedFrame, step_at


def _rotations(pattern: str) -> set[str]:
    return {pattern[i:] + pattern[:i] for i in range(len(pattern))}


def test_every_code_has_a_signal() -> None:
    assert set(SIGNALS) == set(Code) - REASON_ONLY


def test_patterns_are_distinct_even_out_of_phase() -> None:
    seen: dict[str, Code] = {}
    for code, signal in SIGNALS.items():
        assert len(signal.pattern) == STEPS and set(signal.pattern) <= {"#", "."}
        assert "#" in signal.pattern, code
        for rotation in _rotations(signal.pattern):
            assert rotation not in seen, f"{code} looks like {seen.get(rotation)}"
        seen.update(dict.fromkeys(_rotations(signal.pattern), code))


def test_colours_are_valid_rgb() -> None:
    for signal in SIGNALS.values():
        assert all(0 <= c <= 255 for c in signal.colour)


def test_frame_keeps_the_highest_priority_code_per_square() -> None:
    frame = LedFrame.from_intents(
        [LedIntent(chess.E4, Code.HINT), LedIntent(chess.E4, Code.ILLEGAL_MOVE), LedIntent(chess.D4, Code.HINT)]
    )
    assert [(lamp.square, lamp.why) for lamp in frame.lamps] == [(chess.D4, Code.HINT), (chess.E4, Code.ILLEGAL_MOVE)]


def test_frame_lit_follows_the_pattern() -> None:
    frame = LedFrame.from_intents([LedIntent(chess.A1, Code.HINT), LedIntent(chess.H8, Code.ENGINE_MOVE)])
    pattern = SIGNALS[Code.HINT].pattern
    for step in range(STEPS):
        expected = (1 << chess.H8) | ((1 << chess.A1) if pattern[step] == "#" else 0)
        assert frame.lit(step) == expected
    assert frame.is_blinking
    assert not LedFrame.from_intents([LedIntent(chess.A1, Code.ENGINE_MOVE)]).is_blinking
    assert frame.colours(0)[chess.H8] == SIGNALS[Code.ENGINE_MOVE].colour


def test_step_at_cycles_once_a_second() -> None:
    assert [step_at(10 + i / 16 + 0.001) for i in range(17)] == [*range(16), 0]
