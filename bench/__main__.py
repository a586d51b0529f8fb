"""Run every benchmark module in bench/ (or those named on the command line), one after another."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = argv or sorted(m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_"))
    for name in names:
        module = importlib.import_module(f"bench.{name}")
        if hasattr(module, "main"):
            print(f"== bench/{name}.py", flush=True)
            module.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
