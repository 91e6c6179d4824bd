"""A scenario's results page is scored from its own runs, and the weight sliders re-rank through /scoring/rerank/."""

import json

import pytest

from apps.platforms.models import Platform
from apps.scenarios.models import Replication, Scenario, SimulationRun
from apps.scenarios.services import create_demo_scenario, execute_replication, run_scenario, scenario_page
from apps.scoring.adapters import summary_from_results
from apps.scoring.services import run_summary
from apps.workloads.models import Workload


def test_rerank_aggregates_the_given_ranks_under_the_given_weights(logged_in):
    ranks = {"a": [5, 0], "b": [0, 4]}
    response = logged_in.get("/scoring/rerank/", {"ranks": json.dumps(ranks), "weights": "1,3"})
    assert response.status_code == 200
    data = response.json()
    assert data["aggregates"]["weighted_sum"] == pytest.approx({"a": 5 / 4 / 5, "b": 12 / 4 / 5})
    assert data["orders"]["weighted_sum"] == ["b", "a"]


@pytest.mark.parametrize("params, message", [
    ({"ranks": "{not json", "weights": "1"}, "Expecting property name"),
    ({"ranks": json.dumps({"a": [7]}), "weights": "1"}, "ranks: a JSON object"),
    ({"ranks": json.dumps({"a": [1, 2]}), "weights": "1"}, "weights: expected 2 numbers, got 1"),
    ({"ranks": json.dumps({"a": [1]}), "weights": "-1"}, "weights: must be non-negative"),
    ({"ranks": json.dumps({"a": [1]}), "weights": "x"}, "could not convert string to float"),
])
def test_rerank_refuses_bad_input_with_a_400_that_says_why(logged_in, params, message):
    response = logged_in.get("/scoring/rerank/", params)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_the_demo_scenario_is_scored_from_its_own_runs_and_cached(catalogue, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    scenario = create_demo_scenario()
    run_scenario(scenario)
    for entry in scenario.entries.select_related("run"):
        for rep in entry.run.replication_set.all():
            execute_replication(str(entry.run.id), rep.index)
    page = scenario_page(Scenario.objects.get(pk=scenario.pk))
    scoring = page["scoring"]
    assert set(scoring["ranks"]) == {"pleiades", "magnus", "aws-sydney"}
    report = scoring["report"]
    magnus = next(p for p in report["platforms"] if p["slug"] == "magnus")
    run = scenario.entries.get(platform__slug="magnus").run
    makespans = sorted(r.result["makespan_s"] for r in run.replication_set.all())
    assert magnus["run"]["makespan_s"] == makespans[(len(makespans) - 1) // 2]  # the median replication, not a re-run
    assert report["tco"]["horizon"]["years"] == round(scenario.tco_years)
    assert Scenario.objects.get(pk=scenario.pk).results_cache["scoring"]["ranks"] == scoring["ranks"]


def test_editing_the_criteria_rescores_and_disabling_all_explains(catalogue):
    from apps.scoring.models import Criterion

    scenario = create_demo_scenario()
    run_scenario(scenario)
    for entry in scenario.entries.select_related("run"):
        for rep in entry.run.replication_set.all():
            execute_replication(str(entry.run.id), rep.index)
    first = scenario_page(Scenario.objects.get(pk=scenario.pk))["scoring"]
    criterion = Criterion.objects.order_by("pk").last()
    criterion.weight = 2.5
    criterion.save()
    second = scenario_page(Scenario.objects.get(pk=scenario.pk))["scoring"]
    assert second["weights"][-1] == 2.5 and first["weights"][-1] != 2.5
    Criterion.objects.update(enabled=False)
    third = scenario_page(Scenario.objects.get(pk=scenario.pk))["scoring"]
    assert "criteria: none enabled" in third["error"]


def test_rerank_leaves_an_unknown_rank_out(logged_in):
    # a's second criterion is unknown: a is scored on its first alone (5), b on both ((0 + 4 * 3) / 4)
    ranks = {"a": [5, None], "b": [0, 4]}
    response = logged_in.get("/scoring/rerank/", {"ranks": json.dumps(ranks), "weights": "1,3"})
    assert response.status_code == 200
    assert response.json()["aggregates"]["weighted_sum"] == pytest.approx({"a": 1.0, "b": 12 / 4 / 5})


def _stored(makespan_s: float) -> dict:
    return {"makespan_s": makespan_s, "queue_wait_s": 1.0, "run_time_s": makespan_s - 1.0, "total_cost_aud": 2.0,
            "cost_by_category": {"compute": 2.0}, "cost_lines": [], "node_hours_used": 3.0,
            "compute_hours_billed": 3.0, "gb_months": {}, "stages": [{"stage": "split", "tasks": 4}]}


@pytest.mark.parametrize("makespans, median_index", [([30.0, 10.0, 30.0, 20.0], 3), ([10.0, 10.0, 10.0], 1)])
def test_a_run_is_scored_from_its_median_replication_read_by_its_makespan_column(catalogue, makespans, median_index):
    run = SimulationRun.objects.create(platform=Platform.objects.get(slug="magnus"),
                                       workload=Workload.objects.get(slug="chiles-epoch1"), label="r", status="succeeded")
    for i, m in enumerate(makespans):  # the makespan tells the replications apart in the summary
        Replication.objects.create(run=run, index=i, seed=i, status="succeeded", makespan_s=m,
                                   result={**_stored(m), "total_cost_aud": float(i)})
    summary = run_summary(run)
    assert summary.total_cost_aud == float(median_index) and summary.replications == len(makespans)
    # the same replication as sorting every stored result picks (lower median, ties in index order)
    assert summary == summary_from_results(list(run.replication_set.values_list("result", flat=True)), "r")
