"""The ``boardctl`` command line: every sub-command registers, and only the chosen one is imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

from boardctl.cli import COMMANDS, build_parser, main


def test_every_command_registers() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices or {}) == set(COMMANDS)  # type: ignore[arg-type]


def test_only_the_chosen_command_is_imported() -> None:
    code = (
        "import sys; from boardctl.cli import build_parser; build_parser('replay'); "
        "print(sorted(m for m in ('boardctl.daemon', 'boardctl.web.server', 'numba') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["castle-everything"])
    assert info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
