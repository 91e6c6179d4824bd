"""Stage demands from profiles, and the fitted overhead that closes the gap to the measured time.

Plain Python, no Django.  :func:`derive_demands` reads stored analyses of one run (a strace
for the access pattern, per-second samples for CPU and memory; either alone works with what it
has) and returns stage facts in base units with a note per fact.  :func:`fit_overhead` takes a
function simulating one task of the stage on the attached platform and returns the fixed
overhead that makes the simulated duration equal the measured one (never negative), the one
fitted parameter of the calibration.

From samples alone reads and writes are all counted as sequential (the CHILES tracer's CSV
does not even split reads from writes: its bytes count as reads).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Derived", "derive_demands", "fit_overhead", "measured_duration", "tier_facts_from_fio", "DEMAND_FACTS",
           "measurement_warnings"]

#: the WorkloadStage facts a calibration sets
DEMAND_FACTS = ("seq_read_bytes", "seq_write_bytes", "random_read_ops", "random_write_ops", "random_op_bytes",
                "cpu_seconds", "usable_threads", "peak_memory", "overhead")


@dataclass
class Derived:
    """Derived stage facts (base units), a note per fact, and the measured task duration."""

    facts: dict[str, float] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    measured_s: float = 0.0
    sources: list[str] = field(default_factory=list)


def measured_duration(analyses: list[dict]) -> float:
    """The task's measured wall time: the strace's span when there is one (microsecond stamps),
    otherwise the samples' span."""
    strace = [a for a in analyses if a.get("kind") in ("strace", "darshan")]
    pick = strace or [a for a in analyses if a.get("kind") == "samples"]
    if not pick:
        raise ValueError("calibration needs a strace, a Darshan log or a per-second samples profile")
    return float(max(a["summary"]["duration_s"] for a in pick))


def derive_demands(analyses: list[dict]) -> Derived:
    """Stage facts from the analyses of one run (see the module docstring)."""
    strace = next((a for a in analyses if a.get("kind") == "strace"), None)
    samples = next((a for a in analyses if a.get("kind") == "samples"), None)
    darshan = next((a for a in analyses if a.get("kind") == "darshan"), None)
    if darshan is not None:
        if strace is not None:
            raise ValueError("a Darshan log and a strace both describe the run's I/O: calibrate from one of them")
        return _from_darshan(darshan, samples, analyses)
    if strace is None and samples is None:
        raise ValueError("calibration needs a strace, a Darshan log or a per-second samples profile")
    out = Derived(measured_s=measured_duration(analyses))
    f, n = out.facts, out.notes
    if strace is not None:
        s = strace["summary"]
        b, ops = s["bytes"], s["ops"]
        f["seq_read_bytes"] = float(b["seq_read"])
        f["seq_write_bytes"] = float(b["seq_write"])
        f["random_read_ops"] = float(ops["rand_read"])
        f["random_write_ops"] = float(ops["rand_write"])
        rand_ops = ops["rand_read"] + ops["rand_write"]
        if rand_ops:
            f["random_op_bytes"] = (b["rand_read"] + b["rand_write"]) / rand_ops
        n.update({
            "seq_read_bytes": "bytes of sequential and consecutive reads in the strace",
            "seq_write_bytes": "bytes of sequential and consecutive writes in the strace",
            "random_read_ops": "random reads counted in the strace",
            "random_write_ops": "random writes counted in the strace",
            "random_op_bytes": "mean size of the strace's random requests",
        })
    elif samples is not None:
        s = samples["summary"]
        read = float(s.get("read_bytes") or 0.0)
        write = float(s.get("write_bytes") or 0.0)
        if read + write == 0 and s.get("io_bytes"):
            read = float(s["io_bytes"])
        f["seq_read_bytes"], f["seq_write_bytes"] = read, write
        f["random_read_ops"] = f["random_write_ops"] = 0.0
        n["seq_read_bytes"] = "bytes read per the per-second samples (pattern unknown without a strace: counted sequential)"
        n["seq_write_bytes"] = "bytes written per the per-second samples (counted sequential)"
        n["random_read_ops"] = n["random_write_ops"] = "no strace: random operations unknown, set to 0"
    _cpu_from_samples(out, samples)
    out.sources = [a.get("name", "") for a in analyses]
    return out


def _cpu_from_samples(out: Derived, samples: dict | None) -> None:
    f, n = out.facts, out.notes
    if samples is not None and samples["summary"].get("cpu_seconds") is not None:
        s = samples["summary"]
        f["cpu_seconds"] = float(s["cpu_seconds"])
        f["usable_threads"] = float(max(1, int(s.get("usable_threads") or 1)))
        if s.get("peak_memory_bytes"):
            f["peak_memory"] = float(s["peak_memory_bytes"])
        n["cpu_seconds"] = "user + kernel CPU integrated over the per-second samples"
        n["usable_threads"] = "95th percentile of busy-second CPU use, in cores (rounded)"
        n["peak_memory"] = "peak resident set size in the samples"


def _from_darshan(darshan: dict, samples: dict | None, analyses: list[dict]) -> Derived:
    """One task is one process of the logged MPI job: the job's POSIX totals divided by its process count.

    The measured duration is the job's run time (Darshan records it in whole seconds); CPU and memory
    are not in a Darshan log and come from a samples profile of one process, or stay as they are."""
    s = darshan["summary"]
    if not s.get("has_posix"):
        raise ValueError("this Darshan log has no POSIX module, so it cannot tell sequential from random I/O: "
                         "calibrate from a log with POSIX records or from a strace")
    out = Derived(measured_s=float(s["duration_s"]))
    per, nprocs = s["per_process"], s["nprocs"]
    out.facts.update({k: float(v) for k, v in per.items() if v is not None})
    how = f"POSIX counters of the Darshan log divided by its {nprocs} process{'es' if nprocs != 1 else ''}"
    out.notes.update({
        "seq_read_bytes": f"bytes of sequential and consecutive reads (bytes split by mean request size), {how}",
        "seq_write_bytes": f"bytes of sequential and consecutive writes (bytes split by mean request size), {how}",
        "random_read_ops": f"reads at or before the previous access's end (POSIX_READS − POSIX_SEQ_READS), {how}",
        "random_write_ops": f"writes at or before the previous access's end (POSIX_WRITES − POSIX_SEQ_WRITES), {how}",
        "random_op_bytes": "mean request size of the random requests' files (estimated from each file's mean size)",
    })
    _cpu_from_samples(out, samples)
    out.sources = [a.get("name", "") for a in analyses]
    return out


def fit_overhead(measured_s: float, simulate: Callable[[float], float]) -> tuple[float, float, float]:
    """The overhead (s) making ``simulate(overhead)`` match ``measured_s``.

    Returns ``(overhead, simulated_without, simulated_with)``.  The simulator's task time
    grows one-for-one with the overhead, so one correction step is exact; a second pass
    checks it.  A model already slower than the measurement keeps overhead 0."""
    without = simulate(0.0)
    overhead = max(0.0, measured_s - without)
    with_ = simulate(overhead) if overhead > 0 else without
    if overhead > 0 and abs(with_ - measured_s) > 1e-6 * max(1.0, measured_s):
        overhead = max(0.0, overhead + (measured_s - with_))
        with_ = simulate(overhead)
    return overhead, without, with_


def tier_facts_from_fio(analysis: dict, scope: str) -> dict[str, float]:
    """Storage-tier facts a fio analysis measured; one host measures one client, so a shared
    tier gets its per-client facts, a per-node or per-volume tier its own."""
    tier = (analysis.get("summary") or {}).get("tier") or {}
    per_client = scope == "shared"
    names = {"read_bw": "read_bw_per_client" if per_client else "read_bw",
             "write_bw": "write_bw_per_client" if per_client else "write_bw",
             "iops": "iops_per_client" if per_client else "iops",
             "latency": "latency"}
    return {names[k]: float(v) for k, v in tier.items() if v is not None and math.isfinite(v) and v > 0}


#: per-client facts of a shared tier and the aggregate each is capped by in the simulation
_CAPPED_BY = {"read_bw_per_client": ("read_bw", "read bandwidth"), "write_bw_per_client": ("write_bw", "write bandwidth"),
              "iops_per_client": ("iops", "IOPS")}


def measurement_warnings(values: dict[str, float], tier: dict[str, float | None]) -> list[str]:
    """Why a measured value cannot take effect on a tier, and what to change: a shared tier gives each client
    at most its aggregate, so a per-client figure above the aggregate changes nothing in the simulation."""
    out = []
    for name, (aggregate, what) in _CAPPED_BY.items():
        measured, cap = values.get(name), tier.get(aggregate)
        if measured is None or cap is None or measured <= cap:
            continue
        unit = (lambda v: f"{v:,.0f}") if aggregate == "iops" else (lambda v: f"{v / 1e6:,.1f} MB/s")
        out.append(f"{name} {unit(measured)} (measured) is above the tier's aggregate {aggregate} {unit(cap)}: "
                   f"a client never gets more than the whole tier's {what}, so this measurement does not change "
                   f"the simulation. Set the tier's {aggregate} to the storage's real aggregate (at least "
                   f"{unit(measured)}), or measure the aggregate with fio from several clients at once.")
    return out
