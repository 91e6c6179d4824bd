"""fio JSON (``fio --output-format=json``, fio 3.x): one row per job, to measure a storage tier."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .base import Parsed, ParseError, Progress

__all__ = ["parse_fio", "JOB_COLUMNS", "MAX_FIO_BYTES", "RANDOM_RW", "parse_size"]

#: fio JSON files are small; anything bigger is not one
MAX_FIO_BYTES = 64 * 1024 * 1024
JOB_COLUMNS = ("job", "rw", "bs_bytes", "direct", "random", "read_bw_bytes_per_s", "read_iops", "read_bytes",
               "read_lat_mean_s", "write_bw_bytes_per_s", "write_iops", "write_bytes", "write_lat_mean_s", "runtime_s")
RANDOM_RW = {"randread", "randwrite", "randrw", "randtrim"}
_RW = {"read", "write", "rw", "readwrite", "trim", "trimwrite"} | RANDOM_RW
_SUFFIX = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def parse_size(text: str) -> float:
    """fio sizes: ``4k``, ``1M``, ``512`` (fio's default is binary multiples)."""
    t = str(text).strip().lower().removesuffix("ib").removesuffix("b")
    num, suffix = t.rstrip("kmgt"), t[len(t.rstrip("kmgt")):]
    return float(num) * _SUFFIX[suffix]


def _job(filename: str, i: int, job: dict, global_opts: dict) -> dict:
    where = f"jobs[{i}]"
    if not isinstance(job, dict) or "jobname" not in job:
        raise ParseError(filename, None, f"{where}: a fio job object with 'jobname'")
    opts = {**global_opts, **(job.get("job options") or {})}
    rw = str(opts.get("rw", opts.get("readwrite", "read")))
    rw = rw.split(":")[0]
    if rw not in _RW:
        raise ParseError(filename, None, f"{where} ({job['jobname']}): rw one of {', '.join(sorted(_RW))}, got {rw!r}")
    row = {"job": job["jobname"], "rw": rw, "random": rw in RANDOM_RW,
           "direct": str(opts.get("direct", "0")) in ("1", "true")}
    try:
        row["bs_bytes"] = parse_size(str(opts.get("bs", opts.get("blocksize", "4k"))).split(",")[0])
    except (ValueError, KeyError):
        raise ParseError(filename, None, f"{where} ({job['jobname']}): a block size like 4k or 1M, "
                                         f"got {opts.get('bs')!r}") from None
    runtime = 0.0
    for side in ("read", "write"):
        d = job.get(side)
        if not isinstance(d, dict) or not all(k in d for k in ("bw_bytes", "iops", "io_bytes")):
            raise ParseError(filename, None, f"{where} ({job['jobname']}).{side}: an object with bw_bytes, iops "
                                             f"and io_bytes (fio 3.x JSON)")
        try:
            row[f"{side}_bw_bytes_per_s"] = float(d["bw_bytes"])
            row[f"{side}_iops"] = float(d["iops"])
            row[f"{side}_bytes"] = float(d["io_bytes"])
            lat = d.get("clat_ns") or d.get("lat_ns") or {}
            row[f"{side}_lat_mean_s"] = float(lat.get("mean", 0.0)) / 1e9 if lat.get("N", 1) else 0.0
            runtime = max(runtime, float(d.get("runtime", 0)) / 1000.0)
        except (TypeError, ValueError):
            raise ParseError(filename, None, f"{where} ({job['jobname']}).{side}: numbers for bw_bytes, iops, "
                                             f"io_bytes") from None
    row["runtime_s"] = runtime
    return row


def parse_fio(path: str | Path, filename: str | None = None, progress: Progress = None) -> Parsed:
    """Parse fio's JSON output (text printed before the opening brace, such as fio notes, is skipped)."""
    filename = filename or Path(path).name
    size = Path(path).stat().st_size
    if size > MAX_FIO_BYTES:
        raise ParseError(filename, None, f"a fio JSON file of at most {MAX_FIO_BYTES // 2**20} MiB, got {size} bytes")
    text = Path(path).read_bytes().decode("utf-8", errors="replace")
    start = text.find("{")
    if start < 0:
        raise ParseError(filename, 1, "fio JSON output (an object starting with '{')")
    skipped = text.count("\n", 0, start)
    try:
        data = json.loads(text[start:])
    except json.JSONDecodeError as exc:
        raise ParseError(filename, exc.lineno + skipped, f"valid JSON: {exc.msg} (column {exc.colno})") from None
    if progress:
        progress(size, size)
    if not isinstance(data, dict) or not str(data.get("fio version", "")).startswith("fio-"):
        raise ParseError(filename, skipped + 1, "fio JSON with a 'fio version' field (fio --output-format=json)")
    jobs = data.get("jobs")
    if not isinstance(jobs, list) or not jobs:
        raise ParseError(filename, None, "a non-empty 'jobs' list")
    global_opts = data.get("global options") or {}
    rows = [_job(filename, i, job, global_opts) for i, job in enumerate(jobs)]
    meta = {"fio_version": data["fio version"], "time": data.get("time"), "timestamp": data.get("timestamp"),
            "global_options": global_opts, "jobs": len(rows),
            "disks": [d.get("name") for d in data.get("disk_util") or [] if isinstance(d, dict)]}
    return Parsed(format="fio", kind="fio", meta=meta, jobs=pd.DataFrame(rows, columns=list(JOB_COLUMNS)))
