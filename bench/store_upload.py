"""Upload profiles of growing size through the API into the store and let the worker import them; print the time and
the peak memory of the web and worker processes, to show memory stays flat whatever the file's size.

    python bench/store_upload.py --sizes-mib 64,1024            # two hosts, S3 store (moto), as in the test
    python bench/store_upload.py --sizes-mib 64,1024 --one-host # local file system, one host

It builds the hosts of tests/core/test_several_hosts.py (needs root for the namespaces).  Each file is lines of
text no parser accepts, so the worker's part is the copy from the store to its temporary file, then a parse that
fails at the first line; the upload is then removed from the store.  Peak memory is VmHWM of the gunicorn worker
and of the Celery processes (main and pool), which only grows: each row shows the peak after that upload.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from two_hosts import _children, peak_rss_kib, running_hosts  # noqa: E402


class MultipartFile:
    """A multipart/form-data body around a file on disk, read in pieces (requests streams it with its length)."""

    def __init__(self, path: Path, field: str, filename: str, extra: dict[str, str]):
        self.boundary = uuid.uuid4().hex
        head = "".join(f"--{self.boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
                       for k, v in extra.items())
        head += (f"--{self.boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{filename}\"\r\n"
                 "Content-Type: application/octet-stream\r\n\r\n")
        self.parts = [head.encode(), path, f"\r\n--{self.boundary}--\r\n".encode()]
        self.length = len(self.parts[0]) + path.stat().st_size + len(self.parts[2])
        self._fh = None
        self._index = 0

    def __len__(self) -> int:
        return self.length

    def read(self, n: int = -1) -> bytes:
        out = b""
        while self._index < 3 and (n < 0 or len(out) < n):
            part = self.parts[self._index]
            want = -1 if n < 0 else n - len(out)
            if isinstance(part, bytes):
                out += part
                self._index += 1
                continue
            if self._fh is None:
                self._fh = open(part, "rb")  # noqa: SIM115 - closed at its end
            chunk = self._fh.read(want if want > 0 else 1 << 20)
            if not chunk:
                self._fh.close()
                self._index += 1
                continue
            out += chunk
        return out

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"


def make_file(path: Path, size: int) -> None:
    line = b"this line is no profile format skyplan knows " * 2 + b"\n"
    block = line * ((1 << 20) // len(line) + 1)
    with open(path, "wb") as fh:
        left = size
        while left > 0:
            fh.write(block[:min(left, len(block))])
            left -= min(left, len(block))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes-mib", default="64,1024")
    parser.add_argument("--one-host", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes_mib.split(",")]
    with running_hosts(two_hosts=not args.one_host) as hosts, tempfile.TemporaryDirectory() as scratch:
        web_pids = _children(hosts.web.pid)
        worker = hosts.workers[0]
        print(f"{'two hosts, S3 (moto)' if hosts.two_hosts else 'one host, local file system'}; "
              f"web gunicorn worker pid {web_pids}, celery main {worker.main_pid} pool {worker.pool_pids()}")
        web_start = max(peak_rss_kib(p) for p in web_pids) / 1024
        worker_start = max(peak_rss_kib(p) for p in [worker.main_pid, *worker.pool_pids()]) / 1024
        print(f"peak memory before any upload: web {web_start:.0f} MiB, worker {worker_start:.0f} MiB")
        print("size_mib upload_s import_s web_peak_mib worker_peak_mib status")
        for size_mib in sizes:
            path = Path(scratch) / f"profile-{size_mib}.txt"
            make_file(path, size_mib << 20)
            body = MultipartFile(path, "file", path.name, {"format": "auto"})
            started = time.monotonic()
            response = hosts.api.post(hosts.url("/api/v1/profiles/imports/"), data=body,
                                      headers={"Content-Type": body.content_type}, timeout=3600)
            upload_s = time.monotonic() - started
            if response.status_code != 202:
                raise SystemExit(f"{response.status_code} {response.text}\n"
                                 + (hosts.base / "web" / "gunicorn.log").read_text()[-4000:])
            job = hosts.poll(response.json()["url"], timeout=3600)
            import_s = time.monotonic() - started - upload_s
            os.unlink(path)
            web_peak = max(peak_rss_kib(p) for p in web_pids) / 1024
            worker_peak = max(peak_rss_kib(p) for p in [worker.main_pid, *worker.pool_pids()]) / 1024
            print(f"{size_mib} {upload_s:.1f} {import_s:.1f} {web_peak:.0f} {worker_peak:.0f} "
                  f"{job['status']}: {job['error'][:80]}")


if __name__ == "__main__":
    main()
