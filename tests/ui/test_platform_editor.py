"""The platform editor in headless Chromium: an editor copies a platform, changes a value citing a paper, sees a
web-page source refused beside the field, and finds the saved value with its new source on the platform's page;
at 1400 and 400 px wide.  Screenshots go to var/screenshots/."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.django_db(transaction=True)]

@pytest.mark.parametrize("width", [1400, 400])
def test_a_changed_value_cites_a_paper_and_a_bad_web_address_is_refused_beside_it(log_in, catalogue_site, screenshot,
                                                                                   width):
    site = catalogue_site
    context, page, _ = log_in(site, "/platforms/magnus/", width, username="hedy")
    page.get_by_role("button", name="Copy to my workspace").click()
    page.wait_for_url(f"{site}/platforms/magnus-copy/edit/")

    page.get_by_label("WAN bandwidth to the data source", exact=True).fill("20 Gb/s")
    row = page.locator("tr", has=page.locator("#id_platform-wan_bandwidth"))
    row.locator("summary", has_text="New source").click()
    page.locator("#id_platform-wan_bandwidth-kind").select_option("url")
    page.locator("#id_platform-wan_bandwidth-url").fill("aarnet.edu.au")
    assert not page.locator("#id_platform-wan_bandwidth-host").is_visible()  # only the chosen kind's inputs
    page.get_by_role("button", name="Save changes").click()
    alert = page.locator("#id_platform-wan_bandwidth").locator("xpath=ancestor::tr").get_by_role("alert").first
    assert "must be a web address starting with http:// or https://" in alert.inner_text()
    screenshot(page, f"editors-platform-source-refused-{width}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, "the page overflows"

    page.locator("#id_platform-wan_bandwidth-kind").select_option("paper")
    page.locator("#id_platform-wan_bandwidth-title").fill("AARNet network upgrade plan")
    page.locator("#id_platform-wan_bandwidth-where").fill("Table 2")
    page.get_by_role("button", name="Save changes").click()
    page.wait_for_url(f"{site}/platforms/magnus-copy/")
    assert page.get_by_text("AARNet network upgrade plan · Table 2").count() >= 1
    from apps.platforms.models import Platform

    copy = Platform.objects.get(slug="magnus-copy")
    assert copy.wan_bandwidth == 2.5e9  # 20 Gb/s in bytes/s
    assert copy.source_of("wan_bandwidth") == {"kind": "paper", "title": "AARNet network upgrade plan",
                                               "where": "Table 2"}
    screenshot(page, f"editors-platform-saved-{width}")
    context.close()


@pytest.mark.parametrize("width", [1400, 400])
def test_an_editor_adds_a_storage_tier_and_renames_a_node_type_on_the_structure_page(log_in, catalogue_site,
                                                                                    screenshot, width):
    from apps.platforms.models import Platform

    site = catalogue_site
    context, page, _ = log_in(site, "/platforms/magnus/", width, username="hedy")
    page.get_by_role("button", name="Copy to my workspace").click()
    page.wait_for_url(f"{site}/platforms/magnus-copy/edit/")
    page.get_by_role("link", name="node types and storage tiers").click()
    page.wait_for_url(f"{site}/platforms/magnus-copy/structure/")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, "the structure page overflows"
    screenshot(page, f"editors-platform-structure-{width}")

    page.get_by_label("Name of xc40-compute").fill("haswell-compute")
    page.get_by_label("Name of the new storage tier").fill("burst buffer")
    page.locator("#id_add-storage_tiers-like").select_option("Sonexion Lustre scratch")
    page.get_by_role("button", name="Save changes").click()
    page.wait_for_url(f"{site}/platforms/magnus-copy/")
    copy = Platform.objects.get(slug="magnus-copy")
    assert [n.name for n in copy.node_types.all()] == ["haswell-compute"]
    assert sorted(t.name for t in copy.storage_tiers.all()) == ["Sonexion Lustre scratch", "burst buffer"]
    assert page.get_by_text("burst buffer").count() >= 1
    screenshot(page, f"editors-platform-structure-saved-{width}")
    context.close()
