from __future__ import annotations

import sys

from boardctl.cli import main

sys.exit(main())
