"""Opening the page in the user's browser (``boardctl demo``), only where there is a desktop.

On a Pi over SSH or in CI there is no display, and Python's ``webbrowser`` would pick a text
browser that takes over the terminal; there the caller only prints the address.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import webbrowser

log = logging.getLogger(__name__)


def has_desktop() -> bool:
    """Whether a graphical browser can open here (macOS, Windows, or an X11/Wayland session)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_page(url: str, *, force: bool = False) -> bool:
    """Open ``url`` in a browser without blocking; returns whether one was asked to.

    ``force`` opens even without a detected desktop (``$BROWSER`` set by the user, say).
    """
    if not (force or has_desktop() or os.environ.get("BROWSER")):
        log.debug("no desktop: not opening %s", url)  # the caller prints the address
        return False

    def target() -> None:
        try:
            if not webbrowser.open(url, new=2):
                log.warning("no browser found; open %s to play", url)
        except webbrowser.Error as exc:
            log.warning("cannot open a browser (%s); open %s to play", exc, url)

    threading.Thread(target=target, name="open-browser", daemon=True).start()
    return True
