"""Whole xiangqi games recorded through the real daemon (``boardctl record --board sim --stdio
--variant xiangqi``), made by human-like hands: captures in both orders, slides over points, brushes
of neighbouring pieces, long pauses and touch-move scenes under ``strict`` and ``casual``.

The games are real openings (engine/data/xiangqi_openings.tsv) carried on by a seeded, capture-loving
continuation; the event traces come from a seeded generator written here (independent of
:mod:`boardctl.gestures`), on virtual time (``t`` on every line). The final ``moves`` and ``fen`` of
the last state line must be exact, and the saved PGN must follow the Chinese-chess convention and
replay to the same moves.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from boardctl.core.geometry import XIANGQI_9X10
from boardctl.core.rules import GameBoard, Move
from boardctl.variants import get_variant

XQ = get_variant("xiangqi")
G = XIANGQI_9X10
OPENINGS = Path(__file__).resolve().parents[2] / "engine" / "data" / "xiangqi_openings.tsv"
SLIDERS = {"chariot", "cannon"}
SETTLE = 0.3
BRUSH = 0.1


def openings() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in OPENINGS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or line.startswith("name\t") or not line.strip():
            continue
        name, _, moves = line.split("\t")
        out[name] = moves.split()
    return out


def continue_game(start: list[str], plies: int, rng: random.Random) -> list[str]:
    """The opening, then ``plies`` more legal moves preferring captures (so games have many)."""
    board = XQ.board()
    for uci in start:
        board.push(board.parse_uci(uci))
    moves = list(start)
    for _ in range(plies):
        if board.outcome() is not None:
            break
        legal = list(board.generate_legal_moves())
        captures = [m for m in legal if board.capture_square(m) is not None]
        move = rng.choice(captures if captures and rng.random() < 0.7 else legal)
        moves.append(move.uci())
        board.push(move)
    return moves


# -- the hands ---------------------------------------------------------------------------------------


@dataclass
class Trace:
    """Input lines for the daemon's stdio face, on virtual time, and what the hand did."""

    rng: random.Random
    policy: str
    t: float = 0.5
    lines: list[dict[str, Any]] | None = None
    did: Counter[str] | None = None

    def __post_init__(self) -> None:
        self.lines = [{"t": 0}]
        self.did = Counter()

    def _at(self, square: int, occupied: bool) -> None:
        assert self.lines is not None
        self.lines.append({"t": round(self.t, 3), "square": G.square_name(square), "occupied": occupied})

    def _wait(self, low: float, high: float) -> None:
        self.t += self.rng.uniform(low, high)

    def _hold(self) -> None:
        """A piece in the hand: past the brush time, short of the mismatch delay."""
        self._wait(BRUSH + 0.05, 0.7)

    def _release(self) -> None:
        """Past settle; now and then a long think before the next move."""
        assert self.did is not None
        if self.rng.random() < 0.25:
            self.did["long-pause"] += 1
            self._wait(1.5, 4.0)
        else:
            self._wait(SETTLE + 0.05, 0.9)

    def brush(self, board: GameBoard, near: int) -> None:
        """Knock a piece next to ``near`` for a moment (shorter than the brush time)."""
        assert self.did is not None
        f, r = G.file_of(near), G.rank_of(near)
        around = [G.square(f + df, r + dr) for df in (-1, 0, 1) for dr in (-1, 0, 1)
                  if (df or dr) and 0 <= f + df < 9 and 0 <= r + dr < 10]
        pieces = [s for s in around if board.occupied >> s & 1]
        if not pieces:
            return
        square = self.rng.choice(pieces)
        self._at(square, False)
        self._wait(0.01, BRUSH * 0.7)
        self._at(square, True)
        self._wait(0.1, 0.3)
        self.did["brush"] += 1

    def plain(self, board: GameBoard, move: Move) -> None:
        """Lift, carry (sliding over empty points when a chariot or cannon can), place."""
        assert self.did is not None
        start, end = move.from_square, move.to_square
        path = between(start, end) if board.piece_name(start) in SLIDERS else []
        self._at(start, False)
        if path and not any(board.occupied >> s & 1 for s in path) and self.rng.random() < 0.6:
            for square in path:
                self._wait(0.01, 0.05)
                self._at(square, True)
                self._wait(0.01, BRUSH * 0.7)
                self._at(square, False)
            self._wait(0.01, 0.05)
            self.did["slide"] += 1
        else:
            self._hold()
            self.did["lift-place"] += 1
        self._at(end, True)

    def capture(self, move: Move) -> None:
        assert self.did is not None
        if self.rng.random() < 0.5:
            self._at(move.to_square, False)  # the victim off first
            self._hold()
            self._at(move.from_square, False)
            self.did["capture-victim-first"] += 1
        else:
            self._at(move.from_square, False)  # the mover up first, the victim taken later
            self._hold()
            self._at(move.to_square, False)
            self.did["capture-mover-first"] += 1
        self._hold()
        self._at(move.to_square, True)

    def touch_scene(self, board: GameBoard, move: Move) -> None:
        """Before ``move``: touch another own piece and put it back. Strict: then make a different
        move with the wrong piece first (refused), take it back, and only then the real move.
        Casual: the touched piece carries no duty, so the real move simply follows."""
        assert self.did is not None
        own = [m for m in board.generate_legal_moves()
               if m.from_square != move.from_square and board.capture_square(m) is None]
        if not own:
            return
        other = self.rng.choice(own)
        if self.policy == "strict":
            # The mover's own piece touched first: it must move; the other piece's move is refused.
            self._at(move.from_square, False)
            self._hold()
            self._at(move.from_square, True)
            self._release()
            self._at(other.from_square, False)
            self._hold()
            self._at(other.to_square, True)
            self._wait(SETTLE + 0.2, 0.9)
            self._at(other.to_square, False)
            self._hold()
            self._at(other.from_square, True)
            self._release()
            self.did["touch-move-refused"] += 1
        else:
            self._at(other.from_square, False)
            self._hold()
            self._at(other.from_square, True)
            self._release()
            self.did["touch-casual"] += 1

    def moved_on(self, board: GameBoard, move: Move) -> None:
        """落子无悔: after release, the mover lifts its piece again and sets it on another empty
        point, then back: the first placement stays the move (the relocation is out of turn).
        Only where the side to move cannot take that piece: a piece of theirs kept off past settle
        that they could capture is theirs to capture under strict (the tracker cannot tell whose
        hand held it), so that scene is a different one."""
        assert self.did is not None
        if any(m.to_square == move.to_square for m in board.generate_legal_moves()):
            return
        f, r = G.file_of(move.to_square), G.rank_of(move.to_square)
        empty = [G.square(f + df, r + dr) for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))
                 if 0 <= f + df < 9 and 0 <= r + dr < 10]
        empty = [s for s in empty if not board.occupied >> s & 1 and s != move.from_square]
        if not empty:
            return
        there = self.rng.choice(empty)
        self._at(move.to_square, False)
        self._hold()
        self._at(there, True)
        self._wait(SETTLE + 0.2, 0.9)
        self._at(there, False)
        self._hold()
        self._at(move.to_square, True)
        self._release()
        self.did["released-piece-stays"] += 1

    def game(self, ucis: list[str]) -> list[dict[str, Any]]:
        board = XQ.board()
        for index, uci in enumerate(ucis):
            move = board.parse_uci(uci)
            if self.rng.random() < 0.2:
                self.brush(board, move.from_square)
            if index and self.rng.random() < 0.15:
                self.touch_scene(board, move)
            if board.capture_square(move) is not None:
                self.capture(move)
            else:
                self.plain(board, move)
            self._release()
            board.push(move)
            if self.rng.random() < 0.08:
                self.moved_on(board, move)
        assert self.lines is not None
        self.lines.append({"t": round(self.t + 3.0, 3)})
        return self.lines


def between(start: int, end: int) -> list[int]:
    """The points strictly between two points on one file or rank, nearest ``start`` first."""
    df, dr = G.file_of(end) - G.file_of(start), G.rank_of(end) - G.rank_of(start)
    if df and dr:
        return []
    steps = max(abs(df), abs(dr))
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return [G.square(G.file_of(start) + sf * i, G.rank_of(start) + sr * i) for i in range(1, steps)]


# -- the catalogue -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Game:
    id: str
    moves: tuple[str, ...]
    policy: str
    seed: int


def _catalogue() -> list[Game]:
    book = openings()
    chosen = [
        ("central cannon vs screen horses", "strict"),
        ("same-direction cannons", "casual"),
        ("elephant opening vs pawn", "strict"),
        ("pawn opening vs pawn-bottom cannon", "casual"),
        ("five-seven cannons vs screen horses", "strict"),
        ("palace-crossing cannon", "casual"),
        ("horse opening vs horse", "strict"),
        ("reverse cannons", "strict"),
    ]
    games = []
    for seed, (name, policy) in enumerate(chosen):
        moves = continue_game(book[name], 24, random.Random(seed))
        games.append(Game(name.replace(" ", "-"), tuple(moves), policy, seed))
    # A hand-written short game: the central cannon takes the middle soldier with check, and back.
    games.append(Game("cannon-takes-centre-soldier", ("h2e2", "h9g7", "e2e6", "g7e6", "b0c2", "e6d4"), "strict", 99))
    return games


CATALOGUE = _catalogue()


def final_fen(moves: tuple[str, ...], fen: str | None = None) -> str:
    board = XQ.board(fen)
    for uci in moves:
        board.push(board.parse_uci(uci))
    return str(board.fen())


def record(games_dir: Path, lines: list[dict[str, Any]], *extra: str) -> list[dict[str, Any]]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(games_dir.parent / "config"),
           "XDG_DATA_HOME": str(games_dir.parent / "data")}
    out = subprocess.run(
        [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web", "--variant", "xiangqi",
         "--games-dir", str(games_dir), *extra],
        input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True, text=True, timeout=120, env=env,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Traceback" not in out.stderr
    return [json.loads(x) for x in out.stdout.splitlines()]


def test_the_catalogue_is_broad() -> None:
    """Every hand gesture and capture order happens somewhere, and the games have real captures."""
    did: Counter[str] = Counter()
    for game in CATALOGUE:
        trace = Trace(random.Random(game.seed), game.policy)
        trace.game(list(game.moves))
        assert trace.did is not None
        did += trace.did
    for what in ("lift-place", "slide", "brush", "long-pause", "capture-victim-first", "capture-mover-first",
                 "touch-move-refused", "touch-casual", "released-piece-stays"):
        assert did[what] >= 2, (what, did)
    assert len(CATALOGUE) >= 8 and {g.policy for g in CATALOGUE} == {"strict", "casual"}


@pytest.mark.slow
@pytest.mark.parametrize("game", CATALOGUE, ids=[g.id for g in CATALOGUE])
def test_a_whole_game_comes_back_exactly(tmp_path: Path, game: Game) -> None:
    games_dir = tmp_path / "games"
    trace = Trace(random.Random(game.seed), game.policy)
    lines = trace.game(list(game.moves))
    states = record(games_dir, lines, "--policy", game.policy)
    last = states[-1]
    assert last["variant"] == "xiangqi"
    assert last["moves"] == list(game.moves), (game.id, trace.did)
    assert last["fen"] == final_fen(game.moves)
    assert last["turn"] == ("red" if len(game.moves) % 2 == 0 else "black")
    assert len(last["occupancy"]) == 23
    assert trace.did is not None
    if game.policy == "strict" and trace.did["touch-move-refused"]:
        assert any("touch-move" in str(s.get("warning") or "") for s in states)

    (state_file,) = games_dir.glob("*.json")
    saved = json.loads(state_file.read_text())
    assert saved["moves"] == list(game.moves)
    pgn = state_file.with_suffix(".pgn").read_text(encoding="utf-8")
    assert pgn.splitlines()[0] == '[Game "Chinese Chess"]'
    assert '[Format "ICCS"]' in pgn
    first = game.moves[0]
    assert f"{first[:2].upper()}-{first[2:].upper()}" in pgn  # e.g. H2-E2
    assert XQ.read_pgn is not None
    read = XQ.read_pgn(io.StringIO(pgn))
    assert read is not None and list(read.moves) == list(game.moves)

    replayed = subprocess.run([sys.executable, "-m", "boardctl", "replay", str(state_file.with_suffix(".jsonl"))],
                              capture_output=True, text=True, timeout=120)
    assert replayed.returncode == 0, replayed.stderr
    again = XQ.read_pgn(io.StringIO(replayed.stdout))
    assert again is not None and list(again.moves) == list(game.moves)


MATE_IN_ONE = "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1"


@pytest.mark.slow
def test_mate_on_the_board_ends_the_recorded_game(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = [{"t": 0}, {"t": 1.0, "square": "b0", "occupied": False}, {"t": 1.4, "square": "b9", "occupied": True},
             {"t": 3.0}]
    states = record(tmp_path / "games", lines, "--fen", MATE_IN_ONE)
    last = states[-1]
    assert last["moves"] == ["b0b9"] and last["result"] == "1-0", last
    assert last["fen"] == final_fen(("b0b9",), MATE_IN_ONE)


@pytest.mark.slow
@pytest.mark.parametrize("victim_first", [
    pytest.param(False, id="mover-first"),
    pytest.param(True, id="victim-first"),  # not read as Red's horse lifted on a turned board
])
def test_a_first_move_capture_under_auto_orientation(tmp_path: Path, victim_first: bool) -> None:
    order = ["b9", "b2"] if victim_first else ["b2", "b9"]
    lines: list[dict[str, Any]] = [{"t": 0}, {"t": 1.0, "square": order[0], "occupied": False},
                                   {"t": 1.4, "square": order[1], "occupied": False},
                                   {"t": 1.8, "square": "b9", "occupied": True}, {"t": 4.0}]
    last = record(tmp_path / "games", lines)[-1]
    assert last["moves"] == ["b2b9"] and last["orientation"] == "normal", last
    assert last["fen"] == final_fen(("b2b9",))


#: First moves under auto orientation, on a board standing either way round: (the move, its
#: squares in the order the hands touch them). On a turned board every point is read turned.
FIRST_MOVES = [
    ("b2b9", ["b2-", "b9-", "b9+"]),  # cannon takes the horse, the taker first
    ("b2b9", ["b9-", "b2-", "b9+"]),  # the victim first
    ("h2h9", ["h9-", "h2-", "h9+"]),
    ("h2h9", ["h2-", "h9-", "h9+"]),
    ("h2e2", ["h2-", "e2+"]),  # a plain move
    ("b0c2", ["b0-", "c2+"]),  # the horse: on a turned board its point reads like the victim's of b2b9
    ("c3c4", ["c3-", "c4+"]),
]


@pytest.mark.slow
@pytest.mark.parametrize("turned", [False, True], ids=["normal", "turned"])
@pytest.mark.parametrize(("move", "hands"), FIRST_MOVES, ids=[" ".join(h) for _, h in FIRST_MOVES])
def test_auto_orientation_reads_any_first_move_either_way_round(
    tmp_path: Path, move: str, hands: list[str], turned: bool
) -> None:
    lines: list[dict[str, Any]] = [{"t": 0}]
    t = 1.0
    for token in hands:
        point = G.parse(token[:-1])
        name = G.square_name(G.turned(point) if turned else point)
        lines.append({"t": t, "square": name, "occupied": token[-1] == "+"})
        t += 0.4
    lines.append({"t": t + 3.0})
    last = record(tmp_path / "games", lines)[-1]
    assert last["moves"] == [move], last
    assert last["orientation"] == ("flipped" if turned else "normal"), last
    assert last["fen"] == final_fen((move,))
