"""One global back-off against guessing a secret (the page's PIN, the invitation code), from one
address or many: after ``free`` wrong guesses close together, each further one closes the secret
to everyone for twice as long as the last, up to ``max_delay``; ``quiet`` seconds without a wrong
guess, or a right one, start the count again."""

from __future__ import annotations

import time
from collections.abc import Callable

#: Wrong guesses from all addresses together before the back-off starts.
FREE_FAILURES = 10
#: The back-off doubles with each further wrong guess up to this many seconds.
MAX_DELAY = 900.0
#: With no wrong guess for this long, the count starts again.
QUIET_SECONDS = 3600.0


class GlobalBackoff:
    """The shared count of wrong guesses and how long the secret stays closed."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, free: int = FREE_FAILURES,
                 max_delay: float = MAX_DELAY, quiet: float = QUIET_SECONDS) -> None:
        self._clock = clock
        self.free, self.max_delay, self.quiet = free, max_delay, quiet
        self.failures = 0
        self._last = -float("inf")
        self._until = 0.0

    def closed_for(self) -> float:
        """Seconds the secret stays closed to everyone (0: open)."""
        return max(0.0, self._until - self._clock())

    def failed(self) -> None:
        now = self._clock()
        if now - self._last > self.quiet:
            self.failures = 0
        self._last = now
        self.failures += 1
        over = self.failures - self.free
        if over > 0:
            self._until = now + min(self.max_delay, 2.0 ** min(over - 1, 30))

    def succeeded(self) -> None:
        self.failures, self._until = 0, 0.0
