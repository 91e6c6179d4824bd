"""Published I/O benchmark results of seeds 001, 002 and 004 against :mod:`simulator.model.io_rate`.

``validate_io(benchmarks, observations)`` runs every experiment of the catalogue's ``io_benchmarks.json`` and
returns one :class:`~simulator.model.validation.ValidationRow` per published figure it names.  A row is in
sample when its observation is an input of a fitted fact the experiment uses (the fact's provenance lists it);
qualitative experiments (``flattens_past``, ``drops_past_cache``, ``collapses_at``) give rows without a target
percentage.  ``io_curve`` gives the model's curve through an experiment (rate against nodes, data size or
request size) for the charts.
"""

from __future__ import annotations

from dataclasses import replace

from .catalogue import Observation
from .io_rate import Benchmarks, IOExperiment, aggregate_rate, fitted_observations, knee_nodes
from .validation import ValidationRow

__all__ = ["IO_TARGET", "validate_io", "io_curve", "QUALITATIVE_MEASURES"]

#: target relative error of a benchmark rate, node count or time ratio (fixed before the first comparison)
IO_TARGET = 0.25

QUALITATIVE_MEASURES = ("flattens_past", "drops_past_cache", "collapses_at", "outperforms", "ratio_within")

GB = 1e9


def _rate(b: Benchmarks, e: IOExperiment, **change) -> float:
    e = replace(e, **change)
    return aggregate_rate(b.storage[e.storage], b.libraries[e.library], e.direction, e.nodes,
                          processes_per_node=e.processes_per_node, data_bytes=e.data_bytes,
                          stripe_count=e.stripe_count, request_bytes=e.request_bytes).bytes_per_s


def _simulated(b: Benchmarks, e: IOExperiment) -> tuple[float, str, float, str]:
    """(simulated, unit, scale of the published base value, what bounds it)."""
    s, lib = b.storage[e.storage], b.libraries[e.library]
    r = aggregate_rate(s, lib, e.direction, e.nodes, processes_per_node=e.processes_per_node,
                       data_bytes=e.data_bytes, stripe_count=e.stripe_count, request_bytes=e.request_bytes)
    if e.measure == "rate":
        return r.bytes_per_s / GB, "GB/s", GB, r.bound_by
    if e.measure == "rate_per_node":
        return r.bytes_per_s / e.nodes / GB, "GB/s per node", GB, r.bound_by
    if e.measure == "knee_nodes":
        k = knee_nodes(s, lib, e.direction, processes_per_node=e.processes_per_node, data_bytes=e.data_bytes,
                       stripe_count=e.stripe_count, request_bytes=e.request_bytes)
        return k, "nodes", 1.0, r.bound_by
    if e.measure == "time_ratio":
        base = _rate(b, e, library=e.baseline_library)
        return (base / r.bytes_per_s, f"time with {lib.name} over {b.libraries[e.baseline_library].name}", 1.0,
                r.bound_by)
    if e.measure == "rate_ratio":
        base = _rate(b, e, library=e.baseline_library)
        return (r.bytes_per_s / base, f"rate with {lib.name} over {b.libraries[e.baseline_library].name}", 1.0,
                r.bound_by)
    raise ValueError(f"experiment {e.key!r}: unknown measure {e.measure!r}")


def _qualitative(b: Benchmarks, e: IOExperiment) -> tuple[float, str, bool, str]:
    """(value, unit, met, the check in words) for a qualitative experiment."""
    if e.measure == "flattens_past":
        past = _rate(b, e, nodes=int(e.nodes * 2.5)) / _rate(b, e)
        before = _rate(b, e, nodes=max(1, e.nodes // 5)) / _rate(b, e, nodes=1)
        return (past, f"rate at {int(e.nodes * 2.5)} nodes / at {e.nodes}", past < 1.1 and before > 0.8 * max(1, e.nodes // 5),
                f"qualitative: scales to {max(1, e.nodes // 5)} nodes, flat (< +10%) from {e.nodes} to "
                f"{int(e.nodes * 2.5)}")
    if e.measure == "drops_past_cache":
        cache = b.storage[e.storage].cache_bytes
        ratio = _rate(b, e) / _rate(b, e, data_bytes=cache / 2)
        return (ratio, f"rate at {e.data_bytes / GB:.0f} GB / at {cache / 2 / GB:.0f} GB", ratio < 0.5,
                "qualitative: past the cache size the rate falls below half of the in-cache rate")
    if e.measure == "collapses_at":
        ratio = _rate(b, e) / _rate(b, e, request_bytes=float(2 ** 20))
        return (ratio, f"rate at {e.request_bytes / 1024:.0f} KiB / at 1 MiB chunks", ratio < 0.5,
                f"qualitative: {e.request_bytes / 1024:.0f} KiB chunks lose more than half the rate")
    if e.measure in ("outperforms", "ratio_within"):
        change = {k: v for k, v in (("storage", e.baseline_storage), ("library", e.baseline_library)) if v}
        ratio = _rate(b, e) / _rate(b, e, **change)
        names = {"storage": lambda slug: b.storage[slug].name, "library": lambda slug: b.libraries[slug].name}
        mine = " / ".join(names[k](x) for k, x in (("storage", e.storage), ("library", e.library)) if x)
        other = " / ".join(names[k](x) for k, x in change.items())
        unit = f"rate of {mine} over {other}"
        if e.measure == "outperforms":
            return ratio, unit, ratio > 1.0, f"qualitative: {mine} faster than {other}"
        low, high = e.ratio_low or 0.0, e.ratio_high or float("inf")
        return ratio, unit, low <= ratio <= high, f"qualitative: within the published {low:g}-{high:g}x"
    raise ValueError(f"experiment {e.key!r}: unknown measure {e.measure!r}")


def validate_io(b: Benchmarks, observations: list[Observation]) -> list[ValidationRow]:
    """One row per experiment whose published figure is in ``observations``."""
    by_key = {o.key: o for o in observations}
    rows = []
    for e in b.experiments:
        obs = [by_key[k] for k in e.observations if k in by_key]
        if not obs:
            continue
        o = obs[0]
        fitted = fitted_observations(b, e)
        in_sample = any(x.key in fitted for x in obs)
        assumptions = f"{e.note}; {b.storage[e.storage].name}, {b.libraries[e.library].name}"
        if e.measure in QUALITATIVE_MEASURES:
            value, unit, met, target = _qualitative(b, e)
            rows.append(ValidationRow(e.measure, o.platform or e.storage, None, value, unit, None, target, met, in_sample,
                                      assumptions, "" if met else "the model's mechanisms do not show this effect "
                                      "with the catalogue's facts", o.where, o.key, o.seed, None))
            continue
        simulated, unit, scale, bound = _simulated(b, e)
        quantity = o.quantity
        if e.measure == "time_ratio":
            if len(obs) < 2 or not all(isinstance(x.value, int | float) for x in obs):
                continue
            published = float(obs[0].value) / float(obs[1].value)
            quantity = f"{o.quantity}_ratio"
        elif isinstance(o.value, int | float):
            published = float(o.value) / scale
        else:
            continue
        err = (simulated - published) / published * 100.0
        met = abs(err) <= IO_TARGET * 100.0
        rows.append(ValidationRow(
            quantity, o.platform or e.storage, published, simulated, unit, err, f"±{IO_TARGET:.0%}", met, in_sample,
            f"{assumptions}; bound by {bound}",
            "" if met else f"bound by {bound} in the model; see docs/model.md (I/O benchmarks) for what it leaves out",
            o.where, o.key, o.seed, round(IO_TARGET * 100.0, 6)))
    return rows


def io_curve(b: Benchmarks, e: IOExperiment, axis: str, values: list[float]) -> list[tuple[float, float]]:
    """The model's rate (bytes/s) through ``e`` with ``axis`` ("nodes", "data_bytes" or "request_bytes")
    set to each of ``values``."""
    out = []
    for x in values:
        change = {axis: int(x) if axis == "nodes" else float(x)}
        out.append((x, _rate(b, e, **change)))
    return out
