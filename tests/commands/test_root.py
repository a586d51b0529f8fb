"""The composition root's edge: a command's options read once into a typed ``Options`` and checked
there (every fault one BoardctlError, exit status 2, before anything opens), and the commands all in one package."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

from boardctl.cli import COMMANDS, build_parser
from boardctl.commands import options, root
from boardctl.errors import BoardctlError
from boardctl.storage import GameStore

PACKAGE = Path(root.__file__).resolve().parent


@pytest.fixture(autouse=True)
def _no_user_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _args(*argv: str) -> argparse.Namespace:
    return build_parser(argv[0]).parse_args(list(argv))


def test_the_options_are_typed_and_carry_the_flags_that_are_not_settings(tmp_path: Path) -> None:
    checked = options.options_from_args(_args("play", "--board", "sim", "--stdio", "--new", "--port", "0",
                                              "--games-dir", str(tmp_path / "g")), mode="play")
    assert isinstance(checked, root.Options)
    assert (checked.command, checked.mode, checked.stdio, checked.new, checked.port_chosen) == ("play", "play", True, True, True)
    assert checked.cfg.board_backend == "sim" and checked.variant.name == "chess"
    store = GameStore(tmp_path / "g")
    assert checked.command_line(store) == f"boardctl play --games-dir {store.root}"
    plain = options.options_from_args(_args("record", "--board", "sim"), mode="record")
    assert plain.command_line(store) == "boardctl record" and not plain.port_chosen and plain.character is None


def test_a_characters_level_replaces_the_engines() -> None:
    checked = options.options_from_args(_args("play", "--board", "sim", "--opponent", "ilya"), mode="play")
    assert checked.character is not None and checked.cfg.engine_level == checked.character.level


@pytest.mark.parametrize(("argv", "mode", "message"), [
    (("play", "--board", "serial", "--stdio"), "play", "--stdio: only with the sim board"),
    (("play", "--board", "sim", "--fen", "not a position"), "play", "--fen"),
    (("play", "--board", "sim", "--opponent", "ilya", "--level", "beginner"), "play", "--opponent and --level"),
    (("games", "open", "x.pgn", "--board", "sim", "--opponent", "ilya"), "record", "only with boardctl play"),
    (("play", "--board", "sim", "--opponent", "nobody-at-all"), "play", "--opponent:"),
])
def test_every_fault_is_one_error_before_anything_opens(argv: tuple[str, ...], mode: str, message: str) -> None:
    with pytest.raises(BoardctlError, match=message.replace("(", r"\(")):
        options.options_from_args(_args(*argv), mode=mode)


def test_given_fields_override_the_flags() -> None:
    checked = options.options_from_args(_args("play", "--board", "sim"), mode="play", new=True, note="from a file")
    assert checked.new and checked.note == "from a file"


def test_a_plugs_defaults_are_plays() -> None:
    plug = root.Plug()
    assert plug.local and plug.terminal_view
    session = object()
    assert plug.prepare(session) is session  # type: ignore[arg-type]
    guide = object()

    class Session:
        guide: object = None

    assert root.GuidePlug(guide).prepare(Session()).guide is guide  # type: ignore[arg-type]


def test_each_command_is_a_module_of_the_package_named_after_it() -> None:
    """``cli.COMMANDS`` lists every module of ``boardctl/commands`` that defines ``add_parser`` and
    ``run``, each under its own name; the others are the root's helpers."""
    defining = set()
    for path in PACKAGE.glob("*.py"):
        names = {node.name for node in ast.parse(path.read_text(encoding="utf-8")).body
                 if isinstance(node, ast.FunctionDef)}
        if {"add_parser", "run"} <= names:
            defining.add(path.stem)
    assert defining == set(COMMANDS)
    assert all(module == f"boardctl.commands.{name}" for name, module in COMMANDS.items())
