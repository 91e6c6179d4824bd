"""A workload's page in headless Chromium at 1400 and 400 px: a reference workload says it is read-only and an
editor copies it into their workspace, landing on the copy's page.  Screenshots go to var/screenshots/."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.django_db(transaction=True)]

@pytest.mark.parametrize("width", [1400, 400])
def test_an_editor_copies_a_reference_workload_from_its_page(log_in, catalogue_site, screenshot, width):
    site = catalogue_site
    context, page, _ = log_in(site, "/workloads/sdp-predict-p3/", width, username="hedy")
    assert page.get_by_text("Part of the shared reference catalogue: read-only.").is_visible()
    page.get_by_role("button", name="Copy to my workspace").click()
    page.wait_for_url(f"{site}/workloads/sdp-predict-p3-copy/")
    assert page.get_by_text("A workload of workspace hedy's workspace, copied from").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, "the page overflows"
    screenshot(page, f"editors-workload-copy-{width}")
    context.close()
