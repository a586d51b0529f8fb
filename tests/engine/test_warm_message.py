"""``boardctl-engine warm`` (run by ``make demo``) says what it builds, how far it is and how long
it took last time, and takes a build of the same sources from another checkout (issue 35,
finding 7: the first ``make demo`` compiled for 7 min 18 s in silence under "about a minute")."""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from numba import njit, types

from engine import aot, uci


@pytest.fixture(autouse=True)
def own_caches(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """This checkout's cache and the user's shared one, both under ``tmp_path``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "checkout-a"))


def fake_build(seconds: float = 0.0) -> Callable[..., Path]:
    """A build that takes ``seconds``, says one step and leaves a module where the real one goes."""
    def build(*, say: Callable[[str], None] | None = None) -> Path:
        if say is not None:
            say("[0:00] compiling 1 of 1: search")
        time.sleep(seconds)
        path = aot.module_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"kernels")
        aot.remember_build(seconds)
        aot.share(path)
        return path
    return build


def test_warm_says_what_it_builds_and_that_this_machine_has_no_build_yet(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(aot, "build", fake_build())
    assert uci.main(["warm"]) == 0
    err = capsys.readouterr().err
    assert "Compiling the engine's search for this machine" in err
    assert "no build on this machine yet" in err and "about a minute" not in err
    assert "compiling 1 of 1: search" in err and "engine compiled in" in err and str(aot.module_path()) in err


def test_the_next_build_says_how_long_the_last_one_took_and_keeps_saying_it_is_at_work(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    aot.remember_build(438.0)  # 7 min 18 s, as in the report
    monkeypatch.setattr(aot, "build", fake_build(0.35))
    assert uci._warm(heartbeat=0.1) == 0
    err = capsys.readouterr().err
    assert "last time it took 7 min 18 s" in err
    beats = re.findall(r"… still compiling the engine, \d+ s so far \(last time 7 min 18 s\)", err)
    assert len(beats) >= 2, err


def test_a_build_of_the_same_sources_is_taken_from_another_checkout(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(aot, "build", fake_build())
    assert uci.main(["warm"]) == 0  # checkout A builds, and shares
    built = aot.module_path().read_bytes()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "checkout-b"))
    monkeypatch.setattr(aot, "build", lambda **_: pytest.fail("the shared build should be taken"))
    capsys.readouterr()
    assert uci.main(["warm"]) == 0
    err = capsys.readouterr().err
    assert "taken from another checkout's build of the same sources" in err
    assert aot.module_path().read_bytes() == built and str(tmp_path / "checkout-b") in str(aot.module_path())


def test_warm_is_quiet_about_compiling_when_already_built(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    fake_build()()
    monkeypatch.setattr(aot, "build", lambda **_: pytest.fail("nothing to build"))
    assert uci.main(["warm"]) == 0
    err = capsys.readouterr().err
    assert "already compiled" in err and "Compiling" not in err


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
