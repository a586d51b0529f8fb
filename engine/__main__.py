"""``python -m engine``: the UCI engine on stdin/stdout."""

from __future__ import annotations

import sys

from engine.uci import main

sys.exit(main())
