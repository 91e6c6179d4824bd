"""Upload size limit: a handler that stops reading a file once it passes SKYPLAN_PROFILE_MAX_BYTES.

Django streams large uploads to temporary files (TemporaryFileUploadHandler); this handler
sits in front of it and refuses a file that grows past the limit, so memory and disk stay
bounded.  Refused files are listed on ``request.too_large``.

``stored_name()`` is the one place an upload's name on disk is decided: a client's file name
can be longer than the file system allows (255 bytes; Django cuts names at 255 *characters*,
up to 1,020 bytes in UTF-8), so it is cut to ``MAX_NAME_BYTES`` keeping its extension.
``SafeTemporaryFileUploadHandler`` applies it to the temporary file as well.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, SkipFile, TemporaryFileUploadHandler

__all__ = ["LimitedUploadHandler", "SafeTemporaryFileUploadHandler", "max_upload_bytes", "stored_name",
           "MAX_NAME_BYTES"]

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


class SafeTemporaryFileUploadHandler(TemporaryFileUploadHandler):
    """Django's handler streaming an upload to a temporary file, whose name takes the file's extension:
    here from ``stored_name()``, so a client's over-long name cannot make the file system refuse it."""

    def new_file(self, field_name, file_name, *args, **kwargs):
        super().new_file(field_name, stored_name(file_name), *args, **kwargs)
