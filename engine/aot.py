"""The kernels compiled ahead of time, so that the engine process need not load numba at all.

numba's JIT runtime (LLVM and its typing registries) costs about 120 MB of RSS before the
first search, which alone breaks the engine's memory budget on a Pi. ``numba.pycc`` compiles
the very same kernels into an ordinary extension module that costs about 1 MB.

The build is a cache, like numba's own: its file name carries a digest of the kernel sources,
the numba version and the CPU, so an edited kernel or another machine simply finds no module
and the engine falls back to the JIT (slower start, more memory, same moves). This module is
numba-free; only :func:`build` imports numba.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import logging
import os
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
KERNEL_SOURCES = ("bits.py", "magics.py", "tables.py", "movegen.py", "evaluate.py", "search.py", "aotbuild.py",
                  "xq_movegen.py", "xq_evaluate.py", "xq_rules.py", "xq_search.py")
FORCE_JIT = "BOARDCTL_ENGINE_JIT"  # set to 1 to ignore the build (tests compare both paths)


def _cpu() -> str:
    """What the machine code depends on: the CPU model and features, or NUMBA_CPU_NAME."""
    name = os.environ.get("NUMBA_CPU_NAME", "host")
    if name != "host":
        return name
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return "host"
    keys = ("model name", "flags", "Features", "CPU implementer", "CPU part")
    seen = {ln.split(":")[0].strip(): ln for ln in reversed(lines) if ln.split(":")[0].strip() in keys}
    return "|".join(sorted(seen.values()))


def digest() -> str:
    """Short hash of everything the compiled module depends on."""
    h = hashlib.sha256()
    for name in KERNEL_SOURCES:
        h.update((HERE / name).read_bytes())
    try:
        h.update(version("numba").encode())
    except PackageNotFoundError:
        h.update(b"no numba")
    h.update(_cpu().encode())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    """NUMBA_CACHE_DIR when set; else, in a checkout, the ``.numba-cache`` that ``make`` builds
    into (so an engine started by hand or by another program finds that build); else the
    package's __pycache__."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        return Path(root)
    checkout = HERE.parent / ".numba-cache"
    return checkout if checkout.is_dir() else HERE / "__pycache__"


def directory() -> Path:
    """Where the ahead-of-time modules live."""
    return cache_root() / "boardctl-aot"


def jit_cache_dir() -> Path:
    """numba's JIT cache for exactly these kernel sources.

    numba checks only a kernel's own source file, so after an edit to movegen.py a cached
    search would still run the old move generator it inlined. Keying the whole cache on the
    digest makes any kernel edit start a fresh one.
    """
    return cache_root() / f"jit-{digest()}"


def module_name() -> str:
    return f"kernels_{digest()}"


def module_path(name: str | None = None) -> Path:
    """The file of module ``name`` (default: the current sources' module)."""
    return directory() / ((name or module_name()) + importlib.machinery.EXTENSION_SUFFIXES[0])


def load() -> ModuleType | None:
    """The compiled kernels if an up-to-date build exists (and the JIT is not forced), else None."""
    if os.environ.get(FORCE_JIT, "") not in ("", "0"):
        return None
    name = module_name()  # the digest reads every kernel source: once per load
    path = module_path(name)
    if not path.is_file():
        log.info("no ahead-of-time kernels at %s: using numba's JIT", path)
        return None
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError as exc:
        log.warning("ahead-of-time kernels at %s did not load (%s): using numba's JIT", path, exc)
        return None
    sys.modules[name] = module
    return module


def build() -> Path:
    """Compile the kernels into ``module_path()`` and remove older builds; returns the path.

    Needs numba (with its pycc), setuptools and a C compiler. Takes about half a minute.
    Call it before anything loads the kernels: pycc compiles the JIT's functions.
    """
    jit = sys.modules.get("engine.jit")
    if jit is not None and getattr(jit, "AOT", None) is not None:
        raise RuntimeError("engine.aot.build() must run before the kernels are loaded from a build")
    os.environ[FORCE_JIT] = "1"
    from engine.aotbuild import compile_module

    out = directory()
    out.mkdir(parents=True, exist_ok=True)
    path = compile_module(module_name(), out, cpu=os.environ.get("NUMBA_CPU_NAME", "host"))
    for old in out.glob("kernels_*"):
        if old != path:
            old.unlink(missing_ok=True)
    return path
