"""The ``boardctl`` command line: every sub-command registers, and only the chosen one is imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


# -- help text, version, usage errors (table-driven over every sub-command) -----------------------

SUBCOMMANDS = [[name] for name in COMMANDS] + [["games", "list"], ["games", "show"], ["games", "export"]]


def help_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


def option_entries(text: str) -> dict[str, str]:
    """Each option's help text (joined lines), keyed by its first flag."""
    entries: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if line.startswith("  -") or (line.startswith("  ") and stripped.startswith("-") and not line.startswith("   ")):
            current = stripped.split()[0].rstrip(",")
            entries[current] = stripped
        elif current is not None and line.startswith("    ") and stripped:
            entries[current] += " " + stripped
        else:
            current = None
    return entries


@pytest.mark.parametrize("argv", SUBCOMMANDS, ids=" ".join)
def test_every_option_has_a_sentence_and_its_default(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(argv, capsys)
    assert "``" not in text and ":class:" not in text and ":func:" not in text  # no raw reStructuredText
    entries = option_entries(text)
    assert entries, text
    for flag, entry in entries.items():
        if flag in ("-h", "--version"):
            continue
        assert "Default" in entry, f"{' '.join(argv)} {flag}: no default in {entry!r}"
        words = entry.split("Default")[0]
        assert len(words.split()) >= 4, f"{' '.join(argv)} {flag}: no sentence in {entry!r}"


@pytest.mark.parametrize("argv", [["play"], ["record"], ["demo"]], ids=" ".join)
def test_options_that_set_a_config_key_name_it(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from boardctl.config import KEYS

    text = " ".join(help_of(argv, capsys).split())
    engine_only = {"engine.path", "engine.level", "engine.movetime", "game.color"}
    for key in KEYS:
        if key.flag is None or key.name == "web.enabled" or (argv == ["record"] and key.name in engine_only):
            continue
        assert f"config {key.name}" in text, key.name


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from boardctl import __version__

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"boardctl {__version__}"


@pytest.mark.parametrize(("argv", "usage"), [
    (["play", "--bogus"], "usage: boardctl play"),
    (["record", "--colour", "black"], "usage: boardctl record"),
    (["demo", "--frobnicate"], "usage: boardctl demo"),
    (["games", "list", "--nope"], "usage: boardctl games list"),
    (["games", "--nope", "list"], "usage: boardctl games list"),
    (["games", "show", "last", "extra"], "usage: boardctl games show"),
    (["replay", "x.jsonl", "--speed", "2"], "usage: boardctl replay"),
    (["selftest", "--squares"], "usage: boardctl selftest"),
    (["pin", "--old"], "usage: boardctl pin"),
])
def test_an_unknown_option_prints_the_subcommands_usage(argv: list[str], usage: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage), err
    assert "usage: boardctl [-h]" not in err


def saved_game(root: Path, game_id: str, moves: list[str]) -> None:
    from boardctl.storage import GameRecord, GameStore

    GameStore(root).save(GameRecord(id=game_id, mode="record", white="Ann", black="Bob", moves=moves))


@pytest.mark.parametrize("argv", [
    ["games", "--games-dir", "{dir}", "list"],
    ["games", "list", "--games-dir", "{dir}"],
    ["games", "show", "last", "--games-dir", "{dir}"],
    ["games", "show", "--games-dir", "{dir}", "last"],
    ["games", "export", "--games-dir", "{dir}"],
])
def test_games_dir_is_taken_before_or_after_the_action(argv: list[str], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    saved_game(tmp_path, "20260101-120000-000001", ["e2e4", "e7e5"])
    assert main([a.replace("{dir}", str(tmp_path)) for a in argv]) == 0
    out = capsys.readouterr().out
    assert "20260101-120000-000001" in out or "1. e4 e5" in out


def test_games_demo_reads_the_demos_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from boardctl.games import demo_games_dir

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert demo_games_dir() == tmp_path / "data" / "boardctl" / "demo-games"
    saved_game(demo_games_dir(), "20260101-120000-000002", ["d2d4"])
    assert main(["games", "list"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "--demo" in captured.err and "no games saved" in captured.err
    with pytest.raises(SystemExit):
        main(["games", "list", "--demo", "--games-dir", str(tmp_path)])  # one or the other
    capsys.readouterr()
    for argv in (["games", "list", "--demo"], ["games", "--demo", "show", "last"], ["games", "export", "--demo"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "20260101-120000-000002" in out or "1. d4" in out, argv
    assert main(["games", "show", "last"]) == 2
    assert "add --demo" in capsys.readouterr().err


def test_demo_takes_the_documented_port_unless_it_is_taken() -> None:
    import socket

    from boardctl.demo import DEFAULT_PORT, is_port_free

    assert DEFAULT_PORT == 8080
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert not is_port_free("127.0.0.1", port)
    assert is_port_free("127.0.0.1", port)
