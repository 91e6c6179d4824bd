"""A 1 Hz /proc sampler of one process tree, writing the CHILES tracer's CSV format.

Columns (as in the CHILES study's tracer): ``Time stamp,Total CPU %,Kernel CPU %,VM,RSS,IOPS,Bytes/S,IO WAIT``
— CPU in percent of one core, VM and RSS in bytes, IOPS and Bytes/S as rates of read+write system calls and
of bytes read+written (from /proc/PID/io ``syscr/syscw`` and ``rchar/wchar``), IO WAIT the block-I/O delay
in clock ticks over the interval (field 42 of /proc/PID/stat).
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["ProcSampler", "HEADER"]

HEADER = "Time stamp,Total CPU %,Kernel CPU %,VM,RSS,IOPS,Bytes/S,IO WAIT"
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
MIN_LAST_S = 0.2  # the shortest last interval (on stop) written as a sample


def _read(pid: int) -> tuple[float, float, float, float, float, float, float] | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
        with open(f"/proc/{pid}/io") as fh:
            io = dict(line.split(":") for line in fh.read().splitlines() if ":" in line)
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()  # fields from 3 (state) on
    utime, stime = float(fields[11]), float(fields[12])
    vsize, rss_pages = float(fields[20]), float(fields[21])
    delay = float(fields[39])  # delayacct_blkio_ticks (field 42)
    calls = float(io["syscr"]) + float(io["syscw"])
    nbytes = float(io["rchar"]) + float(io["wchar"])
    return utime, stime, vsize, rss_pages * PAGE, calls, nbytes, delay


class ProcSampler:
    """Samples ``pid`` (default: this process) every ``interval_s`` into ``path`` until stopped."""

    def __init__(self, path: str, pid: int | None = None, interval_s: float = 1.0):
        self.path, self.pid, self.interval_s = path, pid or os.getpid(), interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="proc-sampler", daemon=True)
        self.samples = 0

    def __enter__(self) -> ProcSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        with open(self.path, "w") as out:
            out.write(HEADER + "\n")
            last, last_t = _read(self.pid), time.monotonic()
            while True:
                stopped = self._stop.wait(self.interval_s)
                now, now_t = _read(self.pid), time.monotonic()
                if now is None or last is None:
                    break
                dt = max(now_t - last_t, 1e-6)
                if stopped and self.samples and dt < MIN_LAST_S:
                    break  # too short a last interval to give a rate
                # on stop, the interval since the last sample is written too: a run shorter than a second still
                # has its row, and the end of a longer one is not lost
                cpu = 100.0 * ((now[0] - last[0]) + (now[1] - last[1])) / TICKS / dt
                kernel = 100.0 * (now[1] - last[1]) / TICKS / dt
                out.write(f"{time.time():.3f},{cpu:.1f},{kernel:.1f},{now[2]:.0f},{now[3]:.0f},"
                          f"{(now[4] - last[4]) / dt:.1f},{(now[5] - last[5]) / dt:.0f},{now[6] - last[6]:.0f}\n")
                out.flush()
                self.samples += 1
                last, last_t = now, now_t
                if stopped:
                    break
