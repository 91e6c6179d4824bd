"""Browser-side: upload (several files, a plain file input), the size limit, the profile, calibration and fio pages."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.accounts.workspaces import add_member, personal_workspace
from apps.profiles import services
from apps.profiles.models import Calibration, Profile, ProfileImport


@pytest.fixture
def inline_imports(monkeypatch):
    """Run each dispatched import in this process, under the task id its job was given, instead of sending it to a
    worker (the worker tests cover that): the job lifecycle's one send step is replaced, nothing else."""

    def send(row, task_id):
        services.execute_import(*services.IMPORT_JOBS.task_args(row), task_id=task_id)

    monkeypatch.setattr(services.IMPORT_JOBS, "send", send)


def _post(client, samples, *names, **data):
    files = [open(samples / n, "rb") for n in names]
    try:
        return client.post("/profiles/", {"files": files, "format": "auto", **data})
    finally:
        for f in files:
            f.close()


def test_the_list_page_has_a_plain_file_input_and_a_drop_zone(logged_in):
    html = logged_in.get("/profiles/").content.decode()
    assert 'type="file"' in html and "multiple" in html and 'enctype="multipart/form-data"' in html
    assert 'id="drop-zone"' in html and "js/profiles.js" in html


def test_uploading_one_file_leads_to_its_profile(logged_in, samples, inline_imports):
    response = _post(logged_in, samples, "rand_read.strace")
    job = ProfileImport.objects.get()
    assert response.status_code == 302 and response.url == job.get_absolute_url()
    assert job.status == "succeeded"
    page = logged_in.get(job.get_absolute_url())
    assert page.status_code == 302 and page.url == job.profile.get_absolute_url()


def test_uploading_several_files_imports_each(logged_in, samples, inline_imports):
    response = _post(logged_in, samples, "seq_read.strace", "seq_read.pidstat.txt", "fio_local.json")
    assert response.status_code == 302
    assert sorted(Profile.objects.values_list("format", flat=True)) == ["fio", "pidstat", "strace"]


def test_the_json_api_answers_with_the_imports(logged_in, samples, inline_imports):
    files = [open(samples / "seq_read.skyplan.csv", "rb")]
    response = logged_in.post("/profiles/", {"files": files, "format": "skyplan_csv"}, HTTP_ACCEPT="application/json")
    files[0].close()
    assert response.status_code == 202
    body = response.json()
    assert body["errors"] == [] and body["imports"][0]["filename"] == "seq_read.skyplan.csv"
    status = logged_in.get(body["imports"][0]["url"] + "status/").json()
    assert status["status"] == "succeeded" and status["profile_url"].startswith("/profiles/")


def test_a_file_over_the_size_limit_is_refused_and_nothing_saved(logged_in, samples, settings, inline_imports):
    settings.SKYPLAN_PROFILE_MAX_BYTES = 1000
    response = _post(logged_in, samples, "seq_read.pidstat.txt")
    assert response.status_code == 400
    assert "seq_read.pidstat.txt: larger than the 1000" in response.content.decode()
    assert not ProfileImport.objects.exists() and not Profile.objects.exists()


def test_a_malformed_upload_shows_its_line_not_a_500(logged_in, samples, tmp_path, inline_imports):
    bad = tmp_path / "bad.csv"
    text = (samples / "rand_read.skyplan.csv").read_text().replace("17559552", "17x59552", 1)
    bad.write_text(text)
    with open(bad, "rb") as f:
        response = logged_in.post("/profiles/", {"files": [f], "format": "auto"}, follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert "bad.csv, line 3: a number in field 4 (rss_bytes), got &#x27;17x59552&#x27;" in html
    assert "Nothing of this file was saved" in html
    assert not Profile.objects.exists()


def test_a_missing_file_is_a_form_error(logged_in):
    response = logged_in.post("/profiles/", {"format": "auto"})
    assert response.status_code == 400 and "required" in response.content.decode()


def test_the_profile_page_shows_summary_phases_and_charts(logged_in, samples):
    p = services.import_file(samples / "rand_read.strace").profile
    html = logged_in.get(p.get_absolute_url()).content.decode()
    assert 'id="classification">random<' in html
    assert "random read dominated" in html and 'id="phase-table"' in html
    for chart in ("classes", "sizes", "iat"):
        assert f'id="chart-{chart}"' in html
    assert 'id="profile-figures"' in html and "vendor/plotly/plotly.min.js" in html


def test_a_samples_profile_page_has_cpu_memory_and_io_charts(logged_in, samples):
    p = services.import_file(samples / "seq_read.pidstat.txt").profile
    html = logged_in.get(p.get_absolute_url()).content.decode()
    for chart in ("cpu", "memory", "io"):
        assert f'id="chart-{chart}"' in html
    assert "idle" in html and "Calibrate a workload stage" in html


def test_calibrating_and_applying_from_the_page(logged_in, user, staff, samples, catalogue, this_host):
    mine = personal_workspace(user)
    strace = services.import_file(samples / "seq_read.strace", workspace=mine).profile
    pidstat = services.import_file(samples / "seq_read.pidstat.txt", workspace=mine).profile
    from apps.workloads.models import WorkloadStage

    stage = WorkloadStage.objects.get(workload__slug="adiosstman-validation", name="convert_to_adios")
    response = logged_in.post(f"/profiles/{strace.pk}/calibrate/", {
        "stage": stage.pk, "platform": "sample-host", "node_type": "vm", "storage_tier": "virtio disk",
        "companion": pidstat.pk})
    cal = Calibration.objects.get()
    assert response.status_code == 302 and response.url == cal.get_absolute_url()
    html = logged_in.get(cal.get_absolute_url()).content.decode()
    assert 'id="simulated-after"' in html and "fitted from profile" in html
    # the reference catalogue is shared and read-only: only a maintainer (staff) applies to it
    assert logged_in.post(f"/profiles/calibrations/{cal.pk}/apply/").status_code == 403
    stage.refresh_from_db()
    assert stage.provenance["cpu_seconds"]["kind"] != "fitted"
    add_member(mine, staff.username, "viewer")  # a maintainer who may see this workspace's calibration
    maintainer = Client()
    maintainer.force_login(staff)
    maintainer.post(f"/profiles/calibrations/{cal.pk}/apply/")
    stage.refresh_from_db()
    assert stage.provenance["cpu_seconds"]["kind"] == "fitted"


def test_a_bad_calibration_request_is_a_message(logged_in, user, samples, catalogue, this_host):
    strace = services.import_file(samples / "seq_read.strace", workspace=personal_workspace(user)).profile
    from apps.workloads.models import WorkloadStage

    stage = WorkloadStage.objects.get(workload__slug="adiosstman-validation", name="convert_to_adios")
    response = logged_in.post(f"/profiles/{strace.pk}/calibrate/", {
        "stage": stage.pk, "platform": "sample-host", "node_type": "no-such-node"}, follow=True)
    assert response.status_code == 200 and "Calibration:" in response.content.decode()
    assert not Calibration.objects.exists()


def test_applying_fio_from_the_page(logged_in, staff, samples, this_host):
    fio = services.import_file(samples / "fio_local.json").profile
    tier = this_host.storage_tiers.get()
    assert logged_in.post(f"/profiles/{fio.pk}/measure-tier/", {"tier": tier.pk, "host": "vm"}).status_code == 403
    logged_in.force_login(staff)
    response = logged_in.post(f"/profiles/{fio.pk}/measure-tier/", {"tier": tier.pk, "host": "vm"}, follow=True)
    assert "measured on host vm at 2026-11-22 with fio" in response.content.decode()
    tier.refresh_from_db()
    assert tier.provenance["iops"]["kind"] == "measurement"
