from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardctl import config
from boardctl.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_files(tmp_path: Path) -> None:
    cfg = config.load({}, files=[tmp_path / "missing.toml"])
    assert cfg.board_backend == "sim"
    assert cfg.engine_level == "intermediate"
    assert cfg.web_port == 8080
    assert cfg.web_host == "127.0.0.1"


def test_precedence_cli_over_user_over_system(tmp_path: Path) -> None:
    system = write(tmp_path / "etc.toml", '[engine]\nlevel = "beginner"\nmovetime = 2.0\n[game]\ncolor = "black"\n')
    user = write(tmp_path / "user.toml", '[engine]\nlevel = "advanced"\n')
    cfg = config.load({}, files=[system, user])
    assert (cfg.engine_level, cfg.engine_movetime, cfg.game_color) == ("advanced", 2.0, "black")
    cfg = config.load({"engine.level": "1700", "game.color": None}, files=[system, user])
    assert (cfg.engine_level, cfg.game_color) == ("1700", "black")


def test_default_files_follow_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "boardctl").mkdir()
    write(tmp_path / "boardctl" / "config.toml", '[game]\ntime_control = "15+10"\n')
    assert config.user_file() == tmp_path / "boardctl" / "config.toml"
    cfg = config.load({}, files=[tmp_path / "none.toml", config.user_file()])
    assert cfg.game_time_control == "15+10"
    assert cfg.games_dir == tmp_path / "data" / "boardctl" / "games"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('[engine]\nlevel = "grandmaster"\n', "engine.level"),
        ("[engine]\nlevel = 99999\n", "engine.level"),
        ('[board]\nbackend = "usb"\n', "board.backend"),
        ('[game]\ntime_control = "15 minutes"\n', "game.time_control"),
        ("[game]\narbiter = 1\n", "game.arbiter"),
        ("[web]\nport = 70000\n", "web.port"),
        ("[web]\npin = 1234\n", "web.pin"),
        ('[web]\npin = "12a4"\n', "web.pin"),
        ('[board]\nsettle = "slow"\n', "board.settle"),
        ("[board]\nspeed = 3\n", "board.speed"),
        ('backend = "sim"\n', "backend"),
        ("[board\n", "not valid TOML"),
    ],
)
def test_bad_file_values_name_the_key_and_file(tmp_path: Path, text: str, needle: str) -> None:
    path = write(tmp_path / "c.toml", text)
    with pytest.raises(ConfigError) as info:
        config.load({}, files=[path])
    assert needle in str(info.value)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_bad_cli_value_names_flag_and_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"command line: --level \(engine.level\): must be one of"):
        config.load({"engine.level": "practice9"}, files=[])


def test_levels_accepted() -> None:
    for level in ("beginner", "master", "practice1", "practice5", "400", "3200", 1500):
        assert config.check_level(level) == str(level)
    for bad in ("practice0", "399", "3201", "", True, 1.5):
        with pytest.raises(ValueError):
            config.check_level(bad)


def test_every_key_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "config.md").read_text(encoding="utf-8")
    for key in config.KEYS:
        assert f"`{key.name}`" in doc, key.name
        if key.flag:
            assert f"`{key.flag}`" in doc, key.flag


def _record(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    return subprocess.run(
        [sys.executable, "-m", "boardctl", "record", "--board", "sim", "--stdio", "--no-web",
         "--games-dir", str(tmp_path / "games"), *args],
        input='{"t": 0}\n', capture_output=True, text=True, env=env, timeout=60,
    )


@pytest.mark.slow
def test_the_commands_read_the_user_file_and_the_flags_win(tmp_path: Path) -> None:
    (tmp_path / "xdg" / "boardctl").mkdir(parents=True)
    write(tmp_path / "xdg" / "boardctl" / "config.toml", '[game]\ntime_control = "1+0"\n')
    out = _record(tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["clock"]["white"] == 60.0
    out = _record(tmp_path, "--new", "--time-control", "2+0")
    assert json.loads(out.stdout)["clock"]["white"] == 120.0
    other = write(tmp_path / "other.toml", '[game]\ntime_control = "3+0"\n')
    out = _record(tmp_path, "--new", "--config", str(other))
    assert json.loads(out.stdout)["clock"]["white"] == 180.0


@pytest.mark.slow
def test_the_commands_stop_with_one_error_naming_the_key(tmp_path: Path) -> None:
    (tmp_path / "xdg" / "boardctl").mkdir(parents=True)
    write(tmp_path / "xdg" / "boardctl" / "config.toml", "[game]\npolicy = \"lenient\"\n")
    out = _record(tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [
        f"boardctl record: error: {tmp_path / 'xdg' / 'boardctl' / 'config.toml'}: game.policy: "
        "must be one of strict, casual, fide, got 'lenient'"
    ]
    (tmp_path / "xdg" / "boardctl" / "config.toml").unlink()
    out = _record(tmp_path, "--settle", "-1")
    assert out.returncode == 2
    assert "command line: --settle (board.settle): must be a number of seconds" in out.stderr


@pytest.mark.parametrize("settle", [0.05, 0.1, 6])
def test_settle_must_outlast_a_brush(settle: float) -> None:
    with pytest.raises(ConfigError, match=r"board\.settle"):
        config.load({"board.settle": settle}, files=[])


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, ("chess", "white", "strict")),
        ({"game.policy": "fide"}, ("chess", "white", "strict")),  # the old name is an alias
        ({"game.policy": "strict"}, ("chess", "white", "strict")),
        ({"game.policy": "casual"}, ("chess", "white", "casual")),
        ({"game.color": "black"}, ("chess", "black", "strict")),
        ({"game.color": "random"}, ("chess", "random", "strict")),
        ({"game.variant": "xiangqi"}, ("xiangqi", "red", "strict")),  # the default side is the first
        ({"game.variant": "xiangqi", "game.color": "red"}, ("xiangqi", "red", "strict")),
        ({"game.variant": "xiangqi", "game.color": "black"}, ("xiangqi", "black", "strict")),
        ({"game.variant": "xiangqi", "game.color": "random", "game.policy": "fide"}, ("xiangqi", "random", "strict")),
    ],
)
def test_the_game_its_sides_and_the_policy_names(given: dict[str, str], expected: tuple[str, str, str]) -> None:
    cfg = config.load(given, files=[])
    assert (cfg.game_variant, cfg.game_color, cfg.game_policy) == expected


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"game.variant": "xiangqi", "game.color": "white"},
         "command line: --color (game.color): white is not a side in xiangqi; choose red, black or random"),
        ({"game.color": "red"}, "command line: --color (game.color): red is not a side in chess; choose white, black or random"),
        ({"game.variant": "shogi"}, "command line: --variant (game.variant): must be one of chess, xiangqi, got 'shogi'"),
        ({"game.policy": "FIDE"}, "must be one of strict, casual, fide, got 'FIDE'"),
    ],
)
def test_a_side_of_another_game_is_refused_naming_both(given: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        config.load(given, files=[])
    assert message in str(info.value)


def test_a_side_from_a_file_is_named_with_the_file(tmp_path: Path) -> None:
    user = write(tmp_path / "user.toml", '[game]\ncolor = "red"\n')
    with pytest.raises(ConfigError, match=r"user\.toml: game\.color: red is not a side in chess"):
        config.load({}, files=[user])
    assert config.load({"game.variant": "xiangqi"}, files=[user]).game_color == "red"


def test_the_games_and_their_sides_agree_with_the_variants() -> None:
    """config names the games without importing them (reading settings loads no game): one list."""
    from boardctl.variants import NAMES, get_variant

    assert config.VARIANTS == NAMES
    for name in NAMES:
        assert config.SIDES[name] == get_variant(name).color_names
