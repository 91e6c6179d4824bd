"""Scoring pages render, and bad input gets a message next to the field instead of an error page."""

import json

import pytest
from django.urls import reverse

from apps.scoring.models import ConfigurationSearch, Criterion, ScoreReport
from apps.scoring.services import execute_report
from tests.worker_processes import wait_for


def _computed(client, url, params):
    """The page once its report is computed: the first request only asks a worker (here: this process) for it."""
    first = client.get(url, params)
    assert first.status_code == 200 and 'id="run-status"' in first.content.decode()
    row = ScoreReport.objects.get()
    assert row.status == "queued" and row.report is None
    assert execute_report(row.pk) == "succeeded"
    return client.get(url, params)


@pytest.mark.django_db
def test_it_seeds_the_papers_eight_criteria_and_the_write_bandwidth():
    assert list(Criterion.objects.values_list("key", flat=True)) == [
        "completion_time", "capital_costs", "operational_costs", "data_transfer", "typical_bandwidth",
        "typical_write_bandwidth", "typical_iops", "control", "usability"]


def test_it_shows_the_radar_ranks_and_comparison(logged_in, catalogue):
    r = _computed(logged_in, reverse("scoring:score", args=["chiles-epoch1"]), {"platform": ["magnus", "aws-sydney"]})
    assert r.status_code == 200 and 'id="run-status"' not in r.content.decode()
    body = r.content.decode()
    assert 'id="radar-data"' in body and "rank-table" in body and "comparison-table" in body
    assert "1 Gb/s link with high variance" in body
    # aggregates and robustness name platforms and methods as a reader knows them, not by slug or key
    shown = body[body.index("<h2>Aggregates</h2>"):body.index("</main>")]
    assert "Weighted sum" in shown and "AWS Sydney" in shown and "Magnus (Pawsey" in shown
    for identifier in ("aws-sydney", "weighted_sum", "weighted_product", ">topsis<", ">product<"):
        assert identifier not in shown, identifier


def test_it_puts_bad_score_input_next_to_the_field(logged_in, catalogue):
    r = logged_in.get(reverse("scoring:score", args=["chiles-epoch1"]), {"platform": "nowhere", "method": "x"})
    assert r.status_code == 200
    body = r.content.decode()
    assert "Platform: Select a valid choice" in body
    assert "Method: Select a valid choice" in body


def test_it_shows_tco_and_refuses_a_bad_horizon(logged_in, catalogue):
    url = reverse("scoring:tco", args=["chiles-epoch1"])
    r = _computed(logged_in, url, {"years": "3", "epochs_per_year": "2", "growth_per_epoch": "0.1", "method": "topsis"})
    assert r.status_code == 200
    assert 'id="curves-data"' in r.content.decode() and "break-even" in r.content.decode()
    r = logged_in.get(url, {"years": "0", "epochs_per_year": "x", "growth_per_epoch": "-5", "method": "topsis"})
    body = r.content.decode()
    assert r.status_code == 200
    assert "Years: Ensure this value is greater than or equal to 1." in body
    assert "Epochs per year: Enter a whole number." in body


@pytest.mark.django_db
def test_it_404s_an_unknown_workload(logged_in):
    assert logged_in.get(reverse("scoring:score", args=["nope"])).status_code == 404


@pytest.mark.django_db
def test_it_adds_edits_and_removes_criteria(staff_client):
    url = reverse("scoring:criteria")
    rubric = {"kind": "thresholds", "bands": [{"at": 100, "score": 5}]}
    r = staff_client.post(url, {"key": "queue", "label": "Queue", "metric": "makespan_h", "direction": "lower",
                             "rubric": json.dumps(rubric), "weight": "2", "position": "9", "enabled": "on"})
    assert r.status_code == 302
    c = Criterion.objects.get(key="queue")
    assert c.rubric == rubric and c.weight == 2.0
    r = staff_client.post(reverse("scoring:criterion", args=[c.pk]), {
        "key": "queue", "label": "Queue", "metric": "makespan_h", "direction": "lower",
        "rubric": '{"kind": "thresholds", "bands": [{"at": 1, "score": 9}]}', "weight": "1", "position": "9"})
    assert r.status_code == 200
    assert "rubric.bands[0].score: an integer from 0 to 5" in r.content.decode()
    staff_client.post(reverse("scoring:criterion_delete", args=[c.pk]))
    assert not Criterion.objects.filter(key="queue").exists()


@pytest.mark.django_db
def test_it_refuses_invalid_rubric_json_next_to_the_field(staff_client):
    r = staff_client.post(reverse("scoring:criteria"), {"key": "k", "label": "K", "metric": "iops",
                                                     "direction": "higher", "rubric": "{oops", "weight": "1",
                                                     "position": "0"})
    assert r.status_code == 200
    assert "Rubric: not valid JSON" in r.content.decode()


@pytest.mark.django_db
def test_it_restores_the_default_criteria(staff_client):
    Criterion.objects.filter(key="control").update(weight=7.0)
    Criterion.objects.filter(key="usability").delete()
    staff_client.post(reverse("scoring:criteria_reset"))
    assert Criterion.objects.count() == 9  # the paper's eight and the achieved write bandwidth
    assert Criterion.objects.get(key="control").weight == 1.0


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.mark.django_db
def test_only_staff_change_the_shared_criteria(logged_in):
    """The attack: a non-staff user renamed criterion 1 to a formula, set its weight to 0 and disabled it; every
    workspace's next report carried it."""
    first = Criterion.objects.order_by("position", "pk").first()
    before = list(Criterion.objects.order_by("pk").values())
    edit = {"key": first.key, "label": "=1+1", "metric": first.metric, "direction": first.direction,
            "rubric": json.dumps(first.rubric), "weight": "0", "position": "0"}
    assert logged_in.get(reverse("scoring:criterion", args=[first.pk])).status_code == 403
    assert logged_in.post(reverse("scoring:criterion", args=[first.pk]), edit).status_code == 403
    assert logged_in.post(reverse("scoring:criteria"), {**edit, "key": "new"}).status_code == 403
    assert logged_in.post(reverse("scoring:criterion_delete", args=[first.pk])).status_code == 403
    assert logged_in.post(reverse("scoring:criteria_reset")).status_code == 403
    assert list(Criterion.objects.order_by("pk").values()) == before
    page = logged_in.get(reverse("scoring:criteria"))
    assert page.status_code == 200 and b"Add a criterion" not in page.content and b"remove</button>" not in page.content


@pytest.mark.django_db
def test_it_asks_to_log_in_before_changing_criteria(client):
    r = client.post(reverse("scoring:criteria"), {"key": "k"})
    assert r.status_code == 302 and "login" in r["Location"]


def test_it_refuses_a_bad_search_space_next_to_the_field(logged_in, catalogue):
    r = logged_in.post(reverse("scoring:searches"), {
        "workload": "chiles-epoch1", "platform": "aws-sydney", "seed": "0",
        "space": json.dumps({"stages": {"invert": {"node_type": ["z9.huge"]}}})})
    assert r.status_code == 200
    assert "z9.huge&#x27; is not a node type of aws-sydney" in r.content.decode()
    r = logged_in.post(reverse("scoring:searches"), {"workload": "chiles-epoch1", "platform": "aws-sydney",
                                                  "seed": "0", "space": "[", "deadline_h": "-1"})
    body = r.content.decode()
    assert "Space: not valid JSON" in body and "greater than or equal to 0.001" in body
    assert not ConfigurationSearch.objects.exists()


def test_the_same_request_finds_the_kept_report_and_an_edit_asks_for_a_new_one(logged_in, catalogue):
    url = reverse("scoring:score", args=["chiles-epoch1"])
    _computed(logged_in, url, {"platform": ["magnus"]})
    ScoreReport.objects.update(task_id="kept")
    r = logged_in.get(url, {"platform": ["magnus"]})  # served from the kept report, nothing sent again
    assert "rank-table" in r.content.decode() and 'id="run-status"' not in r.content.decode()
    assert list(ScoreReport.objects.values_list("task_id", flat=True)) == ["kept"]
    Criterion.objects.filter(key="usability").update(weight=3.0)  # the criteria changed: a new report
    r = logged_in.get(url, {"platform": ["magnus"]})
    assert 'id="run-status"' in r.content.decode() and ScoreReport.objects.count() == 2
    status = logged_in.get(reverse("scoring:report_status", args=[ScoreReport.objects.first().pk])).json()
    assert status == {"status": "queued", "progress": 0.0, "done": 0, "total": 1, "finished": False}


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_worker_computes_the_report_the_page_asked_for(celery_worker_process, client, user):
    from django.conf import settings

    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    client.force_login(user)
    url = reverse("scoring:score", args=["chiles-epoch1"])
    r = client.get(url, {"platform": ["magnus", "aws-sydney"]})
    assert 'id="run-status"' in r.content.decode()
    row = ScoreReport.objects.get()
    wait_for(lambda: ScoreReport.objects.get(pk=row.pk).is_finished, 300, "the worker to compute the report")
    assert client.get(reverse("scoring:report_status", args=[row.pk])).json()["finished"] is True
    r = client.get(url, {"platform": ["magnus", "aws-sydney"]})
    assert 'id="radar-data"' in r.content.decode() and "rank-table" in r.content.decode()
