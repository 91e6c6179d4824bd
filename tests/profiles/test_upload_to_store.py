"""Uploads go straight into the store as the request arrives: on the local file system under a temporary name in the
store's own folder, renamed at the end; in an S3 bucket (moto's server) as a multipart upload of 5 MiB parts.  A file
that arrives whole is intact; one over the limit, cut short by its client, or refused by the view afterwards leaves
nothing: no object, no incomplete multipart upload, no file or folder on disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import UnreadablePostError

from apps.core import storage
from apps.profiles.models import ProfileImport
from apps.profiles.services import execute_import

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "profiles"
PART = 5 * 2**20
BOUNDARY = "skyplan-test-boundary"


pytestmark = pytest.mark.usefixtures("no_import_dispatch")


class Bucket:
    kind = "s3"

    def __init__(self, endpoint: str):
        import boto3

        self.name = f"skyplan-test-{os.urandom(4).hex()}"
        self.client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="testing",
                                   aws_secret_access_key="testing")
        self.client.create_bucket(Bucket=self.name)

    def leftovers(self) -> list[str]:
        """Every object and every incomplete multipart upload in the bucket."""
        objects = [o["Key"] for o in self.client.list_objects_v2(Bucket=self.name).get("Contents", [])]
        pending = [f"incomplete: {u['Key']}" for u in self.client.list_multipart_uploads(Bucket=self.name)
                   .get("Uploads", [])]
        return objects + pending


class Folder:
    kind = "local"

    def __init__(self, root: Path):
        self.root = root

    def leftovers(self) -> list[str]:
        """Every file and folder in the store's folder of uploads (hidden ones too)."""
        return sorted(str(p.relative_to(self.root)) for p in self.root.rglob("*")) if self.root.exists() else []


@pytest.fixture(params=["local", "s3"])
def store(request, settings):
    """What the store holds: files under MEDIA_ROOT, or a fresh bucket's objects and incomplete uploads."""
    from boto3.s3.transfer import TransferConfig

    if request.param == "local":
        return Folder(Path(settings.MEDIA_ROOT) / "profiles" / "uploads")
    bucket = Bucket(request.getfixturevalue("moto_server"))
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "apps.core.storage.ObjectStore", "OPTIONS": {
        "bucket_name": bucket.name, "endpoint_url": bucket.client.meta.endpoint_url, "region_name": "us-east-1",
        "access_key": "testing", "secret_key": "testing", "addressing_style": "path", "signature_version": "s3v4",
        "default_acl": None, "file_overwrite": False,
        "transfer_config": TransferConfig(multipart_threshold=PART, multipart_chunksize=PART)}}}
    return bucket


def _body(payload: bytes, name: str = "big.strace") -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"format\"\r\n\r\nauto\r\n"
            f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + payload + f"\r\n--{BOUNDARY}--\r\n".encode()


def _post(api, body: bytes, **extra):
    return api.generic("POST", "/api/v1/profiles/imports/", body,
                       content_type=f"multipart/form-data; boundary={BOUNDARY}", **extra)


def test_a_file_of_several_parts_arrives_intact(api, store):
    payload = os.urandom(3 * PART + 17)  # four parts, the last of 17 bytes
    response = _post(api, _body(payload))
    assert response.status_code == 202, response.content
    job = ProfileImport.objects.get()
    assert job.size_bytes == len(payload) and job.upload_path.endswith("/big.strace")
    assert b"".join(storage.stream(job.upload_path)) == payload
    folder, name = job.upload_path.split("/")[-2:]
    assert store.leftovers() == ([job.upload_path] if store.kind == "s3" else [folder, f"{folder}/{name}"])
    if store.kind == "s3":
        etag = default_storage.bucket.Object(job.upload_path).e_tag
        assert etag.strip('"').endswith("-4")  # joined from four parts


def test_an_upload_over_the_limit_leaves_nothing(api, store, settings):
    settings.SKYPLAN_PROFILE_MAX_BYTES = PART + PART // 2  # one whole part is sent before the limit is passed
    response = _post(api, _body(os.urandom(3 * PART)))
    assert response.status_code == 400
    assert "larger than the" in response.json()["file"][0]
    assert store.leftovers() == [] and not ProfileImport.objects.exists()


def test_an_upload_cut_short_by_its_client_leaves_nothing(api, store):
    body = _body(os.urandom(2 * PART + 100))
    response = _post(api, body[:len(body) - 2 * 2**20])  # the client stops sending 2 MiB before the end of the file
    assert response.status_code == 400
    assert store.leftovers() == [] and not ProfileImport.objects.exists()


class BrokenConnection:
    """A request body whose connection fails after ``good`` bytes."""

    def __init__(self, body: bytes, good: int):
        self.body, self.good, self.at = body, good, 0

    def read(self, size: int = -1) -> bytes:
        if self.at >= self.good:
            raise ConnectionResetError("the client went away")
        size = len(self.body) - self.at if size is None or size < 0 else size
        chunk = self.body[self.at:min(self.at + size, self.good)]
        self.at += len(chunk)
        return chunk

    def readline(self, size: int = -1) -> bytes:
        return self.read(size)


def test_an_upload_whose_connection_breaks_leaves_nothing(api, store):
    body = _body(os.urandom(3 * PART))
    with pytest.raises(UnreadablePostError):  # a 500 nobody reads: the client has gone
        _post(api, body, **{"wsgi.input": BrokenConnection(body, 2 * PART + 1000)})
    assert store.leftovers() == [] and not ProfileImport.objects.exists()


def test_an_upload_the_view_refuses_leaves_nothing(api, logged_in, store):
    response = _post(api, _body(os.urandom(2 * PART + 5)).replace(b"auto", b"word", 1))
    assert response.status_code == 400 and list(response.json()) == ["format"]
    page = logged_in.post("/profiles/", {"files": [SimpleUploadedFile("a.strace", os.urandom(PART + 5))],
                                         "format": "word"})
    assert page.status_code == 400
    assert store.leftovers() == [] and not ProfileImport.objects.exists()


def test_the_page_and_the_api_import_a_profile_uploaded_into_the_store(api, logged_in, store, catalogue):
    with open(SAMPLES / "seq_read.strace", "rb") as fh:
        response = api.post("/api/v1/profiles/imports/", {"file": fh}, format="multipart")
    assert response.status_code == 202, response.content
    with open(SAMPLES / "seq_read.strace", "rb") as fh:
        page = logged_in.post("/profiles/", {"files": [fh], "format": "auto"})
    assert page.status_code == 302
    for job in ProfileImport.objects.all():
        assert b"".join(storage.stream(job.upload_path)) == (SAMPLES / "seq_read.strace").read_bytes()
        assert execute_import(job.pk) == "succeeded"
        job.refresh_from_db()
        assert job.profile.file == job.upload_path


@pytest.mark.parametrize("step", ["a part", "the completion"])
def test_an_upload_the_store_fails_leaves_nothing(api, store, monkeypatch, step):
    def refuse(*args, **kwargs):
        raise OSError("no space left on the store")

    if store.kind == "s3":
        client = default_storage.connection.meta.client  # the client the writer uses (one per thread)
        monkeypatch.setattr(client, "upload_part" if step == "a part" else "complete_multipart_upload", refuse)
    else:
        monkeypatch.setattr(storage._LocalWriter, "_write" if step == "a part" else "_complete", refuse)
    with pytest.raises(storage.StoreError, match="could not write an upload to the store"):
        _post(api, _body(os.urandom(2 * PART + 5)))
    assert store.leftovers() == [] and not ProfileImport.objects.exists()


def test_pieces_that_do_not_divide_a_part_arrive_intact(store, db):
    payload = os.urandom(2 * PART + 12345)
    writer = storage.open_writer("profiles/uploads/odd/pieces.bin")
    for at in range(0, len(payload), 2**20 + 7):
        writer.write(payload[at:at + 2**20 + 7])
    name = writer.complete()
    assert writer.size == len(payload) and b"".join(storage.stream(name)) == payload
    if store.kind == "s3":
        assert default_storage.bucket.Object(name).e_tag.strip('"').endswith("-3")
