"""Memory probes: how fast this host hands a process memory it has not touched before, and when freed memory is
"at rest".

Every byte a program writes into a new file takes a new page-cache page, and every new array takes new pages;
the kernel zeroes each anonymous page on first touch, and a virtual machine whose guest returns freed memory to
the hypervisor (virtio-balloon *free page reporting*) also pays a fault in the host for it — but only once the
guest has reported the memory, a couple of seconds after it was freed.  So the same write costs very different
amounts depending on what the host freed in the last seconds.  Measured on this project's 2-core Firecracker VM
(2026-11-25, ``write()`` of a new 512 MiB file in 4 MiB calls, after freeing 512 MiB of page cache and waiting):
6.0–6.3 GB/s after 0–1 s, 0.64–0.68 GB/s after 2–4 s, 0.43 GB/s after 6, 8 and 12 s.

Freed memory that the guest cannot report (free blocks smaller than the reporting order, 2 MiB here: page-cache
pages of deleted files whose neighbours are still in use) stays cheap for good: after deleting 500 MB of files and
waiting 8 s, the next 150 MB of new page-cache pages were written at 4.7–5.0 GB/s, the rest at 0.42 GB/s.  How much
of it there is depends on what the host did before.

To measure a host reproducibly, the probes and the timed pipeline therefore start from memory *at rest*
(:func:`at_rest`): :func:`settle` waits until memory freed before it has been reported, then :func:`drain` takes the
cheap memory that is left by writing a file, held until the timed work is done, until new pages cost a steady
rate.  On a host without free page reporting both return at once.  :func:`first_touch_rate` times the first touch
of new anonymous memory, one write per page.
"""

from __future__ import annotations

import contextlib
import glob
import mmap
import os
import time
from collections.abc import Iterator

__all__ = ["first_touch_rate", "free_page_reporting", "settle", "drain", "at_rest", "drain_limit", "SETTLE_S",
           "DRAIN_MAX_BYTES"]

PAGE = mmap.PAGESIZE
#: the guest reports free memory 2 s after it is freed (the kernel's PAGE_REPORTING_DELAY), then a share of each
#: free list per pass; measured here, new page-cache pages reached their at-rest cost 6 s after a free: 8 s leaves
#: a margin.
SETTLE_S = 8.0
_VIRTIO_BALLOON = 0x0005
_F_REPORTING = 5  # VIRTIO_BALLOON_F_REPORTING


def free_page_reporting(sysfs: str = "/sys/bus/virtio/devices") -> bool:
    """Whether a virtio balloon with free page reporting is attached: this host hands freed memory back."""
    for device in glob.glob(os.path.join(sysfs, "*")):
        try:
            with open(os.path.join(device, "device")) as fh:
                if int(fh.read().strip(), 16) != _VIRTIO_BALLOON:
                    continue
            with open(os.path.join(device, "features")) as fh:
                features = fh.read().strip()
        except (OSError, ValueError):
            continue
        if len(features) > _F_REPORTING and features[_F_REPORTING] == "1":
            return True
    return False


def settle(seconds: float | None = None) -> float:
    """Wait until memory freed before now is at rest (reported to the hypervisor); return the seconds waited.

    Call it after freeing memory and before timing anything that takes new memory.  Without free page reporting
    there is nothing to wait for."""
    wait = (SETTLE_S if free_page_reporting() else 0.0) if seconds is None else seconds
    if wait > 0:
        time.sleep(wait)
    return wait


#: the most :func:`drain` writes (the cheap memory seen here was at most a few hundred MB)
DRAIN_MAX_BYTES = 2 * 1024**3
_DRAIN_CHUNK = 32 * 1024**2


def drain(path: str, *, max_bytes: int = DRAIN_MAX_BYTES, chunk_bytes: int = _DRAIN_CHUNK, steady: int = 3,
          tolerance: float = 0.25) -> dict:
    """Write new page-cache pages to ``path``, chunk by chunk, until ``steady`` chunks in a row were written at the
    same rate (within ``tolerance``) and at under a third of the rate of rewriting cached pages: the cheap memory is
    then used up and new pages cost what they cost from memory at rest.  The caller keeps the file (its pages stay
    in use) until its timed work is done, then deletes it.  Returns what was written and the rates seen."""
    chunk = b"\xa5" * chunk_bytes
    rates: list[float] = []
    written = 0
    with open(path, "wb", buffering=0) as fh:
        fh.write(chunk)
        t0 = time.perf_counter()
        os.pwrite(fh.fileno(), chunk, 0)  # rewriting cached pages: no new memory
        rewrite = chunk_bytes / max(time.perf_counter() - t0, 1e-9)
        written = chunk_bytes
        while written + chunk_bytes <= max_bytes:
            t0 = time.perf_counter()
            fh.write(chunk)
            rates.append(chunk_bytes / max(time.perf_counter() - t0, 1e-9))
            written += chunk_bytes
            last = rates[-steady:]
            if (len(last) == steady and max(last) <= rewrite / 3
                    and max(last) - min(last) <= tolerance * sorted(last)[steady // 2]):
                break
    return {"path": path, "bytes": written, "rewrite_bytes_per_s": rewrite,
            "steady_bytes_per_s": sorted(rates[-steady:])[len(rates[-steady:]) // 2] if rates else None,
            "warm_bytes": sum(chunk_bytes for r in rates if r > rewrite / 3), "reached_steady": written < max_bytes}


def drain_limit(meminfo: str = "/proc/meminfo") -> int:
    """The most :func:`drain` may hold: :data:`DRAIN_MAX_BYTES`, or an eighth of the memory available if less."""
    try:
        with open(meminfo) as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return min(DRAIN_MAX_BYTES, int(line.split()[1]) * 1024 // 8)
    except (OSError, ValueError, IndexError):
        pass
    return DRAIN_MAX_BYTES // 8


@contextlib.contextmanager
def at_rest(directory: str, *, settle_s: float | None = None) -> Iterator[dict]:
    """Bring the host's free memory to rest for the timed work inside the block: wait for freed memory to be
    reported (:func:`settle`), then hold the cheap memory that is left (:func:`drain`), released on exit.  Yields
    what was done; on a host without free page reporting it does nothing."""
    reporting = free_page_reporting()
    info: dict = {"free_page_reporting": reporting, "settled_s": settle(settle_s if reporting else 0.0)}
    path = os.path.join(directory, ".at-rest")
    try:
        if reporting:
            os.makedirs(directory, exist_ok=True)
            info["drain"] = drain(path, max_bytes=drain_limit())
            del info["drain"]["path"]
        yield info
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def first_touch_rate(size_bytes: int, repeat: int = 1) -> dict:
    """Bytes of new array memory made usable per second (best of ``repeat``), writing one byte per page.

    The memory is taken as the pipeline takes its buffers, with ``numpy.empty``: numpy asks the kernel for
    transparent huge pages for large arrays, which come from free 2 MiB blocks — the blocks a VM reports to its
    hypervisor.  (Measured here at rest: 0.28 GB/s this way, 2.3–2.7 GB/s touching 4 KiB pages of a plain
    ``mmap``, 21 GB/s for memory just freed.)"""
    import numpy as np

    best = 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        region = np.empty(size_bytes, dtype=np.uint8)
        region[::PAGE] = 1
        elapsed = time.perf_counter() - t0
        del region
        best = max(best, size_bytes / elapsed)
    return {"first_touch_bytes_per_s": best, "size_bytes": size_bytes, "page_bytes": PAGE}
