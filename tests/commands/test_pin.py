"""``boardctl pin``: the PIN shown, created on first use, and replaced with ``--new``."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from boardctl.commands import pin
from boardctl.web.pin import PIN_DIGITS, read_pin


def test_boardctl_pin_command_prints_the_stored_pin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    pin.add_parser(parser.add_subparsers())
    path = tmp_path / "config.toml"
    assert pin.run(parser.parse_args(["pin", "--config", str(path)])) == 0
    first = capsys.readouterr().out.strip()
    assert first == read_pin(path)
    assert pin.run(parser.parse_args(["pin", "--config", str(path), "--new"])) == 0
    second = capsys.readouterr().out.strip()
    assert second == read_pin(path)
    assert second.isdigit() and len(second) == PIN_DIGITS
