"""Real Chromium (Debian's, driven by Playwright from pip, no browser download) for the page tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from page_helpers import SIZES, open_page
from web_helpers import ARTIFACTS, CHROMIUM_ARGS, RunningDaemon, ensure_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module scope, not session: Playwright's sync API keeps an asyncio loop running while it is
    # open, and later tests (here and elsewhere) call asyncio.run().
    from playwright.sync_api import sync_playwright

    executable = ensure_chromium()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    """Every page test that takes ``size`` runs at each of the page's sizes."""
    return str(request.param)


@pytest.fixture
def page(browser: Any, daemon: RunningDaemon, size: str) -> Iterator[Any]:
    """The page of the module's ``daemon`` fixture, at ``size``."""
    with open_page(browser, daemon, size) as page:
        yield page
