"""Give a value's new source on the site's edit and new pages in a browser (shared by the browser tests; a module
of its own because several test folders have a conftest.py)."""

from __future__ import annotations


def cite(page, field: str, kind: str, **parts: str) -> None:
    """Open the new-source inputs of the row holding ``field`` (when closed), pick the source ``kind`` and fill its
    parts (``reason``, ``host`` and ``date``, ``title`` and ``where``…)."""
    row = page.locator(field).locator("xpath=ancestor::tr")
    if not row.locator(f"{field}-kind").is_visible():
        row.locator("summary", has_text="New source").click()
    page.locator(f"{field}-kind").select_option(kind)
    for key, value in parts.items():
        page.locator(f"{field}-{key}").fill(value)
