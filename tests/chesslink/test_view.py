"""Which piece stands where: the statuses an app sees while hands make moves, through the real
session and tracker (what the face is fed), as a table of gestures and the changes reported."""

from __future__ import annotations

import chess
import pytest

from boardctl.chesslink import protocol as p
from boardctl.chesslink.view import PieceView, placement
from boardctl.core.geometry import CHESS_8X8
from boardctl.events import Button, ButtonPressed, SquareChanged, Tick
from boardctl.session import Session, Settings


def changes(before: str, after: str) -> str:
    """``e2-`` a square emptied, ``e4=P`` a piece now there; in square order."""
    out = []
    for i, (a, b) in enumerate(zip(before, after, strict=True)):
        if a != b:
            name = "abcdefgh"[i % 8] + str(8 - i // 8)
            out.append(f"{name}-" if b == "." else f"{name}={b}")
    return " ".join(out)


class Hands:
    """A session in record mode, its state lines fed to a view as the face does."""

    def __init__(self, fen: str = chess.STARTING_FEN) -> None:
        self.session = Session(Settings(mode="record"), fen=fen)
        self.view = PieceView()
        self.t = 0.0
        self.seen: list[str] = []
        self._follow()

    def _follow(self) -> None:
        line = self.session.state_line()
        statuses = self.view.update(line["fen"], CHESS_8X8.from_hex(line["occupancy"]), line["promotion"])
        last = self.view.status if not self.seen and not statuses else None
        if last is not None:
            self.seen.append(last)
        self.seen.extend(statuses)

    def do(self, gestures: str) -> None:
        """``-e2`` lift, ``+e4`` place, ``!queen`` a promote button, ``~`` wait a second."""
        for word in gestures.split():
            self.t += 0.2
            if word == "~":
                self.t += 1.0
                self.session.feed(Tick(self.t))
            elif word.startswith("!"):
                self.session.feed(ButtonPressed(self.t, Button(f"promote-{word[1:]}")))
            else:
                self.session.feed(SquareChanged(self.t, chess.parse_square(word[1:]), word[0] == "+"))
            self._follow()

    def reported(self) -> list[str]:
        return [changes(a, b) for a, b in zip(self.seen, self.seen[1:], strict=False)]


CASES: list[tuple[str, str, str, list[str]]] = [
    ("a pawn move", chess.STARTING_FEN, "-e2 +e4 ~", ["e2-", "e4=P"]),
    ("a knight move", chess.STARTING_FEN, "-g1 +f3 ~", ["g1-", "f3=N"]),
    ("capture, capturer lifted first", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "-e4 -d5 +d5 ~",
     ["e4-", "d5-", "d5=P"]),
    ("capture, victim lifted first", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "-d5 -e4 +d5 ~",
     ["d5-", "e4-", "d5=P"]),
    ("capture with the victim pushed off (never reads empty)", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",
     "-e4 ~ ~", ["e4-", "d5-", "d5=P"]),
    ("castling, king first", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "-e1 +g1 -h1 +f1 ~",
     ["e1-", "g1=K", "h1-", "f1=R"]),
    ("castling, rook first", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "-h1 +f1 -e1 +g1 ~",
     ["h1-", "f1=R", "e1-", "g1=K"]),
    ("en passant", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "-e5 +d6 -d5 ~", ["e5-", "d6=P", "d5-"]),
    ("promotion: a queen at once", "8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "-e7 +e8 ~ ~ ~", ["e7-", "e8=Q"]),
    ("under-promotion chosen with the button", "8/4P3/8/8/8/8/k7/4K3 w - - 0 1", "-e7 +e8 !knight ~ ~ ~",
     ["e7-", "e8=Q", "e8-", "e8=N"]),
    ("a piece lifted and put back", chess.STARTING_FEN, "-d1 +d1 ~", ["d1-", "d1=Q"]),
    ("a piece set down where the game cannot explain it: the piece lifted", chess.STARTING_FEN,
     "-b1 +b4 ~", ["b1-", "b4=N"]),
    ("a move taken back, the captured piece put back", "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",
     "-e4 -d5 +d5 ~ -d5 +e4 +d5 ~", ["e4-", "d5-", "d5=P", "d5-", "e4=P", "d5=p"]),
    ("blitz: the reply lifted before the move settled", chess.STARTING_FEN, "-e2 +e4 -e7 +e5 ~",
     ["e2-", "e4=P", "e7-", "e5=p"]),
]


@pytest.mark.parametrize(("why", "fen", "gestures", "expected"), CASES, ids=[c[0] for c in CASES])
def test_what_the_app_sees(why: str, fen: str, gestures: str, expected: list[str]) -> None:
    hands = Hands(fen)
    hands.do(gestures)
    assert hands.reported() == expected
    # Once the board matches the game, the status is the game's position exactly (a refused
    # move, as castling after the rook, leaves it showing what the hands did).
    if hands.session.state_line()["matching"]:
        assert hands.view.status == p.status_from_pieces(placement(hands.session.board.fen()))
    else:
        assert why in ("castling, rook first", "a piece set down where the game cannot explain it: the piece lifted")


def test_the_first_status_is_the_board_as_it_stands() -> None:
    view = PieceView()
    fen = "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"
    occupied = CHESS_8X8.mask([chess.A1, chess.E1, chess.E8, chess.D4])  # and a stranger on d4
    assert view.update(fen, occupied) == [p.status_from_pieces({0: "R", 4: "K", 60: "k", 27: "P"})]


def test_placement_reads_a_fen() -> None:
    assert placement(chess.STARTING_FEN)[chess.E1] == "K"
    assert placement("8/8/8/8/8/8/8/7k b - - 0 1") == {chess.H1: "k"}
    assert placement("") == {}
