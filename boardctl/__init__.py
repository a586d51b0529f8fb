"""boardctl: software for a reed-switch chess e-board."""

from __future__ import annotations

__version__ = "0.1.0"
