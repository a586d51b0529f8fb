"""Hardware that is not there at start: one clear line and exit status 1, quickly, with no game saved."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import chess
import pytest

from boardctl.errors import HardwareError
from boardctl.hw.seriallink import START_TIMEOUT, wait_for_device

from .test_seriallink import PtyDevice


@pytest.mark.slow
def test_missing_port_gives_up_with_what_to_check() -> None:
    started = time.monotonic()
    with pytest.raises(HardwareError) as info:
        wait_for_device("/dev/ttyBOARDCTL-none", timeout=1.0, retry=0.2)
    assert time.monotonic() - started < 2.0
    message = str(info.value)
    assert "no device at /dev/ttyBOARDCTL-none (no such port)" in message
    assert "--serial-url" in message and "--serial-wait" in message and "\n" not in message


@pytest.mark.slow
def test_a_port_where_no_board_answers_is_named_as_such() -> None:
    silent = PtyDevice()
    try:
        with pytest.raises(HardwareError, match=r"opened, but no board answered within 1 s.*firmware"):
            wait_for_device(silent.path, timeout=1.0)
        silent.expect("?")  # it was asked
    finally:
        silent.unplug()


@pytest.mark.slow
def test_a_board_that_answers_is_found_at_once() -> None:
    device = PtyDevice()

    def answer() -> None:
        device.expect("?")
        device.send("S", f"{chess.BB_RANK_1:016x}", "req")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        started = time.monotonic()
        wait_for_device(device.path, timeout=5.0)
        assert time.monotonic() - started < 2.0
    finally:
        thread.join(3)
        device.unplug()


def test_a_board_that_appears_late_is_waited_for() -> None:
    """Plugged in while waiting (the opener fails twice first), the board is found."""
    device = PtyDevice()
    attempts: list[int] = []

    def opener() -> object:
        import serial

        attempts.append(1)
        if len(attempts) < 3:
            raise serial.SerialException(2, "could not open port")
        return serial.serial_for_url(device.path, timeout=0.1)

    threading.Thread(target=lambda: (device.expect("?", timeout=5), device.send("HELLO", "boardfw-2", "8x8")), daemon=True).start()
    try:
        wait_for_device(device.path, timeout=5.0, retry=0.1, opener=opener)
        assert len(attempts) == 3
    finally:
        device.unplug()


def run(tmp: Path, *args: str, timeout: float = 30.0) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "XDG_CONFIG_HOME": str(tmp / "config")}
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "boardctl", *args], capture_output=True, text=True, env=env,
                         timeout=timeout, stdin=subprocess.DEVNULL)
    return out, time.monotonic() - started


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["record", "play"])
def test_serial_with_a_wrong_port_exits_1_within_10_s_and_saves_nothing(tmp_path: Path, mode: str) -> None:
    games = tmp_path / "games"
    out, took = run(tmp_path, mode, "--board", "serial", "--serial-url", "/dev/ttyBOARDCTL-none",
                    "--games-dir", str(games), "--port", "0")
    assert out.returncode == 1
    assert took <= 10.0 and START_TIMEOUT <= 8.0
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(f"boardctl {mode}: serial: no device at /dev/ttyBOARDCTL-none")
    assert not list(games.glob("*.json")) and not list(games.glob("*.pgn"))
    assert out.stdout == ""


@pytest.mark.slow
def test_serial_wait_keeps_waiting_and_stops_quietly(tmp_path: Path) -> None:
    games = tmp_path / "games"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.Popen([sys.executable, "-m", "boardctl", "record", "--board", "serial", "--serial-wait",
                             "--serial-url", "/dev/ttyBOARDCTL-none", "--no-web", "--games-dir", str(games)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        time.sleep(START_TIMEOUT + 1.5)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "cannot open /dev/ttyBOARDCTL-none" in err
    assert not list(games.glob("*.json"))  # the board never answered: no empty game


@pytest.mark.slow
def test_gpio_without_gpio_is_one_line_with_the_fix(tmp_path: Path) -> None:
    from gpiozero import Device

    if Device.pin_factory is not None:
        pytest.skip("a pin factory is already set in this process")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            Device._default_pin_factory()
        except Exception:
            pass
        else:
            pytest.skip("this machine has GPIO")
    out, _ = run(tmp_path, "record", "--board", "gpio", "--no-web", "--games-dir", str(tmp_path / "games"))
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert "gpio:" in lines[0] and "boardctl[pi]" in lines[0] and "--board sim" in lines[0]
    assert "Warning" not in out.stderr


def test_gpio_error_in_process_emits_no_warnings() -> None:
    from gpiozero import Device

    from boardctl.hw import open_board

    if Device.pin_factory is not None:
        pytest.skip("a pin factory is already set in this process")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            open_board("gpio")
        except HardwareError as exc:
            assert "pi extra" in str(exc) and "--board sim" in str(exc)
        else:
            pytest.skip("this machine has GPIO")
    assert not caught
