"""Darshan logs (Darshan 3.x binary ``*.darshan``, read with PyDarshan): per-file I/O counters of an MPI job.

The log is checked first in plain Python against Darshan's header layout (``darshan-log-format.h``:
an 8-byte version string, the magic number 6567223 in either byte order, the compression type,
then the offset and length of the name map and of each module's region): every region must lie
inside the file and inflate completely, so a truncated or damaged log is refused here, naming what
was expected.  Only then is it read with PyDarshan, in a child process
(:mod:`apps.profiles.parsers.darshan_reader`), because the C reader can abort its process on a
damaged log and prints, rather than raises, some read errors; any error it prints refuses the file.

Accesses are classified from the POSIX counters in the strace analysis' vocabulary (Darshan
compares each access with where the previous one of the same file ended):

- **sequential**: ``CONSEC`` (starts right after the previous access's last byte);
- **consecutive**: ``SEQ − CONSEC`` (starts further on: a forward skip; Darshan does not bound the
  skip, the strace analysis does) — counted with sequential in the four classes;
- **random**: ``READS − SEQ`` (at or before the previous access's end; Darshan counts each
  process's first access of a file at offset 0 here too).
"""

from __future__ import annotations

import bz2
import json
import struct
import subprocess
import sys
import zlib
from datetime import UTC, datetime
from pathlib import Path

from .base import Parsed, ParseError, Progress

__all__ = ["parse_darshan", "looks_like_darshan", "DARSHAN_MAGIC_NR", "SIZE_BINS", "SIZE_EDGES_BYTES",
           "MAX_DARSHAN_BYTES", "TOP_FILES"]

DARSHAN_MAGIC_NR = 6567223
#: Darshan logs are compressed counters, kilobytes to a few megabytes; anything far bigger is not one
MAX_DARSHAN_BYTES = 512 * 1024 * 1024
#: the header: version string, magic, compression type, partial flag, name map, 16 module maps, 16 versions
_MAX_MODS = 16
_MAPS_AT = 24
_HEADER_BYTES = _MAPS_AT + 16 * (1 + _MAX_MODS) + 4 * _MAX_MODS
_COMPRESSION = {0: "zlib", 1: "bzip2", 2: "none"}
#: Darshan's access-size bins (POSIX_SIZE_READ_0_100 …): names and upper edges in bytes
SIZE_BINS = ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS")
SIZE_EDGES_BYTES = (100, 1024, 10 * 1024, 100 * 1024, 1024**2, 4 * 1024**2, 10 * 1024**2, 100 * 1024**2, 1024**3)
#: files kept in the per-file table (by bytes moved)
TOP_FILES = 20
READER_TIMEOUT_S = 300
#: bounded inflation of the regions: a log's counters inflate to kilobytes or a few megabytes (the sample logs:
#: about 3.5 times their compressed size, under 50 kB); these bounds leave room for logs of very many files and refuse
#: a decompression bomb (1,184 bytes of bzip2 that inflated to 2 GB in one call before)
MAX_INFLATED_BYTES = 256 * 1024 * 1024
MAX_INFLATE_RATIO = 200
RATIO_FLOOR_BYTES = 4 * 1024 * 1024
INFLATE_CHUNK_BYTES = 1024 * 1024
_READER = Path(__file__).with_name("darshan_reader.py")


def _byte_order(head: bytes) -> str | None:
    if len(head) < 16 or not head[:1].isdigit():
        return None
    for order in ("<", ">"):
        if struct.unpack_from(order + "q", head, 8)[0] == DARSHAN_MAGIC_NR:
            return order
    return None


def looks_like_darshan(head: bytes) -> bool:
    """True when ``head`` starts like a Darshan log: a version string, then the magic number 6567223."""
    return _byte_order(head) is not None


class _InflateBudget:
    """What a log's regions may inflate to, all together: at most ``MAX_INFLATED_BYTES``, and past
    ``RATIO_FLOOR_BYTES`` at most ``MAX_INFLATE_RATIO`` times the compressed bytes read (a decompression bomb —
    a kilobyte of bzip2 that inflates to gigabytes — is refused after at most one output chunk past the cap)."""

    def __init__(self):
        self.read_bytes = 0
        self.inflated_bytes = 0

    def add(self, read_bytes: int, inflated_bytes: int) -> None:
        self.read_bytes += read_bytes
        self.inflated_bytes += inflated_bytes
        if self.inflated_bytes > MAX_INFLATED_BYTES:
            raise ValueError(f"it inflates past {MAX_INFLATED_BYTES // 2**20} MiB, more than any Darshan log's "
                             "counters (a decompression bomb?)")
        if self.inflated_bytes > RATIO_FLOOR_BYTES and self.inflated_bytes > MAX_INFLATE_RATIO * self.read_bytes:
            raise ValueError(f"it inflates more than {MAX_INFLATE_RATIO} times ({self.inflated_bytes} bytes from "
                             f"{self.read_bytes}; a decompression bomb?)")


def _inflate(data: bytes, comp: str, budget: _InflateBudget | None = None) -> int:
    """Inflate one region completely (one or more concatenated streams), ``INFLATE_CHUNK_BYTES`` of output at a
    time within ``budget``; returns its size, raises ValueError (damaged data or past the budget)."""
    budget = budget or _InflateBudget()
    if comp == "none":
        return len(data)
    size = 0
    while data:
        if comp == "zlib":
            d = zlib.decompressobj()
            pending = data
            while True:
                out = d.decompress(pending, INFLATE_CHUNK_BYTES)
                consumed = len(pending) - len(d.unconsumed_tail) - (len(d.unused_data) if d.eof else 0)
                budget.add(consumed, len(out))
                size += len(out)
                pending = d.unconsumed_tail
                if d.eof or (not pending and not out):
                    break
        else:
            d = bz2.BZ2Decompressor()
            # the decompressor keeps the input it has not used yet: charge all of it, refund what follows the stream
            out = d.decompress(data, INFLATE_CHUNK_BYTES)
            budget.add(len(data), len(out))
            size += len(out)
            while not d.eof and not d.needs_input:
                out = d.decompress(b"", INFLATE_CHUNK_BYTES)
                budget.add(0, len(out))
                size += len(out)
            budget.add(-len(d.unused_data), 0)
        if not d.eof:
            raise ValueError("the compressed data ends early")
        data = d.unused_data
    return size


def _check_layout(path: Path, filename: str) -> dict:
    """Check the header and that every region is inside the file and inflates; returns what the header says."""
    size = path.stat().st_size
    if size > MAX_DARSHAN_BYTES:
        raise ParseError(filename, None, f"a Darshan log of at most {MAX_DARSHAN_BYTES // 2**20} MiB, got {size} bytes")
    with open(path, "rb") as f:
        head = f.read(_HEADER_BYTES)
        order = _byte_order(head)
        if order is None:
            raise ParseError(filename, None, "a Darshan log (an 8-byte version string such as '3.21' and the magic "
                                             f"number {DARSHAN_MAGIC_NR} in the first 16 bytes)")
        version = head[:8].split(b"\0")[0].decode("latin-1")
        if not version.startswith("3.") or len(head) < _HEADER_BYTES:
            if not version.startswith("3."):
                raise ParseError(filename, None, f"a Darshan 3.x log (darshan 3.0 or later); this one is version "
                                                 f"{version!r}")
            raise ParseError(filename, None, f"a Darshan log header of {_HEADER_BYTES} bytes; the file ends after "
                                             f"{len(head)} bytes (truncated)")
        comp = _COMPRESSION.get(head[16])
        if comp is None:
            raise ParseError(filename, None, f"a Darshan compression type 0 (zlib), 1 (bzip2) or 2 (none) at byte 16, "
                                             f"got {head[16]}")
        partial = struct.unpack_from(order + "I", head, 20)[0]
        maps = [struct.unpack_from(order + "QQ", head, _MAPS_AT + 16 * i) for i in range(1 + _MAX_MODS)]
        regions = [("name map", *maps[0])] + [(f"region of module {i}", *m) for i, m in enumerate(maps[1:]) if m[1]]
        name_off = maps[0][0]
        if maps[0][1] == 0 or name_off < _HEADER_BYTES:
            raise ParseError(filename, None, "a Darshan log with a name map after its header; the header's name map "
                                             f"is at byte {name_off}, {maps[0][1]} bytes long (damaged header)")
        regions.insert(0, ("job record", _HEADER_BYTES, name_off - _HEADER_BYTES))
        budget = _InflateBudget()
        for what, off, length in regions:
            if off + length > size:
                raise ParseError(filename, None, f"the {what} at bytes {off}–{off + length} of the Darshan log; the "
                                                 f"file ends at byte {size} (truncated)")
            f.seek(off)
            try:
                _inflate(f.read(length), comp, budget)
            except (ValueError, OSError, zlib.error, EOFError) as exc:
                raise ParseError(filename, None, f"the {what} at bytes {off}–{off + length} of the Darshan log as "
                                                 f"{comp} data: {exc} (damaged log)") from None
    return {"log_version": version, "compression": comp, "partial": bool(partial)}


def _read_with_pydarshan(path: Path, filename: str) -> dict:
    try:
        run = subprocess.run([sys.executable, "-P", str(_READER), str(path)], capture_output=True,
                             timeout=READER_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise ParseError(filename, None, f"a Darshan log PyDarshan reads within {READER_TIMEOUT_S} s") from None
    errors = [ln.strip() for ln in run.stderr.decode("utf-8", "replace").splitlines()
              if ln.strip().startswith(("Error", "RuntimeError", "ModuleNotFoundError", "python:"))]
    if run.returncode != 0 or errors:
        how = f"signal {-run.returncode}" if run.returncode < 0 else f"exit {run.returncode}"
        said = "; ".join(errors[:3]) or how
        if "No module named 'darshan'" in said:
            raise ParseError(filename, None, "a Darshan log, read with the darshan package, which is not installed "
                                             "here (pip install darshan)")
        raise ParseError(filename, None, f"a Darshan log PyDarshan can read completely; it reported: {said[:300]}")
    try:
        return json.loads(run.stdout)
    except json.JSONDecodeError:
        raise ParseError(filename, None, "a Darshan log PyDarshan can read (its reader gave no result)") from None


def _files(raw: dict, module: str) -> list[dict]:
    block = (raw.get("files") or {}).get(module) or {}
    cols = block.get("columns") or []
    return [dict(zip(cols, row, strict=True)) for row in block.get("rows") or []]


def _posix_file(r: dict) -> dict:
    """One file's POSIX counters in the project's vocabulary (accesses by class, sizes, times)."""
    out = {"name": r["name"], "module": "POSIX", "processes": "all (shared)" if r["shared"] else r["records"]}
    for d, key in (("read", "READS"), ("write", "WRITES")):
        n = int(r[f"POSIX_{key}"])
        seq = min(n, int(r[f"POSIX_SEQ_{key}"]))
        consec = min(seq, int(r[f"POSIX_CONSEC_{key}"]))
        out[f"{d}_ops"] = n
        out[f"seq_{d}_ops"] = consec
        out[f"consec_{d}_ops"] = seq - consec
        out[f"rand_{d}_ops"] = n - seq
    out["read_bytes"] = int(r["POSIX_BYTES_READ"])
    out["write_bytes"] = int(r["POSIX_BYTES_WRITTEN"])
    out["seeks"] = int(r["POSIX_SEEKS"])
    out["opens"] = int(r["POSIX_OPENS"])
    out["read_time_s"] = float(r["POSIX_F_READ_TIME"])
    out["write_time_s"] = float(r["POSIX_F_WRITE_TIME"])
    out["meta_time_s"] = float(r["POSIX_F_META_TIME"])
    out["size_read"] = [int(r[f"POSIX_SIZE_READ_{b}"]) for b in SIZE_BINS]
    out["size_write"] = [int(r[f"POSIX_SIZE_WRITE_{b}"]) for b in SIZE_BINS]
    return out


def _module_totals(rows: list[dict], module: str) -> dict:
    pre = {"POSIX": "POSIX_", "MPI-IO": "MPIIO_", "STDIO": "STDIO_"}[module]

    def total(*names: str) -> int:
        return int(sum(r.get(pre + n, 0) for r in rows for n in names))

    if module == "MPI-IO":
        reads = total("INDEP_READS", "COLL_READS", "SPLIT_READS", "NB_READS")
        writes = total("INDEP_WRITES", "COLL_WRITES", "SPLIT_WRITES", "NB_WRITES")
        extra = {"collective_reads": total("COLL_READS"), "collective_writes": total("COLL_WRITES"),
                 "opens": total("INDEP_OPENS", "COLL_OPENS")}
    else:
        reads, writes = total("READS"), total("WRITES")
        extra = {"opens": total("OPENS"), "seeks": total("SEEKS")}
    times = {k: float(sum(r.get(pre + f"F_{k.upper()}_TIME", 0.0) for r in rows)) for k in ("read", "write", "meta")}
    return {"files": len(rows), "read_bytes": total("BYTES_READ"), "write_bytes": total("BYTES_WRITTEN"),
            "reads": reads, "writes": writes, **extra, **{f"{k}_time_s": v for k, v in times.items()}}


def _utc(seconds: int) -> str:
    try:
        return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, OSError, ValueError):
        return f"{seconds} (Unix seconds)"


def parse_darshan(path: str | Path, filename: str | None = None, progress: Progress = None) -> Parsed:
    """Parse a Darshan 3.x log: job record, module totals, POSIX accesses by class and per file, size histograms."""
    path = Path(path)
    filename = filename or path.name
    size = path.stat().st_size
    if progress:
        progress(0, size)
    layout = _check_layout(path, filename)
    raw = _read_with_pydarshan(path, filename)
    job = raw.get("job") or {}
    try:
        nprocs = int(job["nprocs"])
        start, end = int(job["start_time_sec"]), int(job["end_time_sec"])
        run_time = float(job.get("run_time") or (end - start + 1))
    except (KeyError, TypeError, ValueError):
        raise ParseError(filename, None, "a Darshan job record with nprocs, start and end times") from None
    if nprocs < 1 or end < start:
        raise ParseError(filename, None, f"a Darshan job record with at least one process and an end not before its "
                                         f"start; got {nprocs} processes, {start} to {end}")
    posix = [_posix_file(r) for r in _files(raw, "POSIX")]
    modules = {m: _module_totals(_files(raw, m), m) for m in ("POSIX", "MPI-IO", "STDIO") if m in raw["modules"]}
    classes = {}
    for d in ("read", "write"):
        for cls in ("seq", "consec", "rand"):
            classes[f"{cls}_{d}_ops"] = sum(f[f"{cls}_{d}_ops"] for f in posix)
    hist = {d: [sum(f[f"size_{d}"][i] for f in posix) for i in range(len(SIZE_BINS))] for d in ("read", "write")}
    top = sorted(posix, key=lambda f: f["read_bytes"] + f["write_bytes"], reverse=True)[:TOP_FILES]
    exe = str(raw.get("exe") or "")
    meta = {
        "log_version": layout["log_version"], "darshan_lib_version": (job.get("metadata") or {}).get("lib_ver"),
        "pydarshan_version": raw.get("darshan_version"), "compression": layout["compression"],
        "partial": layout["partial"], "jobid": job.get("jobid"), "nprocs": nprocs, "start_time": start,
        "end_time": end, "start_utc": _utc(start), "end_utc": _utc(end), "duration_s": run_time, "exe": exe[:1000], "executable": exe.split(" ")[0][:500],
        "modules": list(raw.get("modules") or []), "files": len(posix), "host": "",
        "file_systems": sorted({fs for _, fs in raw.get("mounts") or []})[:50],
    }
    aggregates = {"modules": modules, "classes": classes, "size_bins": list(SIZE_BINS),
                  "size_edges": list(SIZE_EDGES_BYTES), "size_hist": hist,
                  "top_files": [{k: v for k, v in f.items() if not k.startswith("size_")} for f in top]}
    if progress:
        progress(size, size)
    return Parsed(format="darshan", kind="darshan", meta=meta, aggregates=aggregates)
