"""The session's parts (boardctl/session/) each own their own state: an attribute set up in one
part's ``__init__`` is set up in no other part, so no two copies of one fact can drift apart."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PARTS = Path(__file__).resolve().parents[2] / "boardctl" / "session"


def _owned(source: str) -> dict[str, set[str]]:
    """Each class's attributes set up in its ``__init__`` (``self.name = ...``, annotated or not)."""
    owned: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        names: set[str] = set()
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                for stmt in ast.walk(item):
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else (
                        [stmt.target] if isinstance(stmt, ast.AnnAssign) else [])
                    names |= {t.attr for t in targets if isinstance(t, ast.Attribute)
                              and isinstance(t.value, ast.Name) and t.value.id == "self"}
        owned[node.name] = names - {"_s"}  # the back reference every part has
    return owned


def _duplicates(sources: list[str]) -> dict[str, list[str]]:
    owners: dict[str, list[str]] = {}
    for source in sources:
        for cls, names in _owned(source).items():
            for name in names:
                owners.setdefault(name, []).append(cls)
    return {name: classes for name, classes in owners.items() if len(classes) > 1}


def test_no_two_session_parts_own_the_same_attribute() -> None:
    sources = [path.read_text(encoding="utf-8") for path in sorted(PARTS.glob("*.py"))]
    assert len(sources) > 5
    assert not _duplicates(sources), _duplicates(sources)


@pytest.mark.parametrize(("sources", "found"), [
    (["class A:\n def __init__(self):\n  self.x = 1\n", "class B:\n def __init__(self):\n  self.x: int = 2\n"],
     {"x": ["A", "B"]}),
    (["class A:\n def __init__(self):\n  self._s = 1\n  self.y = 1\n", "class B:\n def __init__(self):\n  self._s = 2\n"],
     {}),
    (["class A:\n def __init__(self):\n  self.x = 1\n def f(self):\n  self.y = 1\n",
      "class B:\n def __init__(self):\n  self.y = 1\n"], {}),
])
def test_the_check_sees_a_second_owner(sources: list[str], found: dict[str, list[str]]) -> None:
    assert _duplicates(sources) == found
