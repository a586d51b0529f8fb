"""Fuzzing the ChessLink parser and the emulated board (``make fuzz`` runs these longer).

Whatever bytes an app (or a noisy line) sends, nothing raises; every command the decoder lets
through is one that was sent whole and checked; commands sent whole between garbage still get
through, in order, with their replies."""

from __future__ import annotations

import pytest
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.chesslink import protocol as p
from boardctl.chesslink.board import EmulatedBoard
from chesslink.client import ReplyReader, frame

HEX = "0123456789ABCDEF"


@st.composite
def commands(draw: st.DrawFn) -> str:
    letter = draw(st.sampled_from(sorted(p.DATA_DIGITS)))
    digits = draw(st.text(HEX, min_size=p.DATA_DIGITS[letter], max_size=p.DATA_DIGITS[letter]))
    return letter + digits


#: Bytes that never start or continue a message: they leave the decoder idle (nothing pending).
idle_garbage = st.binary(max_size=12).map(
    lambda b: bytes(x for x in b if chr(x & 0x7F) not in p.DATA_DIGITS and chr(x & 0x7F) not in HEX)
)


@pytest.mark.fuzz
@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=600), st.booleans())
def test_any_bytes_never_raise_and_only_checked_commands_pass(data: bytes, block: bool) -> None:
    decoder = p.Decoder(block=block)
    text = bytes(b & 0x7F for b in data).decode("ascii").upper()
    for command in decoder.feed(data):
        assert command.letter in p.DATA_DIGITS
        assert len(command.data) == p.DATA_DIGITS[command.letter]
        assert set(command.data) <= set(HEX)
        # The command, and its check digits, really were in the input.
        whole = command.text() + (p.block_parity(command.text()) if block else "")
        assert whole in text


@pytest.mark.fuzz
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(idle_garbage, commands()), max_size=8), st.booleans())
def test_whole_commands_between_garbage_get_through_in_order(parts: list[tuple[bytes, str]], block: bool) -> None:
    decoder = p.Decoder(block=block)
    data = b"".join(garbage + frame(text, block=block) for garbage, text in parts)
    assert [c.text() for c in decoder.feed(data)] == [text for _, text in parts]


@pytest.mark.fuzz
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.binary(max_size=40), commands().map(frame)), max_size=12),
       st.lists(st.floats(0, 0.5), min_size=12, max_size=12))
def test_the_board_answers_anything_without_raising(chunks: list[bytes], gaps: list[float]) -> None:
    board = EmulatedBoard(status=p.START_STATUS, reset_delay=0.5)
    reader = ReplyReader()
    now = 0.0
    for chunk, gap in zip(chunks, gaps, strict=False):
        now += gap
        before = board.block_parity
        out = board.receive(chunk, now)
        if before and board.block_parity:  # every reply whole and checked
            reader.feed(out.data)
            assert not reader.pending
        assert out.leds is None or len(out.leds.patterns) == p.LED_COUNT
        board.poll(now)
        due = board.next_due()
        assert due is None or due >= now - 1.0
    assert reader.errors == []
