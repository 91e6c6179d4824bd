"""Storage probe: sequential bandwidth (1 MiB blocks) and random 4 KiB IOPS at growing concurrency.

Uses fio (``--output-format=json``) when it is installed; otherwise a built-in Python probe that is labelled as
such in every figure it returns.  The result gives the tier's contention curve: aggregate throughput against
the number of concurrent streams.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
from collections.abc import Callable

__all__ = ["PATTERNS", "storage_probe", "fio_available"]

MiB = 1024 * 1024
#: pattern -> (fio rw mode, block size in bytes)
PATTERNS = {"seq_read": ("read", MiB), "seq_write": ("write", MiB), "rand_read": ("randread", 4096),
            "rand_write": ("randwrite", 4096)}

Progress = Callable[[int, int], None] | None


def fio_available() -> bool:
    return shutil.which("fio") is not None


def _fio(directory: str, pattern: str, jobs: int, size_bytes: int, runtime_s: float, direct: bool) -> dict:
    rw, bs = PATTERNS[pattern]
    cmd = ["fio", "--name=skyplan", f"--directory={directory}", f"--rw={rw}", f"--bs={bs}",
           f"--size={size_bytes}", f"--numjobs={jobs}", "--ioengine=psync", f"--direct={int(direct)}",
           "--group_reporting", "--output-format=json", f"--runtime={max(1, int(runtime_s))}",
           "--invalidate=1"]
    if rw.startswith("rand"):
        cmd.append("--time_based")
    if rw in ("write", "randwrite"):
        cmd.append("--end_fsync=1")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=runtime_s * 4 + 120)
    if done.returncode != 0:
        raise RuntimeError(f"fio failed ({' '.join(cmd)}): {done.stderr.strip()[-500:]}")
    text = done.stdout[done.stdout.index("{"):]  # fio may print notes before the JSON
    data = json.loads(text)
    job = data["jobs"][0]
    side = job["read"] if rw in ("read", "randread") else job["write"]
    return {"bytes_per_s": float(side["bw_bytes"]), "iops": float(side["iops"]), "raw": data,
            "command": " ".join(cmd)}


def _builtin(directory: str, pattern: str, jobs: int, size_bytes: int, runtime_s: float) -> dict:
    """One stream per job run one after another is not concurrency; the built-in probe measures jobs=1 only."""
    rw, bs = PATTERNS[pattern]
    path = os.path.join(directory, "skyplan-probe.dat")
    block = os.urandom(bs)
    if not os.path.exists(path) or os.path.getsize(path) < size_bytes:
        with open(path, "wb") as fh:
            for _ in range(size_bytes // bs):
                fh.write(block)
            fh.flush()
            os.fsync(fh.fileno())
    fd = os.open(path, os.O_RDWR)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        blocks, moved, ops = size_bytes // bs, 0, 0
        t0 = time.perf_counter()
        rng = random.Random(0)
        while time.perf_counter() - t0 < runtime_s and (rw.startswith("rand") or ops < blocks):
            offset = (rng.randrange(blocks) if rw.startswith("rand") else ops) * bs
            if rw in ("read", "randread"):
                moved += len(os.pread(fd, bs, offset))
            else:
                moved += os.pwrite(fd, block, offset)
            ops += 1
        if rw in ("write", "randwrite"):
            os.fsync(fd)
        elapsed = time.perf_counter() - t0
    finally:
        os.close(fd)
    return {"bytes_per_s": moved / elapsed, "iops": ops / elapsed, "raw": None,
            "command": f"built-in Python probe ({pattern}, {bs} B blocks, page cache dropped with fadvise)"}


def storage_probe(directory: str, *, concurrency: list[int], size_bytes: int, runtime_s: float,
                  patterns: list[str] | None = None, progress: Progress = None) -> dict:
    """Run every pattern at every concurrency in ``directory``; returns the curves and how they were measured."""
    patterns = patterns or list(PATTERNS)
    use_fio = fio_available()
    levels = concurrency if use_fio else [1]
    total, done = len(patterns) * len(levels), 0
    direct = True
    points = []
    for pattern in patterns:
        for jobs in levels:
            if use_fio:
                try:
                    r = _fio(directory, pattern, jobs, size_bytes, runtime_s, direct)
                except RuntimeError:
                    if not direct:
                        raise
                    direct = False  # the file system refuses O_DIRECT (tmpfs, some overlays): buffered I/O
                    r = _fio(directory, pattern, jobs, size_bytes, runtime_s, direct)
            else:
                r = _builtin(directory, pattern, jobs, size_bytes, runtime_s)
            points.append({"pattern": pattern, "jobs": jobs, "bytes_per_s": r["bytes_per_s"], "iops": r["iops"],
                           "command": r["command"], "fio": r["raw"]})
            done += 1
            if progress:
                progress(done, total)
    return {"tool": "fio" if use_fio else "builtin", "direct_io": direct if use_fio else False,
            "directory": directory, "points": points}
