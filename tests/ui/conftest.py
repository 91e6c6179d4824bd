"""Browser fixtures: Debian's Chromium driven by Playwright (no browser download), screenshots under var/screenshots/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "var" / "screenshots"
#: the password of the users the browser tests create
PASSWORD = "correct horse battery"


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


@pytest.fixture
def catalogue_site(live_server, django_user_model, settings) -> str:
    """The live server's URL, with the reference catalogue loaded and the user "hedy" (no workspace role beyond
    her own)."""
    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    django_user_model.objects.create_user(username="hedy", password=PASSWORD)
    return live_server.url


@pytest.fixture
def log_in(browser):
    """``log_in(base_url, path, width, height=900, username="grace")``: a new browser context ``width`` px wide,
    logged in through the login form and landed on ``path``; returns ``(context, page, errors)``, ``errors``
    collecting the page's console errors and uncaught exceptions.  The caller closes the context."""

    def go(base_url: str, path: str, width: int, height: int = 900, username: str = "grace"):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.set_default_timeout(30_000)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{base_url}/accounts/login/?next={quote(path)}")
        page.get_by_label("User name").fill(username)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(lambda url: url == f"{base_url}{path}")
        return context, page, errors

    return go
