"""Imports run downwards (docs/architecture.md): core -> session -> daemon -> faces -> commands.

Every ``import`` in ``boardctl/`` is read from the source (lazy ones inside functions and
``TYPE_CHECKING`` ones too, since both are dependencies a reader must follow). An import from a
lower layer into a higher one, or from one face into another, fails this test: there is no list
of exceptions.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "boardctl"

CORE, SESSION, DAEMON, FACE, COMMAND = range(5)
NAMES = ("core", "session", "daemon", "face", "command")

#: Module (or package prefix) -> layer; the longest matching name decides. Every module is named
#: (a new one fails ``test_every_module_has_a_layer`` until it is given its layer here).
LAYERS: dict[str, int] = {
    "boardctl.core": CORE, "boardctl.variants": CORE, "boardctl.tracker": CORE, "boardctl.events": CORE,
    "boardctl.errors": CORE, "boardctl.jsonlimits": CORE, "boardctl.positions": CORE, "boardctl.records": CORE,
    "boardctl.openings": CORE, "boardctl.gestures": CORE, "boardctl.backoff": CORE, "boardctl.hosts": CORE, "boardctl.levels": CORE, "boardctl.lines": CORE,
    "boardctl.session": SESSION, "boardctl.clock": SESSION, "boardctl.storage": SESSION,
    "boardctl.orientation": SESSION, "boardctl.config": SESSION, "boardctl.actions": SESSION,
    "boardctl.guide": SESSION, "boardctl.reply": SESSION, "boardctl.learning": SESSION,
    "boardctl.replay": SESSION,  # a log judged again by the session (the command is commands/replay)
    "boardctl.stepper": SESSION,  # the guide of games step, pure like the lesson guide (the command is commands/games)
    "boardctl.learning.lessons": CORE,  # the lessons' format and state, pure: a game's lessons are written in it
    "boardctl.broadcast.schema": SESSION,  # the broadcast's pure wire format (config checks addresses with it)
    "boardctl.daemon": DAEMON, "boardctl.engine_client": DAEMON, "boardctl.hw": DAEMON,
    "boardctl.saving": DAEMON, "boardctl.engine_turn": DAEMON,  # the daemon's keeper and engine turn
    "boardctl.learning.coach": DAEMON, "boardctl.learning.npc_games": DAEMON, "boardctl.learning.speech": DAEMON,
    "boardctl.learning.tournament_runner": DAEMON,
    "boardctl.web": FACE, "boardctl.network": FACE, "boardctl.online": FACE, "boardctl.stdio": FACE,
    "boardctl.terminal": FACE, "boardctl.chesslink": FACE, "boardctl.broadcast": FACE,
    "boardctl.commands": COMMAND, "boardctl.cli": COMMAND, "boardctl.__main__": COMMAND,
}
#: The only modules outside ``boardctl.commands`` that may import it: the front that collects the commands.
COMMANDS_FRONT = ("boardctl.cli", "boardctl.__main__")
#: The faces: one may not import another (a face registers with the daemon instead).
FACES = ("boardctl.web", "boardctl.network", "boardctl.online", "boardctl.stdio", "boardctl.terminal",
         "boardctl.chesslink", "boardctl.broadcast")

def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each module's imports of boardctl modules, resolved to the modules that exist."""
    modules = {_module(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
        resolved = set()
        for target in found:
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target.startswith("boardctl") and target != name:
                resolved.add(target)
        graph[name] = resolved
    return graph


def layer_of(module: str) -> int:
    if module == "boardctl":
        return CORE  # the package's own __init__
    named = [prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")]
    if not named:
        raise KeyError(f"{module}: no layer in tests/core/test_layers.py LAYERS")
    return LAYERS[max(named, key=len)]


def face_of(module: str) -> str | None:
    if layer_of(module) != FACE:
        return None
    return next((face for face in FACES if module == face or module.startswith(face + ".")), None)


def _wrong_way() -> dict[tuple[str, str], str]:
    wrong: dict[tuple[str, str], str] = {}
    for module, targets in _imports().items():
        for target in targets:
            if layer_of(target) > layer_of(module):
                wrong[module, target] = f"{NAMES[layer_of(module)]} imports {NAMES[layer_of(target)]}"
            elif face_of(module) and face_of(target) and face_of(module) != face_of(target):
                wrong[module, target] = "a face imports another face"
    return wrong


def test_every_module_has_a_layer() -> None:
    assert all(layer_of(module) in range(5) for module in _imports())
    assert layer_of("boardctl.learning.coach") == DAEMON and layer_of("boardctl.commands.root") == COMMAND


def _in_commands(module: str) -> bool:
    return module == "boardctl.commands" or module.startswith("boardctl.commands.")


def test_commands_live_in_one_package() -> None:
    """Every command-layer module is in ``boardctl.commands`` but the front that collects them."""
    strays = sorted(m for m in _imports() if layer_of(m) == COMMAND and not _in_commands(m) and m not in COMMANDS_FRONT)
    assert not strays, strays


def test_nothing_imports_the_commands_but_the_front() -> None:
    """The commands are the top: a face, the daemon or anything below never imports one."""
    found = sorted(f"{module} -> {target}" for module, targets in _imports().items() for target in targets
                   if _in_commands(target) and not _in_commands(module) and module not in COMMANDS_FRONT)
    assert not found, found


def test_no_import_runs_upwards_or_across_faces() -> None:
    wrong = _wrong_way()
    assert not wrong, "imports that run the wrong way (docs/architecture.md):\n" + "\n".join(
        f"  {a} -> {b}: {why}" for (a, b), why in sorted(wrong.items()))


def test_the_check_sees_a_wrong_import() -> None:
    """The test itself: a face importing a command, or the core a face, would be seen."""
    assert layer_of("boardctl.tracker") < layer_of("boardctl.web.server") < layer_of("boardctl.commands.root")
    assert face_of("boardctl.network.host") != face_of("boardctl.web.server") is not None


def test_the_daemon_imports_no_face_and_no_command() -> None:
    daemon = _imports()["boardctl.daemon"]
    assert not {target for target in daemon if layer_of(target) >= FACE}, sorted(daemon)


def test_the_daemons_side_imports_nothing_of_the_engine_program() -> None:
    """engine/ is a UCI program the daemon runs; its level table is boardctl/levels.py."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else (
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            found += [f"{_module(path)} -> {name}" for name in names if name == "engine" or name.startswith("engine.")]
    assert not found, found
