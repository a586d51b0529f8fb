"""The simulated board's terminal view: the game drawn as text, and typed lines turned into hands.

It knows no game's rules (the typed moves' neutral part is :mod:`boardctl.core.moves_typed`): the board's shape comes from :mod:`boardctl.core.geometry` (chess 8x8,
xiangqi's 9x10 points), the pieces from the state line's FEN read by a small neutral parser, and
each game's typed moves from a :class:`MoveReader` (chess: ``boardctl.variants.chess.terminal_moves``,
with SAN; xiangqi and any other game: from-to point names, :class:`PointMoves`).

Three pure parts, each tested on tables of cases:

- :func:`render` draws one state line (docs/events.md): the pieces of the game, with Unicode
  figurines or Chinese characters (double width, padded by ``unicodedata.east_asian_width``) or
  letters, the river and palaces of xiangqi, turned round when you play Black; whose move it is,
  your colour, both clocks, the last move, the engine's reply or hint, and what the LEDs ask for;
- :func:`parse` reads one typed line into a :class:`Command`: ``e2e4`` or ``h2e2`` (a move from
  square to square, point to point), chess SAN (``e4``, ``Nf3``, ``O-O``: a bare square that is
  a legal move now plays it), ``lift e2``/``place e4`` (one piece by hand; a bare square that is
  no move does the same), ``!hint`` and the other buttons, ``help``, ``quit``. Every mistake raises
  :class:`InputError` whose message says in plain words what is wrong and what to type instead;
- the reader's ``hand_steps`` turn a move into what a hand does on wood: the captured piece off
  first (and kept off longer than a brush), the piece lifted and set down, the rook after the king.

:class:`TerminalView` runs them on the daemon's event loop: a thread reads the terminal, every
state change is redrawn as soon as it is published (a hint or a takeback shows at once), and end
of input (Ctrl-D) stops the daemon, which saves the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from boardctl.core.geometry import Geometry, Square
from boardctl.core.moves_typed import (
    HandStep,
    InputError,
    Lift,
    MakeMove,
    Pause,
    Place,
    Position,
    PressButton,
    check_steps,
    is_first_side,
    side_name,
)
from boardctl.events import Button
from boardctl.lines import Overlong, read_lines

log = logging.getLogger(__name__)

#: Piece styles for ``terminal.pieces`` / ``--pieces``: figurines or Chinese characters, or letters.
STYLES = ("unicode", "letters")

#: After typed input, wait this long with no new state before redrawing (a placed piece settles in 0.3 s).
QUIET_AFTER_INPUT = 0.45
#: Otherwise (engine move, hint, clock) redraw after this little quiet.
QUIET = 0.05
#: A second ``!resign`` within this many seconds confirms the first (the page's Resign does the same).
RESIGN_CONFIRM = 5.0

#: After a legal typed move, wait at most this long (seconds) for the tracker to count it.
MOVE_COUNT_WAIT = 1.5

EMPTY_SQUARE = "·"
#: An empty point inside a xiangqi palace (where the general and advisors stay).
PALACE_POINT = "+"

BUTTON_WORDS: dict[str, Button] = {
    **{button.value: button for button in Button},
    "new": Button.NEW_GAME,
    "undo": Button.TAKEBACK,
}



SHORT_HELP = ("Type a move (e4, e2e4, Nf3, O-O), lift e2 / place e4 to move one piece by hand, !hint, !takeback, "
              "!resign; help for more.")








# -- commands --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Redraw:
    pass


@dataclass(frozen=True)
class ShowHelp:
    pass


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Flip:
    pass


@dataclass(frozen=True)
class Press:
    button: Button


@dataclass(frozen=True)
class Toggle:
    """Lift the piece on ``square``, or place one there if it is empty (logical square)."""

    square: Square




Command = Redraw | ShowHelp | Quit | Flip | Press | Toggle | MakeMove


# -- hands -----------------------------------------------------------------------------------------














# -- the position, read from a state line ------------------------------------------------------------


















# -- reading a typed line --------------------------------------------------------------------------




def parse(text: str, position: Position) -> Command:
    """One typed line -> a command; :class:`InputError` (plain words) for anything else."""
    raw = text.strip()
    word = raw.lower()
    if word in ("", "."):
        return Redraw()
    if word in ("help", "?", "h"):
        return ShowHelp()
    if word in ("quit", "exit", "q"):
        return Quit()
    if word == "flip":
        return Flip()
    if word.startswith("!") or word in BUTTON_WORDS:
        name = word.removeprefix("!").strip()
        button = BUTTON_WORDS.get(name)
        if button is None:
            names = ", ".join(f"!{b.value}" for b in Button)
            raise InputError(f"There is no button '{name}'. The buttons are {names}.")
        return Press(button)
    hand = _HAND.fullmatch(word)
    if hand is not None:
        return _hand(hand[1], hand[2], position)
    if position.geometry.is_name(word):
        square = position.geometry.parse(word)
        if position.at_rest():  # a bare square that is a legal move now (chess SAN ``e4``) plays it
            with contextlib.suppress(InputError):
                command = position.reader.parse_move(word, position)
                if command.legal:
                    return command
        return Toggle(square)
    return position.reader.parse_move(raw, position)


#: The explicit hand actions: ``lift e2``, ``place e4`` (also ``up``/``down``).
_HAND = re.compile(r"(lift|place|up|down)\s+(\S+)")


def _hand(verb: str, name: str, position: Position) -> Toggle:
    words, geometry = position.words, position.geometry
    if not geometry.is_name(name):
        raise InputError(f"'{name}' is not a {words.square}: type {verb} {words.square_example}")
    square = geometry.parse(name)
    occupied = bool(position.occupancy >> square & 1)
    if verb in ("lift", "up") and not occupied:
        raise InputError(f"There is no piece on {name} to lift")
    if verb in ("place", "down") and occupied:
        raise InputError(f"{name[0].upper()}{name[1:]} is occupied: lift its piece first (lift {name})")
    return Toggle(square)












# -- drawing ---------------------------------------------------------------------------------------

UNICODE_PIECES = {
    "K": "♔", "Q": "♕", "R": "♖", "B": "♗", "N": "♘", "P": "♙",
    "k": "♚", "q": "♛", "r": "♜", "b": "♝", "n": "♞", "p": "♟",
}
#: Xiangqi's pieces as printed on them (h/e: other programs' letters for horse and elephant).
XIANGQI_CHARACTERS = {
    "K": "帥", "A": "仕", "B": "相", "E": "相", "N": "傌", "H": "傌", "R": "俥", "C": "炮", "P": "兵",
    "k": "將", "a": "士", "b": "象", "e": "象", "n": "馬", "h": "馬", "r": "車", "c": "砲", "p": "卒",
}


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: East Asian wide and full-width characters take two."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal columns (wide characters count two)."""
    return text + " " * max(0, width - display_width(text))


def format_clock(seconds: float) -> str:
    """``m:ss``, with tenths under 20 s, as chess clocks show."""
    seconds = max(0.0, seconds)
    if seconds < 20:
        return f"0:{seconds:04.1f}"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{whole // 60}:{whole % 60:02d}"


def _eval_text(ev: Mapping[str, int] | None, position: Position) -> str | None:
    if not ev:
        return None
    first, second = position.words.sides
    if "mate" in ev:
        n = ev["mate"]
        return f"{first} mates in {n}" if n > 0 else f"{second} mates in {-n}"
    return f"{ev['cp'] / 100:+.1f} ({first}'s view)"


def _glyph(piece: str, variant: str, style: str) -> str:
    if style != "unicode":
        return piece
    if variant == "xiangqi":
        return XIANGQI_CHARACTERS.get(piece, piece)
    return UNICODE_PIECES.get(piece, piece)


def _in_palace(geometry: Geometry, square: Square) -> bool:
    file, rank = geometry.file_of(square), geometry.rank_of(square)
    return 3 <= file <= 5 and (rank <= 2 or rank >= geometry.ranks - 3)


#: Xiangqi's file numbers as boards print them: Red's 一..九 from Red's right, Black's １..９ from Black's right.
RED_FILE_NUMBERS = "一二三四五六七八九"
BLACK_FILE_NUMBERS = "１２３４５６７８９"
#: The colour of Red's pieces on a terminal that shows colour (ANSI red, bold).
RED_INK, NO_INK = "\x1b[1;31m", "\x1b[0m"


def _file_numbers(files: list[int], red: bool, style: str, cell_width: int, indent: int) -> str:
    """The row of one side's xiangqi file numbers under ``files`` (as drawn, left to right)."""
    def number(file: int) -> str:
        n = 9 - file if red else file + 1
        if style != "unicode":
            return str(n)
        return RED_FILE_NUMBERS[n - 1] if red else BLACK_FILE_NUMBERS[n - 1]

    return (" " * indent + "".join(pad(f" {number(f)}", cell_width) for f in files)).rstrip()


def _board_rows(position: Position, lit: Mapping[Square, list[str]], style: str, black_at_bottom: bool,
                colour: bool = False) -> list[str]:
    geometry = position.geometry
    xiangqi = position.variant == "xiangqi"
    # A chess square is 3 columns (" ♞ "); a xiangqi point 4, room for a double-width character.
    cell_width = 4 if xiangqi else 3
    ranks = range(geometry.ranks) if black_at_bottom else range(geometry.ranks - 1, -1, -1)
    files = list(range(geometry.files - 1, -1, -1) if black_at_bottom else range(geometry.files))
    label_width = len(str(geometry.ranks - 1 + geometry.first_rank))
    rows: list[str] = []
    for rank in ranks:
        cells = []
        for file in files:
            square = geometry.square(file, rank)
            piece = position.pieces.get(square)
            sensed = bool(position.occupancy >> square & 1)
            if piece is not None:
                mark = _glyph(piece, position.variant, style)
            elif sensed:
                mark = "?"
            else:
                mark = PALACE_POINT if xiangqi and _in_palace(geometry, square) else EMPTY_SQUARE
            if square in lit:
                cell = pad(f"[{mark}]", cell_width)
            elif piece is not None and not sensed:
                cell = pad(f"({mark})", cell_width)
            else:
                cell = pad(f" {mark} ", cell_width)
            if colour and xiangqi and piece is not None and is_first_side(piece):
                cell = cell.replace(mark, f"{RED_INK}{mark}{NO_INK}", 1)  # after padding: ink takes no columns
            cells.append(cell)
        rows.append(f" {rank + geometry.first_rank:>{label_width}} {''.join(cells)}".rstrip() if xiangqi
                    else f" {rank + geometry.first_rank} {''.join(cells)}")
    if xiangqi:
        # The river runs between ranks 4 and 5, whichever side is at the bottom.
        river = _river(style, 1 + label_width + 1 + cell_width * geometry.files)
        rows.insert(geometry.ranks // 2, river)
        # Each side's file numbers on its own edge (Black's above when Red is at the bottom).
        indent = label_width + 2
        rows.insert(0, _file_numbers(files, black_at_bottom, style, cell_width, indent))
        rows.append(_file_numbers(files, not black_at_bottom, style, cell_width, indent))
        letters = "".join(pad(f" {'abcdefghijklmnopqrstuvwxyz'[f]}", cell_width) for f in files)
        rows.append(" " * indent + letters.rstrip())
    else:
        rows.append("    " + "  ".join("abcdefghijklmnopqrstuvwxyz"[f] for f in files))
    return rows


def _river(style: str, width: int) -> str:
    """The river between ranks 4 and 5: 楚河 漢界 over the water, or the word in plain letters."""
    words = [" 楚 河 ", " 漢 界 "] if style == "unicode" else [" river "]
    inner = width - 4
    water = inner - sum(display_width(w) for w in words)
    gaps = len(words) + 1
    runs = [water // gaps + (1 if i < water % gaps else 0) for i in range(gaps)]
    text = "~" * runs[0]
    for word, run in zip(words, runs[1:], strict=True):
        text += word + "~" * run
    return "    " + text


def render(state: Mapping[str, Any], *, style: str = "unicode", black_at_bottom: bool | None = None,
           notes: tuple[str, ...] = (), colour: bool = False) -> str:
    """One state line as text: board, players and clocks, last move, and what to do next.

    ``black_at_bottom`` defaults to whether you play Black. Squares the sensors see differently
    from the game: ``(x)`` a piece of the game lifted off, ``?`` a piece the game does not have
    there; ``[x]`` a lit square (the LEDs' reasons are listed below the board). Xiangqi is drawn
    on its 9x10 points with the river across the middle, ``+`` on the palaces' empty points and
    each side's file numbers on its edge (Red's 一..九, Black's １..９); with ``colour`` (a terminal
    that shows it) Red's pieces are red.
    """
    position = Position.from_state(state)
    geometry = position.geometry
    human = position.human
    if black_at_bottom is None:
        black_at_bottom = human is False
    lit: dict[Square, list[str]] = {}
    flipped = state.get("orientation") == "flipped"
    for lamp in state.get("leds") or []:
        square = geometry.parse(str(lamp["square"]))
        lit.setdefault(geometry.turned(square) if flipped else square, []).append(str(lamp["why"]))
    rows = _board_rows(position, lit, style, black_at_bottom, colour)
    color_keys = ("red", "black") if position.variant == "xiangqi" else ("white", "black")

    def player(color: bool) -> str:
        mode = state.get("mode")
        if mode == "play" and human is not None:
            who = "you" if color == human else f"engine ({state.get('level') or 'default level'})"
        else:
            who = ""
        clock = state.get("clock")
        clock_text = ""
        key = color_keys[0] if color else color_keys[1]
        if clock and key not in clock and key == "red":
            key = "white"  # a daemon that names Red's clock as White's
        if clock and key in clock:
            clock_text = format_clock(float(clock[key]))
            if clock.get("running") == key:
                clock_text += " ⏱" if style == "unicode" else " *"
        to_move = "  to move" if position.turn == color and position.result == "*" else ""
        label = f"{side_name(position, color)}{': ' + who if who else ''}"
        return f" {label:<32}{clock_text:>10}{to_move}"

    top, bottom = (True, False) if black_at_bottom else (False, True)
    lines = [*notes, player(top), *rows, player(bottom)]
    info: list[str] = []
    start_fen = str(state.get("start_fen") or state.get("fen"))
    last = position.reader.last_move(start_fen, list(state.get("moves") or []))
    opening = state.get("opening")
    if last:
        info.append(f"Last move: {last}" + (f"   ({opening})" if opening else ""))
    info.extend(_status(state, position))
    if lit:
        by_why: dict[str, list[str]] = {}
        for square, whys in sorted(lit.items()):
            for why in whys:
                by_why.setdefault(why, []).append(geometry.square_name(square))
        info.append("Lit: " + "; ".join(f"{why} {' '.join(squares)}" for why, squares in by_why.items()))
    ev = _eval_text(state.get("eval"), position)
    if state.get("book") and not ev:
        info.append("Evaluation: book (the engine's reply came from its opening book)")
    elif ev:
        info.append(f"Evaluation: {ev}")
    if state.get("error"):
        info.append(f"Not done: {state['error']}")
    return "\n".join(lines + info)


def _status(state: Mapping[str, Any], position: Position) -> list[str]:
    reader = position.reader
    mine = side_name(position, position.turn)
    out: list[str] = []
    if position.result != "*":
        why = f" ({position.termination})" if position.termination else ""
        out.append(f"Game over: {position.result}{why}. Type !new-game for another game.")
        out.extend(_coach_lines(state))
        return out
    if position.human is not None and position.human != position.turn:
        if position.pending is not None:
            text = reader.move_text(position, position.pending) or position.pending
            out.append(f"The engine plays {text}: make it on the board "
                       f"(type {reader.how_to_type(position, position.pending)}).")
        elif position.thinking:
            out.append("The engine is thinking…")
    elif position.human is not None:
        out.append(f"Your move ({mine}).")
    elif state.get("mode") == "network" and position.pending is not None:
        text = reader.move_text(position, position.pending) or position.pending
        who = state.get("opponent") or "Your friend"
        out.append(f"{who} plays {text}: make it on this board (type {reader.how_to_type(position, position.pending)}).")
    else:
        out.append(f"{mine} to move.")
    network = state.get("network")
    if state.get("mode") == "network" and isinstance(network, Mapping):
        who = state.get("opponent") or "Your friend"
        if network.get("connected"):
            out.append(f"Playing {who} over the network (connected).")
        elif network.get("role") == "host" and not network.get("joined"):
            out.append(f"Waiting for {who} to join with the invitation.")
        else:
            out.append(f"{who}'s board is not connected: it rejoins by itself.")
    if reader.is_check(position):
        out.append(f"{mine} is in check.")
    if not state.get("matching", True):
        game = position.geometry.mask(position.pieces)
        out.append(_setup_advice(game, position.occupancy, position))
    hint = state.get("hint")
    if hint:
        named = reader.move_text(position, str(hint))
        if named is not None:
            out.append(f"Hint: {named} (type {reader.how_to_type(position, str(hint))})")
    if state.get("draw_offer"):
        out.append("A draw is offered: !draw accepts, a move declines.")
    warning = state.get("warning")
    if warning and not str(warning).startswith("game over"):
        out.append(f"Note: {warning}")
    out.extend(guide_lines(state))
    out.extend(_coach_lines(state))
    return out


def guide_lines(state: Mapping[str, Any]) -> list[str]:
    """A lesson's or a replay's words, as the page shows them (lessons.js): the lesson, its line
    and move, what to do next with the lesson's note, the note on the last move, a wrong move,
    the score; a replay's game, move and next move; and the guide's message."""
    out: list[str] = []
    lesson = state.get("lesson")
    if isinstance(lesson, Mapping) and lesson:
        mode = "quiz" if lesson.get("mode") == "quiz" else "guided"
        plies = int(lesson.get("plies") or 0)
        out.append(f"Lesson: {lesson.get('title')} ({lesson.get('eco')}), {mode}, you play {lesson.get('color')}: "
                   f"{lesson.get('line')}, move {min(int(lesson.get('ply') or 0), plies)} of {plies}")
        nxt = lesson.get("next")
        if lesson.get("ended"):
            out.append("Lesson: the line is over.")
        elif lesson.get("your_turn") and isinstance(nxt, Mapping):
            note = lesson.get("next_note")
            out.append(f"Lesson: your move {nxt.get('san')}" + (f": {note}" if note else ""))
        elif lesson.get("your_turn"):
            out.append("Lesson: your move (quiz: no hint; !hint shows it).")
        if lesson.get("note"):
            out.append(f"Lesson note: {lesson['note']}")
        wrong = lesson.get("wrong")
        if isinstance(wrong, Mapping):
            out.append(f"Lesson: {wrong.get('move')} is not the lesson's move: put it back. "
                       f"The lesson plays {wrong.get('right')}.")
        score = lesson.get("score")
        if isinstance(score, Mapping) and (score.get("moves") or score.get("mistakes")):
            mistakes = int(score.get("mistakes") or 0)
            out.append(f"Score: {score.get('first_try')} of {score.get('moves')} right at the first try "
                       f"({score.get('percent')} %), {mistakes} wrong {'try' if mistakes == 1 else 'tries'}")
    step = state.get("step")
    if isinstance(step, Mapping) and step:
        given = step.get("headers")
        headers: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        players = " - ".join(str(h) for h in (headers.get("White") or headers.get("Red"), headers.get("Black")) if h)
        where = ", ".join(str(h) for h in (headers.get("Event"), headers.get("Date")) if h)
        ply, plies = int(step.get("ply") or 0), int(step.get("plies") or 0)
        if ply >= plies:
            nxt = "the end"
        elif step.get("next"):
            nxt = f"next {step['next']}"
        else:
            nxt = "!hint shows the next move, !takeback goes back"
        out.append(f"Replay: {players or step.get('source')}" + (f" ({where})" if where else "")
                   + f", move {ply} of {plies}, {nxt}")
        comment = step.get("comment")
        if comment:
            out.append(f"Comment: {comment}")
        wrong = step.get("wrong")
        if isinstance(wrong, Mapping):
            out.append(f"Replay: {wrong.get('move')} is not the game's move: put it back. The game plays "
                       f"{wrong.get('right')}.")
    message = state.get("message")
    if message:
        out.append(str(message))
    return out


def _coach_lines(state: Mapping[str, Any]) -> list[str]:
    """The practice coach's verdict on your last move, and at the end the review of your worst
    moves: the page's words (coach.js), from the state line's ``coach`` and ``review``."""
    out: list[str] = []
    verdict = state.get("coach")
    if isinstance(verdict, Mapping) and verdict.get("text"):
        loss = verdict.get("loss")
        pawns = f" ({int(loss) / 100:.1f} pawns)" if isinstance(loss, int) and not isinstance(loss, bool) else ""
        out.append(f"Coach: {verdict['text']}. Better: {verdict.get('best_san') or verdict.get('best')}{pawns}")
    review = state.get("review")
    if isinstance(review, list):
        out.append("Review: your three worst moves" if review else "Review: no move lost a pawn or more. Well played.")
        for v in review:
            if isinstance(v, Mapping):
                out.append(f"  {v.get('number', '')} {v.get('san', '')}{v.get('nag', '')} {v.get('text', '')}; "
                           f"better was {v.get('best_san', '')}")
    return out


def _setup_advice(game: int, sensed: int, position: Position) -> str:
    """What to type so the pieces stand where the game has them."""
    geometry = position.geometry
    missing = [geometry.square_name(sq) for sq in geometry.squares_in(game & ~sensed)]
    extra = [geometry.square_name(sq) for sq in geometry.squares_in(sensed & ~game)]
    if len(missing) == 1 and len(extra) == 1:
        return (f"The pieces do not stand where the game says: the piece on {extra[0]} belongs on "
                f"{missing[0]} (type {extra[0]}{missing[0]}).")
    parts = []
    if missing:
        parts.append(f"put a piece on {' '.join(missing)}")
    if extra:
        parts.append(f"take the piece{'s' if len(extra) > 1 else ''} off {' '.join(extra)}")
    todo = " and ".join(parts) if parts else f"fix the lit {position.words.square}s"
    return f"The pieces do not stand where the game says: {todo} (type each {position.words.square})."


# -- the view on the daemon's loop -----------------------------------------------------------------


def choose_style(style: str, out: TextIO) -> str:
    """``unicode`` unless the terminal cannot show the figurines and xiangqi's characters."""
    if style == "unicode":
        encoding = getattr(out, "encoding", None) or "ascii"
        try:
            "♔♚·帥將楚".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            return "letters"
    return style


def shows_colour(out: TextIO) -> bool:
    """Whether ``out`` is a terminal that shows colour (not when ``NO_COLOR`` is set, no-color.org,
    nor for ``TERM=dumb``)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return out.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def reads_input(fd: int = 0) -> bool:
    """Whether ``fd`` is somewhere a person or a script types (a terminal, a pipe, a file), not ``/dev/null``."""
    import stat

    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return os.isatty(fd) or stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


class TerminalView:
    """The terminal face of ``boardctl play|record|demo --board sim``; see the module doc."""

    def __init__(self, daemon: Any, *, out: TextIO, style: str = "unicode", notes: tuple[str, ...] = (),
                 clock: Callable[[], float] | None = None) -> None:
        """``daemon``: a :class:`boardctl.daemon.Daemon` whose board is the sim; ``notes``: lines
        shown above the first drawing (resumed game, page address, where games are saved)."""
        self.daemon = daemon
        self.out = out
        self.style = choose_style(style, out)
        self.colour = shows_colour(out)
        self.notes = notes
        self._black_at_bottom: bool | None = None
        self._shown: dict[str, Any] | None = None
        self._last_input = float("-inf")
        self._clock = clock or (lambda: asyncio.get_running_loop().time())
        self._resign_asked: float | None = None  # when a first !resign asked for its confirmation

    # -- output ---------------------------------------------------------------------------------

    def write(self, text: str) -> None:
        try:
            self.out.write(text)
            self.out.flush()
        except (BrokenPipeError, ValueError, OSError):
            log.debug("terminal output closed")

    def draw(self, state: Mapping[str, Any], *, first: bool = False) -> None:
        self._shown = _compared(state)
        text = render(state, style=self.style, black_at_bottom=self._black_at_bottom,
                      notes=self.notes if first else (), colour=self.colour)
        self.write("\n" + text + "\n> ")

    # -- input ----------------------------------------------------------------------------------

    async def apply(self, text: str) -> bool:
        """Carry out one typed line; False when it asks to stop."""
        state = self.daemon.state()
        try:
            command = parse(text, Position.from_state(state))
            if command != Press(Button.RESIGN):
                self._resign_asked = None  # anything else withdraws a resignation asked for
            return await self._do(command, state)
        except InputError as exc:
            message = str(exc)
            self.write(message + ("" if message.endswith(".") else ".") + "\n> ")
        return True

    async def _do(self, command: Command, state: Mapping[str, Any]) -> bool:
        board = self.daemon.board
        flipped = state.get("orientation") == "flipped"

        def physical(square: Square) -> Square:
            return position.geometry.turned(square) if flipped else square

        position = Position.from_state(state)

        match command:
            case Quit():
                return False
            case ShowHelp():
                self.write(position.words.help + "\n> ")
            case Redraw():
                self.draw(self.daemon.state())
            case Flip():
                human_black = state.get("mode") == "play" and state.get("human") == "black"
                current = self._black_at_bottom if self._black_at_bottom is not None else human_black
                self._black_at_bottom = not current
                self.draw(self.daemon.state())
            case Press(button):
                if button == Button.RESIGN and not self._resign_confirmed():
                    self.write(f"Resign the game? Type !resign again within {RESIGN_CONFIRM:g} s to confirm; "
                               "anything else keeps playing.\n> ")
                    return True
                self._last_input = self._clock()
                board.press(button)
            case Toggle(square):
                self._last_input = self._clock()
                board.toggle(physical(square))
                # The next line is read against the board with this piece up or down (a bare
                # square then finishes a move made by hand rather than being read as SAN).
                await self._until_seen(state.get("occupancy"))
            case MakeMove(move, legal):
                steps: list[HandStep] = (position.reader.hand_steps(position, move) if legal
                                         else [Lift(move.from_square), Place(move.to_square)])
                problem = check_steps(steps, position.occupancy, position.geometry)
                if problem is not None:
                    raise InputError(position.reader.explain(problem, move, position, legal))
                for step in steps:
                    self._last_input = self._clock()
                    match step:
                        case Lift(square):
                            board.lift(physical(square))
                        case Place(square):
                            board.place(physical(square))
                        case PressButton(button):
                            board.press(button)
                        case Pause(seconds):
                            await asyncio.sleep(seconds)
                self._last_input = self._clock()
                # Let the piece settle and the move count before the next line is read (a script
                # piped in types faster than hands move).
                settle = getattr(getattr(self.daemon.session, "settings", None), "settle", 0.3)
                await asyncio.sleep(settle + QUIET)
                if legal:
                    # On a busy machine the tracker may count the move a little later: the next
                    # line must be read against the position after it, or a piped "e7e5, Nf3"
                    # reads Nf3 while Black is still to move.
                    await self._until_counted(len(state.get("moves") or []))
        return True

    def _resign_confirmed(self) -> bool:
        """Whether this ``!resign`` confirms one typed just before (as the page's second click)."""
        asked, self._resign_asked = self._resign_asked, None
        now = self._clock()
        if asked is not None and now - asked <= RESIGN_CONFIRM:
            return True
        self._resign_asked = now
        return False

    async def _until_seen(self, occupancy_before: Any) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + MOVE_COUNT_WAIT
        while loop.time() < deadline and self.daemon.state().get("occupancy") == occupancy_before:
            await asyncio.sleep(QUIET)

    async def _until_counted(self, moves_before: int) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + MOVE_COUNT_WAIT
        while loop.time() < deadline:
            now = self.daemon.state()
            if len(now.get("moves") or []) != moves_before or (now.get("result") or "*") != "*":
                return
            await asyncio.sleep(QUIET)

    # -- the loops ------------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event, *, stdin_fd: int = 0) -> None:
        """Draw, then read lines until end of input or ``quit`` (which set ``stop``) or until ``stop``."""
        loop = asyncio.get_running_loop()
        queue = self.daemon.subscribe()
        redraw = loop.create_task(self._redraw(queue))
        lines = read_lines(stdin_fd, loop, name="terminal-reader")
        self.draw(self.daemon.state(), first=True)
        stopper = loop.create_task(stop.wait())
        try:
            while not stop.is_set():
                reading = loop.create_task(lines.get())
                done, _ = await asyncio.wait({reading, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if reading not in done:
                    reading.cancel()
                    break
                item = reading.result()
                if isinstance(item, Overlong):
                    self.write(f"That line is longer than {item.limit} bytes; it was ignored.\n")
                    continue
                text = None if item is None else item.decode("utf-8", "replace")
                if text is None or not await self.apply(text):
                    # A piece set down just before the end (a script piped in) settles and counts first.
                    remaining = QUIET_AFTER_INPUT - (self._clock() - self._last_input)
                    if remaining > 0:
                        await asyncio.sleep(remaining)
                    stop.set()
                    break
        finally:
            stopper.cancel()
            redraw.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await redraw
            self.daemon.unsubscribe(queue)

    async def _redraw(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        while True:
            line = await queue.get()
            while True:  # wait for a quiet moment: one drawing per move, not one per lift and place
                quiet = QUIET_AFTER_INPUT if self._clock() - self._last_input < QUIET_AFTER_INPUT else QUIET
                try:
                    line = await asyncio.wait_for(queue.get(), quiet)
                except TimeoutError:
                    break
            if _compared(line) != self._shown or line.get("error"):
                self.draw(line)


def _compared(state: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in ("clock", "reason", "input")}
