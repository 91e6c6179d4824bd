"""Uploads parsed by a real Celery worker process: success, a malformed file, and a cancel mid-parse."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from apps.profiles.models import Profile, ProfileImport


@pytest.fixture
def worker_media(settings, celery_worker_process):
    """The worker process reads uploads from its own MEDIA_ROOT (the project default): use the same one."""
    from apps import settings as project_settings

    settings.MEDIA_ROOT = project_settings.MEDIA_ROOT
    return Path(project_settings.MEDIA_ROOT)


def _wait(job_id, done, timeout=60) -> ProfileImport:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = ProfileImport.objects.get(pk=job_id)
        if done(job):
            return job
        time.sleep(0.1)
    raise AssertionError(f"import stuck at {job.status} {job.progress:.2f}")


def _upload(client, *paths, **data):
    files = [open(p, "rb") for p in paths]
    try:
        return client.post("/profiles/", {"files": files, "format": "auto", **data}, HTTP_ACCEPT="application/json")
    finally:
        for f in files:
            f.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_worker_imports_uploaded_files(worker_media, client, user, samples):
    client.force_login(user)
    body = _upload(client, samples / "seq_read.strace", samples / "seq_read.pidstat.txt").json()
    jobs = [_wait(i["id"], lambda j: j.is_finished) for i in body["imports"]]
    assert [j.status for j in jobs] == ["succeeded", "succeeded"], [j.error for j in jobs]
    assert all(j.worker for j in jobs)
    assert Profile.objects.get(format="strace").summary["classification"] == "sequential"
    page = client.get(jobs[0].profile.get_absolute_url())
    assert page.status_code == 200 and b"sequential read dominated" in page.content


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_worker_reports_a_malformed_file_and_saves_nothing(worker_media, client, user, samples, tmp_path):
    client.force_login(user)
    bad = tmp_path / "bad.pidstat.txt"
    lines = (samples / "rand_read.pidstat.txt").read_text().splitlines(keepends=True)
    lines[6] = lines[6].replace("0.00", "zero", 1)
    bad.write_text("".join(lines))
    body = _upload(client, bad).json()
    job = _wait(body["imports"][0]["id"], lambda j: j.is_finished)
    assert job.status == "failed" and job.error_line == 7 and "bad.pidstat.txt, line 7" in job.error
    assert not Profile.objects.exists()
    assert not (worker_media / job.upload_path).exists()
    status = client.get(f"/profiles/imports/{job.pk}/status/").json()
    assert status["finished"] and status["error_line"] == 7


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_long_import_reports_progress_and_can_be_cancelled(worker_media, client, user, samples, tmp_path):
    client.force_login(user)
    big = tmp_path / "big.strace"
    one = (samples / "rand_read.strace").read_bytes()
    with open(big, "wb") as f:  # the real trace 60 times over (~110 MB): time stamps restart, which is allowed
        for _ in range(60):
            f.write(one)
    body = _upload(client, big).json()
    job_id = body["imports"][0]["id"]
    _wait(job_id, lambda j: j.progress > 0 or j.is_finished)
    response = client.post(f"/profiles/imports/{job_id}/cancel/")
    assert response.status_code == 302
    job = _wait(job_id, lambda j: j.is_finished)
    assert job.status == "cancelled"
    assert not Profile.objects.exists()
    assert not (worker_media / job.upload_path).exists()
