"""Read one Darshan log with PyDarshan and print its job record and per-file counters as JSON.

Run as a child process (``python -P darshan_reader.py LOG``) by :mod:`apps.profiles.parsers.darshan`:
PyDarshan's C reader can abort the whole process on a damaged log, so it never runs inside a
worker.  Counters of one file are summed over its records (one per rank, or one shared record);
negative values (Darshan's "not recorded") count as 0.  Only the standard library, pandas and
darshan are imported here.
"""

from __future__ import annotations

import json
import resource
import sys

#: the reader's address-space cap (it needs about 75 MB resident, ~0.6 GB of address space with numpy and pandas)
MAX_ADDRESS_SPACE_BYTES = 1024**3

#: the modules read, and the counters kept of each (summed per file)
MODULES = {
    "POSIX": {
        "counters": ["OPENS", "READS", "WRITES", "SEEKS", "STATS", "FSYNCS", "BYTES_READ", "BYTES_WRITTEN",
                     "CONSEC_READS", "CONSEC_WRITES", "SEQ_READS", "SEQ_WRITES", "RW_SWITCHES",
                     *[f"SIZE_{d}_{b}" for d in ("READ", "WRITE")
                       for b in ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
                                 "10M_100M", "100M_1G", "1G_PLUS")]],
        "fcounters": ["F_READ_TIME", "F_WRITE_TIME", "F_META_TIME"],
    },
    "MPI-IO": {
        "counters": ["INDEP_OPENS", "COLL_OPENS", "INDEP_READS", "INDEP_WRITES", "COLL_READS", "COLL_WRITES",
                     "SPLIT_READS", "SPLIT_WRITES", "NB_READS", "NB_WRITES", "BYTES_READ", "BYTES_WRITTEN"],
        "fcounters": ["F_READ_TIME", "F_WRITE_TIME", "F_META_TIME"],
    },
    "STDIO": {
        "counters": ["OPENS", "READS", "WRITES", "SEEKS", "BYTES_READ", "BYTES_WRITTEN"],
        "fcounters": ["F_READ_TIME", "F_WRITE_TIME", "F_META_TIME"],
    },
}
PREFIX = {"POSIX": "POSIX_", "MPI-IO": "MPIIO_", "STDIO": "STDIO_"}


def read(path: str) -> dict:
    """The job record, module list and per-file counter sums of the log at ``path``."""
    import darshan

    report = darshan.DarshanReport(path, read_all=False)
    meta = report.metadata
    out = {"job": {k: v for k, v in meta.get("job", {}).items()}, "exe": meta.get("exe", ""),
           "modules": list(report.modules), "mounts": [list(m) for m in (report.mounts or [])][:200],
           "darshan_version": darshan.__version__, "files": {}}
    for module, wanted in MODULES.items():
        if module not in report.modules:
            continue
        report.mod_read_all_records(module)
        recs = report.records[module]
        if not len(recs):
            out["files"][module] = {"columns": [], "rows": []}
            continue
        frames = recs.to_df()
        pre = PREFIX[module]
        c = frames["counters"]
        f = frames["fcounters"]
        cols = [pre + n for n in wanted["counters"]]
        fcols = [pre + n for n in wanted["fcounters"]]
        counters = c[["id", "rank", *cols]].copy()
        counters[cols] = counters[cols].clip(lower=0)
        times = f[["id", *fcols]].copy()
        times[fcols] = times[fcols].clip(lower=0)
        grouped = counters.groupby("id")
        summed = grouped[cols].sum()
        summed["records"] = grouped.size()
        summed["shared"] = grouped["rank"].min() < 0
        summed = summed.join(times.groupby("id")[fcols].sum())
        summed = summed.reset_index()
        names = report.name_records
        summed["name"] = [names.get(int(i), str(i)) for i in summed["id"]]
        summed["id"] = summed["id"].astype(str)
        columns = ["id", "name", "records", "shared", *cols, *fcols]
        rows = summed[columns].astype(object).values.tolist()
        out["files"][module] = {"columns": columns,
                                "rows": [[v.item() if hasattr(v, "item") else v for v in row] for row in rows]}
    return out


def limit_memory(max_bytes: int) -> None:
    """Cap this process's address space: the C reader inflates the log's regions itself, so a region that passed
    the parent's bounded check but inflates past this fails here (MemoryError) instead of taking the host's memory."""
    resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))


if __name__ == "__main__":
    limit_memory(int(sys.argv[2]) if len(sys.argv) > 2 else MAX_ADDRESS_SPACE_BYTES)
    json.dump(read(sys.argv[1]), sys.stdout, default=str)
