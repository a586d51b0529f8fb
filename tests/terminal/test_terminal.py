"""The terminal view's pure parts: reading typed lines, a move's hand steps, drawing a state line."""

from __future__ import annotations

from typing import Any

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.core.moves_typed import (
    CAPTURE_PAUSE,
    InputError,
    Lift,
    MakeMove,
    Pause,
    Place,
    Position,
    PressButton,
    check_steps,
)
from boardctl.events import Button
from boardctl.terminal import (
    Flip,
    Press,
    Quit,
    Redraw,
    ShowHelp,
    Toggle,
    format_clock,
    parse,
    render,
)
from boardctl.variants.chess.terminal_moves import hand_steps

START = chess.STARTING_FEN
ITALIAN = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
PROMO = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1"
PROMO_CAPTURE = "3r2k1/4P3/8/8/8/8/6K1/8 w - - 0 1"
EP = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
TWO_KNIGHTS = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1"  # Nd2 is ambiguous (b1 or f1)
CHECK = "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1"
BLACK_CASTLES = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1"


def state(fen: str = START, **kw: Any) -> dict[str, Any]:
    """A state line as the daemon publishes it (docs/events.md), for a board that matches the game."""
    board = chess.Board(fen)
    line: dict[str, Any] = {
        "fen": fen, "start_fen": fen, "occupancy": f"{board.occupied:016x}", "pending": None, "moves": [],
        "leds": [], "result": "*", "termination": None, "turn": chess.COLOR_NAMES[board.turn], "mode": "record",
        "human": None, "level": None, "orientation": "normal", "clock": None, "hint": None, "eval": None,
        "draw_offer": False, "matching": True, "thinking": False, "warning": None, "game": "g",
    }
    line.update(kw)
    return line


def pos(fen: str = START, **kw: Any) -> Position:
    return Position.from_state(state(fen, **kw))


def mv(uci: str) -> chess.Move:
    return chess.Move.from_uci(uci)


# -- reading typed lines ---------------------------------------------------------------------------

PARSED = [
    ("", START, Redraw()),
    (".", START, Redraw()),
    ("help", START, ShowHelp()),
    ("?", START, ShowHelp()),
    ("quit", START, Quit()),
    ("EXIT", START, Quit()),
    ("flip", START, Flip()),
    ("!hint", START, Press(Button.HINT)),
    ("hint", START, Press(Button.HINT)),
    ("!takeback", START, Press(Button.TAKEBACK)),
    ("!undo", START, Press(Button.TAKEBACK)),
    ("!new", START, Press(Button.NEW_GAME)),
    ("!new-game", START, Press(Button.NEW_GAME)),
    ("!promote-knight", START, Press(Button.PROMOTE_KNIGHT)),
    ("resign", START, Press(Button.RESIGN)),
    ("e4", START, MakeMove(mv("e2e4"), True)),  # a bare square that is a legal move plays it (issue 35)
    ("E2", START, Toggle(chess.E2)),
    ("  h8 ", START, Toggle(chess.H8)),
    ("e2e4", START, MakeMove(mv("e2e4"), True)),
    ("e2-e4", START, MakeMove(mv("e2e4"), True)),
    ("E2E4", START, MakeMove(mv("e2e4"), True)),
    ("e2e5", START, MakeMove(mv("e2e5"), False)),  # made on wood all the same; the tracker refuses it
    ("Nf3", START, MakeMove(mv("g1f3"), True)),
    ("nf3", START, MakeMove(mv("g1f3"), True)),
    ("Nf3+", START, MakeMove(mv("g1f3"), True)),
    ("exf6", EP, MakeMove(mv("e5f6"), True)),
    ("exf6e.p.", EP, None),  # not SAN: an error, checked below
    ("O-O", ITALIAN, MakeMove(mv("e1g1"), True)),
    ("0-0", ITALIAN, MakeMove(mv("e1g1"), True)),
    ("o-o", ITALIAN, MakeMove(mv("e1g1"), True)),
    ("e1g1", ITALIAN, MakeMove(mv("e1g1"), True)),
    ("e1h1", ITALIAN, MakeMove(mv("e1g1"), True)),
    ("O-O-O", BLACK_CASTLES, MakeMove(mv("e8c8"), True)),
    ("Bxf7+", ITALIAN, MakeMove(mv("c4f7"), True)),
    ("e8=Q", PROMO, MakeMove(mv("e7e8q"), True)),
    ("e8Q", PROMO, MakeMove(mv("e7e8q"), True)),
    ("e8=N", PROMO, MakeMove(mv("e7e8n"), True)),
    ("e7e8", PROMO, MakeMove(mv("e7e8q"), True)),
    ("e7e8n", PROMO, MakeMove(mv("e7e8n"), True)),
    ("exd8=R+", PROMO_CAPTURE, MakeMove(mv("e7d8r"), True)),
    ("Nbd2", TWO_KNIGHTS, MakeMove(mv("b1d2"), True)),
    ("Kxe2", CHECK, MakeMove(mv("e1e2"), True)),
]


@pytest.mark.parametrize(("text", "fen", "expected"), [c for c in PARSED if c[2] is not None])
def test_parse(text: str, fen: str, expected: object) -> None:
    assert parse(text, pos(fen)) == expected


MISTAKES = [
    # (text, position, words the answer must contain)
    ("hi", pos(), ["'hi' is not a move", "help"]),
    ("zz9", pos(), ["not a move, a square or a command"]),
    ("i9", pos(), ["not a move"]),
    ("exf6e.p.", pos(EP), ["not a move"]),
    ("!fly", pos(), ["no button 'fly'", "!hint"]),
    ("e2e2", pos(), ["goes nowhere"]),
    ("e2e4q", pos(), ["Only a pawn reaching the last rank"]),
    ("Nf6", pos(), ["move for Black", "White's turn"]),
    ("Nf5", pos(), ["not a legal move for White"]),
    ("Kd1", pos(CHECK), ["in check"]),
    ("bxf7", pos(ITALIAN), ["not a legal move"]),  # a pawn capture in form: never read as Bxf7
    ("Nd2", pos(TWO_KNIGHTS), ["Nbd2", "Nfd2"]),
    ("O-O", pos(), ["not a legal move"]),
    ("e4", pos(result="1-0"), None),  # a bare square is wood, allowed after the game too
    ("e2e4", pos(result="1-0", termination="black resigned"), ["The game is over", "black resigned", "!new-game"]),
    ("Nf3", pos(result="1/2-1/2"), ["game is over"]),
    # Playing White against the engine, when it is the engine's turn.
    ("e5", pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", mode="play", human="white",
               thinking=True), None),
    ("e7e5", pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", mode="play", human="white",
                 thinking=True), ["engine is thinking"]),
    ("Nf3", pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", mode="play", human="white",
                thinking=True), ["engine is thinking"]),
    ("Nc6", pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", mode="play", human="white",
                pending="e7e5"), ["engine plays e5", "type e5 or e7e5", "!takeback"]),
    ("Nf3", pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", mode="play", human="white",
                pending="g8f6"), ["engine plays Nf6", "Nf6 or g8f6"]),
    # Wood moved by hand (a piece put back) is not a move: allowed whoever's turn it is.
    ("e4e2", pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", mode="play", human="white",
                 pending="g8f6"), None),
]


@pytest.mark.parametrize(("text", "position", "words"), MISTAKES)
def test_every_mistake_is_answered_in_plain_words(text: str, position: Position, words: list[str] | None) -> None:
    if words is None:
        parse(text, position)  # accepted
        return
    with pytest.raises(InputError) as info:
        parse(text, position)
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert "not in list" not in message and "Traceback" not in message


def test_the_engines_move_is_accepted_while_it_waits_to_be_made() -> None:
    position = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", mode="play", human="white",
                   pending="g8f6")
    assert parse("Nf6", position) == MakeMove(mv("g8f6"), True)
    assert parse("g8f6", position) == MakeMove(mv("g8f6"), True)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_any_text_is_a_command_or_a_plain_error(text: str) -> None:
    try:
        parse(text, pos(ITALIAN))
    except InputError as exc:
        message = str(exc)
        assert message and "not in list" not in message
        assert "Error" not in message or "Error" in text  # no exception's name, but the words typed are echoed


@st.composite
def positions(draw: st.DrawFn) -> chess.Board:
    board = chess.Board()
    for _ in range(draw(st.integers(0, 60))):
        moves = list(board.legal_moves)
        if not moves or board.is_game_over():
            break
        board.push(draw(st.sampled_from(moves)))
    return board


@settings(max_examples=80, deadline=None)
@given(positions(), st.data())
def test_every_legal_move_reads_back_from_its_san_and_from_to(board: chess.Board, data: st.DataObject) -> None:
    moves = list(board.legal_moves)
    if not moves:
        return
    move = data.draw(st.sampled_from(moves))
    position = pos(board.fen())
    san = board.san(move)
    expected = MakeMove(move, True)
    assert parse(san, position) == expected  # a bare square too (e4): a legal move is played
    assert parse(san.lower() if san[0] in "NRQK" else san, position) == expected
    assert parse(move.uci(), position) == expected


# -- hands ---------------------------------------------------------------------------------------------

HANDS = [
    (START, "e2e4", [Lift(chess.E2), Place(chess.E4)]),
    (ITALIAN, "c4f7", [Lift(chess.F7), Pause(CAPTURE_PAUSE), Lift(chess.C4), Place(chess.F7)]),
    (EP, "e5f6", [Lift(chess.F5), Pause(CAPTURE_PAUSE), Lift(chess.E5), Place(chess.F6)]),
    (ITALIAN, "e1g1", [Lift(chess.E1), Place(chess.G1), Lift(chess.H1), Place(chess.F1)]),
    (BLACK_CASTLES, "e8c8", [Lift(chess.E8), Place(chess.C8), Lift(chess.A8), Place(chess.D8)]),
    (BLACK_CASTLES, "e8g8", [Lift(chess.E8), Place(chess.G8), Lift(chess.H8), Place(chess.F8)]),
    (PROMO, "e7e8q", [PressButton(Button.PROMOTE_QUEEN), Lift(chess.E7), Place(chess.E8)]),
    (PROMO, "e7e8n", [PressButton(Button.PROMOTE_KNIGHT), Lift(chess.E7), Place(chess.E8)]),
    (PROMO_CAPTURE, "e7d8r",
     [PressButton(Button.PROMOTE_ROOK), Lift(chess.D8), Pause(CAPTURE_PAUSE), Lift(chess.E7), Place(chess.D8)]),
]


@pytest.mark.parametrize(("fen", "uci", "steps"), HANDS)
def test_hand_steps(fen: str, uci: str, steps: list[object]) -> None:
    board = chess.Board(fen)
    made = hand_steps(board, mv(uci))
    assert made == steps
    assert check_steps(made, board.occupied) is None
    occ = board.occupied
    for step in made:
        if isinstance(step, Lift):
            occ &= ~(1 << step.square)
        elif isinstance(step, Place):
            occ |= 1 << step.square
    board.push(mv(uci))
    assert occ == board.occupied  # the hands leave the wood as the game has it


def test_steps_that_wood_cannot_do_are_explained() -> None:
    assert check_steps([Lift(chess.E4)], chess.BB_E2) == "there is no piece on e4 to pick up"
    assert check_steps([Lift(chess.E2), Place(chess.E2), Place(chess.E2)], chess.BB_E2) == "e2 is occupied"


# -- drawing -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seconds", "text"), [
    (300, "5:00"), (61.9, "1:01"), (20, "0:20"), (19.96, "0:20.0"), (9.25, "0:09.2"), (0, "0:00.0"),
    (-3, "0:00.0"), (3725, "1:02:05"),
])
def test_format_clock(seconds: float, text: str) -> None:
    assert format_clock(seconds) == text


def board_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:3].strip() in "12345678" and line[:3].strip()]


def test_render_draws_the_pieces_from_the_game() -> None:
    text = render(state(), style="unicode")
    rows = board_rows(text)
    assert rows[0].startswith(" 8") and rows[-1].startswith(" 1")
    assert "♜  ♞  ♝  ♛  ♚  ♝  ♞  ♜" in rows[0] and "♖  ♘  ♗  ♕  ♔  ♗  ♘  ♖" in rows[-1]
    letters = board_rows(render(state(), style="letters"))
    assert "r  n  b  q  k  b  n  r" in letters[0] and "R  N  B  Q  K  B  N  R" in letters[-1]
    assert "White to move." in text


def test_render_turns_the_board_round_when_you_play_black() -> None:
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    line = state(after_e4, start_fen=START, moves=["e2e4"], mode="play", human="black", level="beginner",
                 clock={"white": 296.5, "black": 300.0, "running": "black"})
    text = render(line, style="letters")
    rows = board_rows(text)
    assert rows[0].startswith(" 1") and rows[-1].startswith(" 8")
    assert "R  N  B  K  Q  B  N  R" in rows[0]  # h1 on the left, as Black sees it
    assert "Black: you" in text and "White: engine (beginner)" in text
    assert "4:56" in text and "5:00" in text
    assert "Last move: 1. e4" in text and "Your move (Black)." in text
    files = next(line for line in text.splitlines() if line.strip().startswith("h"))
    assert files.split() == list("hgfedcba")


@pytest.mark.parametrize(("line", "words"), [
    (state("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", start_fen=START, moves=["e2e4"],
           mode="play", human="white", pending="g8f6",
           leds=[{"square": "g8", "why": "engine-move"}, {"square": "f6", "why": "engine-move"}]),
     ["The engine plays Nf6", "type Nf6 or g8f6", "engine-move f6 g8", "[♞]", "Last move: 1. e4"]),
    (state("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", start_fen=START, moves=["e2e4"],
           mode="play", human="white", thinking=True), ["The engine is thinking"]),
    (state(START, mode="play", human="white", hint="g1f3"), ["Hint: Nf3 (type Nf3 or g1f3)"]),
    (state(START, result="0-1", termination="white resigned"), ["Game over: 0-1 (white resigned)", "!new-game"]),
    (state(CHECK), ["White is in check"]),
    (state(START, draw_offer=True), ["draw is offered"]),
    (state(START, eval={"cp": 35}), ["+0.3"]),
    (state(START, eval={"mate": -3}), ["Black mates in 3"]),
    (state(START, eval=None, book=True), ["Evaluation: book"]),
    (state(START, warning="white: illegal-move: e2e5"), ["Note: white: illegal-move: e2e5"]),
    (state(START, occupancy=f"{chess.Board().occupied & ~chess.BB_E2 | chess.BB_E4:016x}", matching=False),
     ["(♙)", " ? ", "the piece on e4 belongs on e2 (type e4e2)"]),
    (state(START, occupancy=f"{chess.Board().occupied & ~chess.BB_E2 & ~chess.BB_D2:016x}", matching=False),
     ["put a piece on d2 e2 (type each square)"]),
    (state("4k3/8/8/8/8/8/8/4K3 w - - 0 1", occupancy=f"{chess.BB_E1 | chess.BB_E8 | chess.BB_A1 | chess.BB_H8:016x}",
           matching=False), ["take the pieces off a1 h8"]),
    (state("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", start_fen=START,
           moves=["e2e4", "e7e5"], opening="King's Pawn Game"), ["Last move: 1... e5", "King's Pawn Game"]),
])
def test_render_says_what_is_happening(line: dict[str, Any], words: list[str]) -> None:
    text = render(line, style="unicode")
    for word in words:
        assert word in text, text


def test_render_flipped_board_maps_physical_squares() -> None:
    """With the board turned round, the sensors' e2 is the game's d7."""
    occ = chess.Board().occupied & ~chess.BB_D7  # logical: d7 lifted
    flipped_occ = chess.flip_vertical(chess.flip_horizontal(occ))
    line = state(START, orientation="flipped", occupancy=f"{flipped_occ:016x}",
                 leds=[{"square": "e2", "why": "lifted"}])
    text = render(line, style="letters")
    assert "lifted d7" in text
    row7 = next(r for r in board_rows(text) if r.startswith(" 7"))
    assert "[p]" in row7


AFTER_BA6 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/B7/PPPP1PPP/RNBQK1NR b KQkq - 1 2"
VERDICT = {"ply": 3, "move": "f1a6", "san": "Ba6", "best": "g1f3", "best_san": "Nf3", "loss": 310,
           "category": "hangs", "text": "Ba6 hangs the bishop on a6", "mate": None, "pieces": ["bishop"],
           "nag": "??", "number": "2."}


@pytest.mark.parametrize(("extra", "shown", "absent"), [
    ({"coach": VERDICT}, ["Coach: Ba6 hangs the bishop on a6. Better: Nf3 (3.1 pawns)"], ["Review"]),
    ({"coach": {**VERDICT, "text": "Qh5 allows a mate in 2", "best_san": "Nc3", "loss": 9000}},
     ["Coach: Qh5 allows a mate in 2. Better: Nc3 (90.0 pawns)"], []),
    ({"coach": None}, [], ["Coach:"]),
    ({}, [], ["Coach:", "Review"]),
    ({"result": "0-1", "termination": "checkmate", "review": [VERDICT]},
     ["Review: your three worst moves", "2. Ba6?? Ba6 hangs the bishop on a6; better was Nf3"], ["Coach:"]),
    ({"result": "1-0", "termination": "checkmate", "review": []},
     ["Review: no move lost a pawn or more. Well played."], []),
])
def test_the_coachs_verdict_and_review_are_in_the_terminal_view(extra: dict[str, Any], shown: list[str],
                                                                 absent: list[str]) -> None:
    text = render(state(AFTER_BA6, mode="play", human="white", **extra), style="letters")
    for line in shown:
        assert line in text, text
    for word in absent:
        assert word not in text, text
