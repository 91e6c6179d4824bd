"""Every file goes through the store: the local file system (the default) and an S3-compatible bucket (moto's server,
on a loopback port) behave alike — save, stream, a local copy for a parser, delete — and what is missing is said
without a host's path.  A worker refuses to start when it cannot use the store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from apps.core import storage
from apps.profiles import services
from apps.profiles.models import Profile, ProfileImport

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "fixtures" / "profiles"


def s3_settings(endpoint: str, bucket: str) -> dict:
    from boto3.s3.transfer import TransferConfig

    return {"BACKEND": "apps.core.storage.ObjectStore", "OPTIONS": {
        "bucket_name": bucket, "endpoint_url": endpoint, "region_name": "us-east-1", "access_key": "testing",
        "secret_key": "testing", "addressing_style": "path", "signature_version": "s3v4", "default_acl": None,
        "file_overwrite": False,
        "transfer_config": TransferConfig(multipart_threshold=5 * 2**20, multipart_chunksize=5 * 2**20,
                                          max_concurrency=2)}}


@pytest.fixture(params=["local", "s3"])
def store(request, settings):
    """The default store: the local file system under the test's MEDIA_ROOT, or a fresh bucket on moto's server."""
    if request.param == "s3":
        import boto3

        endpoint = request.getfixturevalue("moto_server")
        bucket = f"skyplan-test-{os.urandom(4).hex()}"
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                     aws_secret_access_key="testing").create_bucket(Bucket=bucket)
        settings.STORAGES = {**settings.STORAGES, "default": s3_settings(endpoint, bucket)}
    return request.param


def test_it_saves_streams_copies_and_deletes_a_file(store, tmp_path):
    source = tmp_path / "big.bin"
    payload = os.urandom(3 * storage.CHUNK_BYTES + 17)  # several chunks, and (for S3) two 5 MiB parts' worth
    source.write_bytes(payload * 2)
    name, size = storage.save_file("profiles/uploads/t/big.bin", source, move=True)
    assert size == len(payload) * 2 and not source.exists()
    assert b"".join(storage.stream(name)) == payload * 2
    with storage.local_copy(name) as path:
        assert path.read_bytes() == payload * 2
        copied = path
    assert copied.exists() == (store == "local")  # a remote store's copy is removed; a local file is the file
    storage.delete_file(name)
    assert not default_storage.exists(name)


def test_a_missing_file_is_not_in_storage_named_by_its_storage_name_only(store):
    for attempt in (lambda n: storage.stream(n), lambda n: storage.local_copy(n).__enter__()):
        with pytest.raises(storage.NotInStorage) as caught:
            attempt("profiles/uploads/none/x.csv")
        assert str(caught.value) == "profiles/uploads/none/x.csv"


def test_the_store_check_passes_and_leaves_nothing(store):
    storage.check_store("test-node")
    try:
        _dirs, files = default_storage.listdir(storage.SENTINEL_DIR)
    except FileNotFoundError:  # the local file system: the emptied folder is removed too
        files = []
    assert files == []


def test_an_import_whose_upload_is_gone_says_so_without_a_path(store, db):
    job = services.create_import(upload_path="profiles/uploads/gone/seq_read.strace", filename="seq_read.strace",
                                 size_bytes=10)
    assert services.execute_import(job.pk) == "failed"
    job.refresh_from_db()
    assert job.error == "seq_read.strace: upload not found in storage"
    assert not Profile.objects.exists()


def test_an_imported_profile_is_downloaded_from_the_store_and_a_failed_one_leaves_nothing(store, logged_in):
    with open(SAMPLES / "seq_read.strace", "rb") as fh:
        name, size = services.store_upload(ContentFile(fh.read(), name="seq_read.strace"), "seq_read.strace")
    job = services.create_import(upload_path=name, filename="seq_read.strace", size_bytes=size)
    assert services.execute_import(job.pk) == "succeeded"
    profile = ProfileImport.objects.get(pk=job.pk).profile
    page = logged_in.get(f"/profiles/{profile.pk}/")
    assert f'href="/profiles/{profile.pk}/file/"' in page.content.decode()
    response = logged_in.get(f"/profiles/{profile.pk}/file/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == (SAMPLES / "seq_read.strace").read_bytes()
    assert 'attachment; filename="seq_read.strace"' == response["Content-Disposition"]
    api = logged_in.get(f"/api/v1/profiles/{profile.pk}/file/")
    assert api.status_code == 200 and int(api["Content-Length"]) == size

    bad, bad_size = services.store_upload(ContentFile(b"not,a\nprofile\n", name="bad.csv"), "bad.csv")
    failed = services.create_import(upload_path=bad, filename="bad.csv", size_bytes=bad_size)
    assert services.execute_import(failed.pk) == "failed"
    assert not default_storage.exists(bad)

    storage.delete_file(name)
    response = logged_in.get(f"/api/v1/profiles/{profile.pk}/file/")
    assert response.status_code == 404 and "not in storage" in response.json()["detail"]
    assert "/" not in response.json()["detail"].split("(")[0]  # no host's path


def test_a_worker_refuses_to_start_when_it_cannot_use_the_store(tmp_path):
    not_a_dir = tmp_path / "a-file"
    not_a_dir.write_text("")
    env = dict(os.environ, SKYPLAN_MEDIA_ROOT=str(not_a_dir / "media"), PYTHONUNBUFFERED="1")
    done = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "apps", "worker", "-Q", f"refused-{os.getpid()}", "--pool=solo",
         "--without-mingle", "--without-gossip", "-n", "refused@%h"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "refusing to start: cannot write a sentinel object in the store (local file system under" in done.stderr
    assert "README: Several hosts" in done.stderr
