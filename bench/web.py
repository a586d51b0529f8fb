"""Web page latency: from a board event to the changed board shown in Chromium (target <= 100 ms).

Runs the real daemon (``boardctl record --board sim``: the same tracker, session and web path as
``play``, without the engine's CPU use disturbing the timing) and Debian's headless
Chromium driven by Playwright. Inside the page, for each sample: note ``performance.now()``, send a
lift or place event over the page's WebSocket (the virtual board's own path), and stop the timer at
the first animation frame after the board's DOM changed, i.e. when the change can be painted. The
same events are also timed without a browser (an aiohttp WebSocket client: event -> state line).

Lifting and replacing a knight on g1 changes the page through the sensed occupancy (lifted piece)
or, when the daemon does not report occupancy, through the legal-move LEDs (``--legal-moves``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
TARGET_MS = 100.0

MEASURE_JS = """
async ([square, n, pause]) => {
  const board = document.querySelector('#board');
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const out = [];
  for (let i = 0; i < n; i++) {
    for (const occupied of [false, true]) {
      const t0 = performance.now();
      const shown = new Promise((resolve) => {
        const timer = setTimeout(() => { mo.disconnect(); resolve(null); }, 2000);
        const mo = new MutationObserver(() => {
          mo.disconnect(); clearTimeout(timer);
          requestAnimationFrame(() => resolve(performance.now()));
        });
        mo.observe(board, { subtree: true, attributes: true, childList: true, characterData: true });
      });
      window.boardctl.send({ event: { square, occupied } }).catch(() => {});
      const t1 = await shown;
      out.push(t1 === null ? null : t1 - t0);
      await sleep(pause);
    }
  }
  return out;
}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_daemon(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "config"), "XDG_DATA_HOME": str(tmp / "data")}
    env.setdefault("NUMBA_CACHE_DIR", str(REPO / ".numba-cache"))
    cmd = [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--port", str(port), "--new",
           "--games-dir", str(tmp / "games"), "--policy", "casual", "--legal-moves"]
    log = (tmp / "daemon.log").open("wb")
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"daemon exited with {proc.returncode}: {(tmp / 'daemon.log').read_text()}")
        try:
            urllib.request.urlopen(url + "api/state", timeout=2).close()
            return proc, url
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("daemon did not start within 60 s") from None
            time.sleep(0.1)


def _summary(name: str, samples: list[float | None]) -> str:
    got = sorted(s for s in samples if s is not None)
    missed = len(samples) - len(got)
    if not got:
        return f"{name}: no sample completed ({missed} timed out)"
    p95 = got[min(len(got) - 1, round(0.95 * (len(got) - 1)))]
    verdict = "OK" if p95 <= TARGET_MS and missed == 0 else "OVER TARGET"
    return (
        f"{name}: n={len(got)} median={statistics.median(got):.1f} ms p95={p95:.1f} ms "
        f"max={got[-1]:.1f} ms timed_out={missed} (target p95 <= {TARGET_MS:.0f} ms: {verdict})"
    )


async def _ws_samples(url: str, square: str, n: int, pause: float) -> list[float | None]:
    import aiohttp

    out: list[float | None] = []
    async with aiohttp.ClientSession() as session, session.ws_connect(url + "ws") as ws:
        await ws.receive_str()
        for i in range(n):
            for occupied in (False, True):
                t0 = time.perf_counter()
                await ws.send_str(json.dumps({"id": i, "action": {"event": {"square": square, "occupied": occupied}}}))
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.receive_str(), 5))
                    if "fen" in msg:
                        out.append((time.perf_counter() - t0) * 1000)
                        break
                await asyncio.sleep(pause)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench.web", description=__doc__)
    parser.add_argument("-n", type=int, default=30, help="lift+place pairs per measurement")
    parser.add_argument("--pause", type=float, default=0.15, help="seconds between events")
    args = parser.parse_args(argv)
    if not os.access(CHROMIUM, os.X_OK):
        subprocess.run(["sh", str(REPO / "scripts" / "ensure-chromium.sh")], check=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmpdir:
        proc, url = _start_daemon(Path(tmpdir))
        try:
            ws = asyncio.run(_ws_samples(url, "g1", args.n, args.pause))
            print(_summary("event -> state line over WebSocket (no browser)", ws), flush=True)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                page = browser.new_page()
                page.goto(url)
                page.wait_for_selector('#connection[data-connected="true"]')
                page.evaluate(MEASURE_JS, ["g1", 3, 150])  # warm-up
                samples = page.evaluate(MEASURE_JS, ["g1", args.n, round(args.pause * 1000)])
                browser.close()
            print(_summary("event -> board change shown in Chromium", samples), flush=True)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
