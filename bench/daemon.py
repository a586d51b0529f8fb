"""Daemon footprint: resident memory without the engine (target <= 60 MB) and start-to-ready time
(target <= 3 s with a warm engine cache).

Each run starts the real command line, ``boardctl <mode> --board sim --stdio`` with the web page on
(port 0), in a fresh games directory, sends one input line and stops the timer at the first state
line: by then the config is read, the engine (in ``play``) has answered ``uci``/``isready`` and
been configured, the game is loaded and the web server listens. RSS is the daemon process's own
``VmRSS``/``VmHWM`` from /proc, after that line (the engine is a separate process and not counted).
``play`` uses the bundled engine when installed (a first unmeasured start warms its numba cache),
else Stockfish, as the daemon itself would.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RSS_LIMIT_MB = 60.0
READY_LIMIT_S = 3.0


def _status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for pid {pid}")


def one_run(mode: str, extra: list[str]) -> tuple[float, float, float]:
    """Seconds to the first state line, then VmRSS and VmHWM in MB."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [sys.executable, "-m", "boardctl", mode, "--board", "sim", "--stdio", "--port", "0",
                "--games-dir", str(Path(tmp) / "games"), *extra]
        env = {**os.environ, "XDG_CONFIG_HOME": str(Path(tmp) / "config")}
        start = time.perf_counter()
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, env=env)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write('{"t": 0}\n')
        proc.stdin.flush()
        line = proc.stdout.readline()
        ready = time.perf_counter() - start
        if not line:
            raise RuntimeError(f"boardctl {mode} gave no state line (exit {proc.wait()})")
        rss, hwm = _status_mb(proc.pid, "VmRSS"), _status_mb(proc.pid, "VmHWM")
        proc.stdin.close()
        proc.wait(timeout=30)
        return ready, rss, hwm


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench daemon", description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--engine", default="", help="engine for play (default: as the daemon chooses)")
    args = parser.parse_args(argv)
    extra = ["--engine", args.engine] if args.engine else []
    ok = True
    for mode, mode_extra in (("record", []), ("play", extra)):
        if mode == "play":
            one_run(mode, mode_extra)  # warm the engine's numba cache (and the OS file cache)
        runs = [one_run(mode, mode_extra) for _ in range(args.runs)]
        ready = [r[0] for r in runs]
        rss = [r[1] for r in runs]
        hwm = [r[2] for r in runs]
        print(
            f"{mode:6}: start-to-ready median {statistics.median(ready):.3f} s (max {max(ready):.3f} s, "
            f"limit {READY_LIMIT_S} s); daemon RSS median {statistics.median(rss):.1f} MB, "
            f"peak {max(hwm):.1f} MB (limit {RSS_LIMIT_MB:.0f} MB); {args.runs} runs"
        )
        ok = ok and max(ready) <= READY_LIMIT_S and max(hwm) <= RSS_LIMIT_MB
    print("daemon footprint:", "within limits" if ok else "OVER LIMIT")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
