"""Each game declares what it offers in one place (``Variant.capabilities``, issue 31): the parts of
its folder and the features it takes part in; callers ask the declaration, never a game's name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from boardctl.core.rules import PARTS, Capabilities
from boardctl.variants import NAMES, get_variant

PACKAGE = Path(__file__).resolve().parents[2] / "boardctl"

#: What each part must provide (core/rules.py's PARTS says what each is for).
PROVIDES = {
    "reading": ("read_record",),
    "spoken": ("words",),
    "terminal_moves": ("READER",),
    "tactics": ("motif",),
    "lessons": ("load_lesson", "lesson_names"),
    "notation": ("chinese", "write_line"),
    "records": ("export",),
}

#: Modules outside boardctl/variants that still import a game's part by its path: none (it may not grow).
STILL_BY_PATH: frozenset[str] = frozenset()


def test_every_part_says_what_it_provides() -> None:
    assert set(PROVIDES) == PARTS


@pytest.mark.parametrize("name", NAMES)
def test_the_declared_parts_are_the_folders_modules(name: str) -> None:
    variant = get_variant(name)
    folder = PACKAGE / "variants" / name
    for part in sorted(PARTS):
        assert variant.has_part(part) == (folder / f"{part}.py").is_file(), part
        if variant.has_part(part):
            module = variant.part(part)
            missing = [attr for attr in PROVIDES[part] if not hasattr(module, attr)]
            assert not missing, f"{name}'s {part} lacks {missing}"
        else:
            with pytest.raises(LookupError, match=f"{name} has no {part.replace('_', ' ')}"):
                variant.part(part)


@pytest.mark.parametrize("name", NAMES)
def test_options_keep_the_declaration(name: str) -> None:
    variant = get_variant(name)
    assert variant.configure(rules="asian", move_limit=50).capabilities == variant.capabilities


def test_what_each_game_takes_part_in() -> None:
    chess, xiangqi = get_variant("chess").capabilities, get_variant("xiangqi").capabilities
    assert (chess.is_rated, chess.is_online, chess.has_app_link, chess.has_river) == (True, True, True, False)
    assert (xiangqi.is_rated, xiangqi.is_online, xiangqi.has_app_link, xiangqi.has_river) == (False, False, False, True)


@pytest.mark.parametrize("bad", ["tactic", "", "board"])
def test_an_unknown_part_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="unknown game part"):
        get_variant("chess").has_part(bad)
    with pytest.raises(ValueError, match="unknown game parts"):
        Capabilities(parts=frozenset({bad}))


def _imports_of_parts(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom) else
                 [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
        if isinstance(node, ast.ImportFrom) and node.module in {f"boardctl.variants.{n}" for n in NAMES}:
            names += [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            parts = name.split(".")
            if len(parts) == 4 and parts[:2] == ["boardctl", "variants"] and parts[3] in PARTS:
                found.add(name)
    return found


def test_no_caller_imports_a_games_part_by_its_path() -> None:
    """Outside its folder a game's part is reached through ``Variant.part``; the list only shrinks."""
    by_path = {path.relative_to(PACKAGE.parent).as_posix()
               for path in PACKAGE.rglob("*.py")
               if "variants" not in path.relative_to(PACKAGE).parts and _imports_of_parts(path)}
    assert by_path <= STILL_BY_PATH, sorted(by_path - STILL_BY_PATH)
    assert by_path == STILL_BY_PATH, f"no longer by path (take them off the list): {sorted(STILL_BY_PATH - by_path)}"
