"""Every file Skyplan keeps (profile uploads, reports, a benchmark's profile files) goes through Django's storage
API, so any host can reach it: the local file system under MEDIA_ROOT (the embedded default, one host) or an
S3-compatible object store through django-storages (Ceph RGW, MinIO, AWS S3; several hosts).  ``SKYPLAN_STORAGE``
chooses (see settings and README: Several hosts).

Both backends add two methods to Django's API: ``stream(name)`` (the file's bytes in chunks, for a download) and
``copy_to(name, fh)`` (the file into an open local file, for a parser that needs a real path).  A file that is not
in the store raises :class:`NotInStorage`, whose message names the file's storage name, never a host's path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from django.core.files import File
from django.core.files.storage import FileSystemStorage, default_storage

__all__ = [
    "NotInStorage", "StoreError", "StoreUnusable", "LocalFiles", "save_file", "local_copy", "stream", "delete_file",
    "check_store", "describe_store", "download_response", "CHUNK_BYTES",
]

#: how much of a file a download or a copy holds in memory at once (bytes)
CHUNK_BYTES = 1024 * 1024
#: where the sentinel objects of the start-up check go
SENTINEL_DIR = ".skyplan-check"


class NotInStorage(FileNotFoundError):
    """The file is not in the store (the message is its storage name, safe to show)."""


class StoreError(RuntimeError):
    """The store could not be read or written (unreachable, refused); the message says which file and why."""


class StoreUnusable(RuntimeError):
    """This process cannot write, read back or delete a file in the store."""


class LocalFiles(FileSystemStorage):
    """The embedded default: files under MEDIA_ROOT on this host."""

    def stream(self, name: str) -> Iterator[bytes]:
        try:
            fh = open(self.path(name), "rb")  # noqa: SIM115 - closed by the generator
        except FileNotFoundError:
            raise NotInStorage(name) from None
        return _chunks(fh)

    def copy_to(self, name: str, fh) -> None:
        for chunk in self.stream(name):
            fh.write(chunk)

    def local_path(self, name: str) -> Path | None:
        """The file itself (no copy needed on this host's own disk)."""
        path = Path(self.path(name))
        if not path.is_file():
            raise NotInStorage(name)
        return path


def _local_file(content) -> str | None:
    """The path of ``content`` when it is a whole file on this host's disk (else None)."""
    if hasattr(content, "temporary_file_path"):
        return content.temporary_file_path()
    name = getattr(getattr(content, "file", None), "name", None)
    if isinstance(name, str) and os.path.isfile(name) and os.path.getsize(name) == getattr(content, "size", -1):
        return name
    return None


def _chunks(fh) -> Iterator[bytes]:
    with fh:
        while chunk := fh.read(CHUNK_BYTES):
            yield chunk


def _s3_backend():
    """The S3 class, defined only when django-storages is asked for (the embedded default needs no boto3)."""
    from botocore.exceptions import ClientError
    from storages.backends.s3 import S3Storage
    from storages.utils import clean_name

    def missing(exc: ClientError) -> bool:
        return exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound")

    class ObjectStore(S3Storage):
        """An S3-compatible bucket; uploads and downloads are streamed in parts (memory stays flat)."""

        def _object(self, name: str):
            return self.bucket.Object(self._normalize_name(clean_name(name)))

        def _save(self, name, content):
            # A file on this host's disk (an upload Django streamed to a temporary file, a benchmark's file) is sent
            # from its path: s3transfer then reads each part from the file as it sends it.  Given a file object it
            # reads parts ahead into memory, and the web server's memory grew with the file (375 MiB for 512 MiB).
            path = _local_file(content)
            if path is None:
                return super()._save(name, content)
            cleaned = clean_name(name)
            key = self._normalize_name(cleaned)
            params = self._get_write_parameters(key, content)
            self.bucket.Object(key).upload_file(path, ExtraArgs=params, Config=self.transfer_config)
            return cleaned

        def stream(self, name: str) -> Iterator[bytes]:
            try:
                body = self._object(name).get()["Body"]
            except ClientError as exc:
                if missing(exc):
                    raise NotInStorage(name) from None
                raise

            def chunks():
                try:
                    yield from body.iter_chunks(CHUNK_BYTES)
                finally:
                    body.close()

            return chunks()

        def copy_to(self, name: str, fh) -> None:
            try:
                if os.path.isfile(getattr(fh, "name", "") or ""):  # to a file by path: parts go straight to disk
                    fh.close()
                    self._object(name).download_file(fh.name, Config=self.transfer_config)
                    return
                self._object(name).download_fileobj(fh, Config=self.transfer_config)
            except ClientError as exc:
                if missing(exc):
                    raise NotInStorage(name) from None
                raise

        def local_path(self, name: str) -> Path | None:
            return None

    return ObjectStore


def __getattr__(attr: str):
    # settings name "apps.core.storage.ObjectStore"; the class is built on first use
    if attr == "ObjectStore":
        cls = _s3_backend()
        globals()["ObjectStore"] = cls
        return cls
    raise AttributeError(attr)


def save_file(name: str, source, *, move: bool = False) -> tuple[str, int]:
    """Store ``source`` (a local path, or an uploaded file Django streamed to a temporary file) under ``name``;
    returns the name it was stored under and its size.  ``move`` removes a local ``source`` once it is stored."""
    if isinstance(source, (str, Path)):
        with open(source, "rb") as fh:
            stored = default_storage.save(name, File(fh, name=Path(name).name))
        if move:
            os.unlink(source)
    else:
        stored = default_storage.save(name, source)
    return stored, default_storage.size(stored)


@contextlib.contextmanager
def local_copy(name: str, suffix: str = "") -> Iterator[Path]:
    """A local path holding the stored file ``name`` for as long as the block runs (for a parser that needs a real
    path): the file itself on the local file system, otherwise a temporary copy removed afterwards."""
    own = getattr(default_storage, "local_path", None)
    path = own(name) if own else None
    if path is not None:
        yield path
        return
    folder = tempfile.mkdtemp(prefix="skyplan-copy-")
    try:
        path = Path(folder) / (Path(name).name or f"file{suffix}")
        try:
            with open(path, "wb") as fh:
                if hasattr(default_storage, "copy_to"):
                    default_storage.copy_to(name, fh)
                else:
                    with default_storage.open(name, "rb") as src:
                        shutil.copyfileobj(src, fh, CHUNK_BYTES)
        except NotInStorage:
            raise
        except FileNotFoundError:
            raise NotInStorage(name) from None
        except Exception as exc:  # noqa: BLE001 - say it was the store, not the file's content
            raise StoreError(f"could not copy {name} from the store ({describe_store()}): "
                             f"{type(exc).__name__}: {exc}") from exc
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def stream(name: str) -> Iterator[bytes]:
    """The stored file's bytes in chunks (raises :class:`NotInStorage` at once when it is missing)."""
    if hasattr(default_storage, "stream"):
        return default_storage.stream(name)
    try:
        return _chunks(default_storage.open(name, "rb"))
    except FileNotFoundError:
        raise NotInStorage(name) from None


def download_response(name: str, filename: str, content_type: str = "application/octet-stream"):
    """An attachment response streaming the stored file ``name`` from the store, a chunk at a time (no copy on this
    host's disk, memory flat).  Raises :class:`NotInStorage` when the file is not in the store."""
    from django.http import StreamingHttpResponse
    from django.utils.http import content_disposition_header

    chunks = stream(name)
    response = StreamingHttpResponse(chunks, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    try:
        response["Content-Length"] = str(default_storage.size(name))
    except Exception:  # noqa: BLE001 - the length is a courtesy; the stream is what counts
        pass
    return response


def delete_file(name: str) -> None:
    """Remove a stored file, and its folder when that is left empty on the local file system."""
    if not name:
        return
    default_storage.delete(name)
    if isinstance(default_storage, FileSystemStorage):
        with contextlib.suppress(OSError):
            Path(default_storage.path(name)).parent.rmdir()


def check_store(who: str = "") -> None:
    """Write a sentinel object, read it back and delete it; raises :class:`StoreUnusable` saying what failed and
    where (the backend and its bucket or folder, never credentials)."""
    where = describe_store()
    name = f"{SENTINEL_DIR}/{who or socket.gethostname()}-{uuid.uuid4().hex}"
    payload = f"skyplan storage check by {who or socket.gethostname()}\n".encode()
    step = "write"
    try:
        from django.core.files.base import ContentFile

        stored = default_storage.save(name, ContentFile(payload))
        step = "read back"
        got = b"".join(stream(stored))
        if got != payload:
            raise StoreUnusable(f"the store ({where}) returned {len(got)} bytes for a {len(payload)}-byte sentinel")
        step = "delete"
        delete_file(stored)
    except StoreUnusable:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure means the store is unusable; say which step
        raise StoreUnusable(f"cannot {step} a sentinel object in the store ({where}): {type(exc).__name__}: {exc}") \
            from None


def describe_store() -> str:
    """The backend and its location, for messages (no credentials)."""
    bucket = getattr(default_storage, "bucket_name", None)
    if bucket:
        endpoint = getattr(default_storage, "endpoint_url", None) or "AWS S3"
        return f"S3 bucket {bucket!r} at {endpoint}"
    return f"local file system under {getattr(default_storage, 'location', '?')}"
