"""The terminal view as a person meets it: ``boardctl record|play|demo --board sim`` in a pseudo-terminal.

Keys are typed into the pty; Ctrl-C is SIGINT to the whole process group (as a terminal sends
it, so the engine subprocess would get it too), SIGTERM is what systemd sends, Ctrl-D ends input.
Every stop must be quiet (no traceback, from the daemon or the engine) and save the game.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import pytest
from test_daemon_support import STOCKFISH, needs_engine

pytestmark = pytest.mark.slow

NOISE = ("Traceback", "KeyboardInterrupt", "Error", "Exception")


class Pty:
    """One ``boardctl`` process on a pseudo-terminal, its own session (like a shell's job)."""

    def __init__(self, tmp: Path, *args: str, program: list[str] | None = None) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
        env.update(XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"), COLUMNS="100")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: a session leader with the pty as its terminal
            # Started as a shell starts a job: default signal handling, whatever the test run's
            # own process inherited or set up (an ignored or blocked SIGINT survives exec).
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            argv = program or [sys.executable, "-m", "boardctl"]
            os.execve(argv[0], [*argv, *args], env)
        self.out = ""
        self.seen = 0
        self.status: int | None = None

    def _pump(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        self.out += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        """Wait for ``pattern`` in output not yet matched; returns the match."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            match = regex.search(self.out, self.seen)
            if match is not None:
                self.seen = match.end()
                return match
            if time.monotonic() > deadline or not self._pump(0.1):
                raise AssertionError(f"no {pattern!r} within {timeout} s; output:\n{self.out[-3000:]}")

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\n")

    def signal_group(self, sig: int) -> None:
        os.killpg(os.getpgid(self.pid), sig)

    def wait(self, timeout: float = 20.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._pump(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self._pump(0.05) and time.monotonic() < deadline:
                    pass
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        self.kill()
        raise AssertionError(f"still running after {timeout} s; output:\n{self.out[-3000:]}")

    def kill(self) -> None:
        try:
            os.killpg(os.getpgid(self.pid), signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass

    def close(self) -> None:
        if self.status is None:
            self.kill()
        os.close(self.fd)


@pytest.fixture
def spawn(tmp_path: Path):  # type: ignore[no-untyped-def]
    made: list[Pty] = []

    def start(*args: str, program: list[str] | None = None) -> Pty:
        proc = Pty(tmp_path, *args, program=program)
        made.append(proc)
        return proc

    yield start
    for proc in made:
        proc.close()


def only_game(games: Path) -> tuple[dict[str, object], chess.pgn.Game]:
    states = sorted(games.glob("*.json"))
    assert len(states) == 1, states
    game = chess.pgn.read_game(states[0].with_suffix(".pgn").open(encoding="utf-8"))
    assert game is not None
    return json.loads(states[0].read_text(encoding="utf-8")), game


def assert_quiet(text: str) -> None:
    for word in NOISE:
        assert word not in text, text[-3000:]


def test_record_in_the_terminal_then_ctrl_d(spawn, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    games = tmp_path / "games"
    term = spawn("record", "--board", "sim", "--no-web", "--games-dir", str(games))
    term.expect(r"♖  ♘  ♗  ♕  ♔  ♗  ♘  ♖")
    term.expect(r"White to move")
    term.type("e2e4")
    term.expect(r"Last move: 1\. e4")
    term.type("hi")
    term.expect(r"'hi' is not a move, a square or a command")
    term.type("e7e5")
    term.expect(r"Last move: 1\.\.\. e5")
    term.type("Nf3")
    term.expect(r"Last move: 2\. Nf3")
    term.type("exd5")
    term.expect(r"exd5 is not a legal move for Black")
    term.type("!takeback")  # drawn at once, without another line typed
    term.expect(r"Lit: takeback", timeout=5)
    term.type("g1")
    term.type("f3")
    term.expect(r"Last move: 1\.\.\. e5")
    term.type("O-O")
    term.expect(r"O-O is not a legal move for White")
    os.write(term.fd, b"\x04")  # Ctrl-D
    assert term.wait() == 0
    term.expect(r"Game saved: .*\.pgn")
    assert_quiet(term.out)
    state, game = only_game(games)
    assert state["moves"] == ["e2e4", "e7e5"]
    assert str(game.mainline_moves()) == "1. e4 e5"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_play_black_against_the_engine_then_stop(spawn, tmp_path: Path, stop: int) -> None:  # type: ignore[no-untyped-def]
    """Against the bundled engine (the one whose traceback a Ctrl-C used to print)."""
    games = tmp_path / "games"
    term = spawn("play", "--board", "sim", "--no-web", "--games-dir", str(games), "--movetime", "0.05", "--color", "black", "--level", "beginner", "--time-control", "5+3",
                 "--pieces", "letters")
    reply = term.expect(r"The engine plays (\S+): make it on the board \(type (?:\S+ or )?([a-h][1-8][a-h][1-8][qrbn]?)\)")
    drawing = term.out[: reply.start()]
    rows = [line for line in drawing.splitlines() if re.match(r" [1-8] ", line)]
    assert rows[-8].startswith(" 1") and rows[-1].startswith(" 8")  # turned round for Black
    assert "Black: you" in drawing and "White: engine (beginner)" in drawing and "5:00" in drawing
    term.type(reply[2])
    term.expect(r"Your move \(Black\)")
    term.type("!hint")  # the hint appears when the engine answers, with nothing more typed
    hint = term.expect(r"Hint: \S+ \(type (?:\S+ or )?([a-h][1-8][a-h][1-8][qrbn]?)\)")
    term.type(hint[1])
    term.expect(r"The engine plays")
    time.sleep(0.3)
    term.signal_group(stop)  # Ctrl-C reaches every process of the terminal's group
    assert term.wait() == 0
    assert_quiet(term.out)
    state, game = only_game(games)
    moves = state["moves"]
    assert isinstance(moves, list) and len(moves) == 2
    assert game.headers["Termination"] == "unterminated" and game.headers["Black"] == "Human"


@needs_engine
def test_demo_games_are_apart_announced_and_reachable(spawn, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    demo_dir = tmp_path / "data" / "boardctl" / "demo-games"
    term = spawn("demo", "--engine", str(STOCKFISH), "--port", "0", "--movetime", "0.05")
    term.expect(r"Open http://127\.0\.0\.1:\d+/ in a browser")
    term.expect(re.escape(f"Games are saved in {demo_dir}"))
    term.expect(r"Your move \(White\)")
    term.type("d2d4")
    term.expect(r"The engine plays")
    os.write(term.fd, b"\x04")
    assert term.wait() == 0
    assert_quiet(term.out)
    assert "WARNING" not in term.out
    again = spawn("demo", "--engine", str(STOCKFISH), "--port", "0", "--movetime", "0.05")
    again.expect(r"Resuming your unfinished game of \d{4}-\d\d-\d\d, move 1, you play White\. "
                 r"New game: boardctl demo --new")
    again.signal_group(signal.SIGINT)
    assert again.wait() == 0
    assert_quiet(again.out)
    # play keeps its own games: it never resumes the demo's
    real = spawn("games", "list")
    assert real.wait() == 0
    assert "no games saved" in real.out and "--demo" in real.out
    listed = spawn("games", "list", "--demo")
    assert listed.wait() == 0
    assert re.search(r"play +Human - .*unfinished +1 plies", listed.out), listed.out
    shown = spawn("games", "show", "last", "--demo")
    assert shown.wait() == 0
    assert "1. d4" in shown.out


def test_engine_stops_quietly_on_ctrl_c(spawn) -> None:  # type: ignore[no-untyped-def]
    """The engine run by hand at a terminal (its console script, as the daemon runs it): Ctrl-C
    ends it without a traceback."""
    script = Path(sys.executable).parent / "boardctl-engine"
    if not script.exists():
        pytest.skip("boardctl-engine is not installed beside this Python")
    engine = spawn(program=[str(script)])
    engine.type("uci")
    engine.expect("uciok")
    engine.type("isready")  # Ctrl-C once the engine is up (its warm-up thread has finished)
    engine.expect("readyok")
    engine.signal_group(signal.SIGINT)
    assert engine.wait() == 0
    assert_quiet(engine.out)


def test_moves_piped_in_are_all_made_and_saved_at_end_of_input(tmp_path: Path) -> None:
    import subprocess

    games = tmp_path / "games"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    out = subprocess.run([sys.executable, "-m", "boardctl", "record", "--board", "sim", "--no-web", "--games-dir",
                          str(games), "--pieces", "letters"], input="e2e4\ne7e5\nNf3\nhi\n", capture_output=True,
                         text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "'hi' is not a move" in out.stdout and "Game saved:" in out.stdout
    assert_quiet(out.stdout + out.stderr)
    state, _ = only_game(games)
    assert state["moves"] == ["e2e4", "e7e5", "g1f3"]
