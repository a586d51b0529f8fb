"""The relay's memory: every board's game from its messages, the multi-game PGN, the arbiter's view.

It holds nothing the broker's retained messages and the boards cannot give back: a relay started
at any time (or restarted, or a second one elsewhere) builds the same games. Each message is
judged once, at :meth:`Relay.receive`, which never raises: a message is *applied* (a newer
``seq`` of the board's game whose moves are legal and whose clocks never run backwards), a
*duplicate* (its ``seq`` was applied already, or it is an older state the game went through, as
paho sends after a reconnection: counted, silently), or *refused* with one note on the arbiter's
panel saying why. Memory is bounded: at most :data:`MAX_BOARDS` boards, one game
each, and the last :data:`MAX_NOTES` notes and violations.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from boardctl.broadcast.pairings import Pairing, board_key
from boardctl.broadcast.schema import (
    BroadcastError,
    Snapshot,
    ViolationNote,
    parse_snapshot,
    parse_status,
    parse_topic,
)
from boardctl.core.rules import GameBoard
from boardctl.storage import GameRecord, Violation
from boardctl.variants import get_variant

log = logging.getLogger(__name__)

MAX_BOARDS = 1000
MAX_NOTES = 500
#: A board's clock may read this much more than before without a move (rounding, a resumed clock).
CLOCK_SLACK = 1.0
#: The same kind of note about one board at most this often (seconds): a flood stays one line.
NOTE_EVERY = 30.0


@dataclass(frozen=True)
class Note:
    """A line on the arbiter's panel: input refused or ignored, a takeback, a game replaced."""

    t: float
    board: str
    text: str


@dataclass(frozen=True)
class Alert:
    """A rule violation as it reached the relay."""

    t: float
    board: str
    game: str
    violation: ViolationNote


@dataclass
class BoardGame:
    """One board: its latest applied game message, the position after it and its moves in SAN."""

    name: str
    snapshot: Snapshot | None = None
    position: GameBoard | None = None
    sans: list[str] = field(default_factory=list)
    #: Relay's wall-clock time of the board's last message of any kind, and of the applied one.
    heard: float = 0.0
    applied_at: float = 0.0
    online: bool | None = None
    duplicates: int = 0
    refused: int = 0
    noted: dict[str, float] = field(default_factory=dict)
    pgn_cache: tuple[int, str] | None = None
    #: The position and the last move as the page shows them, made once per applied message.
    fen: str | None = None
    last: str | None = None
    #: The games the board has left for a newer one (never taken up again).
    left: deque[str] = field(default_factory=lambda: deque(maxlen=64))


class Relay:
    """Folds the messages of one event into games; see the module's docstring."""

    def __init__(self, event: str, *, pairings: dict[str, Pairing] | None = None, round_name: str = "",
                 wall: Callable[[], float] = time.time, silent_after: float = 20.0,
                 flag_warning: float = 30.0) -> None:
        self.event = event
        self.pairings = pairings or {}
        self.round_name = round_name
        self.silent_after = silent_after
        self.flag_warning = flag_warning
        self._wall = wall
        self.boards: dict[str, BoardGame] = {}
        self.notes: deque[Note] = deque(maxlen=MAX_NOTES)
        self.alerts: deque[Alert] = deque(maxlen=MAX_NOTES)
        #: Grows with every applied message or note (the page's stream sends on a change).
        self.version = 0
        #: Boards changed since :meth:`take_changed` (the page reloads the one shown in full).
        self.changed: set[str] = set()
        self._outside_notes: dict[str, float] = {}
        self._stranger_noted: dict[str, float] = {}  # notes about topics of no board followed
        self.counts = {"applied": 0, "duplicate": 0, "refused": 0, "status": 0}

    # -- input --------------------------------------------------------------------------------------

    def receive(self, topic: str, payload: bytes) -> str:
        """Judge one message: ``applied``, ``duplicate``, ``status`` or ``refused`` (noted)."""
        now = self._wall()
        try:
            outcome = self._receive(topic, payload, now)
        except BroadcastError as exc:
            board = self._board_of(topic)
            self._note(board, str(exc), now, kind=str(exc)[:30])
            if board in self.boards:
                self.boards[board].refused += 1
            outcome = "refused"
        except Exception:  # never a crash: a bug shows as a note and in the log, the relay goes on
            log.exception("message on %.80r", topic)
            self._note(self._board_of(topic), "a message the relay could not read (see its log)", now, kind="bug")
            outcome = "refused"
        self.counts[outcome] += 1
        return outcome

    def _board_of(self, topic: str) -> str:
        parts = topic.split("/")
        return parts[2][:40] if len(parts) > 2 and parts[1] == self.event else "?"

    def _receive(self, topic: str, payload: bytes, now: float) -> str:
        name, kind = parse_topic(topic, self.event)
        board = self.boards.get(name)
        if board is None:
            if len(self.boards) >= MAX_BOARDS:
                raise BroadcastError(f"more than {MAX_BOARDS} boards: board {name} not followed")
            board = None
        if kind == "status":
            status = parse_status(payload, event=self.event, board=name)
            board = board or self._add(name)
            board.heard = now
            if board.online != status.online:
                board.online = status.online
                self.version += 1
                self.changed.add(name)
            return "status"
        snapshot = parse_snapshot(payload, event=self.event, board=name)
        board = board or self._add(name)
        board.heard = now
        return self._apply(board, snapshot, now)

    def _add(self, name: str) -> BoardGame:
        board = BoardGame(name)
        self.boards[name] = board
        return board

    def _apply(self, board: BoardGame, new: Snapshot, now: float) -> str:
        old = board.snapshot
        # Another game is the board's next one if its number is higher (whatever the board's
        # calendar says) or its id newer (a board whose numbering started again: a new games
        # folder), and the board never left it; anything else is a message of an older game.
        if old is not None and new.game != old.game and (
                new.game in board.left or (new.seq <= old.seq and new.game < old.game)):
            raise BroadcastError(f"a message of an older game ({new.game}, the board plays {old.game}) ignored")
        if old is not None and new.game == old.game:
            if new.seq == old.seq and new.same_game_content(old):
                board.duplicates += 1
                return "duplicate"
            if new.seq < old.seq and _is_before(new, old):
                board.duplicates += 1  # a late resend (paho sends again after a reconnection): nothing new
                return "duplicate"
            if new.seq <= old.seq:
                raise BroadcastError(f"an older message (number {new.seq}, {old.seq} applied) that does not "
                                     "agree with the game: ignored")
        same = old is not None and new.game == old.game
        extends = same and old is not None and new.moves[:len(old.moves)] == old.moves
        if same and old is not None:
            clock_fault = self._check_clocks(old, new, extends=extends)
            if clock_fault is not None:
                self._note(board.name, clock_fault, now, kind="clock")
                new = dataclasses.replace(new, clock=old.clock, sent=old.sent)
            if old.result != "*" and len(new.moves) > len(old.moves) and extends:
                raise BroadcastError(f"moves after the result {old.result} refused")
        position, sans = self._replay(board, new, extend=extends)
        if same and old is not None and not extends:
            self._note(board.name, f"moves taken back: from {len(old.moves)} plies to the first "
                       f"{_common(old.moves, new.moves)}, now {len(new.moves)}", now, kind="takeback", always=True)
        if old is not None and not same and old.moves and old.result == "*":
            self._note(board.name, f"game {old.game} left unfinished after {len(old.moves)} plies for a new game "
                       f"{new.game}", now, kind="new-game", always=True)
        known = _common(old.violations, new.violations) if same and old is not None else 0
        for violation in new.violations[known:]:
            self.alerts.append(Alert(now, board.name, new.game, violation))
        if old is not None and not same:
            board.left.append(old.game)
        board.snapshot, board.position, board.sans = new, position, sans
        board.fen, board.last = position.fen(), _last_move(board)
        board.applied_at = now
        self.version += 1
        self.changed.add(board.name)
        return "applied"

    def _check_clocks(self, old: Snapshot, new: Snapshot, *, extends: bool) -> str | None:
        """A game's times never go back. A move's recorded clock that changed refuses the message
        (BroadcastError: it rewrites the game's history); a clock reading more than before with
        no move made (the increment) and no arbiter's ruling (added time) is not believed: the
        reason is returned, and the message's game is applied with the clock as it was."""
        if not extends:
            return None  # a takeback: the times of the plies taken back go with them
        for ply, (was, now) in enumerate(zip(old.clocks, new.clocks, strict=False), start=1):
            if was is not None and now is not None and abs(was - now) > 0.01:
                raise BroadcastError(f"the clock after ply {ply} changed from {was:g} to {now:g}: refused")
        if len(new.moves) > len(old.moves) or len(new.violations) > len(old.violations):
            return None
        if old.clock is None or new.clock is None:
            return None
        for side, was in old.clock.items():
            if side == "running" or side not in new.clock:
                continue
            if new.clock[side] > was + CLOCK_SLACK:
                return (f"the {side} clock went back from {was:g} s to {new.clock[side]:g} s with no move: "
                        "ignored, the clock kept as it was")
        return None

    def _replay(self, board: BoardGame, new: Snapshot, *, extend: bool) -> tuple[GameBoard, list[str]]:
        """The position after ``new``'s moves, each checked legal (from the known position when
        the game only grew); BroadcastError names the first illegal one."""
        variant = get_variant(new.variant)
        if extend and board.position is not None and board.snapshot is not None:
            position, sans, start = board.position.copy(), list(board.sans), len(board.snapshot.moves)
        else:
            try:
                position = variant.board(new.fen)
            except Exception:
                raise BroadcastError(f"not a {variant.name} position: {new.fen[:60]!r}") from None
            sans, start = [], 0
        for ply, uci in enumerate(new.moves[start:], start=start + 1):
            try:
                move = position.parse_uci(uci)
            except (ValueError, AssertionError, IndexError):
                raise BroadcastError(f"ply {ply} {uci} is not a legal move in game {new.game}: refused") from None
            sans.append(position.san_and_push(move))
        return position.copy(stack=False), sans  # the moves are in the message: no history kept twice

    def note(self, source: str, text: str, now: float | None = None) -> None:
        """A line on the panel from another part of the relay (the Lichess push), at most every
        :data:`NOTE_EVERY` s for the same words."""
        at = self._wall() if now is None else now
        if at - self._outside_notes.get(text, -1e18) >= NOTE_EVERY:
            self._outside_notes[text] = at
            if len(self._outside_notes) > 100:
                self._outside_notes.clear()
            self._note(source, text, at, kind="outside", always=True)

    def _note(self, board: str, text: str, now: float, *, kind: str, always: bool = False) -> None:
        """One line on the panel; the same kind about one board at most every :data:`NOTE_EVERY` s,
        and about topics of no board followed (whatever they name) one line in that time."""
        followed = board in self.boards
        last = self.boards[board].noted if followed else self._stranger_noted
        key = kind if followed else "stranger"
        if not always:
            if now - last.get(key, -1e18) < NOTE_EVERY:
                return
            last[key] = now
            if len(last) > 100:
                last.clear()
        log.info("board %s: %s", board, text)
        self.notes.append(Note(now, board, text))
        self.version += 1

    def take_changed(self) -> list[str]:
        changed, self.changed = sorted(self.changed), set()
        return changed

    # -- output -------------------------------------------------------------------------------------

    def ordered(self) -> list[BoardGame]:
        """Boards in board order: the pairings' numbers, then the names' (``2`` before ``10``)."""
        def key(board: BoardGame) -> tuple[Any, ...]:
            parts = re.split(r"([0-9]+)", board.name)
            return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p)
        return sorted(self.boards.values(), key=key)

    def pairing(self, name: str) -> Pairing | None:
        return self.pairings.get(board_key(name))

    def names(self, board: BoardGame) -> tuple[str, str]:
        pairing = self.pairing(board.name)
        snap = board.snapshot
        if pairing is not None:
            return pairing.white, pairing.black
        return (snap.white, snap.black) if snap is not None else ("?", "?")

    def game_pgn(self, board: BoardGame) -> str:
        """The board's game as PGN: the board's own movetext (its record's writer) under the
        event's tags; cached until the next applied message."""
        snap = board.snapshot
        assert snap is not None
        if board.pgn_cache is not None and board.pgn_cache[0] == snap.seq:
            return board.pgn_cache[1]
        white, black = self.names(board)
        record = GameRecord(
            id=snap.game, mode="record", white=white, black=black, fen=snap.fen, moves=list(snap.moves),
            clocks=list(snap.clocks) + [None] * (len(snap.moves) - len(snap.clocks)),
            violations=[Violation(v.ply, v.code, v.color, v.detail) for v in snap.violations],
            result=snap.result, termination=snap.termination, time_control=snap.time_control, variant=snap.variant,
            started=_date_of(snap.game),
        )
        game = record.to_pgn()
        pairing = self.pairing(board.name)
        headers = {"Event": self.event, "Site": "boardctl broadcast", "Date": game.headers["Date"],
                   "Round": (pairing.round if pairing and pairing.round else self.round_name) or "?",
                   **{k: v for k, v in game.headers.items() if k not in ("Event", "Site", "Date", "Round")},
                   "Board": pairing.board if pairing else board.name}
        text = str(dataclasses.replace(game, text=dataclasses.replace(game.text, headers=headers))) + "\n"
        board.pgn_cache = (snap.seq, text)
        return text

    def pgn_games(self) -> list[str]:
        """Every board's game as PGN, in board order."""
        return [self.game_pgn(b) for b in self.ordered() if b.snapshot is not None]

    def pgn(self) -> str:
        """Every board's game, one after another: the PGN that broadcast tools poll."""
        return "\n".join(self.pgn_games())

    def remaining(self, board: BoardGame, now: float) -> dict[str, float] | None:
        """Each side's time now: the message's clock, less the time since for the running side
        (counted from the board's own ``sent`` time unless that is ahead of the relay's clock or
        long before the message arrived, when the arrival time stands in)."""
        snap = board.snapshot
        if snap is None or snap.clock is None:
            return None
        since = snap.sent if board.applied_at - 120 <= snap.sent <= board.applied_at + 2 else board.applied_at
        times = {k: float(v) for k, v in snap.clock.items() if k != "running"}
        running = snap.clock.get("running")
        if running in times and snap.result == "*":
            times[running] = max(0.0, times[running] - max(0.0, now - since))
        return times

    def summary(self, board: BoardGame, now: float) -> dict[str, Any]:
        snap = board.snapshot
        white, black = self.names(board)
        pairing = self.pairing(board.name)
        line: dict[str, Any] = {
            "board": board.name, "number": pairing.board if pairing else board.name, "white": white, "black": black,
            "online": board.online, "silent": self._silent(board, now),
        }
        if snap is None:
            return line
        line.update({
            "game": snap.game, "variant": snap.variant, "plies": len(snap.moves), "result": snap.result,
            "termination": snap.termination, "last": board.last, "fen": board.fen,
            "clock": self.remaining(board, now), "running": (snap.clock or {}).get("running") if snap.result == "*" else None,
            "sent": snap.sent, "seq": snap.seq, "violations": len(snap.violations),
        })
        return line

    def detail(self, name: str, now: float | None = None) -> dict[str, Any] | None:
        board = self.boards.get(name)
        if board is None:
            return None
        line = self.summary(board, self._wall() if now is None else now)
        snap = board.snapshot
        if snap is not None:
            line["moves"] = [{"ply": i + 1, "san": san, "uci": uci,
                              "clock": snap.clocks[i] if i < len(snap.clocks) else None}
                             for i, (san, uci) in enumerate(zip(board.sans, snap.moves, strict=True))]
            line["violation_list"] = [dataclasses.asdict(v) for v in snap.violations]
            line["pgn"] = self.game_pgn(board)
        return line

    def overview(self, now: float | None = None) -> list[dict[str, Any]]:
        at = self._wall() if now is None else now
        return [self.summary(b, at) for b in self.ordered()]

    def _silent(self, board: BoardGame, now: float) -> bool:
        finished = board.snapshot is not None and board.snapshot.result != "*"
        return not finished and (board.online is False or now - board.heard > self.silent_after)

    def arbiter(self, now: float | None = None) -> dict[str, Any]:
        """The arbiter's panel: violations as they came, flags about to fall, silent boards, notes."""
        at = self._wall() if now is None else now
        flags = []
        silent = []
        for board in self.ordered():
            times = self.remaining(board, at)
            snap = board.snapshot
            if times and snap is not None and snap.result == "*" and snap.clock and snap.clock.get("running"):
                side = snap.clock["running"]
                if times.get(side, 1e9) <= self.flag_warning:
                    flags.append({"board": board.name, "side": side, "left": round(times[side], 1)})
            if self._silent(board, at):
                silent.append({"board": board.name, "for": round(at - board.heard, 1) if board.heard else None,
                               "online": board.online})
        return {
            "violations": [{"t": a.t, "board": a.board, "game": a.game, **dataclasses.asdict(a.violation)}
                           for a in reversed(self.alerts)],
            "flags": flags, "silent": silent,
            "notes": [dataclasses.asdict(n) for n in reversed(self.notes)],
            "counts": dict(self.counts),
        }


def _is_before(early: Snapshot, late: Snapshot) -> bool:
    """Whether ``early`` is a state ``late``'s game went through: its moves, clocks and
    violations the beginning of ``late``'s, and no result that ``late`` does not have."""
    plies = len(early.moves)
    return (late.moves[:plies] == early.moves and late.clocks[:len(early.clocks)] == early.clocks
            and late.violations[:len(early.violations)] == early.violations
            and (early.result == "*" or (early.result == late.result and plies == len(late.moves))))


def _common(a: Sequence[Any], b: Sequence[Any]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _last_move(board: BoardGame) -> str | None:
    if not board.sans:
        return None
    ply = len(board.sans)
    return f"{(ply + 1) // 2}.{'' if ply % 2 else '..'} {board.sans[-1]}"


def _date_of(game: str) -> str:
    """The game id's date (``20261205-...``) as the record's ``started``, for the PGN's Date."""
    if re.fullmatch(r"[0-9]{8}-.*", game):
        return f"{game[:4]}-{game[4:6]}-{game[6:8]}T00:00:00Z"
    return "????-??-??T00:00:00Z"
