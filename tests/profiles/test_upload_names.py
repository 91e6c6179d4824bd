"""Upload names longer than the file system allows (255 bytes): stored under a cut name, never a 500, no empty folder.

Django cuts a client's file name at 255 *characters*; in UTF-8 that is up to 1,020 bytes, and a name over 255
bytes made the store fail with ENAMETOOLONG after creating the upload's folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.profiles.models import ProfileImport
from apps.profiles.uploads import MAX_NAME_BYTES, stored_name

LONG_STEM = "é" * 250 + ".strace"  # 507 bytes
LONG_EXTENSION = "trace." + "é" * 240  # the "extension" alone is 481 bytes


pytestmark = pytest.mark.usefixtures("no_import_dispatch")


def _stored_files(settings) -> list[Path]:
    root = Path(settings.MEDIA_ROOT) / "profiles" / "uploads"
    return sorted(p for p in root.rglob("*")) if root.exists() else []


def _check_stored(settings, job: ProfileImport) -> None:
    stored = Path(settings.MEDIA_ROOT) / job.upload_path
    assert stored.is_file() and stored.read_bytes() == b"x\n"
    assert len(stored.name.encode()) <= MAX_NAME_BYTES
    # exactly the one folder and the one file: nothing else, no empty folder
    assert _stored_files(settings) == [stored.parent, stored]


def test_stored_name_keeps_a_short_name_and_cuts_a_long_one_keeping_its_extension():
    assert stored_name("seq_read.strace") == "seq_read.strace"
    assert stored_name("../../etc/passwd") == "passwd"
    assert stored_name("") == "profile" and stored_name("..") == "profile"
    cut = stored_name(LONG_STEM)
    assert cut.endswith(".strace") and len(cut.encode()) <= MAX_NAME_BYTES and cut.startswith("é")
    cut = stored_name(LONG_EXTENSION)
    assert cut.startswith("trace.") and len(cut.encode()) <= MAX_NAME_BYTES


@pytest.mark.parametrize("name", [LONG_STEM, LONG_EXTENSION])
def test_an_api_upload_with_a_name_over_255_bytes_is_accepted_under_a_cut_name(api, db, settings, name):
    response = api.post("/api/v1/profiles/imports/", {"file": SimpleUploadedFile(name, b"x\n")}, format="multipart")
    assert response.status_code == 202, response.content
    job = ProfileImport.objects.get()
    assert job.filename == response.json()["filename"] and len(job.filename.encode()) <= MAX_NAME_BYTES
    _check_stored(settings, job)


@pytest.mark.parametrize("name", [LONG_STEM, LONG_EXTENSION])
def test_a_form_upload_with_a_name_over_255_bytes_is_accepted_under_a_cut_name(logged_in, settings, name):
    response = logged_in.post("/profiles/", {"files": [SimpleUploadedFile(name, b"x\n")], "format": "auto"})
    assert response.status_code == 302, response.content[:500]
    _check_stored(settings, ProfileImport.objects.get())
