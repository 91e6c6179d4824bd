"""The pages and the API refuse the same request with the same field path and message (both go through the scenario
contract), and the admission limits refuse absurd work before anything is saved."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from apps.platforms.models import Platform
from apps.scenarios.forms import RunForm, ScenarioBuilder
from apps.scenarios.models import Scenario, SimulationRun
from apps.workloads.models import Workload

QUEUE_WAIT_ON_INVERT = "with single_allocation the run waits once for one allocation shared by split, invert, concat"


@pytest.fixture
def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def _builder_data(**changes) -> dict:
    """A builder submission: CHILES on Magnus and AWS, every field at the value the builder renders, plus changes."""
    from apps.scenarios.forms import PlatformOptionsForm

    data = {"name": "Magnus vs AWS", "workload": "chiles-epoch1", "replications": "2", "seed": "1", "tco_years": "5",
            "epochs_per_year": "1", "p-magnus-include": "on", "p-aws-sydney-include": "on"}
    for slug in ("magnus", "aws-sydney"):
        form = PlatformOptionsForm(platform=Platform.objects.get(slug=slug),
                                   workload=Workload.objects.get(slug="chiles-epoch1"))
        for name, field in form.fields.items():
            value = form.get_initial_for_field(field, name)
            if value is not None and not isinstance(value, bool):
                data[f"p-{slug}-{name}"] = str(value)
    return data | changes


def test_a_queue_wait_single_allocation_would_ignore_is_refused_on_the_field_by_both(catalogue, user, api):
    builder = ScenarioBuilder(_builder_data(**{"p-magnus-invert-queue_wait_h": "2"}),
                              workload=Workload.objects.get(slug="chiles-epoch1"), user=user)
    assert builder.save(user=user) is None
    magnus = next(f for f in builder.platforms if f.platform.slug == "magnus")
    assert QUEUE_WAIT_ON_INVERT in magnus.errors["invert-queue_wait_h"][0]

    response = api.post("/api/v1/scenarios/", {
        "name": "Magnus vs AWS", "workload": "chiles-epoch1",
        "platforms": [{"platform": "magnus", "options": {"placements": [{"stage": "invert", "queue_wait_s": 7200}]}},
                      {"platform": "aws-sydney"}]}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["platforms[0].options.placements[0].queue_wait_s"]
    assert QUEUE_WAIT_ON_INVERT in response.json()["platforms[0].options.placements[0].queue_wait_s"][0]
    assert not Scenario.objects.exists()


def test_the_same_queue_wait_on_every_stage_of_the_allocation_is_kept(catalogue, user):
    waits = {f"p-magnus-{stage}-queue_wait_h": "2" for stage in ("split", "invert", "concat")}
    builder = ScenarioBuilder(_builder_data(**waits), workload=Workload.objects.get(slug="chiles-epoch1"), user=user)
    scenario = builder.save(user=user)
    assert scenario is not None, [f.errors for f in builder.platforms] + builder.errors
    placements = scenario.entries.get(platform__slug="magnus").options["placements"]
    assert {p["stage"]: p["queue_wait_s"] for p in placements} == {"split": 7200.0, "invert": 7200.0,
                                                                   "concat": 7200.0}


def test_a_run_option_is_refused_with_the_same_path_by_the_form_and_the_api(catalogue, user, api):
    form = RunForm({"workload": "chiles-epoch1", "platform": "magnus", "replications": "1", "seed": "0",
                    "retention_after_run": "-1 h"}, user=user)
    assert not form.is_valid()
    assert form.errors["retention_after_run"] == [
        "options.retention_after_run_s: Input should be greater than or equal to 0"]

    response = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus",
                                          "options": {"retention_after_run_s": -3600}}, format="json")
    assert response.status_code == 400
    assert response.json() == {"options.retention_after_run_s": ["Input should be greater than or equal to 0"]}
    assert not SimulationRun.objects.exists()


def test_an_absurd_workload_override_is_refused_before_anything_is_queued(catalogue, user, api):
    response = api.post("/api/v1/scenarios/", {
        "name": "absurd", "workload": "chiles-epoch1", "workload_overrides": {"n_days": 1e9},
        "platforms": [{"platform": "magnus"}, {"platform": "aws-sydney"}], "run": True}, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["workload_overrides.n_days"]
    assert "about 2,000,000,134 tasks per replication on magnus; at most 500,000 are admitted" in \
        response.json()["workload_overrides.n_days"][0]
    assert not Scenario.objects.exists() and not SimulationRun.objects.exists()

    builder = ScenarioBuilder(_builder_data(**{"param-n_days": "1e9"}),
                              workload=Workload.objects.get(slug="chiles-epoch1"), user=user)
    assert builder.save(user=user) is None
    assert "at most 500,000 are admitted" in builder.parameters.errors["n_days"][0]


def test_the_admission_limits_come_from_the_settings(catalogue, user, api, settings, monkeypatch):
    from apps.scenarios import services

    monkeypatch.setattr(services, "dispatch_run", lambda run: None)  # queued, not sent: this is about admission
    settings.SKYPLAN_MAX_TASKS_PER_REQUEST = 218 * 3 - 1  # one replication of the epoch on Magnus: about 218 tasks
    refused = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus", "replications": 3},
                       format="json")
    assert refused.status_code == 400
    assert refused.json() == {"replications": ["3 replications x 1 platform(s) x about 218 tasks = 654 tasks; at most "
                                               "653 per request"]}
    settings.SKYPLAN_MAX_TASKS_PER_REQUEST = 218 * 3
    assert api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus", "replications": 3},
                    format="json").status_code == 201


def test_a_workspace_can_have_its_own_admission_limits(catalogue, user, api, settings, monkeypatch):
    from apps.accounts.workspaces import workspace_for
    from apps.scenarios import services

    monkeypatch.setattr(services, "dispatch_run", lambda run: None)
    personal = workspace_for(user, None)
    settings.SKYPLAN_ADMISSION_BY_WORKSPACE = {personal.slug: {"tasks_per_replication": 217}}
    refused = api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus"}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {"workload": ["about 218 tasks per replication on magnus; at most 217 are admitted"]}
    settings.SKYPLAN_ADMISSION_BY_WORKSPACE = {"another-team": {"tasks_per_replication": 217}}
    assert api.post("/api/v1/runs/", {"workload": "chiles-epoch1", "platform": "magnus"},
                    format="json").status_code == 201
