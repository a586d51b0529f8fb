"""The simulated board's terminal view: the game drawn as text, and typed lines turned into hands.

Three pure parts, each tested on tables of cases:

- :func:`render` draws one state line (docs/events.md): the pieces of the game, with Unicode
  figurines or letters, turned round when you play Black; whose move it is, your colour, both
  clocks, the last move in SAN, the engine's reply or hint, and what the LEDs ask for;
- :func:`parse` reads one typed line into a :class:`Command`: ``e2e4`` (a move from square to
  square), ``e4`` (lift or place one piece), any other SAN (``Nf3``, ``exd5``, ``O-O``, ``e8=Q``),
  ``!hint`` and the other buttons, ``help``, ``quit``. Every mistake raises :class:`InputError`
  whose message says in plain words what is wrong and what to type instead;
- :func:`hand_steps` turns a move into what a hand does on wood: the captured piece off first
  (and kept off longer than a brush), the piece lifted and set down, the rook after the king.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

import chess

from boardctl.errors import BoardctlError
from boardctl.events import Button
from boardctl.lines import Overlong, read_lines

log = logging.getLogger(__name__)

#: Piece styles for ``terminal.pieces`` / ``--pieces``.
STYLES = ("unicode", "letters")

#: Seconds a captured piece stays off before the capturing piece arrives (longer than a brush).
CAPTURE_PAUSE = 0.25
#: After typed input, wait this long with no new state before redrawing (a placed piece settles in 0.3 s).
QUIET_AFTER_INPUT = 0.45
#: Otherwise (engine move, hint, clock) redraw after this little quiet.
QUIET = 0.05

EMPTY_SQUARE = "·"

BUTTON_WORDS: dict[str, Button] = {
    **{button.value: button for button in Button},
    "new": Button.NEW_GAME,
    "undo": Button.TAKEBACK,
}

HELP = """\
Moves:   e2e4 (from and to square), or SAN: Nf3, exd5, O-O, e8=Q (a capture takes the piece off first)
Pieces:  a bare square such as e2 lifts the piece there, or places one if the square is empty
Buttons: !hint  !takeback  !draw  !claim  !resign  !new-game  !promote-knight (also without the !)
Other:   . or an empty line redraws, flip turns the board round, help or ? shows this,
         quit or Ctrl-D stops (the game is saved and resumes next time)"""

SHORT_HELP = "Type a move (e2e4, Nf3, O-O), a square to lift or place a piece (e2), !hint, !takeback, !resign; help for more."


class InputError(BoardctlError, ValueError):
    """A typed line that is not a command, or a move that cannot be made now; the message says why."""


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

    square: chess.Square


@dataclass(frozen=True)
class MakeMove:
    """A move typed as ``e2e4`` or SAN; ``legal`` is False for a from-to pair the rules refuse
    (it is still made on the wood, and the board says what is wrong, as with real pieces)."""

    move: chess.Move
    legal: bool


Command = Redraw | ShowHelp | Quit | Flip | Press | Toggle | MakeMove


# -- hands -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lift:
    square: chess.Square


@dataclass(frozen=True)
class Place:
    square: chess.Square


@dataclass(frozen=True)
class Pause:
    seconds: float


@dataclass(frozen=True)
class PressButton:
    button: Button


HandStep = Lift | Place | Pause | PressButton

PROMOTION_BUTTON: dict[chess.PieceType, Button] = {
    chess.QUEEN: Button.PROMOTE_QUEEN,
    chess.ROOK: Button.PROMOTE_ROOK,
    chess.BISHOP: Button.PROMOTE_BISHOP,
    chess.KNIGHT: Button.PROMOTE_KNIGHT,
}


def hand_steps(board: chess.Board, move: chess.Move) -> list[HandStep]:
    """What a hand does to play ``move`` on wood (logical squares): the promotion piece chosen
    first, a captured piece taken off first and kept off longer than a brush, the king before the rook."""
    steps: list[HandStep] = []
    if move.promotion is not None and move.promotion in PROMOTION_BUTTON:
        steps.append(PressButton(PROMOTION_BUTTON[move.promotion]))
    if board.is_en_passant(move):
        victim = chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
        steps += [Lift(victim), Pause(CAPTURE_PAUSE)]
    elif board.piece_at(move.to_square) is not None and not board.is_castling(move):
        steps += [Lift(move.to_square), Pause(CAPTURE_PAUSE)]
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = board.is_kingside_castling(move)
        king_to = chess.square(6 if kingside else 2, rank)
        rook_from = move.to_square if board.chess960 else chess.square(7 if kingside else 0, rank)
        rook_to = chess.square(5 if kingside else 3, rank)
        return [*steps, Lift(move.from_square), Place(king_to), Lift(rook_from), Place(rook_to)]
    return [*steps, Lift(move.from_square), Place(move.to_square)]


def check_steps(steps: list[HandStep], occupancy: int) -> str | None:
    """Why ``steps`` cannot be done on a board with ``occupancy`` (logical), or None if they can."""
    occ = occupancy
    for step in steps:
        if isinstance(step, Lift):
            if not occ >> step.square & 1:
                return f"there is no piece on {chess.square_name(step.square)} to pick up"
            occ &= ~(1 << step.square)
        elif isinstance(step, Place):
            if occ >> step.square & 1:
                return f"{chess.square_name(step.square)} is occupied"
            occ |= 1 << step.square
    return None


# -- reading a typed line --------------------------------------------------------------------------

_SQUARE = re.compile(r"[a-h][1-8]")
_FROM_TO = re.compile(r"([a-h][1-8])-?([a-h][1-8])(?:=?([qrbn]))?")
_SAN_DEST = re.compile(r"([KQRBN])?[a-h]?[1-8]?x?([a-h][1-8])")


@dataclass(frozen=True)
class Position:
    """What :func:`parse` needs from a state line."""

    board: chess.Board
    occupancy: int  # logical: what the sensors see, in game squares
    human: chess.Color | None  # None in record mode
    pending: chess.Move | None
    thinking: bool
    result: str
    termination: str

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Position:
        board = chess.Board(state["fen"])
        flipped = state.get("orientation") == "flipped"
        occupancy = int(state.get("occupancy") or "0", 16)
        human = state.get("human")
        pending = state.get("pending")
        return cls(
            board=board,
            occupancy=_rotate(occupancy) if flipped else occupancy,
            human=None if state.get("mode") != "play" or human is None else human == "white",
            pending=chess.Move.from_uci(pending) if pending else None,
            thinking=bool(state.get("thinking")),
            result=str(state.get("result") or "*"),
            termination=str(state.get("termination") or ""),
        )


def _rotate(bb: int) -> int:
    return chess.flip_vertical(chess.flip_horizontal(bb))


def _side(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def _unknown(text: str) -> InputError:
    return InputError(
        f"'{text}' is not a move, a square or a command. Type a move such as e2e4 or Nf3, "
        "a square such as e2 to lift or place one piece, !hint or !takeback; help lists everything."
    )


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
    if _SQUARE.fullmatch(word):
        return Toggle(chess.parse_square(word))
    match = _FROM_TO.fullmatch(word)
    if match is not None:
        return _from_to(match, position)
    return _san(raw, position)


def _from_to(match: re.Match[str], position: Position) -> MakeMove:
    board = position.board
    start, end = chess.parse_square(match[1]), chess.parse_square(match[2])
    if start == end:
        raise InputError(f"{match[1]}{match[2]} goes nowhere: give two different squares, such as e2e4")
    promotion = chess.Piece.from_symbol(match[3]).piece_type if match[3] else None
    move = chess.Move(start, end, promotion)
    if promotion is None:
        queen = chess.Move(start, end, chess.QUEEN)
        if queen in board.legal_moves:
            move = queen  # the pawn becomes a queen unless another piece is named (e7e8n)
    elif chess.Move(start, end) in board.legal_moves or board.piece_type_at(start) != chess.PAWN:
        raise InputError(f"Only a pawn reaching the last rank is promoted: type {match[1]}{match[2]} without the piece")
    legal = move in board.legal_moves or _is_castling_as_rook_capture(board, move)
    if legal and _is_castling_as_rook_capture(board, move):
        move = _castling_from_rook_square(board, move)
    _check_turn(move, legal, position)
    return MakeMove(move, legal)


def _is_castling_as_rook_capture(board: chess.Board, move: chess.Move) -> bool:
    """``e1h1``: the king onto its own rook, as some programs write castling."""
    return _castling_from_rook_square(board, move) in board.legal_moves


def _castling_from_rook_square(board: chess.Board, move: chess.Move) -> chess.Move:
    king = board.king(board.turn)
    if move.from_square != king or board.piece_at(move.to_square) != chess.Piece(chess.ROOK, board.turn):
        return chess.Move.null()
    rank = chess.square_rank(move.from_square)
    if chess.square_file(move.to_square) == 7:
        return chess.Move(move.from_square, chess.square(6, rank))
    if chess.square_file(move.to_square) == 0:
        return chess.Move(move.from_square, chess.square(2, rank))
    return chess.Move.null()


def _normalise_san(text: str) -> list[str]:
    san = text.strip().rstrip("+#!?")
    castle = san.upper().replace("0", "O")
    if castle in ("O-O", "O-O-O", "OO", "OOO"):
        return ["O-O-O" if castle.count("O") == 3 else "O-O"]
    candidates = [san]
    pawn_like = re.fullmatch(r"[a-h](x[a-h])?[1-8].*", san) is not None  # bxc3 is a pawn capture, never Bxc3
    if san and san[0] in "nrqkb" and len(san) > 2 and not pawn_like:
        candidates.append(san[0].upper() + san[1:])  # nf3 -> Nf3
    if "=" not in san and re.fullmatch(r"[a-h](x[a-h])?[18][qrbnQRBN]", san):
        candidates.append(san[:-1] + "=" + san[-1].upper())  # e8q -> e8=Q
    return candidates


def _san(raw: str, position: Position) -> MakeMove:
    board = position.board
    candidates = _normalise_san(raw)
    ambiguous: str | None = None
    syntax_ok = False
    for san in candidates:
        try:
            move = board.parse_san(san)
        except chess.AmbiguousMoveError:
            ambiguous = san
            syntax_ok = True
            continue
        except chess.IllegalMoveError:
            syntax_ok = True
            continue
        except chess.InvalidMoveError:
            continue
        _check_turn(move, True, position)
        return MakeMove(move, True)
    if ambiguous is not None:
        options = _options(board, ambiguous)
        raise InputError(f"{raw} could be {' or '.join(options)}: say which piece moves" if options
                         else f"{raw} could mean more than one move: say which piece moves")
    if not syntax_ok:
        raise _unknown(raw)
    # A well-formed move that cannot be made: say why in chess terms.
    other = board.copy(stack=False)
    other.turn = not board.turn
    other.ep_square = None
    for san in candidates:
        try:
            other.parse_san(san)
        except ValueError:
            continue
        if position.human is not None and board.turn != position.human:
            raise _not_your_turn(position)
        raise InputError(f"{raw} is a move for {_side(other.turn)}, but it is {_side(board.turn)}'s turn")
    if board.is_check():
        raise InputError(f"{raw} is not legal: {_side(board.turn)} is in check and must get out of it")
    raise InputError(f"{raw} is not a legal move for {_side(board.turn)} here")


def _options(board: chess.Board, san: str) -> list[str]:
    match = _SAN_DEST.fullmatch(san.replace("=", "")[:6])
    if match is None:
        return []
    piece = chess.Piece.from_symbol(match[1]).piece_type if match[1] else chess.PAWN
    dest = chess.parse_square(match[2])
    return sorted(board.san(m) for m in board.legal_moves
                  if m.to_square == dest and board.piece_type_at(m.from_square) == piece)


def _check_turn(move: chess.Move, legal: bool, position: Position) -> None:
    """Refuse, in plain words, a move that the game cannot take now (the rules are the tracker's).

    A from-to pair the rules refuse is still wood moved by hand (putting a piece back, say) and is
    left to the tracker, except after the game."""
    board = position.board
    if position.result != "*":
        why = f", {position.termination}" if position.termination else ""
        raise InputError(f"The game is over ({position.result}{why}): type !new-game to play another")
    if position.human is None or not legal:
        return
    if board.turn != position.human and move != position.pending:
        raise _not_your_turn(position)


def how_to_type(board: chess.Board, move: chess.Move) -> str:
    """What to type for ``move``: SAN and from-to, or only from-to for a pawn push (``e4`` alone
    is a square, which lifts or places one piece)."""
    san = board.san(move)
    if _SQUARE.fullmatch(san.rstrip("+#")):
        return move.uci()
    return f"{san} or {move.uci()}"


def _not_your_turn(position: Position) -> InputError:
    if position.pending is not None:
        san = position.board.san(position.pending)
        return InputError(f"The engine plays {san}: make that move for it first "
                          f"(type {how_to_type(position.board, position.pending)}), or press !takeback")
    if position.thinking:
        return InputError("Wait: the engine is thinking about its move")
    return InputError("It is not your turn: the engine moves now")


# -- drawing ---------------------------------------------------------------------------------------

UNICODE_PIECES = {
    "K": "♔", "Q": "♕", "R": "♖", "B": "♗", "N": "♘", "P": "♙",
    "k": "♚", "q": "♛", "r": "♜", "b": "♝", "n": "♞", "p": "♟",
}


def format_clock(seconds: float) -> str:
    """``m:ss``, with tenths under 20 s, as chess clocks show."""
    seconds = max(0.0, seconds)
    if seconds < 20:
        return f"0:{seconds:04.1f}"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{whole // 60}:{whole % 60:02d}"


def _last_move(start_fen: str, moves: list[str]) -> str | None:
    if not moves:
        return None
    board = chess.Board(start_fen)
    for uci in moves[:-1]:
        board.push_uci(uci)
    move = chess.Move.from_uci(moves[-1])
    number = board.fullmove_number
    return f"{number}. {board.san(move)}" if board.turn == chess.WHITE else f"{number}... {board.san(move)}"


def _eval_text(ev: Mapping[str, int] | None) -> str | None:
    if not ev:
        return None
    if "mate" in ev:
        n = ev["mate"]
        return f"White mates in {n}" if n > 0 else f"Black mates in {-n}"
    return f"{ev['cp'] / 100:+.1f} (White's view)"


def render(state: Mapping[str, Any], *, style: str = "unicode", black_at_bottom: bool | None = None,
           notes: tuple[str, ...] = ()) -> str:
    """One state line as text: board, players and clocks, last move, and what to do next.

    ``black_at_bottom`` defaults to whether you play Black. Squares the sensors see differently
    from the game: ``(x)`` a piece of the game lifted off, ``?`` a piece the game does not have
    there; ``[x]`` a lit square (the LEDs' reasons are listed below the board).
    """
    position = Position.from_state(state)
    board = position.board
    human = position.human
    if black_at_bottom is None:
        black_at_bottom = human == chess.BLACK
    lit: dict[chess.Square, list[str]] = {}
    flipped = state.get("orientation") == "flipped"
    for lamp in state.get("leds") or []:
        square = chess.parse_square(lamp["square"])
        lit.setdefault(63 - square if flipped else square, []).append(str(lamp["why"]))
    ranks = range(8) if black_at_bottom else range(7, -1, -1)
    files = range(7, -1, -1) if black_at_bottom else range(8)

    def glyph(piece: chess.Piece) -> str:
        return UNICODE_PIECES[piece.symbol()] if style == "unicode" else piece.symbol()

    rows: list[str] = []
    for rank in ranks:
        cells = []
        for file in files:
            square = chess.square(file, rank)
            piece = board.piece_at(square)
            sensed = bool(position.occupancy >> square & 1)
            mark = ("?" if sensed else EMPTY_SQUARE) if piece is None else glyph(piece)
            if square in lit:
                cells.append(f"[{mark}]")
            elif piece is not None and not sensed:
                cells.append(f"({mark})")
            else:
                cells.append(f" {mark} ")
        rows.append(f" {rank + 1} {''.join(cells)}")
    rows.append("    " + "  ".join("abcdefgh"[f] for f in files))

    def player(color: chess.Color) -> str:
        mode = state.get("mode")
        if mode == "play" and human is not None:
            who = "you" if color == human else f"engine ({state.get('level') or 'default level'})"
        else:
            who = ""
        clock = state.get("clock")
        clock_text = ""
        if clock:
            clock_text = format_clock(float(clock[chess.COLOR_NAMES[color]]))
            if clock.get("running") == chess.COLOR_NAMES[color]:
                clock_text += " ⏱" if style == "unicode" else " *"
        to_move = "  to move" if board.turn == color and position.result == "*" else ""
        label = f"{_side(color)}{': ' + who if who else ''}"
        return f" {label:<32}{clock_text:>10}{to_move}"

    top, bottom = (chess.WHITE, chess.BLACK) if black_at_bottom else (chess.BLACK, chess.WHITE)
    lines = [*notes, player(top), *rows, player(bottom)]
    info: list[str] = []
    last = _last_move(state.get("start_fen") or chess.STARTING_FEN, list(state.get("moves") or []))
    opening = state.get("opening")
    if last:
        info.append(f"Last move: {last}" + (f"   ({opening})" if opening else ""))
    info.extend(_status(state, position))
    if lit:
        by_why: dict[str, list[str]] = {}
        for square, whys in sorted(lit.items()):
            for why in whys:
                by_why.setdefault(why, []).append(chess.square_name(square))
        info.append("Lit: " + "; ".join(f"{why} {' '.join(squares)}" for why, squares in by_why.items()))
    ev = _eval_text(state.get("eval"))
    if state.get("book") and not ev:
        info.append("Evaluation: book (the engine's reply came from its opening book)")
    elif ev:
        info.append(f"Evaluation: {ev}")
    if state.get("error"):
        info.append(f"Not done: {state['error']}")
    return "\n".join(lines + info)


def _status(state: Mapping[str, Any], position: Position) -> list[str]:
    board = position.board
    out: list[str] = []
    if position.result != "*":
        why = f" ({position.termination})" if position.termination else ""
        out.append(f"Game over: {position.result}{why}. Type !new-game for another game.")
        return out
    if position.human is not None and position.human != board.turn:
        if position.pending is not None:
            san = board.san(position.pending)
            out.append(f"The engine plays {san}: make it on the board (type {how_to_type(board, position.pending)}).")
        elif position.thinking:
            out.append("The engine is thinking…")
    elif position.human is not None:
        out.append(f"Your move ({_side(board.turn)}).")
    else:
        out.append(f"{_side(board.turn)} to move.")
    if board.is_check():
        out.append(f"{_side(board.turn)} is in check.")
    if not state.get("matching", True):
        out.append(_setup_advice(board.occupied, position.occupancy))
    hint = state.get("hint")
    if hint:
        with contextlib.suppress(ValueError):
            move = chess.Move.from_uci(hint)
            out.append(f"Hint: {board.san(move)} (type {how_to_type(board, move)})")
    if state.get("draw_offer"):
        out.append("A draw is offered: !draw accepts, a move declines.")
    warning = state.get("warning")
    if warning and not str(warning).startswith("game over"):
        out.append(f"Note: {warning}")
    return out


def _setup_advice(game: int, sensed: int) -> str:
    """What to type so the pieces stand where the game has them."""
    missing = [chess.square_name(sq) for sq in chess.scan_forward(game & ~sensed)]
    extra = [chess.square_name(sq) for sq in chess.scan_forward(sensed & ~game)]
    if len(missing) == 1 and len(extra) == 1:
        return (f"The pieces do not stand where the game says: the piece on {extra[0]} belongs on "
                f"{missing[0]} (type {extra[0]}{missing[0]}).")
    parts = []
    if missing:
        parts.append(f"put a piece on {' '.join(missing)}")
    if extra:
        parts.append(f"take the piece{'s' if len(extra) > 1 else ''} off {' '.join(extra)}")
    todo = " and ".join(parts) if parts else "fix the lit squares"
    return f"The pieces do not stand where the game says: {todo} (type each square)."


# -- the view on the daemon's loop -----------------------------------------------------------------


def choose_style(style: str, out: TextIO) -> str:
    """``unicode`` unless the terminal cannot show the figurines."""
    if style == "unicode":
        encoding = getattr(out, "encoding", None) or "ascii"
        try:
            "♔♚·".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            return "letters"
    return style


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
        self.notes = notes
        self._black_at_bottom: bool | None = None
        self._shown: dict[str, Any] | None = None
        self._last_input = float("-inf")
        self._clock = clock or (lambda: asyncio.get_running_loop().time())

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
                      notes=self.notes if first else ())
        self.write("\n" + text + "\n> ")

    # -- input ----------------------------------------------------------------------------------

    async def apply(self, text: str) -> bool:
        """Carry out one typed line; False when it asks to stop."""
        state = self.daemon.state()
        try:
            command = parse(text, Position.from_state(state))
            return await self._do(command, state)
        except InputError as exc:
            message = str(exc)
            self.write(message + ("" if message.endswith(".") else ".") + "\n> ")
        return True

    async def _do(self, command: Command, state: Mapping[str, Any]) -> bool:
        board = self.daemon.board
        flipped = state.get("orientation") == "flipped"

        def physical(square: chess.Square) -> chess.Square:
            return 63 - square if flipped else square

        match command:
            case Quit():
                return False
            case ShowHelp():
                self.write(HELP + "\n> ")
            case Redraw():
                self.draw(self.daemon.state())
            case Flip():
                human_black = state.get("mode") == "play" and state.get("human") == "black"
                current = self._black_at_bottom if self._black_at_bottom is not None else human_black
                self._black_at_bottom = not current
                self.draw(self.daemon.state())
            case Press(button):
                self._last_input = self._clock()
                board.press(button)
            case Toggle(square):
                self._last_input = self._clock()
                board.toggle(physical(square))
            case MakeMove(move, legal):
                position = Position.from_state(state)
                steps: list[HandStep] = (hand_steps(position.board, move) if legal
                                         else [Lift(move.from_square), Place(move.to_square)])
                problem = check_steps(steps, position.occupancy)
                if problem is not None:
                    raise InputError(_explain(problem, move, position, legal))
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
        return True

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


def _explain(problem: str, move: chess.Move, position: Position, legal: bool) -> str:
    board = position.board
    if not legal:
        target = chess.square_name(move.to_square)
        if "occupied" in problem:
            return (f"{problem[0].upper()}{problem[1:]}: take that piece off first (type {target}), "
                    f"or type the capture in SAN (such as {_capture_example(board, move)})")
        return problem[0].upper() + problem[1:]
    return f"{problem[0].upper()}{problem[1:]}, so {board.san(move)} cannot be made: first set the pieces as the game has them (the lit squares)"


def _capture_example(board: chess.Board, move: chess.Move) -> str:
    for legal in board.legal_moves:
        if legal.to_square == move.to_square and board.is_capture(legal):
            return board.san(legal)
    return "exd5"
