"""A workload's pages in headless Chromium at 1400 and 400 px: a reference workload says it is read-only and an
editor copies it into their workspace, landing on the copy's edit page; there they change a stage's demand citing
a paper, add a stage and find both on the workload's page.  Screenshots go to var/screenshots/."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1400, 400])
def test_an_editor_copies_a_reference_workload_and_edits_the_copy(log_in, catalogue_site, screenshot, width):
    from apps.workloads.models import Workload

    site = catalogue_site
    context, page, _ = log_in(site, "/workloads/sdp-predict-p3/", width, username="hedy")
    assert page.get_by_text("Part of the shared reference catalogue: read-only.").is_visible()
    page.get_by_role("button", name="Copy to my workspace").click()
    page.wait_for_url(f"{site}/workloads/sdp-predict-p3-copy/edit/")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, "the edit page overflows"
    screenshot(page, f"editors-workload-edit-{width}")

    compute = Workload.objects.get(slug="sdp-predict-p3-copy").stages.get(name="compute")
    field = f"#id_stage-{compute.pk}-cpu_seconds"
    page.locator(field).fill("20 min")
    page.get_by_role("button", name="Save changes").click()  # no source yet: refused beside the field
    alert = page.locator(field).locator("xpath=ancestor::tr").get_by_role("alert").first
    assert "changed: give its new source" in alert.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, "the refused page overflows"
    screenshot(page, f"editors-workload-refused-{width}")

    row = page.locator(field).locator("xpath=ancestor::tr")
    if not row.locator(f"{field}-kind").is_visible():
        row.locator("summary", has_text="New source").click()
    page.locator(f"{field}-kind").select_option("paper")
    page.locator(f"{field}-title").fill("Our pipeline's profiling report")
    page.locator(f"{field}-where").fill("Table 2")
    page.get_by_label("Name of the new stage").fill("post_process")
    page.get_by_label("Start from the demands of").select_option("compute")
    page.get_by_role("button", name="Save changes").click()
    page.wait_for_url(f"{site}/workloads/sdp-predict-p3-copy/")
    assert page.get_by_text("Our pipeline's profiling report · Table 2").count() >= 1
    assert page.get_by_role("row", name="post process").count() == 1 or page.get_by_text("post process").count() >= 1
    compute.refresh_from_db()
    assert compute.cpu_seconds == 1200.0
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, "the workload page overflows"
    screenshot(page, f"editors-workload-saved-{width}")
    context.close()
