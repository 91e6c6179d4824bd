"""What a parsed profile says: time series, I/O classes, phases and a Table-4 style summary row.

Plain pandas/numpy, no Django.  :func:`analyse` turns a :class:`~apps.profiles.parsers.Parsed`
into a JSON-safe dict that is stored with the profile; the frame helpers below turn that dict
back into DataFrames for the charts.

Phases are found by binary segmentation of the per-second series (CPU cores in use, sequential
and random I/O rates, each scaled to its peak): a split is kept when it lowers the squared
error by more than a BIC-like penalty.  Each phase is then labelled by what bounds it:
``cpu``, ``seq_io``, ``random_io`` or ``idle`` (and ``io`` when the file cannot tell sequential
from random, ``no_io`` when a strace shows no I/O and cannot tell CPU from waiting).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from apps.profiles.parsers import Parsed
from apps.profiles.parsers.strace import CLASSES

__all__ = ["analyse", "Capacity", "segment", "series_frame", "class_series_frame", "histogram_frame", "phases_frame",
           "BOUND_LABELS", "MAX_POINTS"]

#: points kept per series for the page (longer series are averaged into this many bins)
MAX_POINTS = 2000
BOUND_LABELS = {
    "cpu": "CPU",
    "seq_io": "sequential I/O",
    "random_io": "random I/O",
    "io": "I/O (pattern not in this file)",
    "idle": "idle",
    "no_io": "no I/O traced (CPU or waiting)",
}
#: below these a phase counts as idle: a tenth of a core, and 5 % of the profile's peak I/O rate
IDLE_CPU_CORES = 0.10
IDLE_IO_SHARE = 0.05
MIN_PHASE_S = 2
#: series shorter than this (seconds) are segmented with one-second phases and the noise floor
SHORT_SERIES = 30
#: noise floor of the peak-scaled series used by the change-point penalty
NOISE_FLOOR = 0.05
MAX_PHASES = 12


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _bin(frame: pd.DataFrame, t_col: str, how: dict[str, str]) -> pd.DataFrame:
    """Average (or max) a per-second frame into at most MAX_POINTS rows for display."""
    if len(frame) <= MAX_POINTS:
        return frame
    key = np.arange(len(frame)) * MAX_POINTS // len(frame)
    return frame.groupby(key).agg({t_col: "first", **how}).reset_index(drop=True)


# --- change-point segmentation ----------------------------------------------------------------------

def segment(features: np.ndarray, *, min_size: int = MIN_PHASE_S, max_segments: int = MAX_PHASES) -> list[int]:
    """Change points of a (seconds × features) array by binary segmentation; returns segment starts.

    Cost is the within-segment squared error; a split must lower it by more than
    ``2 · d · log(n) · σ²`` where σ is estimated from first differences (robust to the steps)."""
    x = np.nan_to_num(np.asarray(features, dtype=float))
    n, d = x.shape
    if n < SHORT_SERIES:
        # too few points to estimate the noise from the data: one-second phases, the noise floor only
        min_size, sigma2 = 1, NOISE_FLOOR**2
    else:
        diffs = np.abs(np.diff(x, axis=0))
        sigma = np.median(diffs, axis=0) / 0.6745 / math.sqrt(2)
        sigma2 = float(np.mean(np.maximum(sigma, NOISE_FLOOR) ** 2))
    if n < 2 * min_size:
        return [0]
    penalty = 2.0 * d * math.log(n) * sigma2
    cs = np.vstack([np.zeros(d), np.cumsum(x, axis=0)])
    cs2 = np.concatenate([[0.0], np.cumsum((x**2).sum(axis=1))])

    def cost(a: int, b: int) -> float:
        s = cs[b] - cs[a]
        return float(cs2[b] - cs2[a] - (s**2).sum() / (b - a))

    def best_split(a: int, b: int) -> tuple[float, int]:
        if b - a < 2 * min_size:
            return 0.0, -1
        ks = np.arange(a + min_size, b - min_size + 1)
        left = cs[ks] - cs[a]
        right = cs[b] - cs[ks]
        c_left = cs2[ks] - cs2[a] - (left**2).sum(axis=1) / (ks - a)
        c_right = cs2[b] - cs2[ks] - (right**2).sum(axis=1) / (b - ks)
        gains = cost(a, b) - (c_left + c_right)
        i = int(np.argmax(gains))
        return float(gains[i]), int(ks[i])

    segments = [(0, n)]
    while len(segments) < max_segments:
        candidates = [(best_split(a, b), (a, b)) for a, b in segments]
        (gain, k), (a, b) = max(candidates, key=lambda c: c[0][0])
        if k < 0 or gain <= penalty:
            break
        segments.remove((a, b))
        segments += [(a, k), (k, b)]
    return sorted(a for a, _ in segments)


@dataclass(frozen=True)
class Capacity:
    """What the host a profile ran on can do, for naming phases: cores, and its storage's bandwidth and IOPS
    (``None`` when unknown).  ``source`` says where the figures come from (a platform, the file)."""

    cores: float | None = None
    read_bytes_per_s: float | None = None
    write_bytes_per_s: float | None = None
    iops: float | None = None
    source: str = ""

    @property
    def knows_io(self) -> bool:
        return bool(self.read_bytes_per_s or self.write_bytes_per_s)


def _label(cpu_share: float, io_share: float, cpu_cores: float, *, knows_cpu: bool, knows_pattern: bool,
           rand_ops_share: float) -> str:
    """A phase's label from the shares of the host's capacity it uses (0 = none, 1 = all of it)."""
    if knows_cpu and cpu_cores < IDLE_CPU_CORES and io_share < IDLE_IO_SHARE:
        return "idle"
    if not knows_cpu and io_share < IDLE_IO_SHARE:
        return "no_io"
    if knows_cpu and cpu_share > io_share:
        return "cpu"
    if not knows_pattern:
        return "io"
    return "random_io" if rand_ops_share >= 0.5 else "seq_io"


def _io_share(seq: float, rand: float, io: float, rand_ops: float | None, capacity: Capacity, peak_io: float,
              busy: float | None, ops: float | None = None) -> float:
    """The share of the host's I/O capacity a phase uses: sequential bytes over the storage's bandwidth plus
    random requests over its IOPS (samples, which cannot tell them apart: the larger of bytes over bandwidth
    and requests over IOPS); without the host's figures, the share of time inside I/O calls (strace) or,
    failing that, of the file's own peak rate."""
    if capacity.knows_io:
        bw = max(capacity.read_bytes_per_s or 0.0, capacity.write_bytes_per_s or 0.0)
        if capacity.iops and rand_ops is not None:
            return seq / bw + rand_ops / capacity.iops
        if capacity.iops and ops is not None and math.isfinite(ops):
            return max(io / bw, ops / capacity.iops)
        return io / bw
    if busy is not None:
        return min(1.0, busy)
    return io / peak_io if peak_io > 0 else 0.0


def _phases(t: np.ndarray, cpu_cores: np.ndarray | None, seq: np.ndarray, rand: np.ndarray, io: np.ndarray,
            rand_ops: np.ndarray | None, seq_ops: np.ndarray | None, dt: float, *, capacity: Capacity,
            duration_s: float, busy: np.ndarray | None = None, ops: np.ndarray | None = None) -> list[dict]:
    """Phases of the per-interval series, clipped to the file's span, labelled against the host's capacity."""
    knows_cpu = cpu_cores is not None
    knows_pattern = rand_ops is not None
    peak_io = float(np.nanmax(io)) if len(io) else 0.0
    peak_cores = float(np.nanmax(cpu_cores)) if knows_cpu and len(cpu_cores) else 0.0
    host_cores = capacity.cores or 1.0
    cols = []
    if knows_cpu:
        cols.append(cpu_cores / max(peak_cores, 1.0))
    if knows_pattern:
        cols += [seq / peak_io if peak_io else seq, rand / peak_io if peak_io else rand]
    else:
        cols.append(io / peak_io if peak_io else io)
    starts = segment(np.column_stack(cols))
    ends = starts[1:] + [len(t)]
    phases = []
    for a, b in zip(starts, ends, strict=False):
        start_s = float(t[a])
        if start_s >= duration_s and phases:
            break
        c = float(np.nanmean(cpu_cores[a:b])) if knows_cpu else None
        s, r, i = float(np.nanmean(seq[a:b])), float(np.nanmean(rand[a:b])), float(np.nanmean(io[a:b]))
        share = 0.0
        ro = None
        if knows_pattern:
            ro, so = float(np.nansum(rand_ops[a:b])), float(np.nansum(seq_ops[a:b]))
            share = ro / (ro + so) if ro + so else 0.0
            ro = ro / max(b - a, 1) / dt
        io_share = _io_share(s, r, i, ro, capacity, peak_io,
                             float(np.nanmean(busy[a:b])) if busy is not None else None,
                             float(np.nanmean(ops[a:b])) if ops is not None and not np.isnan(ops[a:b]).all() else None)
        cpu_share = (c or 0.0) / host_cores
        bound = _label(cpu_share, io_share, c or 0.0, knows_cpu=knows_cpu, knows_pattern=knows_pattern,
                       rand_ops_share=share)
        phases.append({"start_s": start_s, "end_s": min(float(t[b - 1] + dt), duration_s), "bound": bound,
                       "label": BOUND_LABELS[bound], "cpu_pct": None if c is None else c * 100,
                       "io_bytes_per_s": i, "seq_bytes_per_s": s if knows_pattern else None,
                       "rand_bytes_per_s": r if knows_pattern else None,
                       "random_ops_share": share if knows_pattern else None,
                       "cpu_share": cpu_share if knows_cpu else None, "io_share": io_share})
    # merge neighbours with the same label
    merged: list[dict] = []
    for p in phases:
        if merged and merged[-1]["bound"] == p["bound"]:
            q = merged[-1]
            wq, wp = q["end_s"] - q["start_s"], p["end_s"] - p["start_s"]
            for k in ("cpu_pct", "io_bytes_per_s", "seq_bytes_per_s", "rand_bytes_per_s", "random_ops_share",
                      "cpu_share", "io_share"):
                if q[k] is not None and p[k] is not None and wq + wp > 0:
                    q[k] = (q[k] * wq + p[k] * wp) / (wq + wp)
            q["end_s"] = p["end_s"]
        else:
            merged.append(p)
    return merged


def _labels_basis(capacity: Capacity, knows_cpu: bool, busy: bool) -> str:
    """How the phases were labelled, in words, for the page."""
    cpu = (f"CPU against the host's {capacity.cores:g} cores ({capacity.source})" if capacity.cores
           else "CPU against one core (the host's cores are not known)")
    if capacity.knows_io:
        io = f"I/O against the storage's bandwidth and IOPS ({capacity.source})"
    elif busy:
        io = "I/O as the share of time inside read and write calls"
    else:
        io = ("I/O against this file's own peak rate: the host's storage is not known (import the profile "
              "with a platform to label against its capacity)")
    return f"{cpu}; {io}" if knows_cpu else io


# --- per kind ------------------------------------------------------------------------------------

def _character(rand_ops: float, seq_ops: float, read: float, write: float) -> str:
    """The I/O characteristics column of Table 4, in words."""
    if read + write <= 0:
        return "no file I/O"
    pattern = "random" if rand_ops > seq_ops else "sequential"
    direction = "read" if read >= 2 * write else "write" if write >= 2 * read else "read/write"
    return f"{pattern} {direction} dominated"


def _direction(read: float, write: float, io: float) -> str:
    """Table 4's I/O column from samples alone: direction only (the access pattern needs a strace)."""
    if read + write > 0:
        direction = "read" if read >= 2 * write else "write" if write >= 2 * read else "read/write"
        return f"{direction} dominated (access pattern needs a strace)"
    return "reads and writes not told apart in this format" if io > 0 else "no I/O"


def _samples(parsed: Parsed, capacity: Capacity) -> dict[str, Any]:
    f = parsed.samples
    m = parsed.meta
    dt = float(f["dt_s"].median()) if len(f) else 1.0
    knows_cpu = m.get("cpu_user_s") is not None or m.get("cpu_system_s") is not None
    cpu_pct = (f["cpu_user_pct"].fillna(0) + f["cpu_system_pct"].fillna(0)).to_numpy()
    io = f["io_bytes_per_s"].fillna(0).to_numpy()
    phases = _phases(f["t_s"].to_numpy(), cpu_pct / 100.0 if knows_cpu else None, io, np.zeros(len(f)), io, None,
                     None, dt, capacity=capacity, duration_s=float(m["duration_s"]),
                     ops=f["io_ops_per_s"].to_numpy(dtype=float))
    busy_cpu = cpu_pct[cpu_pct >= IDLE_CPU_CORES * 100]
    read, write, moved = m.get("read_bytes"), m.get("write_bytes"), m.get("io_bytes")
    series = _bin(f, "t_s", {c: ("max" if c.endswith("bytes") and not c.endswith("per_s") else "mean")
                             for c in f.columns if c != "t_s"})
    io_range = None
    if moved is not None:
        # over the whole span, and over the intervals with I/O in them (the rate while doing I/O)
        busy = float(f.loc[f["io_bytes_per_s"].fillna(0) > 0, "dt_s"].sum())
        io_range = [moved / float(m["duration_s"]), moved / busy if busy > 0 else 0.0]
    summary = {
        "duration_s": m["duration_s"],
        "peak_memory_bytes": m.get("peak_rss_bytes"),
        "peak_vm_bytes": m.get("peak_vm_bytes"),
        "io_range_bytes_per_s": io_range,
        "cpu_pct_p90": (float(np.percentile(busy_cpu, 90)) if len(busy_cpu) else 0.0) if knows_cpu else None,
        "cpu_pct_peak": (float(cpu_pct.max()) if len(cpu_pct) else 0.0) if knows_cpu else None,
        "cpu_seconds": (m["cpu_user_s"] or 0.0) + (m["cpu_system_s"] or 0.0) if knows_cpu else None,
        "cpu_user_seconds": m.get("cpu_user_s"),
        "cpu_system_seconds": m.get("cpu_system_s"),
        "read_bytes": read,
        "write_bytes": write,
        "io_bytes": moved,
        "io_character": (_direction(read or 0.0, write or 0.0, moved) if moved is not None
                         else "I/O not recorded in this file"),
        "usable_threads": (max(1, int(math.ceil(np.percentile(busy_cpu, 95) / 100 - 0.15))) if len(busy_cpu) else 1)
                          if knows_cpu else None,
        "idle_seconds": sum(p["end_s"] - p["start_s"] for p in phases if p["bound"] == "idle"),
        "phase_labels": _labels_basis(capacity, knows_cpu, busy=False),
    }
    return {"kind": "samples", "summary": summary, "phases": phases,
            "series": {c: [_finite(v) for v in series[c].to_numpy()] for c in series.columns}}


def _strace(parsed: Parsed, capacity: Capacity) -> dict[str, Any]:
    a = parsed.aggregates
    m = parsed.meta
    per_s = np.asarray(a["bytes_per_second"], dtype=float).reshape(len(CLASSES), -1)
    ops_s = np.asarray(a["ops_per_second"], dtype=float).reshape(len(CLASSES), -1)
    busy_s = np.asarray(a.get("busy_per_second") or [], dtype=float)
    n = max(per_s.shape[1], int(math.ceil(m["duration_s"])) or 1)
    if per_s.shape[1] < n:
        per_s = np.pad(per_s, ((0, 0), (0, n - per_s.shape[1])))
        ops_s = np.pad(ops_s, ((0, 0), (0, n - ops_s.shape[1])))
    busy_s = np.pad(busy_s, (0, max(0, n - len(busy_s))))[:n]
    t = np.arange(n, dtype=float)
    seq = per_s[0] + per_s[2]
    rand = per_s[1] + per_s[3]
    duration = float(m["duration_s"])
    # the last second is partly outside the trace: its share of time in I/O is over the part inside
    width = np.minimum(1.0, np.maximum(duration - t, 1e-6)) if duration > 0 else np.ones(n)
    phases = _phases(t, None, seq, rand, seq + rand, ops_s[1] + ops_s[3], ops_s[0] + ops_s[2], 1.0,
                     capacity=capacity, duration_s=max(duration, 1e-6), busy=busy_s / width)
    bytes_ = dict(zip(CLASSES, a["bytes"], strict=False))
    ops = dict(zip(CLASSES, a["ops"], strict=False))
    busy = dict(zip(CLASSES, a["busy_s"], strict=False))
    read_b, write_b = bytes_["seq_read"] + bytes_["rand_read"], bytes_["seq_write"] + bytes_["rand_write"]
    seq_ops, rand_ops = ops["seq_read"] + ops["seq_write"], ops["rand_read"] + ops["rand_write"]
    moved = read_b + write_b
    union = float(a.get("busy_union_s") or 0.0)
    summary = {
        "duration_s": m["duration_s"],
        "peak_memory_bytes": None,
        # the trace's bytes over its span ~ over the time inside at least one read or write (from the calls'
        # own durations, -T): not from per-second bins, which cannot see a burst shorter than a second
        "io_range_bytes_per_s": ([moved / duration if duration > 0 else moved / union, moved / union]
                                 if moved and union > 0 else None),
        "busy_union_s": union,
        "rate_bytes_per_s": {c: (bytes_[c] / busy[c] if busy[c] > 0 else None) for c in CLASSES},
        "cpu_pct_p90": None,
        "bytes": bytes_,
        "ops": ops,
        "busy_s": busy,
        "consecutive_ops": a["consecutive_ops"],
        "read_bytes": read_b,
        "write_bytes": write_b,
        "sequential_share_ops": seq_ops / (seq_ops + rand_ops) if seq_ops + rand_ops else None,
        "random_op_bytes": (bytes_["rand_read"] + bytes_["rand_write"]) / rand_ops if rand_ops else None,
        "io_character": _character(rand_ops, seq_ops, read_b, write_b),
        "classification": ("random" if rand_ops > seq_ops else "sequential") if seq_ops + rand_ops else "none",
        "idle_seconds": 0.0,
        "phase_labels": _labels_basis(capacity, False, busy=True),
    }
    series = pd.DataFrame({"t_s": t, **{c: per_s[i] for i, c in enumerate(CLASSES)}})
    series = _bin(series, "t_s", {c: "mean" for c in CLASSES})
    return {
        "kind": "strace", "summary": summary, "phases": phases,
        "series": {c: series[c].tolist() for c in series.columns},
        "histograms": {"size_bins": a["size_bins"], "size_hist": dict(zip(CLASSES, a["size_hist"], strict=False)),
                       "iat_bins": a["iat_bins"], "iat_hist": dict(zip(CLASSES, a["iat_hist"], strict=False)),
                       "iat_zero": dict(zip(CLASSES, a["iat_zero"], strict=False))},
        "syscalls": m.get("syscalls", {}),
    }


def _fio(parsed: Parsed) -> dict[str, Any]:
    """Tier figures from the jobs that ran without error (each group's concurrent jobs summed by the parser);
    a failed job is listed, never measured."""
    jobs = parsed.jobs[~parsed.jobs["failed"]]
    seq = jobs[~jobs["random"]]
    rnd = jobs[jobs["random"]]

    def best(frame: pd.DataFrame, col: str) -> float | None:
        v = frame[col].max() if len(frame) else None
        return float(v) if v is not None and v > 0 else None

    tier = {
        "read_bw": best(seq, "read_bw_bytes_per_s"),
        "write_bw": best(seq, "write_bw_bytes_per_s"),
        "iops": best(rnd.assign(total=rnd["read_iops"] + rnd["write_iops"]), "total") if len(rnd) else None,
        "latency": (float(rnd.loc[rnd["read_iops"] > 0, "read_lat_mean_s"].mean())
                    if len(rnd) and (rnd["read_iops"] > 0).any() else None),
    }
    # groups run one after the other (stonewall); the jobs of a group at once: the longest is in its row
    summary = {"jobs": len(jobs), "tier": tier, "duration_s": float(jobs["runtime_s"].sum()),
               "failed_jobs": parsed.meta.get("failed_jobs") or [], "grouping": parsed.meta.get("grouping") or [],
               "peak_memory_bytes": None, "io_range_bytes_per_s": None, "cpu_pct_p90": None,
               "io_character": "storage benchmark", "fio_version": parsed.meta.get("fio_version"),
               "time": parsed.meta.get("time")}
    return {"kind": "fio", "summary": summary, "phases": [],
            "jobs": [{**{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()},
                      "iops": float(row["read_iops"] + row["write_iops"])}
                     for row in parsed.jobs.to_dict(orient="records")]}


def _darshan(parsed: Parsed) -> dict[str, Any]:
    """A Darshan log: the job's totals, POSIX accesses in the four classes, sizes, top files; no time series.

    Darshan counts requests per class but not their bytes: a file's bytes are split between its
    classes by its mean request size (an estimate, marked so)."""
    a, m = parsed.aggregates, parsed.meta
    files = a["top_files"]
    c = a["classes"]
    posix = a["modules"].get("POSIX")
    ops = {"seq_read": c["seq_read_ops"] + c["consec_read_ops"], "rand_read": c["rand_read_ops"],
           "seq_write": c["seq_write_ops"] + c["consec_write_ops"], "rand_write": c["rand_write_ops"]}
    source = posix or a["modules"].get("STDIO") or {"read_bytes": 0, "write_bytes": 0, "read_time_s": 0.0,
                                                     "write_time_s": 0.0, "meta_time_s": 0.0}
    read_b, write_b = float(source["read_bytes"]), float(source["write_bytes"])
    rand_b = {"read": 0.0, "write": 0.0}
    for f in files:  # the top files; the rest are split by the job's mean request size below
        for d in ("read", "write"):
            if f[f"{d}_ops"]:
                rand_b[d] += f[f"rand_{d}_ops"] * f[f"{d}_bytes"] / f[f"{d}_ops"]
    for d, total_b in (("read", read_b), ("write", write_b)):
        rest_ops = c[f"rand_{d}_ops"] - sum(f[f"rand_{d}_ops"] for f in files)
        all_ops = (posix or {}).get(f"{d}s", 0)
        if rest_ops > 0 and all_ops:
            rand_b[d] += rest_ops * total_b / all_ops
    bytes_ = {"seq_read": read_b - rand_b["read"], "rand_read": rand_b["read"],
              "seq_write": write_b - rand_b["write"], "rand_write": rand_b["write"]}
    seq_ops, rand_ops = ops["seq_read"] + ops["seq_write"], ops["rand_read"] + ops["rand_write"]
    duration = float(m["duration_s"])
    nprocs = int(m["nprocs"])
    io_time_per_process = (source["read_time_s"] + source["write_time_s"] + source["meta_time_s"]) / nprocs
    moved = read_b + write_b
    io_range = None
    if moved > 0:
        low = moved / duration
        io_range = [low, max(low, moved / io_time_per_process) if io_time_per_process > 0 else low]
    if posix:
        character = _character(rand_ops, seq_ops, read_b, write_b)
        classification = ("random" if rand_ops > seq_ops else "sequential") if seq_ops + rand_ops else "none"
    else:
        character = _direction(read_b, write_b, moved).replace("a strace", "the POSIX module")
        classification = "none"
    per_process = {"seq_read_bytes": bytes_["seq_read"] / nprocs, "seq_write_bytes": bytes_["seq_write"] / nprocs,
                   "random_read_ops": ops["rand_read"] / nprocs, "random_write_ops": ops["rand_write"] / nprocs,
                   "random_op_bytes": (rand_b["read"] + rand_b["write"]) / rand_ops if rand_ops else None}
    summary = {
        "duration_s": duration, "peak_memory_bytes": None, "io_range_bytes_per_s": io_range, "cpu_pct_p90": None,
        "nprocs": nprocs, "bytes": bytes_, "ops": ops,
        "consecutive_ops": {"read": c["consec_read_ops"], "write": c["consec_write_ops"]},
        "read_bytes": read_b, "write_bytes": write_b,
        "read_time_s": source["read_time_s"], "write_time_s": source["write_time_s"],
        "meta_time_s": source["meta_time_s"], "io_time_per_process_s": io_time_per_process,
        "sequential_share_ops": seq_ops / (seq_ops + rand_ops) if seq_ops + rand_ops else None,
        "random_op_bytes": per_process["random_op_bytes"], "io_character": character,
        "classification": classification, "modules": a["modules"], "per_process": per_process,
        "has_posix": bool(posix), "idle_seconds": 0.0,
    }
    bound = "no_io" if not moved else "random_io" if classification == "random" else "seq_io"
    phases = [{"start_s": 0.0, "end_s": duration, "bound": bound, "label": BOUND_LABELS[bound], "cpu_pct": None,
               "io_bytes_per_s": moved / duration, "seq_bytes_per_s": None, "rand_bytes_per_s": None,
               "random_ops_share": rand_ops / (seq_ops + rand_ops) if seq_ops + rand_ops else None}]
    return {"kind": "darshan", "summary": summary, "phases": phases, "files": files,
            "histograms": {"size_bins": a["size_edges"], "size_hist": a["size_hist"]}}


def analyse(parsed: Parsed, capacity: Capacity | None = None) -> dict[str, Any]:
    """The stored analysis of one parsed file (JSON-safe).  ``capacity`` is the host's (from the platform the
    profile ran on), for labelling phases; without it, what the file itself says (pidstat's CPU count)."""
    if capacity is None:
        cores = parsed.meta.get("host_cores")
        capacity = Capacity(cores=cores, source="the file's header" if cores else "")
    if parsed.kind in ("samples", "strace"):
        out = {"samples": _samples, "strace": _strace}[parsed.kind](parsed, capacity)
    else:
        out = {"fio": _fio, "darshan": _darshan}[parsed.kind](parsed)
    out["format"] = parsed.format
    out["meta"] = {k: v for k, v in parsed.meta.items() if k not in ("syscalls",)}
    return out


# --- frames for the charts -------------------------------------------------------------------------

def series_frame(analysis: dict) -> pd.DataFrame:
    """The per-second series of a profile as a DataFrame (columns as stored)."""
    return pd.DataFrame(analysis.get("series") or {}).astype(float)


def class_series_frame(analysis: dict) -> pd.DataFrame:
    """strace throughput per class over time, long form: t_s, class, bytes_per_s."""
    wide = series_frame(analysis)
    if wide.empty:
        return pd.DataFrame(columns=["t_s", "class", "bytes_per_s"])
    return wide.melt(id_vars="t_s", value_vars=[c for c in CLASSES if c in wide], var_name="class",
                     value_name="bytes_per_s")


def histogram_frame(analysis: dict, which: str) -> pd.DataFrame:
    """A request-size (``size``) or inter-arrival (``iat``) histogram, long form: lower, upper, class, count."""
    h = analysis.get("histograms") or {}
    edges = h.get(f"{which}_bins") or []
    rows = []
    for cls, counts in (h.get(f"{which}_hist") or {}).items():
        for i, count in enumerate(counts):
            if not count:
                continue
            lower = edges[i - 1] if i > 0 else 0.0
            upper = edges[i] if i < len(edges) else float("inf")
            rows.append({"lower": lower, "upper": upper, "class": cls, "count": int(count)})
    return pd.DataFrame(rows, columns=["lower", "upper", "class", "count"])


def phases_frame(analysis: dict) -> pd.DataFrame:
    return pd.DataFrame(analysis.get("phases") or [],
                        columns=["start_s", "end_s", "bound", "label", "cpu_pct", "io_bytes_per_s", "seq_bytes_per_s",
                                 "rand_bytes_per_s", "random_ops_share"])
