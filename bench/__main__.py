"""Run every benchmark module in bench/ (or those named on the command line), one after another.

``python -m bench NAME --option ...`` runs one benchmark with its own options. The long ones
(:data:`LONG`, minutes each) run only when named.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

#: Benchmarks that run only when named (``soak`` takes 10 minutes by default; the tuner and its
#: data generation write files and take the better part of an hour; so does the book's scoring;
#: ``pi`` needs root for its cgroups and plays two whole games; the club benches run a broker).
LONG = frozenset({"soak", "tune", "tune_data", "book_scores", "pi", "club", "club_flood", "club_room", "mqtt_rig"})


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    if len(argv) > 1 and argv[1].startswith("-"):
        module = importlib.import_module(f"bench.{argv[0]}")
        return int(module.main(argv[1:]) or 0)
    names = argv or sorted(
        m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_") and m.name not in LONG
    )
    status = 0
    for name in names:
        module = importlib.import_module(f"bench.{name}")
        if hasattr(module, "main"):
            print(f"== bench/{name}.py", flush=True)
            status = max(status, int(module.main([]) or 0))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
