"""A new user's own pipeline on the site alone, in headless Chromium with a real worker: a workload from scratch
(one stage reading and writing per task), a platform from scratch (one node type, one shared tier), a scenario
comparing it with a reference platform, run, and the ranked results — storage ranked on the read and write
bandwidth the tasks achieved.  Screenshots of the results at 1400 and 400 px go to var/screenshots/."""

from __future__ import annotations

import pytest
from source_fields import cite

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

LOG = {"host": "campus-login1", "date": "2026-11-02"}
GUIDE = {"title": "Campus cluster user guide", "where": "Table 1"}


@pytest.fixture
def worker_site(celery_worker_process, catalogue_site):
    return catalogue_site


def _value(page, field: str, value: str, kind: str, parts: dict) -> None:
    if page.locator(field).evaluate("el => el.tagName") == "SELECT":
        page.locator(field).select_option(value)
    else:
        page.locator(field).fill(value)
    cite(page, field, kind, **parts)


def test_a_new_user_models_their_pipeline_and_platform_on_the_site_and_gets_ranked_results(
        log_in, worker_site, screenshot):
    site = worker_site
    context, page, _ = log_in(site, "/workloads/new/", 1400, username="hedy")
    page.get_by_label("Name", exact=True).fill("Spectra per file")
    page.get_by_label("Name of the first stage").fill("compute")
    _value(page, "#id_stage-n_tasks", "8", "assumption", {"reason": "one task per input file"})
    _value(page, "#id_stage-cpu_seconds", "1 min", "measurement", LOG)
    _value(page, "#id_stage-input_read_bytes", "0.6 GB", "measurement", LOG)
    _value(page, "#id_stage-output_write_bytes", "0.15 GB", "measurement", LOG)
    page.get_by_role("button", name="Create workload").click()
    page.wait_for_url(f"{site}/workloads/spectra-per-file/edit/")

    page.goto(f"{site}/platforms/new/")
    page.get_by_label("Name", exact=True).fill("Campus cluster")
    page.get_by_label("Kind", exact=True).select_option("owned_cluster")
    page.get_by_label("Name of the node type").fill("compute")
    page.get_by_label("Name of the storage tier").fill("Lustre")
    page.get_by_label("Kind of the storage tier").select_option("parallel_fs")
    for field, value in (("#id_platform-max_nodes", "8"), ("#id_node-cores", "12"), ("#id_node-memory", "64 GiB"),
                         ("#id_node-nic_bandwidth", "10 Gb/s"), ("#id_node-count", "8"),
                         ("#id_tier-read_bw", "2 GB/s"), ("#id_tier-write_bw", "1.5 GB/s")):
        _value(page, field, value, "paper", GUIDE)
    _value(page, "#id_tier-scope", "shared", "paper", GUIDE)
    page.get_by_role("button", name="Create platform").click()
    page.wait_for_url(f"{site}/platforms/campus-cluster/edit/")

    page.goto(f"{site}/scenarios/new/?workload=spectra-per-file")
    page.get_by_label("Name", exact=True).fill("Campus or Magnus for our spectra")
    page.get_by_label("Replications").fill("1")
    page.get_by_label("Campus cluster").check()
    page.get_by_label("Magnus (Pawsey Cray XC40)").check()
    page.get_by_role("button", name="Save and run").click()
    page.wait_for_url(f"{site}/scenarios/*-*/")
    page.wait_for_function("() => ['succeeded', 'failed'].includes(document.querySelector('#status-text').textContent.trim())",
                           timeout=120_000)
    assert page.text_content("#status-text").strip() == "succeeded"
    page.reload()
    page.wait_for_selector("#rank-table")
    ranks = page.text_content("#rank-table")
    assert "Typical write bandwidth" in ranks and "tasks' writes" in ranks and "tasks' reads" in ranks
    assert "Campus cluster" in page.text_content("#aggregate-table")
    for width in (1400, 400):
        page.set_viewport_size({"width": width, "height": 900})
        # the charts resize after the viewport does: wait (bounded) until the page fits, then check and name what not
        page.wait_for_function("w => document.documentElement.scrollWidth <= w + 1 || (window.skyplanWaited = "
                               "(window.skyplanWaited || 0) + 1) > 100", arg=width, polling=100, timeout=30_000)
        screenshot(page, f"own-pipeline-results-{width}")
        wide = page.evaluate("""w => Array.from(document.querySelectorAll('main *')).filter(
            el => el.getBoundingClientRect().right > w + 1 && !el.closest('.scroll')).slice(0, 5).map(
            el => el.tagName + '#' + el.id + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right))""",
                             width)
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, wide
    context.close()
