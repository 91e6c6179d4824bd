"""Per-second process samples: Skyplan's CSV, the CHILES tracer's CSV and ``pidstat -h -u -r -d`` text.

All three become one frame (:data:`SAMPLE_COLUMNS`, base units, one row per sample interval
ending at ``t_s`` seconds after the first sample) plus exact totals in ``meta`` (CPU seconds,
bytes, peak memory) computed before any down-sampling.  Files are read in chunks; when a file
holds more than :data:`MAX_ROWS` samples, neighbouring rows are merged two by two (rates
averaged, memory maxima kept) so memory stays bounded for any file size.
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from .base import Parsed, ParseError, Progress, line_at, read_byte_chunks, read_chunks
from .pidstatscan import read_chunk as read_pidstat_chunk

__all__ = [
    "SAMPLE_COLUMNS", "SKYPLAN_COLUMNS", "SKYPLAN_REQUIRED", "SKYPLAN_MARKER", "CHILES_HEADER", "MAX_ROWS",
    "parse_skyplan_csv", "parse_chiles_csv", "parse_pidstat",
]

#: the unified samples frame
SAMPLE_COLUMNS = ("t_s", "dt_s", "cpu_user_pct", "cpu_system_pct", "rss_bytes", "vm_bytes", "read_bytes_per_s",
                  "write_bytes_per_s", "io_bytes_per_s", "io_ops_per_s", "io_wait_pct")
#: Skyplan's documented CSV columns (docs/profiles.md), in the order they are written
SKYPLAN_COLUMNS = ("timestamp", "cpu_user_pct", "cpu_system_pct", "rss_bytes", "vm_bytes", "read_bytes",
                   "write_bytes", "read_ops", "write_ops", "io_wait_pct", "threads")
SKYPLAN_REQUIRED = ("timestamp", "cpu_user_pct", "cpu_system_pct", "rss_bytes", "read_bytes", "write_bytes")
SKYPLAN_MARKER = "# skyplan-profile v1"
CHILES_HEADER = ("Time stamp", "Total CPU %", "Kernel CPU %", "VM", "RSS", "IOPS", "Bytes/S", "IO WAIT")
#: the longest header line read (a Skyplan header of every column is about 130 characters)
MAX_HEADER_CHARS = 64 * 1024
#: the most columns of a pidstat header (``pidstat -h -u -r -d -w -v`` prints about 25)
MAX_PIDSTAT_COLUMNS = 100
#: most sample rows kept in memory; beyond this neighbouring rows are merged
MAX_ROWS = 200_000

_MEAN = ["cpu_user_pct", "cpu_system_pct", "read_bytes_per_s", "write_bytes_per_s", "io_bytes_per_s",
         "io_ops_per_s", "io_wait_pct"]


class _Collector:
    """Accumulates sample chunks (numpy columns) with exact totals and a bounded number of rows.

    Once more than ``2 * MAX_ROWS`` rows are kept, the kept rows are merged two by two and every
    later chunk is merged by the same (doubling) factor as it arrives, so the work stays linear."""

    def __init__(self):
        self.parts: list[dict[str, np.ndarray]] = []
        self.rows = 0
        self.raw_rows = 0
        self.factor = 1
        self.totals = {"cpu_user_s": 0.0, "cpu_system_s": 0.0, "read_bytes": 0.0, "write_bytes": 0.0,
                       "io_bytes": 0.0, "io_ops": 0.0, "peak_rss_bytes": 0.0, "peak_vm_bytes": 0.0}
        self.t0: float | None = None
        self.prev_t: float | None = None
        self.first_interval = 1.0
        self.recorded: set[str] = set()  # columns with at least one value in the file

    def add(self, t_abs: np.ndarray, cols: dict[str, np.ndarray]) -> None:
        n = len(t_abs)
        if n == 0:
            return
        self.raw_rows += n
        if self.t0 is None:
            self.t0 = float(t_abs[0])
            steps = np.diff(t_abs)
            self.first_interval = float(np.median(steps)) if len(steps) and np.median(steps) > 0 else 1.0
        prev = self.prev_t if self.prev_t is not None else np.nan
        dt = np.diff(t_abs, prepend=prev)
        self.prev_t = float(t_abs[-1])
        chunk = {"t_s": t_abs - self.t0, "dt_s": dt}
        for name in SAMPLE_COLUMNS[2:]:
            v = cols.get(name)
            chunk[name] = np.full(n, np.nan) if v is None else np.asarray(v, dtype=float)
        self._totals(chunk)
        if self.factor > 1:
            chunk = _merge(chunk, self.factor)
        self.parts.append(chunk)
        self.rows += len(chunk["t_s"])
        while self.rows > 2 * MAX_ROWS:
            whole = _merge(_concat(self.parts), 2)
            self.parts, self.rows = [whole], len(whole["t_s"])
            self.factor *= 2

    def _totals(self, c: dict[str, np.ndarray]) -> None:
        """Add a chunk's exact totals (before any merging)."""
        dt = c["dt_s"]
        if np.isnan(dt[0]):
            dt = dt.copy()
            dt[0] = self.first_interval
        tot = self.totals

        def integral(v: np.ndarray) -> float:
            # fast path: no missing values (a plain reduction: BLAS threads would fight over the one core)
            total = float(np.add.reduce(v * dt))
            return total if not math.isnan(total) else float(np.nansum(v * dt))

        for name in SAMPLE_COLUMNS[2:]:
            if name not in self.recorded and not np.isnan(c[name]).all():
                self.recorded.add(name)
        tot["cpu_user_s"] += integral(c["cpu_user_pct"]) / 100
        tot["cpu_system_s"] += integral(c["cpu_system_pct"]) / 100
        for src, dst in (("read_bytes_per_s", "read_bytes"), ("write_bytes_per_s", "write_bytes"),
                         ("io_bytes_per_s", "io_bytes"), ("io_ops_per_s", "io_ops")):
            tot[dst] += integral(c[src])
        for src, dst in (("rss_bytes", "peak_rss_bytes"), ("vm_bytes", "peak_vm_bytes")):
            top = float(c[src].max())
            if math.isnan(top) and not np.isnan(c[src]).all():
                top = float(np.nanmax(c[src]))
            if not math.isnan(top):
                tot[dst] = max(tot[dst], top)

    def finish(self, fmt: str, filename: str, meta: dict) -> Parsed:
        if not self.parts:
            raise ParseError(filename, None, "at least one sample row after the header; the file has none")
        frame = pd.DataFrame(_concat(self.parts))[list(SAMPLE_COLUMNS)]
        # the first interval has no predecessor: take the typical interval
        frame["dt_s"] = frame["dt_s"].fillna(self.first_interval)
        if (frame["dt_s"] <= 0).any():
            bad = int(np.argmax((frame["dt_s"] <= 0).to_numpy()))
            raise ParseError(filename, None, f"time stamps increasing from row to row; sample {bad + 1} "
                                             f"does not come after the one before it")
        meta = dict(meta)
        meta.update({k: float(v) for k, v in self.totals.items()})
        # what the file does not record is None ("not recorded"), never 0
        for total, columns in _TOTAL_SOURCES.items():
            if not self.recorded.intersection(columns):
                meta[total] = None
        meta["recorded"] = sorted(self.recorded)
        meta["samples"] = self.raw_rows
        meta["rows_kept"] = int(self.rows)
        meta["rows_merged_by"] = self.factor
        meta["duration_s"] = float(self.prev_t - self.t0 + self.first_interval)
        meta["start"] = self.t0
        return Parsed(format=fmt, kind="samples", meta=meta, samples=frame)


#: the sample columns each total is made from
_TOTAL_SOURCES = {"cpu_user_s": ("cpu_user_pct",), "cpu_system_s": ("cpu_system_pct",),
                  "read_bytes": ("read_bytes_per_s",), "write_bytes": ("write_bytes_per_s",),
                  "io_bytes": ("io_bytes_per_s",), "io_ops": ("io_ops_per_s",),
                  "peak_rss_bytes": ("rss_bytes",), "peak_vm_bytes": ("vm_bytes",)}


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    if len(parts) == 1:
        return parts[0]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _group_sum(v: np.ndarray, k: int) -> np.ndarray:
    """Sums of every ``k`` neighbours of ``v`` (len divisible by ``k``): strided slices, faster than a
    reduction over a short last axis."""
    out = v[0::k].copy()
    for j in range(1, k):
        out += v[j::k]
    return out


def _group_max(v: np.ndarray, k: int) -> np.ndarray:
    out = v[0::k].copy()
    for j in range(1, k):
        np.maximum(out, v[j::k], out=out)
    return out


def _merge(c: dict[str, np.ndarray], k: int) -> dict[str, np.ndarray]:
    """Merge every ``k`` neighbouring rows (the last group may be shorter): rates weighted by
    interval, memory maxima, end times."""
    n = len(c["t_s"])
    groups = -(-n // k)
    pad = groups * k - n

    def padded(v: np.ndarray, fill: float) -> np.ndarray:
        return np.concatenate([v, np.full(pad, fill)]) if pad else v

    w = padded(np.nan_to_num(c["dt_s"], nan=1.0), 0.0)
    dt = _group_sum(w, k)
    last = np.minimum(np.arange(1, groups + 1) * k, n) - 1
    out = {"t_s": c["t_s"][last], "dt_s": dt}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name in _MEAN:
            raw = c[name]
            missing = np.isnan(raw)
            if not missing.any():  # fast path: nothing missing
                out[name] = _group_sum(padded(raw, 0.0) * w, k) / dt
                continue
            if missing.all():
                out[name] = np.full(groups, np.nan)
                continue
            v = padded(raw, np.nan)
            weight = _group_sum(np.where(np.isnan(v), 0.0, w), k)
            prod = v * w
            total = _group_sum(np.where(np.isnan(prod), 0.0, prod), k)
            out[name] = np.where(weight > 0, total / np.where(weight > 0, weight, 1.0), np.nan)
    for name in ("rss_bytes", "vm_bytes"):
        raw = c[name]
        missing = np.isnan(raw)
        if not missing.any():
            out[name] = _group_max(padded(raw, -np.inf), k)
            continue
        if missing.all():
            out[name] = np.full(groups, np.nan)
            continue
        top = _group_max(np.where(np.isnan(padded(raw, np.nan)), -np.inf, padded(raw, np.nan)), k)
        out[name] = np.where(np.isinf(top), np.nan, top)
    return out


def _bad_row(filename: str, text: str | bytes, first_line: int, ncols: int, numeric: list[bool], what: str) -> ParseError:
    """Find the first malformed row of a chunk that pandas refused, to name its line."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    for i, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) != ncols:
            return ParseError(filename, first_line + i, f"{ncols} comma-separated fields ({what}), got {len(fields)}")
        for value, is_num, col in zip(fields, numeric, range(ncols), strict=False):
            if not is_num:
                continue
            try:
                float(value)
            except ValueError:
                return ParseError(filename, first_line + i, f"a number in field {col + 1} ({what.split(', ')[col]}), "
                                                            f"got {value.strip()[:40]!r}")
    return ParseError(filename, first_line, f"rows of {what}")


def _read_numeric_chunk(filename, text, first_line, names, what) -> pd.DataFrame:
    """A chunk of all-numeric rows; ``first_line`` is a callable giving its first line number (for errors)."""
    try:
        # na_filter off: an empty field is an error, not a NaN; only short rows leave NaN (in the last column)
        frame = pd.read_csv(io.BytesIO(text), header=None, names=list(names), dtype=float, engine="c",
                            skip_blank_lines=True, na_filter=False)
    except (ValueError, pd.errors.ParserError):
        raise _bad_row(filename, text, first_line(), len(names), [True] * len(names), what) from None
    if len(frame) and np.isnan(frame[names[-1]].to_numpy()).any():
        raise _bad_row(filename, text, first_line(), len(names), [True] * len(names), what)
    return frame


def _columns(filename: str, data: bytes, first_line, names, labels, read) -> dict[str, np.ndarray]:
    """The columns of a chunk of whole lines, ``read(data)`` giving the frame (pandas' C reader, with its
    line-named errors), as contiguous float arrays; a value that is not a finite number (``inf``, ``nan``,
    ``1e400``) is refused, naming its line."""
    frame = read(data)
    cols = {name: frame[name].to_numpy(dtype=float) for name in names}
    bad = [np.flatnonzero(~np.isfinite(v)) for v in cols.values()]
    if any(len(b) for b in bad):
        row = min(int(b[0]) for b in bad if len(b))
        col = next(i for i, b in enumerate(bad) if len(b) and b[0] == row)
        text = data.decode("latin-1")
        line_i, line = [(i, ln) for i, ln in enumerate(text.split("\n")) if ln.strip()][row]
        fields = line.split(",")
        got = fields[col].strip()[:40] if col < len(fields) else ""
        raise ParseError(filename, first_line() + line_i, f"a finite number in field {col + 1} ({labels[col]}), "
                                                          f"got {got!r}")
    return cols


def _header_lines(path, filename, want: int) -> tuple[list[str], int]:
    """The first ``want`` non-blank lines and how many physical lines they took."""
    out, used = [], 0
    with open(path, encoding="latin-1") as f:
        for line in iter(lambda: f.readline(MAX_HEADER_CHARS + 1), ""):
            used += 1
            if len(line.rstrip("\r\n")) > MAX_HEADER_CHARS:
                raise ParseError(filename, used, f"a header line of at most {MAX_HEADER_CHARS} characters; this "
                                                 f"one is longer")
            if line.strip():
                out.append(line.rstrip("\r\n"))
                if len(out) == want:
                    break
    if not out:
        raise ParseError(filename, 1, "a header line; the file is empty")
    return out, used


def _data_chunks(path, skip_lines: int, progress: Progress):
    """Chunks of data (bytes) after the first ``skip_lines`` lines, each with a callable giving its
    first line number (counted only when an error needs it)."""
    skipped = 0
    for offset, data in read_byte_chunks(path, progress):
        start = 0
        while skipped < skip_lines:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            start = nl + 1
            skipped += 1
        if start >= len(data):
            continue
        at = offset + start
        yield (lambda at=at: line_at(path, at)), data[start:] if start else data


def parse_skyplan_csv(path: str | Path, filename: str | None = None, progress: Progress = None) -> Parsed:
    """Skyplan's per-second CSV (docs/profiles.md)."""
    filename = filename or Path(path).name
    head, used = _header_lines(path, filename, 2)
    marker = head[0].strip().strip(",").strip('"') == SKYPLAN_MARKER
    if marker and len(head) < 2:
        raise ParseError(filename, used + 1, f"a header line naming the columns after {SKYPLAN_MARKER!r}; "
                                             "the file ends")
    header_line = head[1] if marker else head[0]
    names = [c.strip() for c in header_line.split(",")]
    line_no = used if marker else used - (1 if len(head) > 1 else 0)
    if len(names) > len(SKYPLAN_COLUMNS):
        raise ParseError(filename, line_no, f"a header naming at most the {len(SKYPLAN_COLUMNS)} Skyplan columns "
                                            f"({', '.join(SKYPLAN_COLUMNS)}), each once; it names {len(names)}")
    counts = Counter(names)  # linear: a header of many columns cannot make this quadratic
    unknown = [c for c in names if c not in SKYPLAN_COLUMNS]
    missing = [c for c in SKYPLAN_REQUIRED if c not in counts]
    repeated = sorted(c for c, n in counts.items() if n > 1)
    if unknown or missing or repeated:
        problems = []
        if repeated:
            problems.append(f"repeated {', '.join(repeated)}")
        if missing:
            problems.append(f"missing {', '.join(missing)}")
        if unknown:
            problems.append(f"unknown {', '.join(unknown)}")
        raise ParseError(filename, line_no, f"a header naming Skyplan columns ({', '.join(SKYPLAN_COLUMNS)}; "
                                            f"required {', '.join(SKYPLAN_REQUIRED)}): {'; '.join(problems)}")
    col = _Collector()
    what = ", ".join(names)

    for first, text in _data_chunks(path, line_no, progress):
        frame = _columns(filename, text, first, names, names,
                         lambda data, first=first: _read_numeric_chunk(filename, data, first, names, what))
        t = frame["timestamp"]
        if not len(t):
            continue
        prev = col.prev_t if col.prev_t is not None else np.nan
        dt = np.diff(t, prepend=prev)
        unknown = np.isnan(dt)  # the first row of the file (no previous time stamp)
        if unknown.any():
            dt = np.where(unknown, np.nanmedian(dt) if np.isfinite(dt).any() else 1.0, dt)
        dt_fill = np.where(dt > 0, dt, np.nan)
        cols = {
            "cpu_user_pct": frame["cpu_user_pct"],
            "cpu_system_pct": frame["cpu_system_pct"],
            "rss_bytes": frame["rss_bytes"],
            "read_bytes_per_s": frame["read_bytes"] / dt_fill,
            "write_bytes_per_s": frame["write_bytes"] / dt_fill,
        }
        cols["io_bytes_per_s"] = cols["read_bytes_per_s"] + cols["write_bytes_per_s"]
        if "vm_bytes" in frame:
            cols["vm_bytes"] = frame["vm_bytes"]
        if "read_ops" in frame or "write_ops" in frame:
            ops = sum(frame[c] for c in ("read_ops", "write_ops") if c in frame)
            cols["io_ops_per_s"] = ops / dt_fill
        if "io_wait_pct" in frame:
            cols["io_wait_pct"] = frame["io_wait_pct"]
        col.add(t, cols)
        if "threads" in frame:
            col_threads = float(frame["threads"].max())
            col.totals["max_threads"] = max(col.totals.get("max_threads", 0.0), col_threads)
    return col.finish("skyplan_csv", filename, {"columns": names})


_CHILES_NORMALISED = tuple(re.sub(r"\s+", " ", c.strip().lower()) for c in CHILES_HEADER)


def parse_chiles_csv(path: str | Path, filename: str | None = None, progress: Progress = None) -> Parsed:
    """The CHILES tracer's CSV: ``Time stamp,Total CPU %,Kernel CPU %,VM,RSS,IOPS,Bytes/S,IO WAIT``.

    Total CPU % is user + kernel (of one core); VM and RSS are bytes; IOPS and Bytes/S are
    rates of reads and writes together; IO WAIT is a percentage.  The time stamp is Unix
    seconds or a date-time text."""
    filename = filename or Path(path).name
    head, used = _header_lines(path, filename, 1)
    names = tuple(re.sub(r"\s+", " ", c.strip().lower()) for c in head[0].split(","))
    if names != _CHILES_NORMALISED:
        raise ParseError(filename, used, f"the CHILES tracer header {','.join(CHILES_HEADER)}, got {head[0][:100]!r}")
    short = ["time", "total", "kernel", "vm", "rss", "iops", "bps", "wait"]
    what = ", ".join(CHILES_HEADER)
    col = _Collector()

    def read(text: bytes, first) -> pd.DataFrame:
        try:  # Unix-second stamps: every column numeric
            frame = pd.read_csv(io.BytesIO(text), header=None, names=short, engine="c", na_filter=False, dtype=float)
        except (ValueError, pd.errors.ParserError):
            try:  # date-time stamps
                frame = pd.read_csv(io.BytesIO(text), header=None, names=short, engine="c", na_filter=False,
                                    dtype={c: float for c in short[1:]} | {"time": str})
            except (ValueError, pd.errors.ParserError):
                raise _bad_row(filename, text, first(), len(short), [False] + [True] * 7, what) from None
        if frame.empty:
            return frame
        if np.isnan(frame["wait"].to_numpy()).any() or frame["time"].isna().any():
            raise _bad_row(filename, text, first(), len(short), [False] + [True] * 7, what)
        t = frame["time"] if frame["time"].dtype == float else pd.to_numeric(frame["time"], errors="coerce")
        if t.isna().any():
            dates = pd.to_datetime(frame["time"], errors="coerce", format="mixed")
            if dates.isna().any():
                i = int(np.argmax(dates.isna().to_numpy()))
                raise ParseError(filename, first() + i, f"a time stamp (Unix seconds or a date-time), "
                                                      f"got {frame['time'].iloc[i]!r}")
            t = (dates - pd.Timestamp(0)).dt.total_seconds()
        frame["time"] = t.to_numpy(dtype=float)
        return frame

    for first, text in _data_chunks(path, used, progress):
        time_s, total, kernel, vm, rss, iops, bps, wait = _columns(
            filename, text, first, short, CHILES_HEADER, lambda data, first=first: read(data, first)).values()
        if not len(time_s):
            continue
        cols = {
            "cpu_user_pct": np.maximum(total - kernel, 0.0),
            "cpu_system_pct": kernel,
            "vm_bytes": vm,
            "rss_bytes": rss,
            "io_ops_per_s": iops,
            "io_bytes_per_s": bps,
            "io_wait_pct": wait,
        }
        col.add(time_s, cols)
    return col.finish("chiles_csv", filename, {"columns": list(CHILES_HEADER)})


#: pidstat columns we use and their unit factor to base units
_PIDSTAT = {"%usr": ("cpu_user_pct", 1.0), "%system": ("cpu_system_pct", 1.0), "%wait": ("io_wait_pct", 1.0),
            "VSZ": ("vm_bytes", 1024.0), "RSS": ("rss_bytes", 1024.0), "kB_rd/s": ("read_bytes_per_s", 1024.0),
            "kB_wr/s": ("write_bytes_per_s", 1024.0)}
_CLOCK = re.compile(r"^(\d\d):(\d\d):(\d\d)$")
#: the column after the time in every pidstat report header (UID, USER with -U) or the process's id
_ID_COLUMNS = {"UID", "USER", "PID", "TGID"}


def parse_pidstat(path: str | Path, filename: str | None = None, progress: Progress = None) -> Parsed:
    """pidstat text in any layout (see :func:`_parse_pidstat_lines`): read chunk by chunk with pandas
    (:mod:`.pidstatscan`); a file holding anything that reader does not know for certain is read line
    by line instead, which names the line at fault."""
    filename = filename or Path(path).name
    col = _Collector()
    header: list[str] | None = None
    host = host_cores = None
    day, prev_clock = 0.0, -1.0
    pending: pd.DataFrame | None = None
    seen_header = False
    metrics = [dst for dst, _ in _PIDSTAT.values()]

    def flush(rows: pd.DataFrame) -> None:
        per_t = rows.groupby("t", sort=False)[[m for m in metrics if m in rows]].sum(min_count=1)
        cols = {m: (per_t[m].to_numpy(dtype=float) if m in per_t else np.full(len(per_t), np.nan)) for m in metrics}
        if not np.isnan(cols["read_bytes_per_s"]).all() or not np.isnan(cols["write_bytes_per_s"]).all():
            cols["io_bytes_per_s"] = np.nan_to_num(cols["read_bytes_per_s"]) + np.nan_to_num(cols["write_bytes_per_s"])
        col.add(per_t.index.to_numpy(dtype=float), cols)

    for _, data in read_byte_chunks(path, progress):
        frame, header, banners = read_pidstat_chunk(data, header, _PIDSTAT)
        if frame is None or (header is not None and len(header) > MAX_PIDSTAT_COLUMNS):
            return _parse_pidstat_lines(path, filename, progress)
        seen_header = seen_header or header is not None
        for line in banners:
            parts = line.decode("latin-1").split()
            host = parts[2].strip("()") if len(parts) > 2 else None
            cpus = re.search(r"\((\d+) CPU\)", line.decode("latin-1"))
            host_cores = int(cpus.group(1)) if cpus else None
        if not len(frame):
            continue
        clock = frame["clock"].to_numpy()
        epoch = frame["epoch"].to_numpy()
        if epoch.any() and not epoch.all():
            return _parse_pidstat_lines(path, filename, progress)
        if not epoch[0]:  # HH:MM:SS: a step back of more than 12 h is the next day
            prev = np.r_[prev_clock, clock[:-1]]
            days = day + 86400.0 * np.cumsum(clock + 43200 < prev)
            prev_clock, day = float(clock[-1]), float(days[-1])
            frame["t"] = clock + days
        else:
            frame["t"] = clock
        rows = frame if pending is None else pd.concat([pending, frame], ignore_index=True)
        t = rows["t"].to_numpy()
        last = t == t[-1]
        pending = rows[last]
        if (~last).any():
            flush(rows[~last])
    if not seen_header:
        return _parse_pidstat_lines(path, filename, progress)
    if pending is not None and len(pending):
        flush(pending)
    return col.finish("pidstat", filename, {"host": host, "host_cores": host_cores, "columns": header or []})


def _parse_pidstat_lines(path: str | Path, filename: str | None = None, progress: Progress = None) -> Parsed:
    """pidstat text (sysstat 12) in the layouts its manual lists, parsed by its header names.

    With ``-h`` one line per process and interval under a ``# Time ...`` header; without it one
    section per report (-u, -r, -d, ...) with its own header (no ``#``), rows of the same time stamp
    merged.  Several PIDs at one time stamp are summed; with ``-t`` the process rows are taken (its
    threads' rows are parts of them).  Reports the file lacks (``-u`` only: no memory, no I/O) are
    "not recorded" (None), never 0."""
    filename = filename or Path(path).name
    header: list[str] | None = None
    host = None
    host_cores = None
    rows: dict[float, dict[str, float]] = {}
    order: list[float] = []
    col = _Collector()
    day, prev_clock = 0.0, -1.0
    seen_header = False

    def flush(keep_last: bool) -> None:
        keys = order[:-1] if keep_last else order[:]
        if not keys:
            return
        t = np.array(keys, dtype=float)
        cols = {name: np.array([rows[k].get(name, np.nan) for k in keys]) for name, _ in _PIDSTAT.values()}
        if not np.isnan(cols["read_bytes_per_s"]).all() or not np.isnan(cols["write_bytes_per_s"]).all():
            cols["io_bytes_per_s"] = np.nan_to_num(cols["read_bytes_per_s"]) + np.nan_to_num(cols["write_bytes_per_s"])
        col.add(t, cols)
        for k in keys:
            del rows[k]
        del order[: len(keys)]

    for first, text in read_chunks(path, progress):
        for i, raw in enumerate(text.splitlines()):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("Linux "):
                parts = line.split()
                host = parts[2].strip("()") if len(parts) > 2 else None
                cpus = re.search(r"\((\d+) CPU\)", line)
                host_cores = int(cpus.group(1)) if cpus else None
                continue
            if line.startswith("#"):
                header = line[1:].split()
                if len(header) > MAX_PIDSTAT_COLUMNS:
                    raise ParseError(filename, first + i, f"a pidstat header of at most {MAX_PIDSTAT_COLUMNS} "
                                                          f"columns, got {len(header)}")
                if not header or header[0] != "Time" or not _ID_COLUMNS.intersection(header):
                    raise ParseError(filename, first + i, f"a pidstat header '# Time UID PID ...', got {line[:80]!r}")
                seen_header = True
                continue
            if line.startswith("Average:"):
                continue
            tokens = line.split()
            if header is None:
                if tokens and _CLOCK.match(tokens[0]) and _ID_COLUMNS.intersection(tokens[1:3]):
                    header = ["Time"] + tokens[1:] if tokens[1] not in ("AM", "PM") else ["Time"] + tokens[2:]
                    seen_header = True
                    continue
                raise ParseError(filename, first + i, "a pidstat header ('# Time UID PID %usr ...' from -h, "
                                                      f"or 'HH:MM:SS UID PID ...') before data, got {line[:80]!r}")
            if len(tokens) > 1 and tokens[1] in ("AM", "PM"):
                hh, rest_ = tokens[0], tokens[2:]
                h = int(hh[:2]) % 12 + (12 if tokens[1] == "PM" else 0)
                tokens = [f"{h:02d}{hh[2:]}"] + rest_
            if len(tokens) > 1 and tokens[1] in _ID_COLUMNS:
                # a report's header without '#' (pidstat without -h: one per report and interval)
                header = ["Time"] + tokens[1:]
                continue
            if not _CLOCK.match(tokens[0]) and not tokens[0].isdigit():
                # a repeated column header without '#' (pidstat without -h)
                if "PID" in tokens:
                    header = ["Time"] + tokens[1:]
                    continue
                raise ParseError(filename, first + i, f"a time HH:MM:SS or Unix seconds first, got {tokens[0]!r}")
            if len(header) > MAX_PIDSTAT_COLUMNS:
                raise ParseError(filename, first + i, f"a pidstat header of at most {MAX_PIDSTAT_COLUMNS} "
                                                      f"columns, got {len(header)}")
            if len(tokens) < len(header):
                raise ParseError(filename, first + i, f"{len(header)} columns ({' '.join(header)}), got {len(tokens)}")
            values = dict(zip(header, tokens, strict=False))
            if values.get("TID", "-") != "-":
                continue  # -t: a thread's row; its process's row (TID '-') holds the process's figures
            m = _CLOCK.match(tokens[0])
            if m:
                clock = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
                if clock + 43200 < prev_clock:
                    day += 86400.0
                prev_clock = clock
                t = clock + day
            else:
                t = float(tokens[0])
            row = rows.get(t)
            if row is None:
                row = rows[t] = {}
                order.append(t)
            pid = values.get("PID", values.get("TGID"))
            for src, (dst, factor) in _PIDSTAT.items():
                if src in values:
                    try:
                        v = float(values[src]) * factor
                        if not math.isfinite(v):
                            raise ValueError
                    except ValueError:
                        raise ParseError(filename, first + i, f"a finite number in column {src}, "
                                                              f"got {values[src]!r}") from None
                    key = (dst, pid)
                    # the same PID at the same time from another section: keep it once; other PIDs add up
                    if key not in row.setdefault("_seen", set()):
                        row["_seen"].add(key)
                        row[dst] = row.get(dst, 0.0) + v
        if len(order) > 1:
            flush(keep_last=True)
    if not seen_header:
        raise ParseError(filename, None, "pidstat output with a '# Time UID PID ...' header; none found")
    flush(keep_last=False)
    return col.finish("pidstat", filename, {"host": host, "host_cores": host_cores, "columns": header or []})
