"""fio JSON (``fio --output-format=json``, fio 3.x): one row per group of concurrent jobs, to measure a storage tier.

Jobs that fio started together (one ``groupid``: ``numjobs=N`` clones, or jobs not separated by
``stonewall``) are summed as fio's own ``group_reporting`` does: bandwidth, IOPS and bytes added,
the run time the longest of them, latency weighted by request count.  A file written with
``group_reporting`` already holds one entry per group.  A job with a non-zero ``error`` is kept,
flagged ``failed`` with its error, and never summed into a group or a tier figure; a file whose
every job failed is refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from .base import Parsed, ParseError, Progress

__all__ = ["parse_fio", "JOB_COLUMNS", "MAX_FIO_BYTES", "RANDOM_RW", "parse_size", "aggregate_groups"]

#: fio JSON files are small; anything bigger is not one
MAX_FIO_BYTES = 64 * 1024 * 1024
JOB_COLUMNS = ("job", "rw", "bs_bytes", "direct", "random", "read_bw_bytes_per_s", "read_iops", "read_bytes",
               "read_lat_mean_s", "write_bw_bytes_per_s", "write_iops", "write_bytes", "write_lat_mean_s", "runtime_s",
               "group", "jobs", "error", "failed")
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
    try:
        row["group"] = int(job.get("groupid", i))
        row["error"] = int(job.get("error", 0) or 0)
    except (TypeError, ValueError):
        raise ParseError(filename, None, f"{where} ({job['jobname']}): whole numbers for groupid and error, "
                                         f"got {job.get('groupid')!r}, {job.get('error')!r}") from None
    row["failed"] = row["error"] != 0
    row["jobs"] = 1
    return row


def _numjobs(job: dict, global_opts: dict) -> int:
    try:
        return int({**global_opts, **(job.get("job options") or {})}.get("numjobs", 1))
    except (TypeError, ValueError):
        return 1


def _group_row(rows: list[dict]) -> dict:
    """Concurrent jobs of one group summed as fio's group_reporting does."""
    if len(rows) == 1:
        return rows[0]
    first = rows[0]
    names = list(dict.fromkeys(r["job"] for r in rows))
    out = {"job": names[0] if len(names) == 1 else "+".join(names),
           "rw": first["rw"] if len({r["rw"] for r in rows}) == 1 else "+".join(dict.fromkeys(r["rw"] for r in rows)),
           "random": all(r["random"] for r in rows), "direct": all(r["direct"] for r in rows),
           "bs_bytes": first["bs_bytes"] if len({r["bs_bytes"] for r in rows}) == 1 else max(r["bs_bytes"] for r in rows),
           "runtime_s": max(r["runtime_s"] for r in rows), "group": first["group"],
           "jobs": sum(r["jobs"] for r in rows), "error": 0, "failed": False}
    for side in ("read", "write"):
        for col in ("bw_bytes_per_s", "iops", "bytes"):
            out[f"{side}_{col}"] = sum(r[f"{side}_{col}"] for r in rows)
        ops = out[f"{side}_iops"]
        out[f"{side}_lat_mean_s"] = (sum(r[f"{side}_lat_mean_s"] * r[f"{side}_iops"] for r in rows) / ops) if ops else 0.0
    return out


def aggregate_groups(rows: list[dict]) -> tuple[list[dict], list[str]]:
    """Rows with each group's concurrent jobs summed (failed jobs kept apart), and a sentence per group summed."""
    by_group: dict[int, list[dict]] = {}
    for r in rows:
        if not r["failed"]:
            by_group.setdefault(r["group"], []).append(r)
    out, notes = [], []
    for r in rows:
        if r["failed"]:
            out.append(r)
            continue
        members = by_group.pop(r["group"], None)
        if members is None:
            continue
        out.append(_group_row(members))
        if len(members) > 1:
            notes.append(f"group {r['group']}: {len(members)} concurrent jobs ({', '.join(m['job'] for m in members)}) "
                         "summed as fio's group_reporting does (bandwidth, IOPS and bytes added; run time the longest)")
    return out, notes


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
    raw = [_job(filename, i, job, global_opts) for i, job in enumerate(jobs)]
    failed = [{"job": r["job"], "error": r["error"], "message": os.strerror(r["error"]) if r["error"] > 0 else "fio error"}
              for r in raw if r["failed"]]
    if len(failed) == len(raw):
        raise ParseError(filename, None, "at least one fio job that ran without error; every job failed ("
                         + "; ".join(f"{f['job']}: error {f['error']}, {f['message']}" for f in failed) + ")")
    # group_reporting leaves no option in the JSON: a group holding one entry for numjobs > 1 was summed by fio
    per_group: dict[int, int] = {}
    for r in raw:
        per_group[r["group"]] = per_group.get(r["group"], 0) + 1
    reported = False
    for r, job in zip(raw, jobs, strict=True):
        if per_group[r["group"]] == 1 and _numjobs(job, global_opts) > 1:
            reported, r["jobs"] = True, _numjobs(job, global_opts)
    rows, notes = aggregate_groups(raw)
    if reported:
        notes.insert(0, "written with group_reporting: fio summed each group's jobs itself")
    meta = {"fio_version": data["fio version"], "time": data.get("time"), "timestamp": data.get("timestamp"),
            "global_options": global_opts, "jobs": len(raw), "failed_jobs": failed, "grouping": notes,
            "disks": [d.get("name") for d in data.get("disk_util") or [] if isinstance(d, dict)]}
    return Parsed(format="fio", kind="fio", meta=meta, jobs=pd.DataFrame(rows, columns=list(JOB_COLUMNS)))
