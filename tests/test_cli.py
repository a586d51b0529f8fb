"""The ``boardctl`` command line: every sub-command registers, and only the chosen one is imported."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl.cli import COMMANDS, build_parser, main
from boardctl.commands import options


def test_every_command_registers() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices or {}) == set(COMMANDS)  # type: ignore[arg-type]


@pytest.mark.slow
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

SUBCOMMANDS = [[name] for name in COMMANDS] + [["games", "list"], ["games", "show"], ["games", "export"], ["games", "open"]]


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
    engine_only = {"engine.path", "engine.level", "engine.movetime", "game.color",
                   "coach.enabled", "coach.movetime"}
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
def test_an_unknown_option_is_one_line_naming_the_subcommands_help(argv: list[str], usage: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The error first, then where the options are: never 18 lines of usage above it (issue 35)."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    command = usage.removeprefix("usage: ")
    lines = err.splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"{command}: error: "), err
    assert lines[1] == f"Type {command} --help for the options."
    assert "usage:" not in err


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
    from boardctl.commands.games import demo_games_dir

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

    from boardctl.commands.demo import DEFAULT_PORT, is_port_free

    assert DEFAULT_PORT == 8080
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert not is_port_free("127.0.0.1", port)
    assert is_port_free("127.0.0.1", port)


def _action_of(parser: argparse.ArgumentParser, flag: str) -> argparse.Action:
    return next(a for a in parser._actions if flag in a.option_strings)


@pytest.mark.parametrize("command", ["play", "record", "demo"])
def test_the_settings_flags_are_made_from_the_config_table(command: str) -> None:
    """One flag per key the command reads, with the key's dest, choices and config name; none hand-listed."""
    from boardctl.config import KEYS

    parser = argparse.ArgumentParser()
    options.add_arguments(parser, mode=command)
    for key in KEYS:
        if key.flag is None or command not in key.commands:
            assert key.flag is None or all(key.flag not in a.option_strings for a in parser._actions), key.name
            continue
        action = _action_of(parser, key.flag)
        assert action.dest == key.dest, key.name
        assert action.default is None, key.name  # not given: the config files speak
        assert f"(config {key.name})" in (action.help or ""), key.name
        if key.choices is not None:
            assert list(action.choices or []) == list(key.choices), key.name
    source = Path(options.__file__).read_text(encoding="utf-8")
    hand_listed = [key.flag for key in KEYS if key.flag and f'"{key.flag}"' in source]
    assert not hand_listed, f"flags written out by hand in boardctl/commands/options.py: {hand_listed}"


SAMPLE_VALUES = {
    "broadcast.url": ("--broadcast", "mqtt://broker:1884/club/7", "mqtt://broker:1884/club/7"),
    "board.backend": ("--board", "gpio", "gpio"),
    "board.serial_url": ("--serial-url", "loop://", "loop://"),
    "board.serial_wait": ("--serial-wait", None, True),
    "board.orientation": ("--orientation", "flipped", "flipped"),
    "board.settle": ("--settle", "0.5", 0.5),
    "board.debounce": ("--debounce", "0.01", 0.01),
    "board.pinout": ("--pinout", "pins.toml", "pins.toml"),
    "board.pin_factory": ("--pin-factory", "rpigpio", "rpigpio"),
    "engine.path": ("--engine", "stockfish", "stockfish"),
    "engine.level": ("--level", "1500", "1500"),
    "engine.movetime": ("--movetime", "2", 2.0),
    "game.color": ("--color", "black", "black"),
    "game.time_control": ("--time-control", "5+3", "5+3"),
    "game.arbiter": ("--arbiter", None, True),
    "game.takeback": ("--takeback", "offer", "offer"),
    "game.legal_moves": ("--no-legal-moves", None, False),
    "game.blunder_warning": ("--blunder-warning", None, True),
    "xiangqi.rules": ("--xiangqi-rules", "asian", "asian"),
    "xiangqi.move_limit": ("--xiangqi-move-limit", "40", 40),
    "storage.games_dir": ("--games-dir", "/tmp/g", "/tmp/g"),
    "web.enabled": ("--no-web", None, False),
    "web.host": ("--host", "::1", "::1"),
    "web.port": ("--port", "9000", 9000),
    "terminal.pieces": ("--pieces", "letters", "letters"),
    "coach.enabled": ("--coach", None, True),
    "coach.movetime": ("--coach-movetime", "0.8", 0.8),
    "speech.enabled": ("--speech", None, True),
    "speech.language": ("--speech-language", "zh", "zh"),
    "speech.voice": ("--voice", "en-us", "en-us"),
    "speech.sounds": ("--speech-sounds", None, True),
    "speech.output": ("--speech-output", "files", "files"),
}


@pytest.mark.parametrize(("name", "sample"), sorted(SAMPLE_VALUES.items()))
def test_each_flag_sets_its_key(name: str, sample: tuple[str, str | None, object]) -> None:
    flag, text, expected = sample
    parser = argparse.ArgumentParser()
    options.add_arguments(parser, mode="play")
    args = parser.parse_args([flag] if text is None else [flag, text])
    args.config = None
    cfg = options.config_from_args(args)
    assert getattr(cfg, name.replace(".", "_")) == expected


def test_every_flag_of_the_table_has_a_sample() -> None:
    from boardctl.config import KEYS

    flagged = {key.name for key in KEYS if key.flag is not None}
    assert flagged - set(SAMPLE_VALUES) <= {"game.policy", "game.variant"}  # tested with their aliases


def test_the_level_help_says_the_one_rule_of_engine_levels(capsys: pytest.CaptureFixture[str]) -> None:
    from engine import levels

    text = " ".join(help_of(["play"], capsys).split())
    assert f"an Elo number from {levels.REQUEST_ELO_MIN} to {levels.REQUEST_ELO_MAX}" in text
    assert all(name in text for name in levels.NAMED_LEVELS)
