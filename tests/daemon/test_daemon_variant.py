"""``--variant``, ``--color`` and ``--policy`` on the real daemon: chess unchanged, xiangqi played,
and one clear line (never a traceback) for whatever cannot play it (an engine without xiangqi)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_daemon_support import STOCKFISH, Daemon

from boardctl import config
from boardctl.commands import root
from boardctl.errors import ConfigError


def _run(games: Path, mode: str, *extra: str, stdin: str = '{"t": 0}\n') -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "boardctl", mode, "--board", "sim", "--stdio", "--no-web",
         "--games-dir", str(games), *extra],
        input=stdin, capture_output=True, text=True, timeout=60,
    )


def _plays(daemon: Daemon, steps: list[tuple[str, bool]]) -> dict[str, object]:
    for square, occupied in steps:
        daemon.event(square, occupied)
    return daemon.tick()


@pytest.mark.slow
def test_a_chess_state_line_names_its_game(tmp_path: Path) -> None:
    daemon = Daemon("record", tmp_path / "g")
    line = daemon.send({"t": 0})
    assert line["variant"] == "chess"
    line = _plays(daemon, [("e2", False), ("e4", True)])
    assert line["moves"] == ["e2e4"] and line["variant"] == "chess"
    assert daemon.close() == 0


#: FIDE 4.3: d2 was touched first (held 0.4 s), so e2-e4 is refused and d2 must move.
FIRST_TOUCHED = [("d2", False, 0.1), ("d2", True, 0.4), ("e2", False, 0.3), ("e4", True, 0.3)]
THEN_THE_TOUCHED_PIECE = [("e4", False, 0.5), ("e2", True, 0.3), ("d2", False, 0.5), ("d4", True, 0.3)]


def _judged(tmp_path: Path, policy: str) -> list[dict[str, object]]:
    daemon = Daemon("record", tmp_path / policy, "--policy", policy)
    daemon.send({"t": 0})
    lines = []
    for steps in (FIRST_TOUCHED, THEN_THE_TOUCHED_PIECE):
        for square, occupied, dt in steps:
            daemon.event(square, occupied, dt)
        lines.append({k: v for k, v in daemon.tick().items() if k != "game"})
    assert daemon.close() == 0
    return lines


@pytest.mark.slow
def test_strict_and_its_alias_fide_judge_exactly_alike(tmp_path: Path) -> None:
    """The piece touched first must move under strict and fide alike; casual lets another go."""
    strict, fide, casual = (_judged(tmp_path, policy) for policy in ("strict", "fide", "casual"))
    assert strict == fide
    assert strict[0]["moves"] == [] and "touch-move" in str(strict[0]["warning"]), strict[0]
    assert strict[1]["moves"] == ["d2d4"]
    assert casual[0]["moves"] == ["e2e4"]


@pytest.mark.slow
def test_a_side_of_the_other_game_stops_with_one_line(tmp_path: Path) -> None:
    out = _run(tmp_path / "g", "play", "--variant", "xiangqi", "--color", "white")
    assert out.returncode == 2, out.stderr
    assert out.stdout == "" and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        "boardctl play: error: command line: --color (game.color): white is not a side in xiangqi; "
        "choose red, black or random"
    ]
    out = _run(tmp_path / "g", "play", "--color", "red")
    assert out.returncode == 2 and "red is not a side in chess; choose white, black or random" in out.stderr


def test_the_help_says_which_sides_each_game_has(capsys: pytest.CaptureFixture[str]) -> None:
    from boardctl.cli import main

    with pytest.raises(SystemExit):
        main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "white, black or random in chess; red, black or random in xiangqi" in text
    assert "--variant {chess,xiangqi}" in text and "--policy {strict,casual,fide}" in text
    assert "strict (also called fide) enforces them" in text


def test_a_game_this_build_cannot_save_is_refused_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game without a PGN writer stops the start in one line."""
    import dataclasses

    from boardctl.variants import get_variant

    real = get_variant("xiangqi")
    monkeypatch.setattr(root, "get_variant", lambda name: dataclasses.replace(real, write_pgn=None))
    with pytest.raises(root.NotReady) as info:
        root.check_game_ready(config.load({"game.variant": "xiangqi"}, files=[]))
    assert str(info.value) == "--variant xiangqi: this build cannot save xiangqi games as PGN yet"
    assert isinstance(info.value, ConfigError)  # the CLI prints it as one error line, exit status 2


def test_a_broken_import_of_a_game_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game ships with the package: an ImportError of its rules (or of pyffish, cchess) is a
    broken install, raised as it is, never turned into a polite line that would pass CI."""

    def broken(name: str) -> object:
        raise ModuleNotFoundError("No module named 'pyffish'", name="pyffish")

    monkeypatch.setattr(root, "get_variant", broken)
    with pytest.raises(ModuleNotFoundError, match="pyffish"):
        root.check_game_ready(config.load({"game.variant": "xiangqi"}, files=[]))


@pytest.mark.slow
def test_a_broken_xiangqi_package_is_a_traceback_at_start(tmp_path: Path) -> None:
    """The whole command: with the xiangqi rules unimportable, ``record --variant xiangqi`` exits
    with the ImportError's traceback, not a clean refusal."""
    code = ("import sys; sys.modules['boardctl.variants.xiangqi'] = None; "
            "from boardctl.cli import main; sys.exit(main(sys.argv[1:]))")
    out = subprocess.run(
        [sys.executable, "-c", code, "record", "--board", "sim", "--stdio", "--no-web", "--variant", "xiangqi",
         "--games-dir", str(tmp_path / "g")],
        input='{"t": 0}\n', capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 1 and "Traceback" in out.stderr, out.stderr[-2000:]
    assert "ModuleNotFoundError" in out.stderr and "boardctl.variants.xiangqi" in out.stderr


RED_CANNON_AND_BLACK_HORSE = [("h2", False), ("e2", True)], [("h9", False), ("g7", True)]


@pytest.mark.slow
def test_a_recorded_xiangqi_game_on_the_sim(tmp_path: Path) -> None:
    daemon = Daemon("record", tmp_path / "g", "--variant", "xiangqi")
    line = daemon.send({"t": 0})
    assert line["variant"] == "xiangqi" and line["turn"] == "red"
    assert len(line["occupancy"]) == 23
    for steps in RED_CANNON_AND_BLACK_HORSE:
        line = _plays(daemon, steps)
    assert line["moves"] == ["h2e2", "h9g7"], line
    assert line["fen"] == "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
    assert line["turn"] == "red"
    assert daemon.close() == 0
    (state,) = (tmp_path / "g").glob("*.json")
    assert json.loads(state.read_text())["moves"] == ["h2e2", "h9g7"]


def _xq_move(daemon: Daemon, uci: str, occupied_before: set[str]) -> dict[str, object]:
    """Make ``uci`` by hand (a capture takes the taken piece off first) and wait past settle."""
    src, dst = uci[:2], uci[2:4]
    if dst in occupied_before:
        daemon.event(dst, False)
    daemon.event(src, False)
    daemon.event(dst, True)
    return daemon.tick()


def _occupied(line: dict[str, object]) -> set[str]:
    from boardctl.core.geometry import XIANGQI_9X10

    mask = XIANGQI_9X10.from_hex(str(line["occupancy"]))
    return {XIANGQI_9X10.square_name(s) for s in XIANGQI_9X10.squares_in(mask)}


@pytest.mark.slow
def test_a_xiangqi_game_against_the_engine_survives_a_kill(tmp_path: Path) -> None:
    """play --variant xiangqi: the engine's LED-shown replies made by hand, a kill -9 mid-game,
    and the same command carries on with every move (the engine: our own, the daemon's default,
    told UCI_Variant xiangqi; make test builds its kernels first, a cold start compiles them)."""
    engine = ""
    games = tmp_path / "g"
    daemon = Daemon("play", games, "--variant", "xiangqi", engine=engine)
    line = daemon.send({"t": 0})
    assert (line["variant"], line["human"], line["turn"]) == ("xiangqi", "red", "red")
    played: list[str] = []
    for human in ("h2e2", "h0g2"):
        line = _xq_move(daemon, human, _occupied(line))
        played.append(human)
        reply = daemon.engine_line(timeout=900 if not played[1:] else 120)
        assert reply["pending"] and reply["variant"] == "xiangqi"
        line = _xq_move(daemon, str(reply["pending"]), _occupied(reply))
        played.append(str(reply["pending"]))
        assert line["moves"] == played and line["turn"] == "red"
    fen = line["fen"]
    daemon.kill()
    again = Daemon("play", games, "--variant", "xiangqi", engine=engine)
    line = again.send({"t": 0})
    assert line["variant"] == "xiangqi" and line["moves"] == played and line["fen"] == fen
    assert "Resuming" in str(line["notice"])
    assert again.close() == 0


@pytest.mark.slow
@pytest.mark.skipif(STOCKFISH is None, reason="stockfish not installed (apt-get install stockfish)")
def test_an_engine_that_cannot_play_xiangqi_stops_play_in_one_line(tmp_path: Path) -> None:
    """Stockfish has no UCI_Variant: refused before any game is opened, nothing saved."""
    out = _run(tmp_path / "g", "play", "--variant", "xiangqi", "--engine", str(STOCKFISH))
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("boardctl play: error: --variant xiangqi: engine ")
    assert "does not play xiangqi (no UCI_Variant xiangqi); give one that does with --engine" in line
    assert not (tmp_path / "g").exists() or not list((tmp_path / "g").iterdir())
