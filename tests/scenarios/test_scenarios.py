"""Scenarios: the builder's validation, the demo, running, results, what-if and compare (Django test client)."""

from __future__ import annotations

import pytest

from apps.platforms.models import Platform
from apps.scenarios.models import Scenario, SimulationRun, combined_status
from apps.scenarios.services import (
    DEMO,
    InvalidEntry,
    InvalidScenario,
    create_demo_scenario,
    create_scenario,
    execute_replication,
    run_scenario,
    scenario_results,
    scenario_status,
)
from apps.workloads.models import Workload

HOUR = 3600.0


def _builder_post(**changes) -> dict:
    """A valid builder submission: CHILES on Magnus and AWS with every default, plus ``changes``."""
    data = {"name": "Magnus vs AWS", "workload": "chiles-epoch1", "replications": "2", "seed": "1", "tco_years": "5",
            "epochs_per_year": "1", "p-magnus-include": "on", "p-aws-sydney-include": "on"}
    return data | changes


def _defaults_of_form(client, slug: str) -> dict:
    """Every field of a platform's placement table as the builder renders it (its initial values)."""
    from apps.scenarios.forms import PlatformOptionsForm

    form = PlatformOptionsForm(platform=Platform.objects.get(slug=slug), workload=Workload.objects.get(slug="chiles-epoch1"))
    out = {}
    for name, field in form.fields.items():
        value = form.get_initial_for_field(field, name)
        if value is None or isinstance(value, bool):
            continue
        out[f"p-{slug}-{name}"] = str(value)
    return out


def _execute(scenario: Scenario) -> None:
    """Run every replication in-process (the worker tests run them on a real worker)."""
    for run in scenario.runs():
        for rep in run.replication_set.all():
            execute_replication(str(run.id), rep.index)


def test_the_builder_starts_from_the_papers_placements(logged_in, catalogue):
    body = logged_in.get("/scenarios/new/").content.decode()
    assert 'name="p-magnus-include"' in body and 'name="p-aws-sydney-invert-node_type"' in body
    # the paper's AWS INVERT runs on r3.4xlarge spot instances launched every 300 s (§5.2.2)
    assert '<option value="r3.4xlarge" selected>' in body
    assert 'name="p-aws-sydney-invert-launch_interval_s" value="300.0"' in body
    assert 'name="param-n_days"' in body


def test_a_submission_with_defaults_saves_no_options(logged_in, catalogue):
    data = _builder_post() | _defaults_of_form(logged_in, "magnus") | _defaults_of_form(logged_in, "aws-sydney")
    response = logged_in.post("/scenarios/new/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    scenario = Scenario.objects.get()
    assert [(e.platform.slug, e.options, e.platform_overrides) for e in scenario.entries.all()] == [
        ("aws-sydney", {}, {}), ("magnus", {}, {})]
    assert not SimulationRun.objects.exists()  # saved, not run


def test_an_edited_stage_becomes_a_full_placement_and_the_rest_stay_default(logged_in, catalogue):
    data = _builder_post() | _defaults_of_form(logged_in, "magnus") | _defaults_of_form(logged_in, "aws-sydney")
    data["p-magnus-invert-nodes"] = "10"
    data["p-magnus-queue_wait_median_h"] = "85"  # half the catalogue's 170 h
    data["param-n_days"] = "21"
    assert logged_in.post("/scenarios/new/", data).status_code == 302
    scenario = Scenario.objects.get()
    magnus = scenario.entries.get(platform__slug="magnus")
    [placement] = magnus.options["placements"]
    assert placement["stage"] == "invert" and placement["nodes"] == 10 and placement["policy"] == "static"
    assert magnus.platform_overrides == {"facts": {"queue_wait_median": 85 * HOUR}}
    assert scenario.workload_overrides == {"n_days": 21.0}


BAD_INPUTS = [
    ({"replications": "0"}, "Replications: Ensure this value is greater than or equal to 1."),
    ({"replications": "many"}, "Replications: Enter a whole number."),
    ({"seed": "-1"}, "Seed: Ensure this value is greater than or equal to 0."),
    ({"tco_years": "0"}, "TCO horizon (years): Ensure this value is greater than or equal to 0.1."),
    ({"tco_years": "1e400"}, "TCO horizon (years):"),
    ({"name": ""}, "Name: This field is required."),
    ({"name": "x" * 300}, "Name: Ensure this value has at most 200 characters"),
    ({"p-aws-sydney-include": ""}, "platforms: choose at least 2 platforms to compare"),
    ({"p-magnus-invert-nodes": "-3"}, "Ensure this value is greater than or equal to 1."),
    ({"p-magnus-invert-nodes": "lots"}, "Enter a whole number."),
    ({"p-magnus-invert-node_type": "bogus"}, "Select a valid choice. bogus is not one of the available choices."),
    ({"p-aws-sydney-split-pricing": "free"}, "Select a valid choice. free is not one of the available choices."),
    ({"p-aws-sydney-invert-launch_interval_s": "-5"}, "Ensure this value is greater than or equal to 0."),
    ({"p-magnus-split-queue_wait_h": "soon"}, "Enter a number."),
    ({"p-magnus-queue_wait_median_h": "0"}, "Median queue wait (h): Ensure this value is greater than or equal to 0.001."),
    ({"param-n_days": "-5"}, "must be greater than zero"),
    ({"param-day_size_mean": "12 parsecs"}, "day size"),
    ({"p-aws-sydney-tier1-iops": "0"}, "Ensure this value is greater than or equal to 1."),
    ({"p-aws-sydney-tier1-iops": "NaN"}, "IOPS of EBS Provisioned IOPS (SSD):"),
    ({"workload": "chiles-epoch1", "p-magnus-invert-storage_in": "S3 Reduced Redundancy"}, "Select a valid choice."),
]


@pytest.mark.parametrize("changes,message", BAD_INPUTS, ids=[next(iter(c)) + "=" + list(c.values())[-1][:12]
                                                           for c, _ in BAD_INPUTS])
def test_bad_input_is_explained_next_to_the_field_and_nothing_is_saved(logged_in, catalogue, changes, message):
    data = _builder_post() | _defaults_of_form(logged_in, "magnus") | _defaults_of_form(logged_in, "aws-sydney")
    data.update(changes)
    response = logged_in.post("/scenarios/new/", data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Scenario.objects.exists()


def test_an_option_the_simulator_refuses_is_shown_on_that_platform(logged_in, catalogue):
    data = _builder_post() | _defaults_of_form(logged_in, "magnus") | _defaults_of_form(logged_in, "aws-sydney")
    data["p-aws-sydney-invert-storage_in"] = ""  # INVERT on the cloud must read from somewhere
    data["p-aws-sydney-invert-node_type"] = ""
    response = logged_in.post("/scenarios/new/", data)
    body = response.content.decode()
    assert response.status_code in (302, 400)
    if response.status_code == 400:  # refused: the reason names the platform, beside its options
        assert "AWS Sydney" in body and 'class="error" role="alert"' in body


def test_unknown_workloads_and_scenarios_are_404_not_500(logged_in, catalogue):
    assert logged_in.get("/scenarios/new/?workload=nope").status_code == 404
    assert logged_in.post("/scenarios/new/", {"workload": "nope"}).status_code == 404
    assert logged_in.get("/scenarios/new/?from=not-a-uuid").status_code == 200
    assert logged_in.get("/scenarios/00000000-0000-0000-0000-000000000000/").status_code == 404
    assert logged_in.get("/scenarios/00000000-0000-0000-0000-000000000000/status/").status_code == 404
    assert logged_in.get("/scenarios/compare/?a=x&b=y").status_code == 400
    assert logged_in.get("/scenarios/00000000-0000-0000-0000-000000000000/run/").status_code == 405


def test_the_service_refuses_one_platform_and_names_a_bad_override(catalogue):
    workload = Workload.objects.get(slug="chiles-epoch1")
    magnus, aws = Platform.objects.get(slug="magnus"), Platform.objects.get(slug="aws-sydney")
    with pytest.raises(InvalidScenario, match="at least 2 platforms"):
        create_scenario(name="x", workload=workload, entries=[(magnus, {}, {})])
    with pytest.raises(InvalidEntry, match=r"platforms\[0\].platform_overrides.storage_tiers.RAM disk: magnus has "
                                           "no storage tier 'RAM disk'"):
        create_scenario(name="x", workload=workload, entries=[
            (magnus, {}, {"storage_tiers": {"RAM disk": {"iops": 5}}}), (aws, {}, {})])
    with pytest.raises(InvalidScenario, match="workload_overrides.n_elephants: not a parameter"):
        create_scenario(name="x", workload=workload, workload_overrides={"n_elephants": 3},
                        entries=[(magnus, {}, {}), (aws, {}, {})])
    assert not Scenario.objects.exists()


def test_the_demo_runs_one_run_per_platform_and_the_results_page_shows_every_section(logged_in, catalogue, user):
    scenario = create_demo_scenario(user)
    run_scenario(scenario)
    runs = scenario.runs()
    assert [r.platform.slug for r in runs] == list(DEMO["platforms"])
    assert all(r.replications == DEMO["replications"] for r in runs)
    assert scenario_status(scenario)["status"] == "running"
    _execute(scenario)
    status = logged_in.get(f"/scenarios/{scenario.pk}/status/").json()
    assert status["status"] == "succeeded" and status["progress"] == 1.0 and status["finished"]
    scenario.refresh_from_db()
    assert scenario.results_cache is not None  # prepared when the last run finished
    body = logged_in.get(scenario.get_absolute_url()).content.decode()
    for marker in ['id="recommendation"', 'id="ranking-table"', 'id="cost-story"', 'id="fig-gantt"', 'id="bound-table"', 'id="fig-utilisation"', 'id="fig-costs"',
                   'id="fig-makespan"', 'id="fig-cost"', 'id="scenario-figures"', 'id="validation-table"', 'id="scoring"']:
        assert marker in body, marker
    # the paper's bounds: Magnus INVERT is CPU-bound, AWS SPLIT bound by the provisioned-IOPS volume
    bounds = {row["stage"]: row["cells"] for row in scenario.results_cache["bounds"]}
    names = {e.platform.slug: e.platform.name for e in scenario.entries.select_related("platform")}
    assert bounds["invert"][names["magnus"]]["bound_by"] == "cpu"
    assert bounds["split"][names["aws-sydney"]]["bound_by"] == "EBS Provisioned IOPS (SSD)"
    summary = {s["platform"]: s for s in scenario.results_cache["summary"]}
    assert summary["magnus"]["queue_wait_s"] > 0 and summary["aws-sydney"]["queue_wait_s"] == 0


def test_reopening_finished_results_reads_the_cache(logged_in, catalogue, user, django_assert_max_num_queries):
    scenario = create_demo_scenario(user)
    run_scenario(scenario)
    _execute(scenario)
    scenario_results(Scenario.objects.get(pk=scenario.pk))
    with django_assert_max_num_queries(40):
        assert logged_in.get(scenario.get_absolute_url()).status_code == 200


def test_a_failed_platform_is_reported_in_plain_words(logged_in, catalogue, user):
    scenario = create_demo_scenario(user)
    run_scenario(scenario)
    run = scenario.entries.get(platform__slug="magnus").run
    SimulationRun.objects.filter(pk=run.pk).update(status="failed", error="ValueError: no nodes left in the queue")
    state = scenario_status(scenario)
    assert state["status"] == "running"  # the others are still queued
    [magnus] = [p for p in state["platforms"] if p["platform"] == "magnus"]
    assert magnus["error"] == "The simulation on Magnus (Pawsey Cray XC40) stopped with an error: no nodes left in the queue"
    assert "no nodes left in the queue" in logged_in.get(scenario.get_absolute_url()).content.decode()


def test_cancel_stops_every_run_and_the_scenario_can_run_again(logged_in, catalogue, user):
    scenario = create_demo_scenario(user)
    run_scenario(scenario)
    response = logged_in.post(f"/scenarios/{scenario.pk}/cancel/", follow=True)
    assert "Cancelled 3 runs." in response.content.decode()
    assert scenario_status(scenario)["status"] == "cancelled"
    old = {r.pk for r in scenario.runs()}
    assert logged_in.post(f"/scenarios/{scenario.pk}/run/").status_code == 302
    assert scenario_status(scenario)["status"] == "running" and not old & {r.pk for r in scenario.runs()}


def test_a_what_if_halves_the_queue_wait_and_compare_shows_the_change(logged_in, catalogue, user):
    scenario = create_demo_scenario(user)
    run_scenario(scenario)
    _execute(scenario)
    response = logged_in.post(f"/scenarios/{scenario.pk}/what-if/", {"kind": "queue", "target": "magnus", "factor": "0.5"})
    clone = Scenario.objects.get(parent=scenario)
    assert response["Location"] == f"/scenarios/compare/?a={scenario.pk}&b={clone.pk}"
    assert clone.entries.get(platform__slug="magnus").platform_overrides == {"facts": {"queue_wait_median": 85 * HOUR}}
    assert clone.change == "queue wait on Magnus (Pawsey Cray XC40) x0.5"
    _execute(clone)
    body = logged_in.get(response["Location"]).content.decode()
    assert "Magnus (Pawsey Cray XC40): queue wait median" in body and "3.54 days" in body
    assert 'id="outcome-diff"' in body and "compare-pending" not in body
    a = {s["platform"]: s for s in scenario_results(scenario)["summary"]}
    b = {s["platform"]: s for s in scenario_results(clone)["summary"]}
    # same seeds: Pleiades and AWS are untouched, Magnus waits less
    assert a["aws-sydney"]["results"] == b["aws-sydney"]["results"]
    assert b["magnus"]["results"]["makespan_p50_s"] < a["magnus"]["results"]["makespan_p50_s"]


def test_a_what_if_edit_of_the_wrong_kind_is_refused(logged_in, catalogue, user):
    scenario = create_demo_scenario(user)
    response = logged_in.post(f"/scenarios/{scenario.pk}/what-if/", {"kind": "iops", "target": "magnus", "factor": "2"},
                              follow=True)
    assert "What-if not started" in response.content.decode()
    response = logged_in.post(f"/scenarios/{scenario.pk}/what-if/", {"kind": "iops", "target": "x", "factor": "-1"},
                              follow=True)
    assert response.status_code == 200 and "What-if not started" in response.content.decode()
    assert Scenario.objects.count() == 1


def test_clone_and_edit_prefills_the_builder(logged_in, catalogue, user):
    workload = Workload.objects.get(slug="chiles-epoch1")
    magnus, aws = Platform.objects.get(slug="magnus"), Platform.objects.get(slug="aws-sydney")
    source = create_scenario(name="Mine", workload=workload, replications=3, user=user, entries=[
        (magnus, {"placements": [{"stage": "invert", "node_type": "xc40-compute", "nodes": 7}]}, {}), (aws, {}, {})])
    body = logged_in.get(f"/scenarios/new/?workload=chiles-epoch1&from={source.pk}").content.decode()
    assert 'value="Mine (edited)"' in body
    assert 'name="p-magnus-invert-nodes" value="7"' in body
    assert 'name="p-magnus-include" id="id_p-magnus-include" checked' in body


@pytest.mark.parametrize("statuses, combined", [
    ([], "draft"), (["succeeded", None], "draft"), (["succeeded", "running"], "running"),
    (["queued", "failed"], "running"), (["failed", "cancelled"], "failed"), (["succeeded", "cancelled"], "cancelled"),
    (["succeeded", "succeeded"], "succeeded"),
])
def test_a_scenarios_status_is_computed_from_the_platform_statuses_it_shows(statuses, combined):
    # the polled status and its per-platform rows come from one read of the runs: "succeeded" never comes
    # with a platform still running (they were two reads, and a run could finish between them)
    assert combined_status(statuses) == combined
