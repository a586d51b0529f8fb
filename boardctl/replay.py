"""An event log judged again: the events go through the very :class:`~boardctl.session.Session`
the daemon runs, so a saved ``<id>.jsonl`` gives back the saved game (``boardctl replay``,
boardctl/commands/replay.py) and a damaged state file is rebuilt from its log (boardctl.storage).
A log the daemon wrote starts with a header line (settings, start position, clock;
docs/events.md) and holds the engine's replies; a hand-made log without one is judged with the
policy, variant and start position given.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from boardctl.core.geometry import Geometry
from boardctl.core.rules import GameBoard, GameText, Variant
from boardctl.errors import EventFormatError, GameFileError
from boardctl.events import (
    Code,
    EngineReplied,
    Event,
    GameDecided,
    GameHeader,
    RemoteTakeback,
    parse_event,
    whole_lines,
)
from boardctl.lines import Overlong, is_blank, iter_lines
from boardctl.reply import Reply
from boardctl.session import HEADER_VERSION, Session, Settings
from boardctl.storage import ABANDONED, PGN_VIOLATIONS, GameRecord, PgnGame, pgn_termination
from boardctl.tracker import (
    DEFAULT_TIMING,
    GameStarted,
    MoveTakenBack,
    Output,
    Policy,
    Timing,
    Violation,
)
from boardctl.variants import NAMES, get_variant

#: Long enough after the last event of a hand-made log for any settle or promotion window to close.
_FLUSH = 60.0


@dataclass
class ReplayedGame:
    record: GameRecord
    comments: dict[int, list[str]] = field(default_factory=dict)

    @property
    def board(self) -> GameBoard:
        return self.record.board()

    @property
    def result(self) -> str:
        return self.record.result

    def to_pgn(self) -> PgnGame:
        """As the daemon saves it (storage.GameRecord.to_pgn): a standard Termination, the detailed
        reason after the last move, rule violations as comments and no set-up noise."""
        record = self.record
        final = ""
        if record.termination:
            final = "abandoned for a new game" if record.termination == ABANDONED else record.termination
        text = GameText(
            fen=record.fen,
            moves=tuple(record.moves),
            headers={"Result": record.result, "Termination": pgn_termination(record.result, record.termination)},
            comments={ply: " ".join(notes) for ply, notes in self.comments.items() if notes and ply >= 1},
            final=final,
        )
        return PgnGame(text, record.rules())


@dataclass
class ReplayWarning:
    code: Code
    ply: int
    detail: str

    def __str__(self) -> str:
        return f"warning: {self.code} {self.ply} {self.detail}"


def read_events(
    lines: Iterable[str | bytes | Overlong], *, name: str = "-", variant: Variant | None = None
) -> list[Event]:
    """Parse every line (blank lines skipped); an error names the file and line number. Squares
    are read on ``variant``'s board (chess by default) until a header line names the game."""
    geometry = (variant or get_variant("chess")).geometry
    entries: list[Event] = []
    last_t = 0.0
    for number, line in enumerate(whole_lines(lines, name=name), start=1):
        where = f"{name}:{number}"
        if isinstance(line, Overlong):
            raise EventFormatError(f"{where}: {line}")
        if is_blank(line):
            continue
        entry = parse_event(line, where=where, geometry=geometry)
        if entry.t < last_t:
            raise EventFormatError(f"{where}: 't' went backwards ({entry.t} after {last_t})")
        if isinstance(entry, GameHeader):
            geometry = _check_header(entry, where)
        last_t = entry.t
        entries.append(entry)
    return entries


def _check_header(header: GameHeader, where: str) -> Geometry:
    """Refuse a malformed header; the geometry of the game it starts."""
    game = header.game
    if game.get("version") != HEADER_VERSION:
        raise EventFormatError(f"{where}: header version {game.get('version')!r} is not {HEADER_VERSION}")
    settings = game.get("settings")
    names = {f.name for f in fields(Settings)}
    if not isinstance(settings, dict) or set(settings) - names:
        raise EventFormatError(f"{where}: header 'settings' must be an object with keys from {', '.join(sorted(names))}")
    name = settings.get("variant", "chess")
    if name not in NAMES:
        raise EventFormatError(f"{where}: header 'variant' must be one of {', '.join(NAMES)}, got {name!r:.60}")
    try:
        geometry = get_variant(name).configure(
            rules=settings.get("xiangqi_rules", "chinese"), move_limit=settings.get("xiangqi_move_limit", 60)
        ).geometry
    except ValueError as exc:
        raise EventFormatError(f"{where}: header 'settings': {exc}") from None
    occupancy = game.get("occupancy")
    try:
        value = int(occupancy, 16) if isinstance(occupancy, str) else -1
    except ValueError:
        value = -1
    if not 0 <= value <= geometry.all_mask:
        raise EventFormatError(
            f"{where}: header 'occupancy' must be a {geometry.points}-bit hex bitboard, got {occupancy!r}"
        )
    try:
        record = GameRecord.from_json(game.get("record"), where=where)
    except GameFileError as exc:
        raise EventFormatError(str(exc)) from None
    if record.variant != name:
        raise EventFormatError(f"{where}: header plays {name} but its record is a game of {record.variant}")
    return geometry


class _Replay:
    """One session at a time over a log; a header line (re)starts it as the daemon's was."""

    def __init__(self, settings: Settings, fen: str) -> None:
        self.games: list[ReplayedGame] = []
        self.warnings: list[ReplayWarning] = []
        self.session = Session(settings, fen=fen, observer=self._observe)
        self._game()

    def _game(self) -> ReplayedGame:
        record = self.session.record
        if not self.games or self.games[-1].record is not record:
            self.games.append(ReplayedGame(record))
        return self.games[-1]

    def _observe(self, out: Output) -> None:
        game = self._game()
        if isinstance(out, MoveTakenBack):
            self.warnings.append(ReplayWarning(Code.TAKEBACK, out.ply, f"{out.move.uci()} taken back"))
        elif isinstance(out, Violation):
            self.warnings.append(ReplayWarning(out.code, out.ply, out.detail))
            if str(out.code) in PGN_VIOLATIONS:  # rule breaches only, as in the saved PGN
                game.comments.setdefault(out.ply, []).append(f"{out.code}: {out.detail}")
        elif isinstance(out, GameStarted):
            self.warnings.append(ReplayWarning(Code.NEW_GAME, len(game.record.moves) + 1, out.fen))

    def header(self, header: GameHeader) -> None:
        game = header.game
        # The log holds logical squares: the replayed board is never turned round.
        settings = replace(Settings(**game["settings"]), orientation="normal")
        record = GameRecord.from_json(game["record"], where="header")
        record.orientation = "normal"
        self.session = Session(settings, record=record, occupancy=int(game["occupancy"], 16), observer=self._observe)
        self._game()
        self.session.tick(header.t)  # the session starts here: its clock runs from now

    def engine(self, line: EngineReplied) -> None:
        session = self.session
        session.tick(line.t)
        if session.is_remote_turn():  # a network game: the other board's move, lit as it was
            with contextlib.suppress(ValueError):
                session.remote_move(len(session.network_moves()), line.move.uci(), line.t)
            return
        request = session.engine_request()
        if request is None or request.kind != "move":
            self.warnings.append(ReplayWarning(Code.ENGINE_ERROR, len(session.board.move_stack) + 1, f"engine reply {line.move.uci()} not asked for"))
            return
        session.engine_replied(request, Reply(line.move, line.score), line.t)
        self._game()

    def feed(self, entry: Event) -> None:
        if isinstance(entry, GameHeader):
            self.header(entry)
        elif isinstance(entry, EngineReplied):
            self.engine(entry)
        elif isinstance(entry, GameDecided):  # a network game's result, decided by the other side
            self.session.tick(entry.t)
            self.session.remote_end(entry.result, entry.termination, entry.t)
        elif isinstance(entry, RemoteTakeback):
            self.session.tick(entry.t)
            self.session.remote_takeback(entry.moves, entry.t)
        else:
            self.session.feed(entry)
            self._game()

    def finished_games(self) -> list[ReplayedGame]:
        games = list(self.games)
        while len(games) > 1 and not games[0].record.moves and not games[0].record.is_finished():
            games.pop(0)  # the file began by setting up a new game, or a header restarted it
        while len(games) > 1 and not games[-1].record.moves and games[-1].record.result == "*":
            games.pop()  # a new game begun at the very end (its events are in its own log)
        return games


def replay(
    events: Iterable[Event],
    *,
    policy: Policy = Policy.STRICT,
    board: GameBoard | None = None,
    timing: Timing = DEFAULT_TIMING,
    variant: Variant | None = None,
    xiangqi_rules: str = "chinese",
    xiangqi_move_limit: int = 60,
) -> tuple[list[ReplayedGame], list[ReplayWarning]]:
    """Judge ``events`` as the daemon does; return the games played and the warnings, in order.

    ``policy``, ``board``, ``timing``, ``variant`` (chess) and xiangqi's rules apply until a header
    line says otherwise.
    """
    entries = list(events)
    variant = variant or get_variant("chess")
    settings = Settings(
        mode="record", orientation="normal", policy=Policy(policy).value, takeback="apply", settle=timing.settle,
        variant=variant.name, xiangqi_rules=xiangqi_rules, xiangqi_move_limit=xiangqi_move_limit,
    )
    run = _Replay(settings, (board or variant.board()).fen())
    for entry in entries:
        run.feed(entry)
    if entries and not any(isinstance(entry, GameHeader) for entry in entries):
        # A hand-made log: let the last move settle. (A daemon's log has every tick that mattered.)
        run.session.tick(entries[-1].t + _FLUSH)
    elif not entries:
        run.session.tick(0.0)
    return run.finished_games(), run.warnings


def rebuild_record(log: Path, game_id: str) -> GameRecord:
    """The game ``game_id`` as its event log ``log`` (the source of truth) has it, replayed with
    the daemon's own code: for a state file ``<id>.json`` that was damaged. GameFileError when the
    log cannot rebuild it (unreadable, malformed, no header line of that game)."""
    try:
        with log.open("rb") as handle:
            events = read_events(iter_lines(handle), name=str(log))
    except OSError as exc:
        raise GameFileError(f"{log}: cannot read ({exc.strerror or exc})") from None
    except EventFormatError as exc:
        raise GameFileError(str(exc)) from None
    headers = [e for e in events if isinstance(e, GameHeader) and isinstance(e.game.get("record"), dict)
               and e.game["record"].get("id") == game_id]
    if not headers:
        raise GameFileError(f"{log}: no header line of game {game_id} to start a replay from")
    games, _ = replay(events)
    for game in reversed(games):
        if game.record.id == game_id:
            record = game.record
            # The replay turns no board round; the game's own orientation is the header's.
            record.orientation = str(headers[-1].game["record"].get("orientation", record.orientation))
            return record
    raise GameFileError(f"{log}: the replay did not reach game {game_id}")
