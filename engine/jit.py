"""``njit`` for the kernel modules: numba's, or a pass-through when the ahead-of-time build is used.

With an up-to-date build (``engine.aot``) the engine process never imports numba. The kernel
modules are still imported for their constants, so their decorators must not need numba;
the driver then calls the compiled functions through ``engine.kernels``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.aot import jit_cache_dir, load

AOT = load()


def _keep(*args: Any, **kwargs: Any) -> Any:
    """Leave the function as it is (only its ahead-of-time compiled twin is ever called)."""
    if args and callable(args[0]):
        return args[0]

    def keep(func: Callable[..., Any]) -> Callable[..., Any]:
        return func

    return keep


njit: Callable[..., Any]
if AOT is None:
    from numba import config, njit

    config.CACHE_DIR = str(jit_cache_dir())  # type: ignore[attr-defined]  # read at each cached decoration
else:
    njit = _keep
