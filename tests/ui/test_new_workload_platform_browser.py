"""Starting from scratch in headless Chromium at 1400 and 400 px: an editor opens "New workload" from the workloads
list, gives a name and a first stage whose demand cites a measurement (refused first without a source, beside the
field), lands on its edit page; imports a workload file that has a bad line (named) then a good one; and makes a
new platform from the platforms list.  Screenshots go to var/screenshots/."""

from __future__ import annotations

import json

import pytest
from source_fields import cite

pytestmark = [pytest.mark.django_db(transaction=True)]


def _fits(page, width: int, what: str) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, f"{what} overflows"


@pytest.mark.parametrize("width", [1400, 400])
def test_an_editor_creates_a_workload_from_scratch_and_imports_a_file(log_in, catalogue_site, screenshot, tmp_path,
                                                                      width):
    from apps.workloads.models import Workload

    site = catalogue_site
    context, page, errors = log_in(site, "/workloads/", width, username="hedy")
    page.get_by_role("link", name="New workload").click()
    page.wait_for_url(f"{site}/workloads/new/")
    page.get_by_label("Name", exact=True).fill("Spectra per file")
    page.get_by_label("Name of the first stage").fill("compute")
    page.locator("#id_stage-n_tasks").fill("48")
    page.locator("#id_stage-cpu_seconds").fill("1 min")
    cite(page, "#id_stage-n_tasks", "assumption", reason="one task per input file")
    page.get_by_role("button", name="Create workload").click()  # the CPU time has no source yet
    alert = page.locator("#id_stage-cpu_seconds").locator("xpath=ancestor::tr").get_by_role("alert").first
    assert "give its new source" in alert.inner_text()
    assert page.get_by_text("Nothing was saved").is_visible()
    _fits(page, width, "the refused new-workload page")
    screenshot(page, f"new-workload-refused-{width}")

    cite(page, "#id_stage-cpu_seconds", "measurement", host="campus-login1", date="2026-11-02")
    page.get_by_role("button", name="Create workload").click()
    page.wait_for_url(f"{site}/workloads/spectra-per-file/edit/")
    assert page.get_by_text("Spectra per file created in").is_visible()
    _fits(page, width, "the new workload's edit page")
    screenshot(page, f"new-workload-edit-{width}")
    stage = Workload.objects.get(slug="spectra-per-file").stages.get()
    assert (stage.n_tasks, stage.cpu_seconds) == (48, 60.0)

    page.goto(f"{site}/workloads/")
    page.get_by_role("link", name="Import a workload file").click()
    page.wait_for_url(f"{site}/workloads/import/")
    bad = tmp_path / "mine.json"
    bad.write_text('{\n "name": "Mine",\n "template": "stages",\n "stages": [\n')
    page.get_by_label("Workload file").set_input_files(str(bad))
    page.get_by_role("button", name="Import").click()
    assert "Nothing was imported. mine.json: line 5 column 1:" in page.get_by_role("alert").first.inner_text()
    _fits(page, width, "the refused import page")
    screenshot(page, f"import-workload-refused-{width}")
    entry = {"slug": "mine", "name": "Mine", "template": "stages", "stages": [{"name": "only", "facts": {
        "n_tasks": {"value": 4, "unit": "", "source": {"kind": "assumption", "reason": "a test"}}}}]}
    good = tmp_path / "mine.yaml"
    good.write_text(json.dumps(entry))  # JSON is YAML
    page.get_by_label("Workload file").set_input_files(str(good))
    page.get_by_role("button", name="Import").click()
    page.wait_for_url(f"{site}/workloads/mine/edit/")
    assert not [e for e in errors if "status of 400" not in e], errors  # the refused posts answer 400
    context.close()


@pytest.mark.parametrize("width", [1400, 400])
def test_an_editor_creates_a_platform_from_scratch(log_in, catalogue_site, screenshot, width):
    from apps.platforms.models import Platform

    site = catalogue_site
    context, page, errors = log_in(site, "/platforms/", width, username="hedy")
    page.get_by_role("link", name="New platform").click()
    page.wait_for_url(f"{site}/platforms/new/")
    page.get_by_label("Name", exact=True).fill("Campus cluster")
    page.get_by_label("Kind", exact=True).select_option("owned_cluster")
    page.get_by_label("Name of the node type").fill("compute")
    page.get_by_label("Name of the storage tier").fill("Lustre")
    page.get_by_label("Kind of the storage tier").select_option("parallel_fs")
    guide = {"title": "Campus cluster user guide", "where": "Table 1"}
    for field, value in (("#id_node-cores", "12"), ("#id_node-memory", "64 GiB"), ("#id_node-nic_bandwidth", "10 Gb/s"),
                         ("#id_node-count", "8"), ("#id_tier-read_bw", "2 GB/s"), ("#id_tier-write_bw", "1.5 GB/s")):
        page.locator(field).fill(value)
        cite(page, field, "paper", **guide)
    _fits(page, width, "the new-platform page")
    screenshot(page, f"new-platform-filled-{width}")
    page.get_by_role("button", name="Create platform").click()
    page.wait_for_url(f"{site}/platforms/campus-cluster/edit/")
    _fits(page, width, "the new platform's edit page")
    screenshot(page, f"new-platform-edit-{width}")
    platform = Platform.objects.get(slug="campus-cluster")
    assert platform.storage_tiers.get().read_bw == 2e9 and platform.node_types.get().cores == 12
    page.goto(f"{site}/platforms/campus-cluster/")
    assert page.get_by_text("Campus cluster user guide · Table 1").count() >= 1
    assert not errors, errors
    context.close()
