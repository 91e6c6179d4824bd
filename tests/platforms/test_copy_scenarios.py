"""A workspace's copy in comparisons: its members run a scenario on it (a real worker simulates the edited values);
an outsider cannot pick it in the scenario builder or the run form."""

from __future__ import annotations

import time

import pytest

from apps.platforms.models import Platform
from apps.platforms.services import FactChange, edit_platform
from apps.scenarios.models import Scenario, SimulationRun
from apps.scenarios.services import create_scenario, run_scenario
from apps.workloads.models import Workload

FASTER_WAN = {"kind": "assumption", "reason": "the 20 Gb/s link AARNet offers in 2026"}


def _wait(scenario, timeout=180) -> Scenario:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        runs = list(SimulationRun.objects.filter(scenario_entries__scenario=scenario))
        if runs and all(r.is_finished for r in runs):
            return scenario
        time.sleep(0.3)
    raise AssertionError("the scenario's runs did not finish")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_scenario_runs_on_a_workspace_copy_with_its_edited_values(celery_worker_process, client, team,
                                                                     magnus_copy):
    edit_platform(magnus_copy, [FactChange(magnus_copy, "wan_bandwidth", 2.5e9, FASTER_WAN)], user=team["dave"])
    scenario = create_scenario(
        name="Magnus with a faster link", workload=Workload.objects.get(slug="chiles-epoch1"), replications=1,
        entries=[(magnus_copy, {}, {}), (Platform.objects.get(slug="magnus"), {}, {})], user=team["dave"],
        workspace=team["workspace"])
    run_scenario(scenario, user=team["dave"])
    _wait(scenario)

    runs = {e.platform.slug: e.run for e in scenario.entries.select_related("platform", "run")}
    assert all(r.status == "succeeded" for r in runs.values()), {s: r.error for s, r in runs.items()}
    assert runs[magnus_copy.slug].inputs["platform"]["facts"]["wan_bandwidth"] == 2.5e9
    assert runs["magnus"].inputs["platform"]["facts"]["wan_bandwidth"] == 1.25e9
    assert runs[magnus_copy.slug].workspace == team["workspace"]
    client.force_login(team["carol"])  # a viewer of the workspace reads the results
    page = client.get(scenario.get_absolute_url())
    assert page.status_code == 200 and magnus_copy.name in page.content.decode()
    client.force_login(team["bob"])
    assert client.get(scenario.get_absolute_url()).status_code == 404


def _builder_data(client) -> dict:
    """The scenario builder's form as the page shows it, no platform included."""
    builder = client.get("/scenarios/new/").context["builder"]
    data = {}
    for form in (builder.form, builder.parameters, *builder.platforms):
        for name in form.fields:
            value = form[name].value()
            if value is not None and value is not False:
                data[form[name].html_name] = value
    return {k: v for k, v in data.items() if not k.endswith("-include")}


def test_an_outsider_cannot_pick_another_workspaces_copy_in_the_scenario_builder(client, team, magnus_copy):
    client.force_login(team["bob"])
    page = client.get("/scenarios/new/").content.decode()
    assert 'name="p-magnus-include"' in page and f'name="p-{magnus_copy.slug}-include"' not in page
    data = {**_builder_data(client), "name": "mine", "p-magnus-include": "on", "p-aws-sydney-include": "on",
            f"p-{magnus_copy.slug}-include": "on"}
    response = client.post("/scenarios/new/", data)

    assert response.status_code == 302
    scenario = Scenario.objects.get(name="mine")
    assert sorted(scenario.entries.values_list("platform__slug", flat=True)) == ["aws-sydney", "magnus"]


def test_a_member_picks_the_copy_in_the_scenario_builder(client, team, magnus_copy):
    client.force_login(team["dave"])
    client.post("/accounts/workspaces/switch/", {"workspace": team["workspace"].pk})
    assert f'name="p-{magnus_copy.slug}-include"' in client.get("/scenarios/new/").content.decode()


def test_an_outsider_cannot_pick_another_workspaces_copy_in_the_run_form(client, team, magnus_copy):
    client.force_login(team["bob"])
    response = client.post("/runs/", {"workload": "chiles-epoch1", "platform": magnus_copy.slug, "replications": "1",
                                      "seed": "0", "options": ""})
    assert response.status_code == 200 and not SimulationRun.objects.exists()
    assert "Select a valid choice" in response.content.decode()


def test_a_copy_is_used_only_in_its_own_workspace(team, magnus_copy):
    """Dave is a member of Alice's workspace, but a comparison in his own workspace cannot use her copy: his
    workspace's members could not see it, and would see its name; the error says to copy it."""
    from apps.accounts.workspaces import personal_workspace
    from apps.scenarios.services import InvalidEntry, InvalidScenario, create_run

    workload = Workload.objects.get(slug="chiles-epoch1")
    daves = personal_workspace(team["dave"])
    entries = [(magnus_copy, {}, {}), (Platform.objects.get(slug="aws-sydney"), {}, {})]
    with pytest.raises(InvalidEntry, match="belongs to another workspace: copy it into this one"):
        create_scenario(name="mixed", workload=workload, entries=entries, user=team["dave"], workspace=daves)
    with pytest.raises(InvalidScenario, match="platform: .*belongs to another workspace"):
        create_run(platform=magnus_copy, workload=workload, user=team["dave"], workspace=daves)
    assert not Scenario.objects.exists() and not SimulationRun.objects.exists()
    # in Alice's workspace it is fine
    create_scenario(name="ours", workload=workload, entries=entries, user=team["dave"], workspace=team["workspace"])
