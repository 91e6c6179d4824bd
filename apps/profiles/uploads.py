"""Profile uploads: a size limit, and a handler streaming each file into the store as the request arrives.

``LimitedUploadHandler`` refuses a file that grows past SKYPLAN_PROFILE_MAX_BYTES (refused files are listed on
``request.too_large``).  ``StoreUploadHandler`` comes after it and writes each file's bytes straight into the store
(apps.core.storage writers: a temporary name in the store's folder renamed at the end, or an S3 multipart upload),
so the web server keeps no copy on its disk and holds at most one part in memory.  It gives the view a
:class:`StoredUpload`: the file is already in the store, and ``claim()`` keeps it there.  Whatever is not claimed
when the request ends — a file over the limit, a client gone mid-file, a form refused after the upload — is aborted
or removed by ``StoreUploadHandler.discard_unclaimed()``, which ``store_uploads()`` runs around the view.

``stored_name()`` is the one place an upload's name in the store is decided: a client's file name can be longer
than the file system allows (255 bytes; Django cuts names at 255 *characters*, up to 1,020 bytes in UTF-8), so it
is cut to ``MAX_NAME_BYTES`` keeping its extension.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from collections.abc import Iterator

from django.conf import settings
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, SkipFile

from apps.core.storage import StoreError, StoreWriter, delete_file, describe_store, open_writer

__all__ = ["LimitedUploadHandler", "StoreUploadHandler", "StoredUpload", "store_uploads", "max_upload_bytes",
           "stored_name", "upload_name", "MAX_NAME_BYTES", "UPLOAD_DIR"]

log = logging.getLogger(__name__)

#: the store's folder of profile uploads; each upload has a folder of its own in it
UPLOAD_DIR = "profiles/uploads"

#: the longest stored file name, in bytes of UTF-8 (file systems allow 255; a margin for suffixes)
MAX_NAME_BYTES = 200
#: the longest extension kept whole when a name is cut (".skyplan.csv" style suffixes fit)
MAX_EXTENSION_BYTES = 32


def _cut(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` bytes of UTF-8, never inside a character."""
    return text.encode("utf-8")[:max_bytes].decode("utf-8", "ignore")


def stored_name(filename: str, default: str = "profile") -> str:
    """A safe name to store an upload under: its base name without control characters, at most
    ``MAX_NAME_BYTES`` bytes of UTF-8, keeping an extension of up to ``MAX_EXTENSION_BYTES`` bytes."""
    name = os.path.basename((filename or "").replace("\\", "/"))
    name = "".join(c for c in name if c.isprintable()).strip()
    if name in ("", ".", ".."):
        return default
    if len(name.encode("utf-8")) <= MAX_NAME_BYTES:
        return name
    stem, ext = os.path.splitext(name)
    if len(ext.encode("utf-8")) > MAX_EXTENSION_BYTES:
        stem, ext = name, ""
    return (_cut(stem, MAX_NAME_BYTES - len(ext.encode("utf-8"))) + ext) or default


def max_upload_bytes() -> int:
    return int(getattr(settings, "SKYPLAN_PROFILE_MAX_BYTES", 2 * 1024**3))


class LimitedUploadHandler(FileUploadHandler):
    """Counts each file's bytes and skips any file larger than the limit."""

    def __init__(self, request=None):
        super().__init__(request)
        self.limit = max_upload_bytes()
        self.seen = 0
        if request is not None and not hasattr(request, "too_large"):
            request.too_large = []

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.seen = 0

    def receive_data_chunk(self, raw_data, start):
        self.seen += len(raw_data)
        if self.seen > self.limit:
            if self.request is not None:
                self.request.too_large.append(self.file_name)
            raise SkipFile()
        return raw_data

    def file_complete(self, file_size):
        return None


def upload_name(filename: str) -> str:
    """A new storage name for an upload of ``filename``: a fresh folder of its own, and ``stored_name()``."""
    return f"{UPLOAD_DIR}/{uuid.uuid4().hex}/{stored_name(filename)}"


class StoredUpload(UploadedFile):
    """An uploaded file already in the store under ``storage_name``: the view registers that name rather than copy
    the bytes again.  ``claim()`` keeps the file; an unclaimed one is removed when the request ends.  Reading it
    (rarely needed: validation looks at the name and size) opens it from the store."""

    def __init__(self, storage_name: str, name: str, content_type: str | None, size: int, charset: str | None,
                 content_type_extra: dict | None = None):
        super().__init__(None, name, content_type, size, charset, content_type_extra)
        self.storage_name = storage_name
        self.claimed = False

    def claim(self) -> tuple[str, int]:
        """Keep the file in the store; returns its storage name and size."""
        self.claimed = True
        return self.storage_name, self.size

    def open(self, mode: str = "rb"):
        self.close()
        self.file = default_storage.open(self.storage_name, mode)
        return self

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


class StoreUploadHandler(FileUploadHandler):
    """Streams each uploaded file into the store as the request arrives (after ``LimitedUploadHandler``).  A file
    that does not arrive whole (over the limit, the client gone, a store error) is aborted: nothing of it stays."""

    def __init__(self, request=None):
        super().__init__(request)
        # ``self.file`` is the writer of the file arriving (set by new_file): Django's parser closes it (an abort
        # here) when it skips a file or stops the upload
        self.writers: list[StoreWriter] = []
        self.uploads: list[StoredUpload] = []

    def new_file(self, field_name, file_name, *args, **kwargs):
        # the upload's name is the one it is stored under: a client's over-long name is cut (``stored_name()``)
        super().new_file(field_name, stored_name(file_name), *args, **kwargs)
        self.file = self._store(open_writer, upload_name(self.file_name))
        self.writers.append(self.file)

    def receive_data_chunk(self, raw_data, start):
        self._store(self.file.write, raw_data)
        return None

    def file_complete(self, file_size):
        name = self._store(self.file.complete)
        upload = StoredUpload(name, self.file_name, self.content_type, file_size, self.charset,
                              self.content_type_extra)
        self.uploads.append(upload)
        return upload

    def upload_interrupted(self):
        writer = getattr(self, "file", None)
        if writer is not None:
            writer.close()

    def discard_unclaimed(self) -> None:
        """Abort what is still arriving and remove every stored file the view did not claim (best effort: a store
        that cannot be reached leaves it, and it is logged)."""
        for writer in self.writers:
            writer.close()
        for upload in self.uploads:
            if not upload.claimed:
                try:
                    delete_file(upload.storage_name)
                except Exception:  # noqa: BLE001 - the request's own outcome stands; the file is named in the log
                    log.warning("could not remove the unclaimed upload %s", upload.storage_name, exc_info=True)

    @staticmethod
    def _store(step, *args):
        try:
            return step(*args)
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - a client library's error: say it was the store
            raise StoreError(f"could not write an upload to the store ({describe_store()}): "
                             f"{type(exc).__name__}: {exc}") from exc


@contextlib.contextmanager
def store_uploads(request) -> Iterator[StoreUploadHandler]:
    """Set the request's upload handlers (the size limit, then the store) for the block, which runs the view; at its
    end every upload the view did not claim is aborted or removed."""
    handler = StoreUploadHandler(request)
    request.upload_handlers = [LimitedUploadHandler(request), handler]
    try:
        yield handler
    finally:
        handler.discard_unclaimed()
