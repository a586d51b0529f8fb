"""One folder per game; each exports a :class:`boardctl.core.rules.Variant`.

Only ``boardctl.variants.chess`` may import python-chess (tests/core/test_import_boundary.py).
"""

from __future__ import annotations

import importlib

from boardctl.core.rules import Variant

#: Every game's name, in the order the CLI lists them.
NAMES = ("chess", "xiangqi")


def get_variant(name: str) -> Variant:
    """The variant called ``name``; ValueError lists the choices. Imports the game lazily."""
    if name not in NAMES:
        raise ValueError(f"unknown game {name!r:.60}: choose one of {', '.join(NAMES)}")
    module = importlib.import_module(f"boardctl.variants.{name}")
    variant = module.VARIANT
    assert isinstance(variant, Variant)
    return variant
