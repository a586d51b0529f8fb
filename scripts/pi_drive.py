"""The person at the board for scripts/pi-check: plays a short game against the engine through
``boardctl play --board sim --stdio`` and answers ``boardctl selftest --board sim``'s prompts.

Run from a checkout with its .venv (``.venv/bin/python scripts/pi_drive.py game|selftest``);
prints one JSON line of figures. It reuses the tests' stdio driver (tests/daemon/test_daemon_support.py),
so it moves pieces exactly as the daemon tests do.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def game(plies: int, level: str, seed: int) -> dict[str, Any]:
    """``plies`` half-moves as White against the bundled engine at ``level``: a random legal move
    by hand, then the engine's move read from its LEDs and carried out. Figures: start to the
    first state line, each engine reply (the human's move complete -> the engine's move lit)."""
    sys.path.insert(0, str(ROOT / "tests" / "daemon"))
    import chess
    from test_daemon_support import AFTER_MOVE, AFTER_PROMOTION, StateLines, move_events

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pi-check-") as tmp:
        env = {**os.environ, "XDG_CONFIG_HOME": f"{tmp}/config"}
        started = time.monotonic()
        proc = subprocess.Popen(
            [str(BIN / "boardctl"), "play", "--board", "sim", "--stdio", "--no-web", "--games-dir", f"{tmp}/games",
             "--color", "white", "--level", level, "--new"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        lines = StateLines(proc)
        assert proc.stdin is not None
        sent = 0
        t = 0.0
        pending: list[dict[str, Any]] = []
        engine_move = ""

        def send(obj: dict[str, Any]) -> dict[str, Any]:
            nonlocal sent
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(obj) + "\n")
            proc.stdin.flush()
            sent += 1
            while "reason" in (line := lines.next(600.0)) or line.get("input") != sent:
                pending.append(line)
            return line

        first = send({"t": t})
        ready = time.monotonic() - started
        assert first["moves"] == [] and first["result"] == "*", first
        board = chess.Board()
        replies: list[float] = []
        while len(board.move_stack) < plies and not board.is_game_over():
            if board.turn == chess.WHITE:
                move = rng.choice([m for m in board.legal_moves if m.promotion in (None, chess.QUEEN)])
            else:
                move = chess.Move.from_uci(engine_move)
            for square, occupied in move_events(board, move):
                t = round(t + 0.1, 3)
                send({"t": t, "square": square, "occupied": occupied})
            t = round(t + (AFTER_PROMOTION if move.promotion else AFTER_MOVE), 3)
            asked = time.monotonic()
            line = send({"t": t})
            board.push(move)
            assert line["moves"] == [m.uci() for m in board.move_stack], line
            if board.turn == chess.BLACK and not board.is_game_over():
                engine_line = next((x for x in pending if x.get("reason") == "engine-move"), None) or _wait(lines, pending)
                engine_move = engine_line["pending"]
                pending.clear()
                replies.append(time.monotonic() - asked)
        proc.stdin.close()
        code = proc.wait(timeout=600)
        assert code == 0, proc.stderr.read() if proc.stderr else code
    return {
        "plies": len(board.move_stack), "level": level, "start_to_ready_s": round(ready, 2),
        "engine_replies": len(replies), "reply_median_s": round(statistics.median(replies), 2) if replies else None,
        "reply_max_s": round(max(replies), 2) if replies else None, "moves": " ".join(m.uci() for m in board.move_stack),
    }


def _wait(lines: Any, pending: list[dict[str, Any]]) -> dict[str, Any]:
    while (line := lines.next(600.0)).get("reason") != "engine-move":
        pending.append(line)
    return line


PROMPT = re.compile(r"([a-h][1-8]): (lift the piece|place a piece|now lift it)")


def selftest(squares: str) -> dict[str, Any]:
    """``boardctl selftest --board sim`` with a person who does what each prompt says on its sim
    terminal (the square's name toggles it; ``!hint`` ends the all-dark step)."""
    started = time.monotonic()
    env = {**os.environ, "XDG_CONFIG_HOME": "/nonexistent"}
    proc = subprocess.Popen(
        [str(BIN / "boardctl"), "selftest", "--board", "sim", "--squares", squares, "--timeout", "120",
         "--dark-timeout", "120"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    out = []
    for line in proc.stdout:
        out.append(line)
        answer = "!hint" if "all LEDs are off" in line else (m.group(1) if (m := PROMPT.search(line)) else None)
        if answer:
            proc.stdin.write(answer + "\n")
            proc.stdin.flush()
    code = proc.wait(timeout=60)
    heads = ("squares tested", "dead switches", "stuck switches", "dead LEDs", "stuck LEDs", "crossed", "result")
    report = [" ".join(x.lstrip("> ").split()) for x in out if x.lstrip("> ").startswith(heads)]
    return {"exit": code, "seconds": round(time.monotonic() - started, 2), "report": report}


PACKAGES = ("numba", "llvmlite", "numpy", "chess", "gpiozero", "pyffish", "lgpio", "RPi.GPIO", "aiohttp",
            "caissify-pairings", "py4swiss")


def facts() -> list[tuple[str, str]]:
    """What the install found: the engine's kernels (ahead of time or JIT), the Swiss pairer,
    and the versions of the dependencies that matter on a Pi."""
    from importlib.metadata import PackageNotFoundError, version

    from boardctl.learning import pairings
    from engine import aot

    built = {game: aot.module_path(game) for game in aot.GAMES if aot.load(game) is not None}
    kernels = (", ".join(f"{game} ahead of time, {path.stat().st_size // 1024} KB" for game, path in built.items())
               or "JIT only (no module)")
    rows = [("engine kernels", kernels),
            ("Swiss pairer", "py4swiss" if pairings.has_py4swiss() else "dutch_round_portable (no py4swiss)")]
    for name in PACKAGES:
        try:
            rows.append((name, version(name)))
        except PackageNotFoundError:
            rows.append((name, "not installed"))
    return rows


def dependencies_digest(pyproject: str) -> str:
    """What an install of the package needs, as one digest: [project] dependencies and the pi
    extra (not the tools' settings nor the dev extra), for tests/test_arm64.py."""
    import hashlib
    import tomllib

    project = tomllib.loads(pyproject)["project"]
    needs = sorted(project["dependencies"]) + sorted(project.get("optional-dependencies", {}).get("pi", []))
    return hashlib.sha256(json.dumps(needs).encode()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="what", required=True)
    g = sub.add_parser("game")
    g.add_argument("--plies", type=int, default=20)
    g.add_argument("--level", default="beginner")
    g.add_argument("--seed", type=int, default=1)
    s = sub.add_parser("selftest")
    s.add_argument("--squares", default="all")
    sub.add_parser("facts")
    sub.add_parser("dependencies", help="the digest of pyproject.toml's dependencies (read on stdin)")
    args = parser.parse_args()
    if args.what == "dependencies":
        print(dependencies_digest(sys.stdin.read()))
        return 0
    if args.what == "facts":
        for what, value in facts():
            print(f"{what}\t{value}")
        return 0
    result = game(args.plies, args.level, args.seed) if args.what == "game" else selftest(args.squares)
    print(json.dumps(result))
    return 0 if result.get("exit", 0) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
