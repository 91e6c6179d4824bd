"""Upload size limit: a handler that stops reading a file once it passes SKYPLAN_PROFILE_MAX_BYTES.

Django streams large uploads to temporary files (TemporaryFileUploadHandler); this handler
sits in front of it and refuses a file that grows past the limit, so memory and disk stay
bounded.  Refused files are listed on ``request.too_large``.
"""

from __future__ import annotations

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, SkipFile

__all__ = ["LimitedUploadHandler", "max_upload_bytes"]


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
