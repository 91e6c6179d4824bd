"""The observed runs and calibrations page and a calibration's result table at 1400 and 400 px in a real Chromium:
each run with its source, the fitted value, and every run's prediction with its error, in-sample ones said so."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"
WIDTHS = (1400, 400)
SOURCE = {"kind": "paper", "title": "Our pipeline's run log", "where": "Table 1"}


@pytest.fixture
def calibrated(live_server, django_user_model):
    from django.conf import settings

    from apps.accounts.workspaces import personal_workspace
    from apps.calibration.fitting import create_calibration, execute_calibration
    from apps.calibration.services import record_observation
    from apps.workloads.catalogue import load_catalogue
    from apps.workloads.models import Workload
    from apps.workloads.services import copy_workload

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    user = django_user_model.objects.create_user(username="grace", password=PASSWORD)
    workspace = personal_workspace(user)
    workload = copy_workload(Workload.objects.get(slug="sdp-predict-p3"), workspace, user=user)
    record_observation(workspace, label="March run, compute stage", workload=workload.slug, platform="magnus",
                       quantity="stage_time", stage="compute", value_s=2400.0, source=SOURCE, user=user)
    record_observation(workspace, label="April run on Fornax", workload=workload.slug, platform="fornax",
                       quantity="makespan", value_s=10800.0, source=SOURCE, use_for_fitting=False, user=user)
    job = create_calibration(workspace, workload.slug, [{"name": "compute.cpu_seconds", "lower": "1 s",
                                                         "upper": "10 h"}], user=user)
    assert execute_calibration(job.pk) == "succeeded"
    return job


def test_the_observations_page_and_a_calibrations_result(log_in, live_server, calibrated, screenshot):
    for width in WIDTHS:
        for path, name in (("/calibration/", "list"), (f"/calibration/{calibrated.pk}/", "result")):
            context, page, errors = log_in(live_server.url, path, width)
            try:
                page.wait_for_load_state("networkidle")
                text = page.inner_text("main") if page.locator("main").count() else page.inner_text("body")
                if name == "list":
                    assert "March run, compute stage" in text and "Our pipeline's run log" in text
                    assert "April run on Fornax" in text and "succeeded" in text
                else:
                    assert "compute.cpu_seconds" in text and "yes (fitted to it)" in text
                    assert "April run on Fornax" in text and "%" in text
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                assert not errors, errors
                screenshot(page, f"calibration-{name}-{width}")
            finally:
                context.close()
