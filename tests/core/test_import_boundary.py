"""Only boardctl/variants/chess may import python-chess: everything else speaks the core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "boardctl"
ALLOWED = PACKAGE / "variants" / "chess"

#: Modules not yet moved onto the core (issue 13); this list only ever shrinks.
NOT_YET_MOVED: frozenset[str] = frozenset()


def _imports_chess(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            a.name == "chess" or a.name.startswith("chess.") for a in node.names
        ):
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and node.module.split(".")[0] == "chess"
        ):
            return True
    return False


def test_checker_sees_both_import_forms(tmp_path: Path) -> None:
    for text, expected in [
        ("import chess\n", True),
        ("from chess import pgn\n", True),
        ("import chessy\n", False),
        ("from .chess import x\n", False),
        ("import os, chess.pgn\n", True),
    ]:
        f = tmp_path / "m.py"
        f.write_text(text)
        assert _imports_chess(f) is expected, text


@pytest.mark.slow
def test_only_the_chess_variant_imports_chess() -> None:
    offenders = sorted(
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if ALLOWED not in p.parents and _imports_chess(p)
    )
    unexpected = [p for p in offenders if p not in NOT_YET_MOVED]
    assert not unexpected, (
        f"modules outside boardctl/variants/chess import python-chess: {unexpected}"
    )
    stale = sorted(NOT_YET_MOVED - set(offenders))
    assert not stale, f"remove from NOT_YET_MOVED, they no longer import chess: {stale}"
