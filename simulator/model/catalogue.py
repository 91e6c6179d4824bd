"""Build model specs from catalogue entries (``fixtures/catalogue/*.json`` or the Django app).

This is the single conversion path from "facts" (``{"value": ..., "unit": ...,
"source": ...}``, see ``docs/catalogue-format.md``) to base-unit specs; the app's
records reach it as dicts of the same shape (``apps/scenarios/adapters.py``).
Missing or ``null`` facts become ``None``: the model uses only what the records say
(a stage that needs a missing value fails with a message naming it).  A value the
model cannot honour (a negative degradation exponent, an exponent with no stream
count to apply it after) is refused here with ``ValueError`` naming the tier and fact.
A fact may also be given as a bare number (taken to be in base units already).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulator.units import CURRENCY, ExchangeRate, UnitError, converted_from, money_currency, to_base

from .specs import (
    ROLES,
    SUBMISSIONS,
    NodeTypeSpec,
    PlatformSpec,
    PricingSpec,
    QueueWaitSpec,
    RoleIO,
    SchedulerSpec,
    StageSpec,
    StorageSpec,
    WanSpec,
    WorkloadSpec,
)

__all__ = [
    "seed_of",
    "fact_value",
    "platform_from_dict",
    "workload_from_dict",
    "stage_from_dict",
    "load_catalogue",
    "observations_from_dict",
    "Observation",
    "exchange_rates_from_dict",
    "in_base_currency",
]

_TEXT_UNITS = ("",)


def fact_value(facts: dict[str, Any] | None, key: str, default: Any = None) -> Any:
    """The base-unit value of ``facts[key]`` (numbers converted, lists element-wise)."""
    if not facts or key not in facts:
        return default
    fact = facts[key]
    if isinstance(fact, dict):
        value, unit = fact.get("value"), (fact.get("unit") or "")
    else:
        value, unit = fact, ""
    if value is None:
        return default
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
            return tuple(value)  # lists of names (depends_on) or mixed values stay as given
        return tuple(to_base(v, unit) if unit else float(v) for v in value)
    if unit in _TEXT_UNITS:
        return value
    return to_base(value, unit)


def _int(v: Any) -> int | None:
    return None if v is None else int(round(float(v)))


def _float(v: Any) -> float | None:
    return None if v is None else float(v)


def _positive_int(v: Any, where: str) -> int | None:
    """A count of at least 1 (None when unknown); refuses zero, negatives and fractions."""
    if v is None:
        return None
    x = float(v)
    if not math.isfinite(x) or x < 1 or x != int(x):
        raise ValueError(f"{where} must be a whole number of at least 1, not {x:g}")
    return int(x)


def _seconds(v: Any, where: str) -> float:
    """A duration of 0 or more seconds (0 when unknown)."""
    if v is None:
        return 0.0
    x = float(v)
    if not math.isfinite(x) or x < 0:
        raise ValueError(f"{where} must be 0 s or more, not {x:g} s")
    return x


def _share(v: Any, where: str) -> float:
    """A share of a capacity, 0 <= x < 1 (0 when unknown)."""
    if v is None:
        return 0.0
    x = float(v)
    if not math.isfinite(x) or not 0.0 <= x < 1.0:
        raise ValueError(f"{where} is a share of the tier: 0 or more and less than 1, not {x:g}")
    return x


def _core_speed(d: dict[str, Any]) -> float:
    """Per-core speed relative to the profiles' reference core; unknown (null) counts as that core."""
    speed = float(fact_value(d.get("facts", {}), "core_speed", 1.0))
    if not math.isfinite(speed) or speed <= 0:
        raise ValueError(f"node type {d['name']!r}: core_speed must be a positive number, not {speed:g}")
    return speed


def _node_type(d: dict[str, Any]) -> NodeTypeSpec:
    f = d.get("facts", {})
    return NodeTypeSpec(
        name=d["name"],
        cores=_int(fact_value(f, "cores", 1)) or 1,
        memory_bytes=_float(fact_value(f, "memory")),
        local_disk_bytes=_float(fact_value(f, "local_disk")),
        local_disk_kind=str(fact_value(f, "local_disk_kind", "none")),
        nic_bytes_per_s=_float(fact_value(f, "nic_bandwidth")),
        count=_int(fact_value(f, "count")),
        on_demand_aud_per_hour=_float(fact_value(f, "on_demand_price")),
        spot_aud_per_hour=_float(fact_value(f, "spot_price")),
        spot_rise_per_instance=_float(fact_value(f, "spot_rise_per_instance")),
        boot_seconds=_float(fact_value(f, "boot_time")),
        core_speed=_core_speed(d),
        used_for=str(fact_value(f, "used_for", "")),
        default_stage=str(fact_value(f, "default_stage", "") or ""),
        slots=_positive_int(fact_value(f, "slots"), f"node type {d['name']!r}: slots") or 1,
    )


def _degradation(d: dict[str, Any]) -> tuple[int | None, float]:
    """The tier's (streams, exponent) of disk-stream degradation; refuses what the engine cannot apply."""
    f = d.get("facts", {})
    after = _int(fact_value(f, "degrade_after_streams"))
    exponent = float(fact_value(f, "degrade_exponent", 0.0))
    where = f"storage tier {d['name']!r}"
    if not math.isfinite(exponent) or exponent < 0:
        raise ValueError(f"{where}: degrade_exponent must be 0 (no degradation) or more, not {exponent:g}")
    if after is not None and after < 1:
        raise ValueError(f"{where}: degrade_after_streams must be at least 1, not {after}")
    if exponent > 0 and after is None:
        raise ValueError(f"{where}: degrade_exponent is {exponent:g} but degrade_after_streams is not set; "
                         "say after how many concurrent streams the tier degrades (or set the exponent to 0)")
    return after, exponent


def _performance_cv(d: dict[str, Any]) -> float:
    cv = float(fact_value(d.get("facts", {}), "performance_cv", 0.0) or 0.0)
    if not math.isfinite(cv) or cv < 0 or cv > 2:
        raise ValueError(f"storage tier {d['name']!r}: performance_cv must be between 0 (no variation) and 2, "
                         f"not {cv:g}")
    return cv


def _storage(d: dict[str, Any]) -> StorageSpec:
    f = d.get("facts", {})
    after, exponent = _degradation(d)
    return StorageSpec(
        name=d["name"],
        kind=d.get("kind") or str(fact_value(f, "kind", "parallel_fs")),
        scope=str(fact_value(f, "scope", "shared")),
        read_bytes_per_s=_float(fact_value(f, "read_bw")),
        write_bytes_per_s=_float(fact_value(f, "write_bw")),
        read_bytes_per_s_per_client=_float(fact_value(f, "read_bw_per_client")),
        write_bytes_per_s_per_client=_float(fact_value(f, "write_bw_per_client")),
        iops=_float(fact_value(f, "iops")),
        iops_per_client=_float(fact_value(f, "iops_per_client")),
        latency_seconds=_float(fact_value(f, "latency")),
        capacity_bytes=_float(fact_value(f, "capacity")),
        degrade_after_streams=after,
        degrade_exponent=exponent,
        performance_cv=_performance_cv(d),
        aud_per_gb_month=_float(fact_value(f, "price_per_gb_month")),
        aud_per_iops_month=_float(fact_value(f, "price_per_iops_month")),
        provisioned_iops=_float(fact_value(f, "provisioned_iops")),
        snapshot_restore_seconds=_float(fact_value(f, "snapshot_restore_time")),
        background_load=_share(fact_value(f, "background_load"), f"storage tier {d['name']!r}: background_load"),
    )


_KIND_ALIASES = {"hpc": "hpc_centre", "hpc_centre": "hpc_centre", "cluster": "cluster", "cloud": "cloud",
                 "owned_cluster": "cluster", "public_cloud": "cloud"}


def _submission(v: Any) -> str:
    value = str(v or "allocation")
    if value not in SUBMISSIONS:
        raise ValueError(f"platform: job_submission must be one of {', '.join(SUBMISSIONS)}, not {value!r}")
    return value


def platform_from_dict(d: dict[str, Any]) -> PlatformSpec:
    """A :class:`PlatformSpec` from one entry of ``platforms.json`` (or the same shape from the app)."""
    f = d.get("facts", {})
    samples = fact_value(f, "queue_wait_samples") or ()
    queue = QueueWaitSpec(
        model=str(fact_value(f, "queue_wait_model", "none")),
        median_seconds=_float(fact_value(f, "queue_wait_median")),
        sigma=_float(fact_value(f, "queue_wait_sigma")),
        samples_seconds=tuple(float(s) for s in samples),
    )
    gran = fact_value(f, "billing_granularity")
    return PlatformSpec(
        slug=d["slug"],
        name=d.get("name", d["slug"]),
        kind=_KIND_ALIASES.get(str(d.get("kind", "cluster")), str(d.get("kind", "cluster"))),
        max_nodes=_int(fact_value(f, "max_nodes")),
        root_access=fact_value(f, "root_access"),
        wan=WanSpec(
            bytes_per_s=_float(fact_value(f, "wan_bandwidth")),
            streams_to_saturate=_int(fact_value(f, "wan_streams_to_saturate")),
            variability=_float(fact_value(f, "wan_variability")),
        ),
        scheduler=SchedulerSpec(
            kind=str(fact_value(f, "scheduler", "none")),
            queue_wait=queue,
            usable_threads_per_task=_int(fact_value(f, "usable_threads_per_task")),
            submission=_submission(fact_value(f, "job_submission")),
            dispatch_overhead_s=_seconds(fact_value(f, "dispatch_overhead"), "platform: dispatch_overhead"),
            max_running_jobs=_positive_int(fact_value(f, "max_running_jobs"), "platform: max_running_jobs"),
        ),
        pricing=PricingSpec(
            billing_unit=str(fact_value(f, "billing_unit", "none")),
            billing_granularity_seconds=float(gran) if gran is not None else 1.0,
            node_hour_aud=_float(fact_value(f, "node_hour_rate")),
            capex_aud=_float(fact_value(f, "capex")),
            amortisation_years=_float(fact_value(f, "amortisation_years")),
            share_used=_float(fact_value(f, "share_used")),
            staff_aud_per_year=_float(fact_value(f, "staff_per_year")),
            power_aud_per_year=_float(fact_value(f, "power_per_year")),
            egress_aud_per_gb=_float(fact_value(f, "egress_per_gb")),
        ),
        # ordered by name, as the database lists them, so a file and its loaded records give one spec
        node_types=tuple(sorted((_node_type(n) for n in d.get("node_types", ())), key=lambda n: n.name)),
        storage=tuple(sorted((_storage(s) for s in d.get("storage_tiers", ())), key=lambda t: t.name)),
    )


_STAGE_KEYS = {
    "seq_read_bytes": "seq_read_bytes",
    "seq_write_bytes": "seq_write_bytes",
    "random_read_ops": "random_read_ops",
    "random_write_ops": "random_write_ops",
    "random_op_bytes": "random_op_bytes",
    "cpu_seconds": "cpu_seconds",
    "peak_memory": "peak_memory_bytes",
    "overhead": "overhead_s",
}


_TEXT_STAGE_KEYS = ("tasks_per", "dependency", "size_distribution", "work_items", "link", "batch_policy", "cloud_policy",
                    "cloud_pricing")


def _role_io(f: dict[str, Any]) -> tuple[RoleIO, ...]:
    """The per-role demands of a stage's facts (``input_read_bytes``, ``output_pattern`` ...)."""
    out = []
    for role in ROLES:
        read = fact_value(f, f"{role}_read_bytes")
        write = fact_value(f, f"{role}_write_bytes")
        if read is None and write is None:
            continue
        request = fact_value(f, f"{role}_request_bytes")
        out.append(RoleIO(role, float(read or 0.0), float(write or 0.0),
                          str(fact_value(f, f"{role}_pattern", "") or "sequential"),
                          None if request is None else float(request)))
    return tuple(out)


def stage_from_dict(s: dict[str, Any]) -> StageSpec:
    """A :class:`StageSpec` from one stage of a workload entry."""
    f = s.get("facts", {})
    kwargs: dict[str, Any] = {}
    for src, dst in _STAGE_KEYS.items():
        v = fact_value(f, src)
        if v is not None and not isinstance(v, str):
            kwargs[dst] = float(v)
    for key, cast in (("usable_threads", int), ("group_size", int), ("reference_speed", float),
                      ("size_sigma", float), ("cloud_instances", int), ("cloud_items_per_task", int)):
        v = fact_value(f, key)
        if v is not None:
            kwargs[key] = cast(v)
    for key in _TEXT_STAGE_KEYS:
        v = fact_value(f, key)
        if v:
            kwargs[key] = str(v)
    for key, dst in (("max_read_rate", "max_read_bytes_per_s"), ("size_mean", "size_mean"), ("size_min", "size_min"),
                     ("size_max", "size_max"), ("size_reference", "size_reference"),
                     ("cloud_launch_interval", "cloud_launch_interval_s")):
        v = fact_value(f, key)
        if v is not None:
            kwargs[dst] = float(v)
    values = fact_value(f, "size_values")
    if values:
        kwargs["size_values"] = tuple(float(v) for v in values)
    n_tasks = fact_value(f, "n_tasks", s.get("n_tasks"))
    if n_tasks is not None:
        kwargs["n_tasks"] = int(n_tasks)
    deps = s.get("depends_on") or fact_value(f, "depends_on") or ()
    if isinstance(deps, str):
        deps = (deps,)
    return StageSpec(name=s["name"], depends_on=tuple(deps), io=_role_io(f), **kwargs)


def workload_from_dict(d: dict[str, Any]) -> WorkloadSpec:
    """A :class:`WorkloadSpec` from one entry of ``workloads.json`` (or a workload file)."""
    params = {k: fact_value(d.get("parameters", {}), k) for k in d.get("parameters", {})}
    return WorkloadSpec(
        slug=d["slug"], name=d.get("name", d["slug"]), template=d.get("template", "stages"),
        parameters=params, stages=tuple(stage_from_dict(s) for s in d.get("stages", ())),
    )


@dataclass(frozen=True)
class Observation:
    """A published measurement (base units), for validation; ``fit`` names the fitted values it
    is an input of (e.g. ``invert_cpu``), empty when it is only compared with the model."""

    key: str
    quantity: str
    platform: str
    value: float | None
    unit: str
    workload: str = ""
    scatter: float | None = None
    note: str = ""
    where: str = ""
    fit: str = ""
    #: the seed study the figure is from ("000" for the CHILES case study), from its source file's name
    seed: str = ""


def seed_of(source: dict[str, Any] | None) -> str:
    """The seed number of a source citing a seed document (``000_...txt`` -> ``"000"``), else ""."""
    source = source or {}
    name = str(source.get("file") or "")
    head = name.split("_", 1)[0]
    return head if source.get("kind") == "seed" and head.isdigit() else ""


def observations_from_dict(d: dict[str, Any]) -> list[Observation]:
    out = []
    for o in d.get("observations", ()):
        unit = o.get("unit") or ""
        value = o.get("value")
        base = None
        if isinstance(value, int | float) and not isinstance(value, bool):
            try:
                base = to_base(value, unit) if unit else float(value)
            except ValueError:
                base = float(value)
        scatter = o.get("scatter")
        if isinstance(scatter, int | float) and unit:
            try:
                scatter = to_base(scatter, unit)
            except ValueError:
                pass
        src = o.get("source") or {}
        out.append(Observation(key=o.get("key", ""), quantity=o.get("quantity", ""), platform=o.get("platform", ""),
                               value=base, unit=unit, workload=o.get("workload", ""),
                               scatter=scatter if isinstance(scatter, int | float) else None,
                               note=o.get("note", ""), where=str(src.get("where", "")), fit=o.get("fit", ""),
                               seed=seed_of(src)))
    return out


def exchange_rates_from_dict(d: dict[str, Any]) -> dict[str, ExchangeRate]:
    """``exchange_rates.json``: each currency's latest rate to :data:`~simulator.units.CURRENCY`."""
    rates: dict[str, ExchangeRate] = {}
    for entry in sorted(d.get("exchange_rates", []), key=lambda e: str(e.get("date")), reverse=True):
        rate = entry["rate"]
        rates.setdefault(entry["currency"], ExchangeRate(entry["currency"], float(rate["value"]), str(entry["date"]),
                                                         dict(rate.get("source") or {})))
    return rates


def in_base_currency(obj: Any, rates: dict[str, ExchangeRate]) -> Any:
    """A copy of ``obj`` (a catalogue entry) with every money fact in another currency converted through ``rates``,
    the original amount and rate kept in its source; raises :class:`~simulator.units.UnitError` for a currency
    without a rate."""
    if isinstance(obj, list):
        return [in_base_currency(v, rates) for v in obj]
    if not isinstance(obj, dict):
        return obj
    unit = obj.get("unit")
    code = money_currency(unit) if isinstance(unit, str) and "value" in obj else None
    if code is not None and code != CURRENCY and isinstance(obj["value"], int | float):
        given = converted_from(obj["value"], unit, rates)
        base = to_base(obj["value"], unit, None, rates)
        return {**obj, "value": base, "unit": unit.replace(code, CURRENCY, 1),
                "source": {**(obj.get("source") or {}), "converted_from": given}}
    if code is not None and code != CURRENCY and code not in rates:
        raise UnitError(f"no {code} exchange rate in the catalogue for {unit!r}")
    return {k: in_base_currency(v, rates) for k, v in obj.items()}


def load_catalogue(directory: str | Path) -> tuple[dict[str, PlatformSpec], dict[str, WorkloadSpec], list[Observation]]:
    """Read ``platforms.json``, ``workloads.json`` and ``reference_observations.json`` from ``directory`` (money in
    another currency converted through ``exchange_rates.json``)."""
    directory = Path(directory)
    platforms: dict[str, PlatformSpec] = {}
    workloads: dict[str, WorkloadSpec] = {}
    observations: list[Observation] = []
    r = directory / "exchange_rates.json"
    rates = exchange_rates_from_dict(json.loads(r.read_text())) if r.exists() else {}
    p = directory / "platforms.json"
    if p.exists():
        for entry in json.loads(p.read_text())["platforms"]:
            spec = platform_from_dict(in_base_currency(entry, rates))
            platforms[spec.slug] = spec
    w = directory / "workloads.json"
    if w.exists():
        for entry in json.loads(w.read_text())["workloads"]:
            spec = workload_from_dict(in_base_currency(entry, rates))
            workloads[spec.slug] = spec
    o = directory / "reference_observations.json"
    if o.exists():
        observations = observations_from_dict(json.loads(o.read_text()))
    return platforms, workloads, observations
