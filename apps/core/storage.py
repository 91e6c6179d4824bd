"""Every file Skyplan keeps (profile uploads, reports, a benchmark's profile files) goes through Django's storage
API, so any host can reach it: the local file system under MEDIA_ROOT (the embedded default, one host) or an
S3-compatible object store through django-storages (Ceph RGW, MinIO, AWS S3; several hosts).  ``SKYPLAN_STORAGE``
chooses (see settings and README: Several hosts).

Both backends add three methods to Django's API: ``stream(name)`` (the file's bytes in chunks, for a download),
``copy_to(name, fh)`` (the file into an open local file, for a parser that needs a real path) and ``writer(name)``
(a :class:`StoreWriter` putting a file in the store a piece at a time as its bytes arrive, for an upload: a
temporary name in the store's own folder renamed at the end, or an S3 multipart upload; an aborted one leaves
nothing).  A file that is not in the store raises :class:`NotInStorage`, whose message names the file's storage
name, never a host's path.
"""

from __future__ import annotations

import contextlib
import logging
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
    "check_store", "describe_store", "download_response", "open_writer", "StoreWriter", "CHUNK_BYTES", "MIN_PART_BYTES",
]

log = logging.getLogger(__name__)

#: how much of a file a download or a copy holds in memory at once (bytes)
CHUNK_BYTES = 1024 * 1024
#: the smallest part of an S3 multipart upload but the last (S3's own minimum)
MIN_PART_BYTES = 5 * 1024 * 1024
#: where the sentinel objects of the start-up check go
SENTINEL_DIR = ".skyplan-check"


class NotInStorage(FileNotFoundError):
    """The file is not in the store (the message is its storage name, safe to show)."""


class StoreError(RuntimeError):
    """The store could not be read or written (unreachable, refused); the message says which file and why."""


class StoreUnusable(RuntimeError):
    """This process cannot write, read back or delete a file in the store."""


class StoreWriter:
    """A file being put in the store as its bytes arrive: ``write()`` pieces, then ``complete()`` (the file is in
    the store under the name it returns) or ``abort()`` (nothing of it is left).  ``close()`` aborts unless complete,
    so a writer dropped on any path leaves nothing; both are safe to call more than once."""

    def __init__(self, name: str):
        self.name = name
        self.size = 0
        self.completed = False
        self.aborted = False

    def write(self, data: bytes) -> None:
        if self.completed or self.aborted:
            raise ValueError(f"{self.name}: the upload is already {'complete' if self.completed else 'aborted'}")
        try:
            self._write(data)
        except Exception:
            self._abort_quietly()
            raise
        self.size += len(data)

    def complete(self) -> str:
        if self.aborted:
            raise ValueError(f"{self.name}: the upload is already aborted")
        if not self.completed:
            try:
                self.name = self._complete()
            except Exception:
                self._abort_quietly()
                raise
            self.completed = True
        return self.name

    def abort(self) -> None:
        if self.completed or self.aborted:
            return
        self.aborted = True
        self._abort()

    def _abort_quietly(self) -> None:
        """Abort after a failure, which is what the caller is told about (a failed abort is logged)."""
        try:
            self.abort()
        except Exception:  # noqa: BLE001 - the first failure is the one to raise
            log.warning("could not abort the upload of %s", self.name, exc_info=True)

    def close(self) -> None:
        self._abort_quietly()

    def _write(self, data: bytes) -> None:
        raise NotImplementedError

    def _complete(self) -> str:
        raise NotImplementedError

    def _abort(self) -> None:
        raise NotImplementedError


class _LocalWriter(StoreWriter):
    """Writes to a hidden temporary name in the file's own folder of the store, renamed into place at completion (the
    same file system: no copy)."""

    def __init__(self, storage: FileSystemStorage, name: str):
        super().__init__(name)
        self.path = Path(storage.path(name))
        self.mode = storage.file_permissions_mode
        self.folder = self.path.parent
        self.made_folder = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        if storage.directory_permissions_mode is not None and self.made_folder:
            os.chmod(self.folder, storage.directory_permissions_mode)
        self.partial = self.folder / f".{uuid.uuid4().hex}.partial"
        self.fh = open(self.partial, "xb")  # noqa: SIM115 - closed at completion or abort

    def _write(self, data: bytes) -> None:
        self.fh.write(data)

    def _complete(self) -> str:
        self.fh.close()
        if self.mode is not None:
            os.chmod(self.partial, self.mode)
        if self.path.exists():  # never replace a stored file (names carry a fresh folder; this is a safeguard)
            raise FileExistsError(self.name)
        os.rename(self.partial, self.path)
        return self.name

    def _abort(self) -> None:
        self.fh.close()
        with contextlib.suppress(FileNotFoundError):
            self.partial.unlink()
        if self.made_folder:
            with contextlib.suppress(OSError):
                self.folder.rmdir()


def open_writer(name: str) -> StoreWriter:
    """A :class:`StoreWriter` putting a new file ``name`` in the default store a piece at a time."""
    own = getattr(default_storage, "writer", None)
    if own is None:  # both backends Skyplan configures have one
        raise StoreError(f"the store ({describe_store()}) cannot take a file a piece at a time")
    return own(name)


class LocalFiles(FileSystemStorage):
    """The embedded default: files under MEDIA_ROOT on this host."""

    def writer(self, name: str) -> StoreWriter:
        return _LocalWriter(self, name)

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

    class _MultipartWriter(StoreWriter):
        """An S3 multipart upload: the bytes are gathered into one part (at least ``MIN_PART_BYTES``, the transfer
        settings' part size) and each part is sent when full, so memory holds one part whatever the file's size.
        The multipart upload starts with the first full part; a file smaller than one part is a single PUT."""

        def __init__(self, storage, name: str):
            super().__init__(name)
            self.storage = storage
            self.client = storage.connection.meta.client  # the client django-storages made from the same settings
            self.bucket_name = storage.bucket_name
            self.key = storage._normalize_name(clean_name(name))
            chunksize = getattr(storage.transfer_config, "multipart_chunksize", 0) or 0
            self.part_bytes = max(MIN_PART_BYTES, chunksize)
            self.params = storage._get_write_parameters(self.key)
            # as s3transfer does: parts carry the client's default checksum unless it is told to add them only when
            # required (AWS_REQUEST_CHECKSUM_CALCULATION=when_required, for stores that do not know them)
            self.checksum: dict[str, str] = {}
            if getattr(self.client.meta.config, "request_checksum_calculation", None) == "when_supported":
                self.checksum = {"ChecksumAlgorithm": self.params.get("ChecksumAlgorithm", "CRC32")}
            # one part's buffer, filled in place and sent as it is, then filled again: a bytearray (botocore joins
            # a bytes body to the request's headers, a copy) of fixed size (never grown, so never copied)
            self.buffer = bytearray(self.part_bytes)
            self.filled = 0
            self.upload_id: str | None = None
            self.parts: list[dict] = []

        def _write(self, data: bytes) -> None:
            with memoryview(data) as view:
                while view:
                    take = view[:self.part_bytes - self.filled]
                    self.buffer[self.filled:self.filled + len(take)] = take
                    self.filled += len(take)
                    view = view[len(take):]
                    if self.filled == self.part_bytes:
                        self._send(self.buffer)
                        self.filled = 0

        def _send(self, part: bytearray) -> None:
            if self.upload_id is None:
                self.upload_id = self.client.create_multipart_upload(Bucket=self.bucket_name, Key=self.key,
                                                                     **{**self.params, **self.checksum})["UploadId"]
            number = len(self.parts) + 1
            sent = self.client.upload_part(Bucket=self.bucket_name, Key=self.key, UploadId=self.upload_id,
                                           PartNumber=number, Body=part, **self.checksum)
            done = {"PartNumber": number, "ETag": sent["ETag"]}
            if self.checksum:  # the part's checksum is repeated when the parts are joined
                member = "Checksum" + self.checksum["ChecksumAlgorithm"].upper()
                if member in sent:
                    done[member] = sent[member]
            self.parts.append(done)

        def _complete(self) -> str:
            del self.buffer[self.filled:]  # the last part (or the whole file, when it is smaller than one part)
            if self.upload_id is None:
                self.client.put_object(Bucket=self.bucket_name, Key=self.key, Body=self.buffer, **self.params)
            else:
                if self.buffer:
                    self._send(self.buffer)
                self.client.complete_multipart_upload(Bucket=self.bucket_name, Key=self.key,
                                                      UploadId=self.upload_id, MultipartUpload={"Parts": self.parts})
            self.buffer = bytearray()
            return clean_name(self.name)

        def _abort(self) -> None:
            self.buffer = bytearray()
            if self.upload_id is not None:
                self.client.abort_multipart_upload(Bucket=self.bucket_name, Key=self.key, UploadId=self.upload_id)

    class ObjectStore(S3Storage):
        """An S3-compatible bucket; uploads and downloads are streamed in parts (memory stays flat)."""

        def writer(self, name: str) -> StoreWriter:
            return _MultipartWriter(self, name)

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
