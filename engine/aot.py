"""The kernels compiled ahead of time, so that the engine process need not load numba at all.

numba's JIT runtime (LLVM and its typing registries) costs about 120 MB of RSS before the
first search, which alone breaks the engine's memory budget on a Pi. ``numba.pycc`` compiles
the very same kernels into an ordinary extension module that costs about 1 MB.

The build is a cache, like numba's own: its file name carries a digest of the kernel sources,
the numba version and the CPU, so an edited kernel or another machine simply finds no module
and the engine falls back to the JIT (slower start, more memory, same moves). This module is
numba-free; only :func:`build` imports numba.

A build is shared between checkouts of the same sources: it is also kept in the user's cache
(:func:`shared_directory`, ``$XDG_CACHE_HOME/boardctl/engine-aot``) and taken from there when a
checkout has none with the same digest. The build says what it compiles as it goes
(:func:`progress_listener`), and the time it took is kept for the next build's announcement.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import logging
import os
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType
from typing import Any

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


def shared_directory() -> Path:
    """Where builds are kept for every checkout of this user (the digest tells them apart)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "boardctl" / "engine-aot"


def from_shared() -> Path | None:
    """The shared build of the current sources copied into this checkout's cache, or None when
    there is none (or it cannot be copied)."""
    name = module_path().name
    shared = shared_directory() / name
    if not shared.is_file():
        return None
    target = module_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        shutil.copyfile(shared, tmp)
        os.replace(tmp, target)
    except OSError as exc:
        log.warning("cannot copy the shared engine build %s (%s)", shared, exc)
        return None
    return target


def share(path: Path) -> None:
    """Keep a copy of the build at ``path`` for other checkouts of the same sources."""
    target = shared_directory() / path.name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        shutil.copyfile(path, tmp)
        os.replace(tmp, target)
    except OSError as exc:
        log.warning("cannot keep the engine build for other checkouts in %s (%s)", target.parent, exc)


#: The record of the last build on this machine: seconds it took, kept beside the shared builds.
LAST_BUILD = "last-build.json"


def last_build_seconds() -> float | None:
    """How long the last build on this machine (this CPU) took, or None if none is known."""
    try:
        data = json.loads((shared_directory() / LAST_BUILD).read_text(encoding="utf-8"))
        seconds = data.get(_cpu_key())
    except (OSError, ValueError, AttributeError):
        return None
    return float(seconds) if isinstance(seconds, int | float) and seconds > 0 else None


def remember_build(seconds: float) -> None:
    """Keep ``seconds`` as how long a build takes on this machine."""
    path = shared_directory() / LAST_BUILD
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    data[_cpu_key()] = round(seconds, 1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        log.warning("cannot keep the build time in %s (%s)", path, exc)


def _cpu_key() -> str:
    return hashlib.sha256(_cpu().encode()).hexdigest()[:16]


def minutes(seconds: float) -> str:
    """``7 min 18 s``, ``42 s``."""
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60:02d} s" if whole >= 60 else f"{whole} s"


def progress_listener(exports: Mapping[str, tuple[Any, Any]], say: Callable[[str], None], *,
                      clock: Callable[[], float] = time.monotonic) -> Any:
    """A numba event listener that says, as each exported kernel starts compiling, which one it is
    and how far the build is (``[1:05] compiling 3 of 15: search``). Register it for
    ``numba:run_pass`` (pycc runs the compiler's passes for every export)."""
    from numba.core import event

    names = {getattr(func, "py_func", func).__qualname__: name for name, (func, _sig) in exports.items()}

    class Progress(event.Listener):
        def __init__(self) -> None:
            self.started = clock()
            self.begun: list[str] = []

        def on_start(self, ev: Any) -> None:
            qualname = (ev.data or {}).get("qualname")
            name = names.get(qualname) if isinstance(qualname, str) else None
            if name is not None and name not in self.begun:
                self.begun.append(name)
                elapsed = int(clock() - self.started)
                say(f"[{elapsed // 60}:{elapsed % 60:02d}] compiling {len(self.begun)} of {len(names)}: {name}")

        def on_end(self, ev: Any) -> None:
            return None

    return Progress()


def load() -> ModuleType | None:
    """The compiled kernels if an up-to-date build exists (and the JIT is not forced), else None."""
    if os.environ.get(FORCE_JIT, "") not in ("", "0"):
        return None
    name = module_name()  # the digest reads every kernel source: once per load
    path = module_path(name)
    if not path.is_file() and from_shared() is None:
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


def build(*, say: Callable[[str], None] | None = None) -> Path:
    """Compile the kernels into ``module_path()`` and remove older builds; returns the path.
    ``say`` hears which kernel compiles as the build goes (:func:`progress_listener`). The
    build is also kept for other checkouts (:func:`share`) and its time remembered.

    Needs numba (with its pycc), setuptools and a C compiler. Takes from a minute to several
    (7 min on a busy two-core machine). Call it before anything loads the kernels: pycc
    compiles the JIT's functions.
    """
    jit = sys.modules.get("engine.jit")
    if jit is not None and getattr(jit, "AOT", None) is not None:
        raise RuntimeError("engine.aot.build() must run before the kernels are loaded from a build")
    os.environ[FORCE_JIT] = "1"
    from engine.aotbuild import EXPORTS, compile_module

    out = directory()
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    listener = None
    if say is not None:
        from numba.core import event

        listener = progress_listener(EXPORTS, say)
        event.register("numba:run_pass", listener)  # type: ignore[no-untyped-call]
    try:
        path = compile_module(module_name(), out, cpu=os.environ.get("NUMBA_CPU_NAME", "host"))
    finally:
        if listener is not None:
            event.unregister("numba:run_pass", listener)  # type: ignore[no-untyped-call]
    for old in out.glob("kernels_*"):
        if old != path:
            old.unlink(missing_ok=True)
    remember_build(time.monotonic() - started)
    share(path)
    return path
