"""``boardctl-engine warm`` (run by ``make demo``) says what it builds, how far it is and how long
it took last time, takes a build of the same sources from another checkout, and builds only the
demo's game before the board starts, the other in the background (issue 35, finding 7: the first
``make demo`` compiled for 7 min 18 s in silence under "about a minute")."""

from __future__ import annotations

import re
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from numba import njit, types

from engine import aot, uci


@pytest.fixture(autouse=True)
def own_caches(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """This checkout's cache and the user's shared one, both under ``tmp_path``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "checkout-a"))


def fake_build(seconds: float = 0.0, built: list[str] | None = None) -> Callable[..., Path]:
    """A build that takes ``seconds``, says one step and leaves a module where the real one goes."""
    def build(game: str, *, say: Callable[[str], None] | None = None) -> Path:
        if say is not None:
            say("[0:00] compiling 1 of 1: search")
        time.sleep(seconds)
        path = aot.module_path(game)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"kernels of {game}".encode())
        aot.remember_build(game, seconds)
        aot.share(path)
        if built is not None:
            built.append(game)
        return path
    return build


def test_warm_says_what_it_builds_and_that_this_machine_has_no_build_yet(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    built: list[str] = []
    monkeypatch.setattr(aot, "build", fake_build(built=built))
    assert uci.main(["warm"]) == 0
    err = capsys.readouterr().err
    assert built == ["chess", "xiangqi"]  # chess first: the demo's game
    for game in ("chess", "xiangqi"):
        assert f"Compiling the engine's {game} search for this machine" in err
        assert f"engine {game} kernels compiled in" in err and str(aot.module_path(game)) in err
    assert "no build on this machine yet" in err and "about a minute" not in err
    assert "compiling 1 of 1: search" in err


def test_the_next_build_says_how_long_the_last_one_took_and_keeps_saying_it_is_at_work(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    aot.remember_build("chess", 438.0)  # 7 min 18 s, as in the report
    aot.remember_build("xiangqi", 95.0)
    monkeypatch.setattr(aot, "build", fake_build(0.35))
    assert uci._warm(heartbeat=0.1) == 0
    err = capsys.readouterr().err
    assert "last time it took 7 min 18 s" in err and "last time it took 1 min 35 s" in err
    beats = re.findall(r"… still compiling the engine's chess kernels, \d+ s so far \(last time 7 min 18 s\)", err)
    assert len(beats) >= 2, err


def test_a_build_of_the_same_sources_is_taken_from_another_checkout(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(aot, "build", fake_build())
    assert uci.main(["warm"]) == 0  # checkout A builds, and shares
    built = {game: aot.module_path(game).read_bytes() for game in aot.GAMES}
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "checkout-b"))
    monkeypatch.setattr(aot, "build", lambda *_, **__: pytest.fail("the shared build should be taken"))
    capsys.readouterr()
    assert uci.main(["warm"]) == 0
    err = capsys.readouterr().err
    assert "taken from another checkout's build of the same sources" in err
    for game in aot.GAMES:
        assert aot.module_path(game).read_bytes() == built[game]
        assert str(tmp_path / "checkout-b") in str(aot.module_path(game))


def test_warm_is_quiet_about_compiling_when_already_built(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    for game in aot.GAMES:
        fake_build()(game)
    monkeypatch.setattr(aot, "build", lambda *_, **__: pytest.fail("nothing to build"))
    assert uci.main(["warm"]) == 0
    err = capsys.readouterr().err
    assert "already compiled" in err and "Compiling" not in err


class Spawned:
    """subprocess.Popen as _in_background calls it: what would run, and how."""

    calls: ClassVar[list[tuple[list[str], dict[str, Any]]]] = []

    def __init__(self, command: list[str], **kwargs: Any) -> None:
        Spawned.calls.append((command, kwargs))


@pytest.mark.parametrize(("args", "foreground", "background"), [
    (["chess", "--rest-in-background"], ["chess"], ["xiangqi"]),
    (["xiangqi", "--rest-in-background"], ["xiangqi"], ["chess"]),
    (["chess"], ["chess"], []),
    (["chess", "xiangqi", "--rest-in-background"], ["chess", "xiangqi"], []),
    ([], ["chess", "xiangqi"], []),
])
def test_the_demo_waits_only_for_its_game_and_leaves_the_rest_to_the_background(
        args: list[str], foreground: list[str], background: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 35, finding 7: the first `make demo` compiled both games' kernels before a chess board."""
    built: list[str] = []
    monkeypatch.setattr(aot, "build", fake_build(built=built))
    Spawned.calls = []
    monkeypatch.setattr(uci.subprocess, "Popen", Spawned)
    assert uci.main(["warm", *args]) == 0
    assert built == foreground
    if not background:
        assert Spawned.calls == []
        return
    (command, kwargs), = Spawned.calls
    assert command[-len(background) - 3:] == ["-m", "engine", "warm", *background]
    assert kwargs["start_new_session"] is True  # outlives make demo's shell
    assert command[:3] == [str(uci.shutil.which("nice")), "-n", "10"] or not uci.shutil.which("nice")
    err = capsys.readouterr().err
    assert f"The {background[0]} kernels are compiling in the background" in err


def test_background_build_is_not_started_for_a_game_already_built(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_build()("xiangqi")
    monkeypatch.setattr(aot, "build", fake_build())
    Spawned.calls = []
    monkeypatch.setattr(uci.subprocess, "Popen", Spawned)
    assert uci.main(["warm", "chess", "--rest-in-background"]) == 0
    assert Spawned.calls == []


@pytest.mark.parametrize("args", [["checkers"], ["chess", "--later"], ["--rest"]])
def test_a_wrong_warm_argument_is_one_line_and_exit_2(args: list[str], monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(aot, "build", lambda *_, **__: pytest.fail("nothing to build"))
    assert uci.main(["warm", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "usage: python -m engine warm" in err[0]


def test_a_second_build_of_the_same_game_waits_for_the_first_and_takes_its_module(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`make test` started while `make demo`'s background build runs must not compile the same
    module again, nor load a half-written one."""
    import sys
    import types as pytypes

    import engine.jit

    monkeypatch.setenv(aot.FORCE_JIT, "1")  # build() sets it; restored after the test
    monkeypatch.setattr(engine.jit, "ALL_AHEAD", False)
    # pycc's stand-in: the real engine.aotbuild needs numba's dispatchers, which a process that
    # loaded both builds does not have
    fake = pytypes.ModuleType("engine.aotbuild")
    fake.EXPORTS = {game: {} for game in aot.GAMES}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "engine.aotbuild", fake)
    compiled: list[str] = []
    started = threading.Event()

    def compile_module(name: str, out: Path, exports: dict[str, Any], *, cpu: str) -> Path:
        compiled.append(name)
        started.set()
        time.sleep(0.5)
        path = out / (name + ".so")
        path.write_bytes(b"module")
        return path

    fake.compile_module = compile_module  # type: ignore[attr-defined]
    said: list[str] = []
    results: list[Path] = []
    first = threading.Thread(target=lambda: results.append(aot.build("xiangqi")))
    first.start()
    assert started.wait(10)
    second = aot.build("xiangqi", say=said.append)
    first.join(10)
    assert compiled == [aot.module_name("xiangqi")]
    assert results == [second] and second.read_bytes() == b"module"
    assert any("waiting for the xiangqi kernels another build is compiling (pid" in line for line in said), said
    assert not list(aot.directory().glob(".build-xiangqi-*"))  # the staging folder is gone


@njit(cache=False)
def _twice(x: int) -> int:
    return x * 2


@njit(cache=False)
def _entry(x: int) -> int:
    return _twice(x) + 1


@njit(cache=False)
def _other(x: int) -> int:
    return x - 1


@pytest.mark.slow
def test_the_progress_names_each_kernel_as_a_real_build_compiles_it(tmp_path: Path) -> None:
    """numba's pycc, compiling a small module of two exports, with the listener the build uses."""
    from numba.core import event

    said: list[str] = []
    exports: dict[str, tuple[Any, Any]] = {"entry": (_entry, types.int64(types.int64)),
                                           "other": (_other, types.int64(types.int64))}
    listener = aot.progress_listener(exports, said.append)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from numba.pycc import CC

        cc = CC("progress_probe")
        cc.output_dir = str(tmp_path)
        for name, (func, sig) in exports.items():
            cc.export(name, sig)(func)
        event.register("numba:run_pass", listener)
        try:
            cc.compile()
        finally:
            event.unregister("numba:run_pass", listener)
    assert [re.sub(r"^\[\d+:\d\d\] ", "", line) for line in said] == ["compiling 1 of 2: entry",
                                                                      "compiling 2 of 2: other"]
    assert any(p.name.startswith("progress_probe") for p in tmp_path.iterdir())


@pytest.mark.parametrize(("seconds", "text"), [(0.4, "0 s"), (42, "42 s"), (60, "1 min 00 s"), (438, "7 min 18 s")])
def test_minutes(seconds: float, text: str) -> None:
    assert aot.minutes(seconds) == text
