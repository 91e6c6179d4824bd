"""A finished scenario's results are prepared on the worker in parts (ranked results, then charts, then validation);
the results page shows what is saved and waits for the rest, never computing it while the worker does, and reports,
the API and compare read only complete results."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from apps.scenarios import services
from apps.scenarios.models import Scenario, SimulationRun
from apps.scenarios.services import (
    PREPARE_WAIT_S,
    create_demo_scenario,
    execute_replication,
    run_scenario,
    scenario_results,
    scenario_status,
)


def _finished_demo(user, *, prepared: bool = True) -> Scenario:
    """The demo, every replication executed in-process; ``prepared=False`` drops what the last run's end saved (as
    a page sees it between the runs' end and the worker's first part)."""
    scenario = run_scenario(create_demo_scenario(user))
    for run in scenario.runs():
        for rep in run.replication_set.all():
            execute_replication(str(run.id), rep.index)
    if not prepared:
        Scenario.objects.filter(pk=scenario.pk).update(results_cache=None)
    return Scenario.objects.get(pk=scenario.pk)


def test_the_last_run_to_finish_prepares_every_part_and_the_status_says_so(logged_in, catalogue, user):
    scenario = _finished_demo(user)
    bundle = scenario.results_cache
    assert bundle["pending"] == [] and bundle["scoring"]["radar"] and set(bundle["figures"]) == {
        "gantt", "utilisation", "costs", "makespan", "cost"} and bundle["validation"]["rows"]
    status = logged_in.get(f"/scenarios/{scenario.pk}/status/").json()
    assert status["finished"] and status["ready"] and status["pending"] == []
    deferred = Scenario.objects.defer("results_cache").get(pk=scenario.pk)  # as the polled status reads it
    assert scenario_status(deferred) == scenario_status(scenario)
    body = logged_in.get(scenario.get_absolute_url()).content.decode()
    assert 'data-finished="1"' in body and "data-pending" not in body and 'id="radar-data"' in body


def test_a_page_opened_while_the_charts_and_validation_are_prepared_shows_the_ranked_results_and_waits(
        logged_in, catalogue, user):
    scenario = _finished_demo(user)
    complete = scenario.results_cache
    partial = {**complete, "figures": {}, "bounds": [], "validation": None, "pending": ["figures", "validation"]}
    partial.pop("money")
    Scenario.objects.filter(pk=scenario.pk).update(results_cache=partial)  # as the worker saves its first part
    state = scenario_status(Scenario.objects.get(pk=scenario.pk))
    assert state["ready"] and state["pending"] == ["figures", "validation"]
    assert logged_in.get(f"/scenarios/{scenario.pk}/status/").json()["pending"] == ["figures", "validation"]
    body = logged_in.get(scenario.get_absolute_url()).content.decode()
    assert 'id="recommendation"' in body and 'id="radar-data"' in body and 'id="cost-story"' in body
    assert 'data-pending="figures"' in body and 'data-pending="validation"' in body and 'data-finished="0"' in body
    assert 'id="fig-gantt"' not in body and 'id="validation-table"' not in body
    # the live re-ranking reads the ranked results as they are, without waiting for (or computing) the rest
    weights = ",".join("1" for _ in complete["scoring"]["weights"])
    assert logged_in.get(f"/scenarios/{scenario.pk}/recommendation/?weights={weights}").status_code == 200
    assert Scenario.objects.get(pk=scenario.pk).results_cache["pending"] == ["figures", "validation"]
    # a reader of complete results (reports, the API, compare) computes what is missing, and saves it whole
    whole = scenario_results(Scenario.objects.get(pk=scenario.pk))
    assert not whole.get("pending") and whole["figures"] == complete["figures"]
    assert whole["validation"] == complete["validation"]
    assert not Scenario.objects.get(pk=scenario.pk).results_cache.get("pending")


def test_between_the_runs_end_and_the_first_part_the_page_waits_for_the_worker(logged_in, catalogue, user):
    scenario = _finished_demo(user, prepared=False)
    status = logged_in.get(f"/scenarios/{scenario.pk}/status/").json()
    assert status["finished"] and not status["ready"]
    body = logged_in.get(scenario.get_absolute_url()).content.decode()
    assert 'id="results-pending"' in body and 'id="recommendation"' not in body and 'data-finished="0"' in body
    assert Scenario.objects.get(pk=scenario.pk).results_cache is None  # the page computed nothing
    services.prepare_results(Scenario.objects.get(pk=scenario.pk))
    assert scenario_status(Scenario.objects.get(pk=scenario.pk))["ready"] and 'id="recommendation"' in logged_in.get(
        scenario.get_absolute_url()).content.decode()


def test_the_page_computes_the_results_itself_when_no_worker_will(logged_in, catalogue, user):
    scenario = _finished_demo(user, prepared=False)
    runs = SimulationRun.objects.filter(pk__in=[r.pk for r in scenario.runs()])
    # the worker was lost between the runs' end and the results: after PREPARE_WAIT_S the page stops waiting
    runs.update(finished_at=timezone.now() - timedelta(seconds=PREPARE_WAIT_S + 1))
    assert scenario_status(Scenario.objects.get(pk=scenario.pk))["ready"]
    assert 'id="recommendation"' in logged_in.get(scenario.get_absolute_url()).content.decode()
    # a failed run: no worker prepares them, the page does at once
    scenario = _finished_demo(user, prepared=False)
    run = scenario.runs()[0]
    SimulationRun.objects.filter(pk=run.pk).update(status="failed", error="ValueError: no nodes left in the queue")
    assert scenario_status(Scenario.objects.get(pk=scenario.pk))["ready"]
    assert "no nodes left in the queue" in logged_in.get(scenario.get_absolute_url()).content.decode()
