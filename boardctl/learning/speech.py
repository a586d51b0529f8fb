"""Spoken moves and events: phrases in English or Chinese, rendered by espeak-ng off the caller's thread.

:class:`Speaker.say` only puts an event in a bounded backlog and returns at once; a worker
thread turns it into a phrase (the game's words for moves and sides come from a
:class:`GameWords`, for chess ``boardctl.variants.chess.spoken.ChessWords``), renders it with
espeak-ng to a WAV file, and plays it (``aplay``) or keeps it. When the backlog is full the
oldest event is dropped: a move said late is worse than a move not said. With ``sounds`` on, a
short tone per kind of event replaces speech (no espeak-ng needed).

Options are config-shaped (:meth:`SpeechOptions.from_mapping`, the ``[speech]`` table).
"""

from __future__ import annotations

import collections
import enum
import logging
import math
import shutil
import struct
import subprocess
import threading
import time
import wave
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from boardctl.core.rules import GameBoard, Move
from boardctl.errors import BoardctlError, ConfigError

log = logging.getLogger(__name__)

#: espeak-ng's voice for each language unless the config names one.
DEFAULT_VOICES = {"en": "en", "zh": "cmn"}
LANGUAGES = tuple(DEFAULT_VOICES)
SAMPLE_RATE = 22050  # espeak-ng's own rate, so tones and speech match
RENDER_TIMEOUT = 20.0


class SpeechError(BoardctlError, RuntimeError):
    """espeak-ng or the audio player failed; logged by the worker, never raised to the caller."""


class EventKind(enum.Enum):
    MOVE = "move"
    RESULT = "result"
    TOUCH_MOVE = "touch-move"
    ILLEGAL = "illegal"
    LESSON = "lesson"


@dataclass(frozen=True)
class SpeechEvent:
    """Something to say. Build with the ``from_*`` constructors."""

    kind: EventKind
    san: str = ""  # MOVE: the move; ILLEGAL: the attempted move, if known
    square: str = ""  # TOUCH_MOVE: the touched piece's square
    result: str = ""  # RESULT: "1-0", "0-1", "1/2-1/2"
    text: str = ""  # LESSON: the note to read

    @classmethod
    def from_move(cls, san: str) -> SpeechEvent:
        return cls(EventKind.MOVE, san=san)

    @classmethod
    def from_result(cls, result: str) -> SpeechEvent:
        return cls(EventKind.RESULT, result=result)

    @classmethod
    def from_touch_move(cls, square: str) -> SpeechEvent:
        return cls(EventKind.TOUCH_MOVE, square=square)

    @classmethod
    def from_illegal(cls, san: str = "") -> SpeechEvent:
        return cls(EventKind.ILLEGAL, san=san)

    @classmethod
    def from_lesson(cls, text: str) -> SpeechEvent:
        return cls(EventKind.LESSON, text=text)


class GameWords(Protocol):
    """A game's vocabulary: its moves and its two sides, in each language it knows."""

    languages: tuple[str, ...]

    def move(self, san: str, language: str) -> str: ...

    def side(self, is_first: bool, language: str) -> str: ...


_PHRASES = {
    "en": {
        "wins": "{side} wins",
        "draw": "Draw",
        "touch": "Touch move: move the piece on {square}",
        "touch_any": "Touch move: move the piece you touched",
        "illegal": "Illegal move",
        "illegal_san": "Illegal move: {move}",
    },
    "zh": {
        "wins": "{side}胜",
        "draw": "和棋",
        "touch": "摸子走子：请走 {square} 上的棋子",
        "touch_any": "摸子走子：请走你摸过的棋子",
        "illegal": "走法不合规则",
        "illegal_san": "走法不合规则：{move}",
    },
}


def phrase(event: SpeechEvent, *, language: str, words: GameWords) -> str:
    """The words to say for ``event`` in ``language``."""
    p = _PHRASES[language]
    if event.kind is EventKind.MOVE:
        return words.move(event.san, language)
    if event.kind is EventKind.RESULT:
        if event.result == "1/2-1/2":
            return p["draw"]
        if event.result in ("1-0", "0-1"):
            return p["wins"].format(side=words.side(event.result == "1-0", language))
        raise SpeechError(f"{event.result[:10]!r} is not a result")
    if event.kind is EventKind.TOUCH_MOVE:
        return p["touch"].format(square=event.square) if event.square else p["touch_any"]
    if event.kind is EventKind.ILLEGAL:
        if event.san:
            return p["illegal_san"].format(move=words.move(event.san, language))
        return p["illegal"]
    return event.text


# --------------------------------------------------------------------------- options


@dataclass(frozen=True, kw_only=True)
class SpeechOptions:
    """The ``[speech]`` config table."""

    enabled: bool = False
    language: str = "en"
    voice: str = ""  # "" = the language's default (en -> en, zh -> cmn)
    events: frozenset[EventKind] = frozenset(EventKind)
    sounds: bool = False  # short tones instead of speech
    rate: int = 160  # words per minute
    output: str = "play"  # "play": through aplay; "files": keep the WAV files only
    backlog: int = 8

    @property
    def espeak_voice(self) -> str:
        return self.voice or DEFAULT_VOICES[self.language]

    def speaks(self, kind: EventKind) -> bool:
        return self.enabled and kind in self.events

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, where: str = "[speech]") -> SpeechOptions:
        """Options from a config table; ConfigError names the key and the allowed values."""
        known = {"enabled", "language", "voice", "events", "sounds", "rate", "output", "backlog"}
        for key in data:
            if key not in known:
                raise ConfigError(f"{where}: unknown key {str(key)[:30]!r} (known: {', '.join(sorted(known))})")

        def get(key: str, kind: type, default: Any) -> Any:
            value = data.get(key, default)
            if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
                raise ConfigError(f"{where}.{key}: expected {kind.__name__}, got {type(value).__name__}")
            return value

        language = get("language", str, "en")
        if language not in LANGUAGES:
            raise ConfigError(f"{where}.language: {language[:10]!r} is not one of {', '.join(LANGUAGES)}")
        voice = get("voice", str, "")
        if (voice and not all(c.isalnum() or c in "-_+" for c in voice)) or len(voice) > 40:
            raise ConfigError(f"{where}.voice: {voice[:40]!r} is not an espeak-ng voice name")
        names = get("events", list, [k.value for k in EventKind])
        try:
            events = frozenset(EventKind(n) for n in names)
        except ValueError:
            raise ConfigError(
                f"{where}.events: choose among {', '.join(k.value for k in EventKind)}"
            ) from None
        rate = get("rate", int, 160)
        if not 80 <= rate <= 450:
            raise ConfigError(f"{where}.rate: {rate} is outside 80..450 words per minute")
        output = get("output", str, "play")
        if output not in ("play", "files"):
            raise ConfigError(f"{where}.output: {output[:10]!r} is not play or files")
        backlog = get("backlog", int, 8)
        if not 1 <= backlog <= 256:
            raise ConfigError(f"{where}.backlog: {backlog} is outside 1..256")
        return cls(
            enabled=get("enabled", bool, False),
            language=language,
            voice=voice,
            events=events,
            sounds=get("sounds", bool, False),
            rate=rate,
            output=output,
            backlog=backlog,
        )


# --------------------------------------------------------------------------- rendering


def espeak_render(text: str, *, voice: str, rate: int, path: Path, binary: str = "espeak-ng") -> None:
    """``text`` spoken by espeak-ng into the WAV file ``path`` (text on stdin, never as an option)."""
    try:
        done = subprocess.run(
            [binary, "-v", voice, "-s", str(rate), "-w", str(path), "--stdin"],
            input=text.encode("utf-8"),
            capture_output=True,
            timeout=RENDER_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SpeechError(f"espeak-ng failed: {exc}") from None
    if done.returncode != 0 or not path.exists():
        raise SpeechError(f"espeak-ng exited {done.returncode}: {done.stderr.decode(errors='replace')[:200]}")


#: A short tone per event kind: (frequency Hz, milliseconds) pieces, silence at 0 Hz.
TONES: dict[EventKind, tuple[tuple[int, int], ...]] = {
    EventKind.MOVE: ((880, 70),),
    EventKind.RESULT: ((523, 150), (659, 150), (784, 300)),
    EventKind.TOUCH_MOVE: ((440, 120), (0, 60), (440, 120)),
    EventKind.ILLEGAL: ((220, 300),),
    EventKind.LESSON: ((660, 60), (0, 40), (990, 60)),
}


def tone_render(kind: EventKind, path: Path) -> None:
    """The short sound for ``kind`` as a 16-bit mono WAV file."""
    frames = bytearray()
    for freq, ms in TONES[kind]:
        count = SAMPLE_RATE * ms // 1000
        fade = max(1, min(count // 4, SAMPLE_RATE // 200))
        for i in range(count):
            envelope = min(1.0, i / fade, (count - i) / fade)
            value = 0.0 if freq == 0 else math.sin(2 * math.pi * freq * i / SAMPLE_RATE)
            frames += struct.pack("<h", int(12000 * envelope * value))
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(bytes(frames))


def aplay(path: Path) -> None:
    """Play a WAV file on the default audio output (ALSA's aplay)."""
    binary = shutil.which("aplay")
    if binary is None:
        raise SpeechError("aplay is missing: install alsa-utils, or set [speech] output = \"files\"")
    done = subprocess.run([binary, "-q", str(path)], capture_output=True, timeout=60, check=False)
    if done.returncode != 0:
        raise SpeechError(f"aplay exited {done.returncode}: {done.stderr.decode(errors='replace')[:200]}")


# --------------------------------------------------------------------------- the worker


@dataclass
class SpeakerStats:
    said: int = 0
    dropped: int = 0
    failed: int = 0
    files: list[Path] = field(default_factory=list)


class Speaker:
    """Says events in the background; :meth:`say` never waits for espeak-ng or the audio."""

    def __init__(
        self,
        options: SpeechOptions,
        *,
        words: GameWords,
        folder: Path,
        render: Callable[[str, SpeechOptions, Path], None] | None = None,
        play: Callable[[Path], None] = aplay,
    ) -> None:
        if options.language not in words.languages:
            raise ConfigError(f"[speech].language: this game has words for {', '.join(words.languages)} only")
        self.options = options
        self.words = words
        self.folder = folder
        self._render = render or (lambda text, o, path: espeak_render(text, voice=o.espeak_voice, rate=o.rate, path=path))
        self._play = play
        self._backlog: collections.deque[tuple[int, SpeechEvent]] = collections.deque()
        self._cond = threading.Condition()
        self._busy = False
        self._closed = False
        self._seq = 0
        self.stats = SpeakerStats()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Speaker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def say(self, event: SpeechEvent) -> bool:
        """Queue ``event`` if the options speak it; True when queued. Never blocks on audio."""
        if not self.options.speaks(event.kind):
            return False
        with self._cond:
            if self._closed:
                return False
            if len(self._backlog) >= self.options.backlog:
                self._backlog.popleft()
                self.stats.dropped += 1
            self._seq += 1
            self._backlog.append((self._seq, event))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="speech", daemon=True)
                self._thread.start()
            self._cond.notify()
        return True

    def wait_idle(self, timeout: float) -> bool:
        """Wait until everything queued has been said (for tests and a clean exit)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._backlog or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def close(self, *, timeout: float = 5.0) -> None:
        """Stop after the phrase being said; safe to call twice."""
        with self._cond:
            self._closed = True
            self._backlog.clear()
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._backlog and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                seq, event = self._backlog.popleft()
                self._busy = True
            try:
                self._speak(seq, event)
            except Exception as exc:  # a speech failure must never stop the game
                with self._cond:
                    self.stats.failed += 1
                log.warning("could not say %s: %s", event.kind.value, exc)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _speak(self, seq: int, event: SpeechEvent) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{seq:05d}-{event.kind.value}.wav"
        if self.options.sounds:
            tone_render(event.kind, path)
        else:
            text = phrase(event, language=self.options.language, words=self.words)
            self._render(text, self.options, path)
        if self.options.output == "play":
            try:
                self._play(path)
            finally:
                path.unlink(missing_ok=True)
        with self._cond:
            self.stats.said += 1
            if self.options.output == "files":
                self.stats.files.append(path)


# --------------------------------------------------------------------------- the daemon's side


@runtime_checkable
class WritesMoves(Protocol):
    """Words whose moves depend on the position (xiangqi's notation): written from the board."""

    def notation(self, board: GameBoard, move: Move, language: str) -> str: ...


def words_for(variant: str) -> GameWords:
    """The vocabulary of a game (its ``spoken`` part: ``boardctl.variants.<game>.spoken``)."""
    from boardctl.variants import get_variant

    words: GameWords = get_variant(variant).part("spoken").words()
    return words


def move_text(words: GameWords, board: GameBoard, move: Move, language: str) -> str:
    """What a :class:`SpeechEvent` carries for ``move`` in ``board`` (before it): SAN for chess,
    the words themselves for a game that writes its moves from the board."""
    if isinstance(words, WritesMoves):
        return words.notation(board, move, language)
    return board.san(move)


class SpeechWatcher:
    """Turns what changed in a game into events to say, by comparing it with what it saw last.

    The daemon calls :meth:`observe` after every input it handled (cheap: it compares counts).
    The engine's move is said when it is shown on the LEDs (the player must make it), a player's
    move when it is made; touch-move reminders and illegal moves when the rules flag them; the
    result once. A takeback or a new game only resets what it has seen."""

    def __init__(self, words: GameWords, *, language: str) -> None:
        self.words = words
        self.language = language
        self._game: str | None = None
        self._moves = 0
        self._pending: str | None = None
        self._violations = 0
        self._result = "*"
        self._touched: frozenset[str] = frozenset()

    def observe(
        self,
        *,
        game: str,
        board: GameBoard,
        pending: Move | None,
        violations: Sequence[tuple[str, str]],
        result: str,
        touched: Sequence[str] = (),
    ) -> list[SpeechEvent]:
        """Events since the last call. ``violations``: (code, detail) of the game so far;
        ``touched``: the squares lit as touch-move reminders now."""
        out: list[SpeechEvent] = []
        stack = board.move_stack
        if game != self._game:
            self._game, self._moves, self._pending = game, len(stack), None
            self._violations, self._result = len(violations), result
        if len(stack) < self._moves:  # taken back
            self._moves = len(stack)
        if len(stack) > self._moves:
            probe = board.copy()
            new = [probe.pop() for _ in range(len(stack) - self._moves)][::-1]
            for move in new:
                if move.uci() != self._pending:
                    out.append(SpeechEvent.from_move(move_text(self.words, probe, move, self.language)))
                self._pending = None
                probe.push(move)
            self._moves = len(stack)
        if pending is not None and pending.uci() != self._pending:
            self._pending = pending.uci()
            out.append(SpeechEvent.from_move(move_text(self.words, board, pending, self.language)))
        if len(violations) < self._violations:
            self._violations = len(violations)
        reminded = False
        for code, _detail in violations[self._violations :]:
            if code == "touch-move" and not reminded:
                out.append(SpeechEvent.from_touch_move(touched[0] if touched else ""))
                reminded = True
            elif code == "illegal-move":
                out.append(SpeechEvent.from_illegal())
        self._violations = len(violations)
        # A touched piece put back is lit as a reminder that it must move: said once when it lights.
        newly_lit = [sq for sq in touched if sq not in self._touched]
        if newly_lit and not reminded:
            out.append(SpeechEvent.from_touch_move(newly_lit[0]))
        self._touched = frozenset(touched)
        if result != self._result:
            self._result = result
            if result != "*":
                out.append(SpeechEvent.from_result(result))
        return out
