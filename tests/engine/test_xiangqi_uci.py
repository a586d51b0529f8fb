"""A real engine subprocess speaking UCI with UCI_Variant xiangqi."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from engine.uci import OPTIONS, UciProtocol
from engine.xq_judge import legal_moves

START = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


class Session:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "engine"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix: str, timeout: float = 60) -> list[str]:
        assert self.proc.stdout is not None
        lines: list[str] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline().strip()
            lines.append(line)
            if line.startswith(prefix):
                return lines
        raise AssertionError(f"no {prefix!r} in {lines}")

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(10)


@pytest.fixture()
def session() -> Session:
    s = Session()
    s.send("uci")
    lines = s.until("uciok")
    assert "option name UCI_Variant type combo default chess var chess var xiangqi" in lines
    s.send("setoption name UCI_Variant value xiangqi")
    s.send("isready")
    s.until("readyok")
    yield s  # type: ignore[misc]
    s.close()


@pytest.mark.slow
def test_perft_and_searches(session: Session) -> None:
    session.send("position startpos")
    session.send("go perft 3")
    assert session.until("Nodes searched")[-1] == "Nodes searched: 79666"
    moves = ["h2e2", "h9g7", "h0g2"]
    session.send("position startpos moves " + " ".join(moves))
    session.send("go depth 5")
    best = session.until("bestmove")[-1].split()[1]
    assert best in legal_moves(START, moves)
    fen = "3ak4/4a4/4b4/p3p3p/9/2P6/P3P3P/4B4/4A4/2BAK4 r - - 0 30"  # r for Red is accepted
    session.send(f"position fen {fen}")
    session.send("go movetime 300")
    best = session.until("bestmove")[-1].split()[1]
    assert best in legal_moves(fen.replace(" r ", " w "), [])


@pytest.mark.slow
def test_finds_a_mate_in_one(session: Session) -> None:
    session.send("position fen 4k4/7R1/9/9/9/9/9/9/9/R4K3 w - - 0 1")
    session.send("go depth 3")
    lines = session.until("bestmove")
    assert lines[-1].split()[1] == "a0a9" and any("score mate 1" in ln for ln in lines)


@pytest.mark.slow
def test_no_legal_move_is_bestmove_none(session: Session) -> None:
    session.send("position fen 3k5/R8/9/9/4R4/9/9/9/9/4K4 b - - 0 1")  # stalemate: a loss in xiangqi
    session.send("go depth 3")
    assert session.until("bestmove")[-1] == "bestmove (none)"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        ("position startpos moves h2e3", "illegal move h2e3"),
        ("position startpos moves e2e4", "illegal move e2e4"),
        ("position fen rnbakabnr/9/1c5c1 w - - 0 1", "bad xiangqi fen"),
        ("position fen 4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "not to move is in check"),
        ("setoption name UCI_Variant value shogi", "wants one of chess, xiangqi"),
    ],
)
def test_bad_input_is_reported_and_the_position_kept(session: Session, command: str, fragment: str) -> None:
    session.send("position startpos moves h2e2")
    session.send(command)
    session.send("go perft 1")
    lines = session.until("Nodes searched")
    assert any(ln.startswith("info string error") and fragment in ln for ln in lines), lines
    # the old position stands: Black's replies to h2e2, as pyffish counts them
    assert lines[-1] == f"Nodes searched: {len(legal_moves(START, ['h2e2']))}"


def test_variant_option_switches_back_to_chess() -> None:
    out: list[str] = []
    proto = UciProtocol(out.append, warm=False)
    assert any(o.name == "UCI_Variant" for o in OPTIONS)
    proto.handle("setoption name UCI_Variant value xiangqi")
    proto.handle("position startpos moves h2e2")
    proto.handle("setoption name UCI_Variant value chess")
    proto.handle("position startpos moves e2e4")
    proto.handle("go perft 1")
    proto.finish()  # perft runs on the worker thread: wait for its count
    assert out[-1] == "Nodes searched: 20"
