"""Memory probe: how fast this host hands a process memory it has not touched before.

Every byte a program writes into a new file takes a new page-cache page, and every new array takes new pages;
the kernel zeroes each page on first touch, and a virtual machine whose guest returns freed memory to the
hypervisor (free page reporting, ballooning) also pays a fault in the host for it.  On such a host this costs
far more than copying the data (measured on this project's 2-core VM: 0.3–0.4 GB/s for memory freed more than a
few seconds earlier, 1–8 GB/s for memory just freed).  The probe times the first touch of ``size_bytes`` of new
anonymous memory, one write per page, and reports bytes per second.
"""

from __future__ import annotations

import mmap
import time

__all__ = ["first_touch_rate"]

PAGE = mmap.PAGESIZE


def first_touch_rate(size_bytes: int, repeat: int = 1) -> dict:
    """Bytes of new memory made usable per second (best of ``repeat``), touching one byte per page."""
    best = 0.0
    for _ in range(repeat):
        region = mmap.mmap(-1, size_bytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        try:
            view = memoryview(region)
            t0 = time.perf_counter()
            for offset in range(0, size_bytes, PAGE):
                view[offset] = 1
            elapsed = time.perf_counter() - t0
            view.release()
        finally:
            region.close()
        best = max(best, size_bytes / elapsed)
    return {"first_touch_bytes_per_s": best, "size_bytes": size_bytes, "page_bytes": PAGE}
