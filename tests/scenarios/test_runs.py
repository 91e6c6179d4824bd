"""Simulation runs end to end: CLI, browser pages, a real Celery worker, progress and cancellation."""

from __future__ import annotations

import json
import time

import pytest
from django.core.management import CommandError, call_command

from apps.platforms.models import Platform
from apps.scenarios.models import SimulationRun
from apps.scenarios.services import InvalidScenario, create_run, dispatch_run, execute_replication
from apps.scenarios.validation import validation_report
from apps.workloads.models import Workload


def _simulate_json(capsys, *args) -> dict:
    call_command("simulate", *args, "--format", "json")
    return json.loads(capsys.readouterr().out)


def test_the_cli_simulates_chiles_on_magnus_with_queue_wait_and_node_hour_billing(catalogue, capsys):
    out = _simulate_json(capsys, "chiles-epoch1", "--platform", "magnus")

    rep = out["replications"][0]
    assert [s["stage"] for s in rep["stages"]] == ["copy", "split", "invert", "concat"]
    assert rep["queue_wait_s"] > 0
    assert rep["makespan_s"] == pytest.approx(rep["queue_wait_s"] + rep["run_time_s"])
    assert {line["unit"] for line in rep["cost_lines"]} == {"node-hour"}
    assert rep["total_cost_aud"] == pytest.approx(sum(line["aud"] for line in rep["cost_lines"]))
    assert out["summary"]["n"] == 1
    assert SimulationRun.objects.get(pk=out["run"]).status == "succeeded"


def test_the_same_seed_gives_the_same_result_and_replications_differ(catalogue, capsys):
    a = _simulate_json(capsys, "chiles-epoch1", "--platform", "magnus", "--seed", "7", "--replications", "3")
    b = _simulate_json(capsys, "chiles-epoch1", "--platform", "magnus", "--seed", "7", "--replications", "3")

    assert [r["makespan_s"] for r in a["replications"]] == [r["makespan_s"] for r in b["replications"]]
    assert len({r["queue_wait_s"] for r in a["replications"]}) == 3  # the queue wait is sampled per replication
    s = a["summary"]
    assert s["makespan_p10_s"] <= s["makespan_p50_s"] <= s["makespan_p90_s"]


def test_the_cli_names_a_bad_option(catalogue):
    with pytest.raises(CommandError, match=r"options.placements\[0\].stage: 'imaging' is not a stage"):
        call_command("simulate", "chiles-epoch1", "--platform", "magnus",
                     "--options", json.dumps({"placements": [{"stage": "imaging"}]}))
    with pytest.raises(CommandError, match="slugs"):
        call_command("simulate", "chiles-epoch1", "--platform", "nowhere")
    assert not SimulationRun.objects.exists()


def test_invalid_options_are_refused_before_anything_is_saved(catalogue):
    with pytest.raises(InvalidScenario, match="options.include_copy: Input should be a valid boolean") as refused:
        create_run(platform=Platform.objects.get(slug="magnus"), workload=Workload.objects.get(slug="chiles-epoch1"),
                   options={"include_copy": "no"})
    assert [e.path for e in refused.value.errors] == ["options.include_copy"]
    assert not SimulationRun.objects.exists()


def test_a_replication_executed_twice_is_not_run_twice(catalogue):
    run = create_run(platform=Platform.objects.get(slug="pleiades"), workload=Workload.objects.get(slug="chiles-epoch1"))
    assert execute_replication(str(run.id), 0) == "succeeded"
    finished = run.replication_set.get().finished_at
    assert execute_replication(str(run.id), 0) == "succeeded"
    assert run.replication_set.get().finished_at == finished


def test_validate_model_prints_published_against_simulated(catalogue, capsys):
    call_command("validate_model", "--format", "json")
    report = json.loads(capsys.readouterr().out)

    rows = {(r["quantity"], r["platform"]): r for r in report}
    row = rows[("split_single_time", "magnus")]
    assert row["published"] == 437  # Table 4 of the seed paper
    assert row["error_pct"] == pytest.approx(100 * (row["simulated"] - 437) / 437)
    assert len(rows) >= 15
    assert 0 < sum(r["met"] for r in report if not r["in_sample"]) < len(report)
    assert validation_report("chiles-epoch1")["fitted"], "fitted values must be listed with their method"


# --- the browser pages (Django test client; Chromium tests come with the scenario UI) ---------------

def test_the_run_form_shows_field_errors_instead_of_failing(logged_in, catalogue):
    response = logged_in.post("/runs/", {"workload": "chiles-epoch1", "platform": "magnus", "replications": "0",
                                         "seed": "0", "retention_after_run": "forever"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "Replications: Ensure this value is greater than or equal to 1." in body
    assert "Keep the data after the run: &#x27;forever&#x27; is not a number followed by a unit, e.g. 30 s" in body
    response = logged_in.post("/runs/", {"workload": "chiles-epoch1", "platform": "magnus", "replications": "1",
                                         "seed": "0", "retention_after_run": "-2 h"})
    assert "options.retention_after_run_s: Input should be greater than or equal to 0" in response.content.decode()
    assert not SimulationRun.objects.exists()


def test_the_run_form_s_labelled_options_become_the_contract_s_run_options(logged_in, catalogue, user):
    from apps.scenarios.forms import RunForm

    form = RunForm({"workload": "chiles-epoch1", "platform": "magnus", "replications": "1", "seed": "0",
                    "include_copy": "no", "spot_interruptions": "", "single_allocation": "yes",
                    "retention_after_run": "2 day"}, user=user)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["options"] == {"include_copy": False, "single_allocation": True,
                                            "retention_after_run_s": 2 * 86400.0}
    html = logged_in.get("/runs/").content.decode()
    assert "<textarea" not in html and "JSON" not in html
    assert '<label for="id_retention_after_run">Keep the data after the run</label>' in html


def test_run_pages_404_for_unknown_runs_and_validation_for_unknown_workloads(logged_in, catalogue):
    assert logged_in.get("/runs/00000000-0000-0000-0000-000000000000/").status_code == 404
    assert logged_in.get("/runs/not-a-uuid/").status_code == 404
    assert logged_in.get("/validation/?workload=nope").status_code == 404
    assert logged_in.get("/runs/00000000-0000-0000-0000-000000000000/cancel/").status_code == 405


def test_the_validation_page_lists_every_row(logged_in, catalogue):
    from django.utils.html import escape

    from apps.scenarios.validation import validation_report

    body = logged_in.get("/validation/").content.decode()
    assert "targets met" in body and "Fitted values" in body
    rows = validation_report()["rows"]
    assert rows and all(escape(r["quantity_label"]) in body for r in rows)  # every row, under its reader's label
    assert "split_single_time" not in body


def test_a_finished_run_page_shows_summary_stages_costs_and_charts(logged_in, catalogue, user):
    run = create_run(platform=Platform.objects.get(slug="aws-sydney"), workload=Workload.objects.get(slug="chiles-epoch1"),
                     user=user,
                     replications=2)
    for rep in run.replication_set.all():
        execute_replication(str(run.id), rep.index)
    body = logged_in.get(run.get_absolute_url()).content.decode()
    assert "Summary over 2 replications" in body
    assert 'id="stage-table"' in body and 'id="cost-table"' in body
    assert 'id="timeline-data"' in body and "vendor/plotly/plotly.min.js" in body
    assert logged_in.get("/static/vendor/plotly/plotly.min.js").status_code == 200
    listing = logged_in.get("/runs/").content.decode()
    assert str(run) in listing


# --- a real worker -----------------------------------------------------------------------------------

def _wait(run, predicate, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if predicate(run):
            return run
        time.sleep(0.2)
    raise AssertionError(f"run stuck at {run.status} {run.progress():.2f}")


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_the_browser_starts_a_run_that_a_worker_finishes(celery_worker_process, client, user):
    from django.conf import settings

    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    client.force_login(user)
    response = client.post("/runs/", {"workload": "chiles-epoch1", "platform": "aws-sydney", "replications": "2",
                                      "seed": "3", "options": ""})
    assert response.status_code == 302
    run = SimulationRun.objects.get()
    _wait(run, lambda r: r.is_finished)
    assert run.status == "succeeded", run.error
    workers = set(run.replication_set.values_list("worker", flat=True))
    assert workers and "" not in workers
    status = client.get(f"/runs/{run.id}/status/").json()
    assert status == {"status": "succeeded", "progress": 1.0, "error": "", "finished": True}


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_long_run_reports_progress_and_can_be_cancelled(celery_worker_process, client, user):
    from django.conf import settings

    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    workload = Workload.objects.get(slug="sdp-predict-p3")
    workload.parameters = {**workload.parameters, "n_jobs": 160000.0}  # a long run: 480,000 tasks, ~30 s of simulation
    workload.save()
    run = create_run(platform=Platform.objects.get(slug="sdp-p3"), workload=workload, user=user)
    dispatch_run(run)
    _wait(run, lambda r: 0 < r.progress() < 1)
    client.force_login(user)
    response = client.post(f"/runs/{run.id}/cancel/")
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == "cancelled"
    rep = run.replication_set.get()
    deadline = time.monotonic() + 30
    while rep.finished_at is None and time.monotonic() < deadline:  # the worker notices and stops
        time.sleep(0.2)
        rep.refresh_from_db()
    assert rep.finished_at is not None, "the worker did not stop the cancelled replication"
    assert rep.status == "cancelled"
    assert rep.result is None
    time.sleep(1)
    run.refresh_from_db()
    assert run.status == "cancelled" and run.results is None
    # cancelling again says so instead of failing
    response = client.post(f"/runs/{run.id}/cancel/", follow=True)
    assert "already cancelled" in response.content.decode()
