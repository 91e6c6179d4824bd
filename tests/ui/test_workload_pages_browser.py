"""A workload's page in headless Chromium at 1400 and 400 px: a reference workload says it is read-only and an
editor copies it into their workspace, landing on the copy's page.  Screenshots go to var/screenshots/."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery"


@pytest.fixture
def site(live_server, django_user_model, settings):
    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    django_user_model.objects.create_user(username="hedy", password=PASSWORD)
    return live_server.url


@pytest.mark.parametrize("width", [1400, 400])
def test_an_editor_copies_a_reference_workload_from_its_page(browser, site, screenshot, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{site}/accounts/login/?next=/workloads/sdp-predict-p3/")
    page.get_by_label("User name").fill("hedy")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{site}/workloads/sdp-predict-p3/")
    assert page.get_by_text("Part of the shared reference catalogue: read-only.").is_visible()
    page.get_by_role("button", name="Copy to my workspace").click()
    page.wait_for_url(f"{site}/workloads/sdp-predict-p3-copy/")
    assert page.get_by_text("A workload of workspace hedy's workspace, copied from").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, "the page overflows"
    screenshot(page, f"editors-workload-copy-{width}")
    context.close()
