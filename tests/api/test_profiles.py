"""Profiles over the API: a multipart upload starts an import job; its status; the profile's analysis summary."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from apps.profiles.models import Profile, ProfileImport
from apps.profiles.services import execute_import

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "profiles"


pytestmark = pytest.mark.usefixtures("no_import_dispatch")


def _upload(api, name="rand_read.skyplan.csv", **fields):
    with open(SAMPLES / name, "rb") as fh:
        return api.post("/api/v1/profiles/imports/", {"file": fh, **fields}, format="multipart")


def test_an_upload_becomes_an_import_job_then_a_profile_with_its_summary(api, catalogue):
    response = _upload(api, platform="magnus")
    assert response.status_code == 202, response.json()
    job = response.json()
    assert job["status"] == "queued" and job["progress"] == 0.0 and job["platform"] == "magnus"
    assert job["filename"] == "rand_read.skyplan.csv" and job["size_bytes"] == (SAMPLES / job["filename"]).stat().st_size

    execute_import(job["id"])
    done = api.get(f"/api/v1/profiles/imports/{job['id']}/").json()
    assert done["status"] == "succeeded" and done["progress"] == 1.0 and done["finished"]
    profile = Profile.objects.get()
    assert done["profile"] == profile.pk

    body = api.get(f"/api/v1/profiles/{profile.pk}/").json()
    assert body["format"] == "skyplan_csv" and body["kind"] == "samples"
    assert body["summary"] == profile.summary and body["summary"]
    assert body["phases"] == profile.phases
    assert api.get("/api/v1/profiles/").json()["count"] == 1


def test_a_malformed_file_fails_with_the_reason(api, db, tmp_path):
    bad = tmp_path / "broken.csv"
    bad.write_text("# skyplan-profile v1\ntimestamp,cpu_user_pct\nnot-a-number,1\n")
    with open(bad, "rb") as fh:
        job = api.post("/api/v1/profiles/imports/", {"file": fh}, format="multipart").json()
    execute_import(job["id"])
    failed = api.get(f"/api/v1/profiles/imports/{job['id']}/").json()
    assert failed["status"] == "failed" and "broken.csv" in failed["error"]


def test_upload_errors_are_400_naming_the_field(api, catalogue):
    assert list(api.post("/api/v1/profiles/imports/", {}, format="multipart").json()) == ["file"]
    assert list(_upload(api, format="word").json()) == ["format"]
    assert list(_upload(api, platform="atlantis").json()) == ["platform"]
    assert not ProfileImport.objects.exists()


def test_a_file_over_the_limit_is_refused(api, db, settings):
    settings.SKYPLAN_PROFILE_MAX_BYTES = 100
    response = _upload(api)
    assert response.status_code == 400
    assert "larger than the 100" in response.json()["file"][0]


def test_an_import_can_be_cancelled_and_unknown_ids_are_404(api, db):
    job = _upload(api).json()
    assert api.post(f"/api/v1/profiles/imports/{job['id']}/cancel/").json()["status"] == "cancelled"
    assert api.get(f"/api/v1/profiles/imports/{uuid.uuid4()}/").status_code == 404
    assert api.get("/api/v1/profiles/999999/").status_code == 404


def test_the_api_gives_null_for_what_a_file_does_not_record_and_the_import_warnings(api, db):
    # pidstat -u only: no memory, no I/O; a strace whose last line was cut short
    for name in ("cpu_write.pidstat_u.txt", "dd_cut.strace"):
        execute_import(_upload(api, name=name).json()["id"])
    pidstat = api.get(f"/api/v1/profiles/{Profile.objects.get(format='pidstat').pk}/").json()
    assert pidstat["summary"]["peak_memory_bytes"] is None and pidstat["summary"]["write_bytes"] is None
    assert pidstat["warnings"] == []
    strace = api.get(f"/api/v1/profiles/{Profile.objects.get(format='strace').pk}/").json()
    assert strace["warnings"][0].startswith("line 1032, the last, is cut short")
