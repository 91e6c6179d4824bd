"""Report pages and the export command: request from the results page, a real worker generates it, download;
bad requests are refused with a message and save nothing; the command line writes every format."""

from __future__ import annotations

import io
import json
import time
import zipfile

import pytest
from django.core.management import CommandError, call_command

from apps.reports.models import Report
from apps.reports.services import generate_report
from apps.scenarios.services import create_demo_scenario


def test_the_results_page_offers_every_export_format(logged_in, finished_demo):
    body = logged_in.get(finished_demo.get_absolute_url()).content.decode()
    assert 'id="export-form"' in body
    for fmt in ("pdf", "html", "csv", "xlsx", "json"):
        assert f'name="format" value="{fmt}"' in body


def test_an_unknown_format_or_an_unfinished_scenario_is_refused_and_nothing_saved(logged_in, catalogue, user):
    draft = create_demo_scenario(user)
    response = logged_in.post(f"/scenarios/{draft.pk}/reports/", {"format": "json"}, follow=True)
    assert "Cannot export the report: scenario: it is draft; run it to the end" in response.content.decode()
    response = logged_in.post(f"/scenarios/{draft.pk}/reports/", {"format": "docx"}, follow=True)
    assert "format: &#x27;docx&#x27; is not one of pdf, html, csv, xlsx, json" in response.content.decode()
    assert not Report.objects.exists()
    assert logged_in.get(f"/scenarios/{draft.pk}/reports/").status_code == 405


def test_unknown_reports_are_404_and_an_unfinished_one_has_nothing_to_download(logged_in, finished_demo):
    assert logged_in.get("/reports/00000000-0000-0000-0000-000000000000/").status_code == 404
    assert logged_in.get("/reports/not-a-uuid/").status_code == 404
    report = Report.objects.create(scenario=finished_demo, format="json")
    assert logged_in.get(f"/reports/{report.pk}/download/").status_code == 404
    assert logged_in.get(f"/reports/{report.pk}/status/").json()["status"] == "queued"


def test_a_cancelled_report_is_never_written(logged_in, finished_demo):
    report = Report.objects.create(scenario=finished_demo, format="csv")
    response = logged_in.post(f"/reports/{report.pk}/cancel/", follow=True)
    assert "Report cancelled." in response.content.decode()
    assert generate_report(report.pk) == "cancelled"  # the worker picks it up afterwards: nothing happens
    report.refresh_from_db()
    assert report.status == "cancelled" and not report.file


def test_a_report_of_a_scenario_whose_runs_were_deleted_fails_with_a_reason(finished_demo):
    report = Report.objects.create(scenario=finished_demo, format="json")
    for entry in finished_demo.entries.all():
        entry.run.delete()
    assert generate_report(report.pk) == "failed"
    report.refresh_from_db()
    assert "is draft: run it to the end" in report.error and not report.file


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_worker_generates_the_report_and_the_browser_downloads_it(celery_worker_process, client, user, settings):
    from apps import settings as project_settings
    from apps.scenarios.services import execute_replication, run_scenario
    from apps.workloads.catalogue import load_catalogue

    # the worker writes reports to its MEDIA_ROOT (the project default); the web side must read the same one
    settings.MEDIA_ROOT = project_settings.MEDIA_ROOT
    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    scenario = run_scenario(create_demo_scenario(user), dispatch=False)
    for run in scenario.runs():
        for rep in run.replication_set.all():
            execute_replication(str(run.id), rep.index)
    client.force_login(user)
    response = client.post(f"/scenarios/{scenario.pk}/reports/", {"format": "csv"})
    report = Report.objects.get()
    assert response.status_code == 302 and response["Location"] == report.get_absolute_url()
    deadline = time.monotonic() + 120
    status = {}
    while time.monotonic() < deadline:
        status = client.get(f"/reports/{report.pk}/status/").json()
        if status["finished"]:
            break
        time.sleep(0.3)
    assert status["status"] == "succeeded", status
    assert status["progress"] == 1.0 and status["download_url"]
    page = client.get(report.get_absolute_url()).content.decode()
    assert 'id="download"' in page
    download = client.get(status["download_url"])
    assert download.status_code == 200 and download["Content-Type"].startswith("application/zip")
    assert "attachment" in download["Content-Disposition"] and ".zip" in download["Content-Disposition"]
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    assert "ranking.csv" in archive.namelist()
    assert client.get(scenario.get_absolute_url()).content.decode().count('id="report-list"') == 1


def test_the_command_runs_the_demo_and_writes_json_that_other_formats_agree_with(catalogue, tmp_path):
    out = io.StringIO()
    call_command("export_report", "demo", "--run", "--format", "json", "-o", str(tmp_path / "r.json"),
                 "--summary", "json", stdout=out)
    written = json.loads(out.getvalue())
    doc = json.loads((tmp_path / "r.json").read_text())
    assert written["bytes"] == (tmp_path / "r.json").stat().st_size
    assert written["recommendation"] == doc["recommendation"]["platform"] == doc["ranking"][0]["platform"]
    out = io.StringIO()
    call_command("export_report", doc["scenario"]["id"], "--format", "xlsx", "-o", str(tmp_path / "r.xlsx"),
                 stdout=out)
    assert out.getvalue().startswith(f"wrote {tmp_path / 'r.xlsx'}") and (tmp_path / "r.xlsx").stat().st_size > 0
    assert not list(tmp_path.glob("*.part"))


def test_the_command_explains_what_is_wrong(catalogue, tmp_path):
    with pytest.raises(CommandError, match="no scenario has id or name 'nope'"):
        call_command("export_report", "nope", "--format", "json", "-o", str(tmp_path / "x.json"))
    with pytest.raises(CommandError, match="directory .*missing does not exist"):
        call_command("export_report", "demo", "--format", "json", "-o", str(tmp_path / "missing" / "x.json"))
    with pytest.raises(CommandError, match=r"is draft: run it to the end .*\(add --run"):
        call_command("export_report", "demo", "--format", "json", "-o", str(tmp_path / "x.json"))
    assert not (tmp_path / "x.json").exists()
