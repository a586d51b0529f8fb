"""Speech: chess moves in words (English, Chinese), phrases for events, config options, and a
whole game rendered by espeak-ng to WAV files while the caller goes on undisturbed."""

from __future__ import annotations

import shutil
import threading
import time
import wave
from pathlib import Path

import chess
import pytest

from boardctl.errors import ConfigError
from boardctl.learning.speech import (
    EventKind,
    Speaker,
    SpeechEvent,
    SpeechOptions,
    espeak_render,
    phrase,
    tone_render,
)
from boardctl.variants.chess.spoken import ChessWords, SpokenMoveError, move_words

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed (make system)")
WORDS = ChessWords()


@pytest.mark.parametrize(
    ("san", "en", "zh"),
    [
        ("Nf3+", "Knight f3, check", "马 f3，将军"),
        ("e4", "e4", "兵 e4"),
        ("exd5", "e takes d5", "兵e吃d5"),
        ("Bxf7#", "Bishop takes f7, checkmate", "象吃f7，将死"),
        ("O-O", "castles kingside", "王翼易位"),
        ("O-O-O+", "castles queenside, check", "后翼易位，将军"),
        ("e8=Q", "e8, promotes to queen", "兵 e8，升变为后"),
        ("gxh1=N+", "g takes h1, promotes to knight, check", "兵g吃h1，升变为马，将军"),
        ("Nbd7", "Knight b d7", "马 b d7"),
        ("R1e2", "Rook 1 e2", "车 1 e2"),
        ("Qh4xe1", "Queen h4 takes e1", "后 h4吃e1"),
        ("Kxe2", "King takes e2", "王吃e2"),
    ],
)
def test_move_words(san: str, en: str, zh: str) -> None:
    assert move_words(san, "en") == en
    assert move_words(san, "zh") == zh


@pytest.mark.parametrize("san", ["", "e9", "Pe4", "Nf3++", "O-O-O-O", "xe4", "e4 ", "Zz"])
def test_not_san(san: str) -> None:
    with pytest.raises(SpokenMoveError):
        move_words(san, "en")


def test_unknown_language() -> None:
    with pytest.raises(SpokenMoveError, match="choose en, zh"):
        move_words("e4", "fr")


@pytest.mark.parametrize(
    ("event", "en", "zh"),
    [
        (SpeechEvent.from_move("Nf3+"), "Knight f3, check", "马 f3，将军"),
        (SpeechEvent.from_result("1-0"), "White wins", "白方胜"),
        (SpeechEvent.from_result("0-1"), "Black wins", "黑方胜"),
        (SpeechEvent.from_result("1/2-1/2"), "Draw", "和棋"),
        (SpeechEvent.from_touch_move("g1"), "Touch move: move the piece on g1", "摸子走子：请走 g1 上的棋子"),
        (SpeechEvent.from_illegal(), "Illegal move", "走法不合规则"),
        (SpeechEvent.from_illegal("Ke3"), "Illegal move: King e3", "走法不合规则：王 e3"),
        (SpeechEvent.from_lesson("Develops and attacks e5."), "Develops and attacks e5.", "Develops and attacks e5."),
    ],
)
def test_phrases(event: SpeechEvent, en: str, zh: str) -> None:
    assert phrase(event, language="en", words=WORDS) == en
    assert phrase(event, language="zh", words=WORDS) == zh


def test_options_from_config() -> None:
    o = SpeechOptions.from_mapping(
        {"enabled": True, "language": "zh", "events": ["move", "result"], "sounds": False, "rate": 200}
    )
    assert o.espeak_voice == "cmn"
    assert o.speaks(EventKind.MOVE) and not o.speaks(EventKind.ILLEGAL)
    assert SpeechOptions.from_mapping({}).enabled is False
    assert SpeechOptions.from_mapping({"voice": "en-us", "language": "en"}).espeak_voice == "en-us"
    assert SpeechOptions().espeak_voice == "en"


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"enabled": "yes"}, "[speech].enabled: expected bool"),
        ({"language": "fr"}, "[speech].language"),
        ({"voice": "-w /etc/x"}, "[speech].voice"),
        ({"events": ["move", "mumble"]}, "[speech].events: choose among"),
        ({"events": "move"}, "[speech].events: expected list"),
        ({"rate": 5}, "[speech].rate"),
        ({"rate": True}, "[speech].rate: expected int"),
        ({"output": "speaker"}, "[speech].output"),
        ({"backlog": 0}, "[speech].backlog"),
        ({"volume": 3}, "unknown key 'volume'"),
    ],
)
def test_bad_options(data: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        SpeechOptions.from_mapping(data)
    assert fragment in str(info.value)


def _wav_seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as w:
        return w.getnframes() / w.getframerate()


# The Opera Game (Morphy v Duke of Brunswick and Count Isouard, Paris 1858).
OPERA = (
    "e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 Bxb5+ Nbd7 "
    "O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#"
)


def _game_events() -> list[SpeechEvent]:
    board = chess.Board()
    events = []
    for san in OPERA.split():
        move = board.parse_san(san)
        events.append(SpeechEvent.from_move(board.san(move)))
        board.push(move)
    assert board.is_checkmate()
    events.insert(4, SpeechEvent.from_touch_move("g1"))
    events.insert(9, SpeechEvent.from_illegal("Ke2"))
    events.append(SpeechEvent.from_result("1-0"))
    return events


@pytest.mark.slow
@needs_espeak
@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_whole_game_is_spoken_to_wav_files_without_blocking(tmp_path: Path, language: str) -> None:
    events = _game_events()
    options = SpeechOptions(enabled=True, language=language, output="files", backlog=len(events))
    with Speaker(options, words=WORDS, folder=tmp_path) as speaker:
        slowest = 0.0
        start = time.perf_counter()
        for event in events:
            t0 = time.perf_counter()
            assert speaker.say(event)
            slowest = max(slowest, time.perf_counter() - t0)
        queued = time.perf_counter() - start
        assert speaker.wait_idle(120)
        rendered = time.perf_counter() - start
    assert speaker.stats.said == len(events) and speaker.stats.failed == 0 and speaker.stats.dropped == 0
    files = sorted(tmp_path.glob("*.wav"))
    assert files == sorted(speaker.stats.files) and len(files) == len(events)
    for f in files:
        assert f.read_bytes()[:4] == b"RIFF"
        assert 0.2 < _wav_seconds(f) < 10, f
    # whole phrases, not clicks: the longest move ("Bishop takes d7, check") takes over a second
    longest_move = max(_wav_seconds(f) for f in files if f.name.endswith("-move.wav"))
    assert _wav_seconds(files[-1]) > 0.3  # the result
    assert longest_move > 1.0  # "Bishop takes d7, check" and the like
    # the caller only queued: far quicker than rendering, each call well under a frame
    assert slowest < 0.05, slowest
    assert queued < rendered / 5, (queued, rendered)


@pytest.mark.slow
@needs_espeak
def test_espeak_reads_text_never_options(tmp_path: Path) -> None:
    path = tmp_path / "x.wav"
    espeak_render("-w /tmp/evil.wav --help", voice="en", rate=160, path=path)
    assert _wav_seconds(path) > 0.5


def test_say_never_waits_for_a_slow_renderer(tmp_path: Path) -> None:
    gate = threading.Event()
    started = threading.Event()
    rendered: list[str] = []

    def slow(text: str, options: SpeechOptions, path: Path) -> None:
        started.set()
        gate.wait(10)
        rendered.append(text)
        path.write_bytes(b"RIFF")

    options = SpeechOptions(enabled=True, output="files", backlog=3)
    with Speaker(options, words=WORDS, folder=tmp_path, render=slow) as speaker:
        t0 = time.perf_counter()
        assert speaker.say(SpeechEvent.from_move("e4"))
        assert started.wait(5)  # the worker is stuck saying e4
        for san in ["e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"]:
            assert speaker.say(SpeechEvent.from_move(san))
        assert time.perf_counter() - t0 < 1.0
        gate.set()
        assert speaker.wait_idle(10)
    # of the six queued behind e4, the backlog of 3 kept the newest three
    assert rendered == ["e4", "Bishop b5", "a6", "Bishop a4"]
    assert speaker.stats.dropped == 3


def test_filtered_events_and_failures(tmp_path: Path) -> None:
    def broken(text: str, options: SpeechOptions, path: Path) -> None:
        raise RuntimeError("no audio")

    options = SpeechOptions(enabled=True, output="files", events=frozenset({EventKind.RESULT}))
    with Speaker(options, words=WORDS, folder=tmp_path, render=broken) as speaker:
        assert not speaker.say(SpeechEvent.from_move("e4"))
        assert speaker.say(SpeechEvent.from_result("1-0"))
        assert speaker.say(SpeechEvent.from_result("0-1"))
        assert speaker.wait_idle(5)
    assert speaker.stats.failed == 2 and speaker.stats.said == 0
    off = Speaker(SpeechOptions(), words=WORDS, folder=tmp_path)
    assert not off.say(SpeechEvent.from_result("1-0"))
    off.close()
    off.close()


def test_sounds_replace_speech(tmp_path: Path) -> None:
    played: list[Path] = []

    def play(path: Path) -> None:
        played.append(path)
        assert path.read_bytes()[:4] == b"RIFF"

    options = SpeechOptions(enabled=True, sounds=True, output="play")
    with Speaker(options, words=WORDS, folder=tmp_path, render=None, play=play) as speaker:
        for event in [SpeechEvent.from_move("e4"), SpeechEvent.from_illegal(), SpeechEvent.from_result("1-0")]:
            speaker.say(event)
        assert speaker.wait_idle(10)
    assert [p.name.split("-", 1)[1] for p in played] == ["move.wav", "illegal.wav", "result.wav"]
    assert not list(tmp_path.glob("*.wav"))  # played files are removed


@pytest.mark.parametrize("kind", list(EventKind))
def test_tones(tmp_path: Path, kind: EventKind) -> None:
    path = tmp_path / "t.wav"
    tone_render(kind, path)
    assert 0.05 < _wav_seconds(path) < 1.0


def test_a_language_the_game_lacks(tmp_path: Path) -> None:
    class OnlyEnglish(ChessWords):
        languages = ("en",)

    with pytest.raises(ConfigError, match="words for en only"):
        Speaker(SpeechOptions(enabled=True, language="zh"), words=OnlyEnglish(), folder=tmp_path)


@pytest.mark.slow
@needs_espeak
def test_the_event_loop_keeps_ticking_while_a_game_is_spoken(tmp_path: Path) -> None:
    """An asyncio loop that says every event of a game is not held up by the speaking: the time
    spent inside ``say`` is a small part of the time the speech takes (a speaker that spoke in
    the caller would spend all of it there). A ratio, so that a loaded machine cannot fail it."""
    import asyncio
    import time

    events = _game_events()

    async def run() -> tuple[float, float, int, int]:
        options = SpeechOptions(enabled=True, output="files", backlog=len(events))
        in_say = 0.0
        ticks = 0  # a fast machine may say everything before the last event is handed over
        with Speaker(options, words=WORDS, folder=tmp_path) as speaker:
            start = time.perf_counter()
            for event in events:  # one event per tick, as moves would come in
                t0 = time.perf_counter()
                speaker.say(event)
                in_say += time.perf_counter() - t0
                await asyncio.sleep(0.01)
                ticks += 1
            while not speaker.wait_idle(0):
                await asyncio.sleep(0.01)
                ticks += 1
            return in_say, time.perf_counter() - start, ticks, speaker.stats.said

    in_say, speaking, ticks, said = asyncio.run(run())
    assert said == len(events)
    assert len(list(tmp_path.glob("*.wav"))) == len(events)
    assert ticks >= len(events)
    assert in_say < 0.2 * speaking, f"{in_say:.2f} s of {speaking:.2f} s spent inside say()"
