"""Browser fixtures: Debian's Chromium driven by Playwright (no browser download), screenshots under var/screenshots/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "var" / "screenshots"


def _chromium() -> str | None:
    for candidate in (os.environ.get("SKYPLAN_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (the system's, installed by `make install` / .ci/run)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[dev]' installs playwright")
    path = _chromium()
    if path is None:
        pytest.skip("no chromium: `make install` installs Debian's chromium package")
    # Playwright's sync API runs an event loop in this thread; the tests' own ORM calls are synchronous.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=path, headless=True,
                                              args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield chromium
        chromium.close()


@pytest.fixture
def screenshot():
    """``screenshot(page, name)`` saves a full-page PNG to var/screenshots/NAME.png and returns its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
