"""Billing of a run: compute (node-hours or instance-hours), storage GB-months, IOPS, egress.

* ``billed_seconds``: per-hour-or-part-thereof (granularity 3600 s, AWS 2015 §5.2.2)
  or per-second (granularity 1 s) rounding of one instance's or node's time.
* HPC: node-hours of the allocation (from request granted to release) x the
  centre's node-hour rate (Pawsey AUD 0.67, §9.1).
* Cloud: each instance is billed per started billing unit at the on-demand or spot
  price; spot prices come from :mod:`simulator.model.spot`, evaluated at the start
  of each billed hour with the number of same-type instances then alive.
* Storage: every :class:`~simulator.model.built.DataObject` is integrated over the
  time it actually sits in its tier (GB-months, 730-hour month); provisioned IOPS
  are charged per IOPS-month for the life of each block volume.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from simulator.graph import RunResult, TaskRecords

from .built import BuiltGraph
from .specs import ScenarioSpec
from .spot import spot_market

__all__ = [
    "CostLine",
    "Bill",
    "billed_seconds",
    "node_hour_cost",
    "gb_months",
    "storage_intervals",
    "bill",
    "SECONDS_PER_HOUR",
    "SECONDS_PER_MONTH",
]

SECONDS_PER_HOUR = 3600.0
#: billing month used by AWS for GB-month and IOPS-month prorating (730 hours)
SECONDS_PER_MONTH = 730.0 * SECONDS_PER_HOUR
BYTES_PER_GB = 1e9


@dataclass(frozen=True)
class CostLine:
    category: str  # compute | storage | iops | egress
    item: str
    quantity: float
    unit: str  # node-hour | instance-hour | GB-month | IOPS-month | GB
    rate_aud: float | None
    aud: float
    note: str = ""


@dataclass(frozen=True)
class Bill:
    lines: tuple[CostLine, ...]
    total_aud: float
    compute_hours_billed: float
    compute_hours_used: float
    gb_months: dict[str, float] = field(default_factory=dict)
    by_category: dict[str, float] = field(default_factory=dict)


def billed_seconds(duration_s: float, granularity_s: float, minimum_s: float = 0.0) -> float:
    """``duration_s`` rounded up to whole billing units (at least ``minimum_s``)."""
    if duration_s <= 0:
        return 0.0
    g = float(granularity_s or 1.0)
    return max(minimum_s, math.ceil(duration_s / g - 1e-9) * g)


def node_hour_cost(node_seconds: float, aud_per_node_hour: float) -> float:
    return node_seconds / SECONDS_PER_HOUR * aud_per_node_hour


def gb_months(n_bytes: float, seconds: float) -> float:
    return n_bytes / BYTES_PER_GB * seconds / SECONDS_PER_MONTH


def storage_intervals(built: BuiltGraph, result: RunResult, retention_s: float = 0.0):
    """(tier, bytes, start_s, end_s, label) for every data object of the run."""
    tasks = result.tasks
    if isinstance(tasks, TaskRecords):  # the runner's: read by column (task i has id i), no record made
        start_s, end_s = tasks.start_s, tasks.end_s
        ids = range(len(tasks))
    else:
        ids = {t.id: k for k, t in enumerate(tasks)}
        start_s, end_s = [t.start_s for t in tasks], [t.end_s for t in tasks]
    end_of_run = result.makespan_s + retention_s
    out = []
    for o in built.data_objects:
        created = o.created_by
        if created not in ids:
            continue
        k = created if ids.__class__ is range else ids[created]
        start = start_s[k] if o.at_start else end_s[k]
        deleted = o.deleted_by
        if deleted is not None and deleted in ids:
            end = end_s[deleted if ids.__class__ is range else ids[deleted]]
        else:
            end = end_of_run
        out.append((o.tier, o.bytes, start, max(start, end), o.label))
    return out


def _alive_counts(intervals: list[tuple[float, float]]):
    """``at(t)``: instances alive at ``t`` (launched at or before ``t``, released after it), at least 1."""
    from bisect import bisect_right

    starts = sorted(a for a, _ in intervals)
    ends = sorted(b for _, b in intervals)

    def at(t: float) -> int:
        return max(1, bisect_right(starts, t) - bisect_right(ends, t))

    return at


def _what(pool: str, stages: dict[str, list[str]]) -> str:
    """What a compute line bills: the stages whose tasks ran in ``pool`` (``split, invert``), else the pool."""
    return ", ".join(stages.get(pool) or ()) or pool


def bill(built: BuiltGraph, result: RunResult, scenario: ScenarioSpec) -> Bill:
    """Cost lines of one run."""
    p = scenario.platform
    gran = p.pricing.billing_granularity_seconds or 1.0
    lines: list[CostLine] = []
    hours_billed = 0.0
    hours_used = 0.0
    info = {pi.pool: pi for pi in built.pools}
    records = {r.name: r for r in result.pools}

    # instances of each type, for spot concurrency
    per_type: dict[str, list[tuple[float, float]]] = defaultdict(list)
    pool_instances: dict[str, list[tuple[float, float]]] = {}
    for name, rec in records.items():
        pi = info.get(name)
        if pi is None:
            continue
        if rec.instances:
            inst = list(rec.instances)
        else:
            inst = [(rec.available_s, rec.released_s)] * rec.nodes
        pool_instances[name] = inst
        per_type[pi.node_type].extend(inst)
    alive = {k: _alive_counts(v) for k, v in per_type.items()}
    stages: dict[str, list[str]] = defaultdict(list)  # a pool's stages, in the order their tasks come
    for t in built.graph.tasks:
        if t.pool is not None and t.stage not in stages[t.pool]:
            stages[t.pool].append(t.stage)

    for name, inst in pool_instances.items():
        pi = info[name]
        rec = records[name]
        used = sum(b - a for a, b in inst)
        hours_used += used / SECONDS_PER_HOUR
        if not pi.billable:
            continue
        nt = p.node_type(pi.node_type)
        if pi.pricing == "node_hour":
            rate = p.pricing.node_hour_aud
            secs = sum(billed_seconds(b - a, gran) for a, b in inst)
            hours_billed += secs / SECONDS_PER_HOUR
            lines.append(CostLine("compute", f"{_what(name, stages)} ({nt.name})", secs / SECONDS_PER_HOUR, "node-hour", rate,
                                  node_hour_cost(secs, rate or 0.0),
                                  f"{rec.nodes} nodes held {(rec.released_s - rec.available_s) / 3600:.1f} h"))
        elif pi.pricing in ("on_demand", "spot"):
            total = 0.0
            secs_total = 0.0
            if pi.pricing == "spot" and nt.spot_aud_per_hour is not None:
                market = spot_market(nt)
                for a, b in inst:
                    secs = billed_seconds(b - a, gran)
                    secs_total += secs
                    k = 0
                    while k * gran < secs - 1e-9:
                        total += market.price(alive[nt.name](a + k * gran)) * (min(gran, secs - k * gran) / 3600.0)
                        k += 1
                rate = total / (secs_total / 3600.0) if secs_total else market.base_aud_per_hour
            else:
                rate = nt.on_demand_aud_per_hour or 0.0
                secs_total = sum(billed_seconds(b - a, gran) for a, b in inst)
                total = secs_total / 3600.0 * rate
            hours_billed += secs_total / SECONDS_PER_HOUR
            lines.append(CostLine("compute", f"{_what(name, stages)} ({nt.name}, {pi.pricing})", secs_total / 3600.0,
                                  "instance-hour", rate, total, f"{len(inst)} instances, {used / 3600:.1f} h used"))
        else:
            hours_billed += 0.0

    # storage
    gbm: dict[str, float] = defaultdict(float)
    iops_months: dict[str, float] = defaultdict(float)
    for tier, nbytes, a, b, _label in storage_intervals(built, result, scenario.retention_after_run_s):
        gbm[tier] += gb_months(nbytes, b - a)
        st = p.storage_tier(tier)
        if st.provisioned_iops and st.scope == "per_volume":
            iops_months[tier] += st.provisioned_iops * (b - a) / SECONDS_PER_MONTH
    for tier, q in sorted(gbm.items()):
        st = p.storage_tier(tier)
        if st.aud_per_gb_month is not None:
            lines.append(CostLine("storage", tier, q, "GB-month", st.aud_per_gb_month, q * st.aud_per_gb_month))
    for tier, q in sorted(iops_months.items()):
        st = p.storage_tier(tier)
        if st.aud_per_iops_month is not None:
            lines.append(CostLine("iops", tier, q, "IOPS-month", st.aud_per_iops_month, q * st.aud_per_iops_month))
    egress = float(scenario.workload.param("egress_bytes", 0.0) or 0.0)
    if egress and p.pricing.egress_aud_per_gb is not None:
        gb = egress / BYTES_PER_GB
        lines.append(CostLine("egress", "egress", gb, "GB", p.pricing.egress_aud_per_gb, gb * p.pricing.egress_aud_per_gb))
    by_cat: dict[str, float] = defaultdict(float)
    for line in lines:
        by_cat[line.category] += line.aud
    return Bill(tuple(lines), sum(line.aud for line in lines), hours_billed, hours_used, dict(gbm), dict(by_cat))
