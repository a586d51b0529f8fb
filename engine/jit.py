"""``njit`` for the kernel modules: numba's, or a pass-through when the ahead-of-time builds are used.

With both games' builds up to date (``engine.aot``) the engine process never imports numba. The
kernel modules are still imported for their constants, so their decorators must not need numba;
the driver then calls the compiled functions through ``engine.kernels``. While one game's build
is missing (xiangqi's compiling in the background after a first ``make demo``), numba decorates
every kernel but only the missing game's are ever compiled: the other game runs from its build.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.aot import jit_cache_dir, load

AOT_CHESS = load("chess")
AOT_XIANGQI = load("xiangqi")
#: Whether every kernel runs from a build, so numba is not needed at all.
ALL_AHEAD = AOT_CHESS is not None and AOT_XIANGQI is not None


def _keep(*args: Any, **kwargs: Any) -> Any:
    """Leave the function as it is (only its ahead-of-time compiled twin is ever called)."""
    if args and callable(args[0]):
        return args[0]

    def keep(func: Callable[..., Any]) -> Callable[..., Any]:
        return func

    return keep


njit: Callable[..., Any]
if not ALL_AHEAD:
    from numba import config, njit

    config.CACHE_DIR = str(jit_cache_dir())  # type: ignore[attr-defined]  # read at each cached decoration
else:
    njit = _keep
