"""The kernels compiled ahead of time, so that the engine process need not load numba at all.

numba's JIT runtime (LLVM and its typing registries) costs about 120 MB of RSS before the
first search, which alone breaks the engine's memory budget on a Pi. ``numba.pycc`` compiles
the very same kernels into an ordinary extension module that costs about 1 MB.

Each game's kernels are a module of their own (:data:`GAMES`), so a first run can build the
chess kernels it needs at once and leave xiangqi's to the background, and an edit to one game's
kernels rebuilds only that game's module.

The build is a cache, like numba's own: its file name carries a digest of the game's kernel
sources, the numba version and the CPU, so an edited kernel or another machine simply finds no
module and the engine falls back to the JIT (slower start, more memory, same moves). This module
is numba-free; only :func:`build` imports numba.

A build is shared between checkouts of the same sources: it is also kept in the user's cache
(:func:`shared_directory`, ``$XDG_CACHE_HOME/boardctl/engine-aot``) and taken from there when a
checkout has none with the same digest. The build says what it compiles as it goes
(:func:`progress_listener`), and the time it took is kept for the next build's announcement.
Two builds of one game never run at once: the second waits for the first and takes its module
(:func:`build_lock`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.machinery
import importlib.util
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
#: Each game's kernel sources: what its compiled module depends on (the module ``aotbuild.py``
#: describes the exports of both).
GAMES: Mapping[str, tuple[str, ...]] = {
    "chess": ("bits.py", "search_common.py", "search_core.py", "magics.py", "tables.py", "movegen.py", "evaluate.py",
              "search.py", "aotbuild.py"),
    "xiangqi": ("bits.py", "search_common.py", "search_core.py", "xq_movegen.py", "xq_evaluate.py", "xq_rules.py",
                "xq_search.py", "aotbuild.py"),
}
#: Every kernel source (numba's JIT cache is keyed on all of them).
KERNEL_SOURCES = tuple(dict.fromkeys(name for names in GAMES.values() for name in names))
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


def digest(game: str | None = None) -> str:
    """Short hash of everything ``game``'s compiled module depends on (None: every kernel)."""
    h = hashlib.sha256()
    for name in (KERNEL_SOURCES if game is None else GAMES[game]):
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


def module_name(game: str) -> str:
    return f"kernels_{game}_{digest(game)}"


def module_path(game: str, name: str | None = None) -> Path:
    """The file of ``game``'s module ``name`` (default: the current sources' module)."""
    return directory() / ((name or module_name(game)) + importlib.machinery.EXTENSION_SUFFIXES[0])


def shared_directory() -> Path:
    """Where builds are kept for every checkout of this user (the digest tells them apart)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "boardctl" / "engine-aot"


def from_shared(game: str) -> Path | None:
    """The shared build of ``game``'s current sources copied into this checkout's cache, or None
    when there is none (or it cannot be copied)."""
    target = module_path(game)
    shared = shared_directory() / target.name
    if not shared.is_file():
        return None
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


def last_build_seconds(game: str) -> float | None:
    """How long the last build of ``game`` on this machine (this CPU) took, or None if none is known."""
    try:
        data = json.loads((shared_directory() / LAST_BUILD).read_text(encoding="utf-8"))
        seconds = data.get(_build_key(game))
    except (OSError, ValueError, AttributeError):
        return None
    return float(seconds) if isinstance(seconds, int | float) and seconds > 0 else None


def remember_build(game: str, seconds: float) -> None:
    """Keep ``seconds`` as how long a build of ``game`` takes on this machine."""
    path = shared_directory() / LAST_BUILD
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    data[_build_key(game)] = round(seconds, 1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        log.warning("cannot keep the build time in %s (%s)", path, exc)


def _build_key(game: str) -> str:
    return f"{game}-" + hashlib.sha256(_cpu().encode()).hexdigest()[:16]


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


def load(game: str) -> ModuleType | None:
    """``game``'s compiled kernels if an up-to-date build exists (and the JIT is not forced), else None."""
    if os.environ.get(FORCE_JIT, "") not in ("", "0"):
        return None
    name = module_name(game)  # the digest reads the game's kernel sources: once per load
    path = module_path(game, name)
    if not path.is_file() and from_shared(game) is None:
        log.info("no ahead-of-time %s kernels at %s: using numba's JIT", game, path)
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
        log.warning("ahead-of-time %s kernels at %s did not load (%s): using numba's JIT", game, path, exc)
        return None
    sys.modules[name] = module
    return module


@contextlib.contextmanager
def build_lock(game: str, *, say: Callable[[str], None] | None = None) -> Iterator[None]:
    """Held while ``game``'s kernels are built in this checkout's cache: a second build (``make test``
    while ``make demo``'s background build runs) waits for the first, then finds its module."""
    path = directory() / f".build-{game}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            if say is not None:
                say(f"waiting for the {game} kernels another build is compiling ({holder}) ...")
            fcntl.flock(lock, fcntl.LOCK_EX)
        lock.seek(0)
        lock.truncate()
        lock.write(f"pid {os.getpid()}\n")
        lock.flush()
        try:
            yield
        finally:
            lock.seek(0)
            lock.truncate()
            fcntl.flock(lock, fcntl.LOCK_UN)


def build(game: str, *, say: Callable[[str], None] | None = None) -> Path:
    """Compile ``game``'s kernels into ``module_path(game)`` and remove its older builds; returns
    the path. ``say`` hears which kernel compiles as the build goes (:func:`progress_listener`).
    The build is also kept for other checkouts (:func:`share`) and its time remembered. When
    another process is building the same module, this waits for it and returns its module.

    Needs numba (with its pycc), setuptools and a C compiler. Takes from a minute to several
    per game (7 min for both on a busy two-core machine). Call it before anything loads the
    kernels from a build: pycc compiles the JIT's functions.
    """
    jit = sys.modules.get("engine.jit")
    if jit is not None and getattr(jit, "ALL_AHEAD", False):
        raise RuntimeError("engine.aot.build() must run before the kernels are loaded from a build")
    os.environ[FORCE_JIT] = "1"
    from engine.aotbuild import EXPORTS, compile_module

    out = directory()
    with build_lock(game, say=say):
        name = module_name(game)
        if module_path(game, name).is_file():
            return module_path(game, name)  # built by the process this one waited for
        started = time.monotonic()
        listener = None
        if say is not None:
            from numba.core import event

            listener = progress_listener(EXPORTS[game], say)
            event.register("numba:run_pass", listener)  # type: ignore[no-untyped-call]
        staging = Path(tempfile.mkdtemp(prefix=f".build-{game}-", dir=out))
        try:
            built = compile_module(name, staging, EXPORTS[game], cpu=os.environ.get("NUMBA_CPU_NAME", "host"))
            path = module_path(game, name)
            os.replace(built, path)  # whole or not at all, for an engine loading it meanwhile
        finally:
            if listener is not None:
                event.unregister("numba:run_pass", listener)  # type: ignore[no-untyped-call]
            shutil.rmtree(staging, ignore_errors=True)
        for old in out.glob(f"kernels_{game}_*"):
            if old != path:
                old.unlink(missing_ok=True)
        for legacy in out.glob("kernels_*"):  # one module for both games, before they were split
            if re.fullmatch(r"kernels_[0-9a-f]{16}", legacy.name.split(".")[0]):
                legacy.unlink(missing_ok=True)
        remember_build(game, time.monotonic() - started)
        share(path)
    return path
