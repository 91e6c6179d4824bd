"""Published I/O benchmark results of seeds 001, 002 and 004 against :mod:`simulator.model.io_rate`.

``validate_io(benchmarks, observations)`` runs every experiment of the catalogue's ``io_benchmarks.json`` and
returns one :class:`~simulator.model.validation.ValidationRow` per published figure it names.  A row is in
sample when its observation is an input of a fitted fact the experiment uses (the fact's provenance lists it);
qualitative experiments (``flattens_past``, ``drops_past_cache``, ``collapses_at``) give rows without a target
percentage.  ``io_curve`` gives the model's curve through an experiment (rate against nodes, data size or
request size) for the charts.

A fact whose provenance is "fitted" names the experiment it is fitted to; :func:`fit_io` runs those fits (the
fact's value that makes the experiment reproduce its published figure) and ``validate_io`` validates with the
values the fits produce, marking in sample exactly the rows whose observation one of those fits used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .catalogue import Observation
from .io_rate import (
    Benchmarks,
    IOExperiment,
    aggregate_rate,
    cache_knee_bytes,
    fact_value,
    fitted_facts,
    knee_nodes,
    storage_facts,
    with_fact,
)
from .validation import ValidationRow

__all__ = ["IO_TARGET", "IOFit", "fit_io", "validate_io", "io_curve", "QUALITATIVE_MEASURES"]

#: target relative error of a benchmark rate, node count or time ratio (fixed before the first comparison)
IO_TARGET = 0.25

QUALITATIVE_MEASURES = ("flattens_past", "drops_past_cache", "collapses_at", "outperforms", "ratio_within",
                        "scales_linearly", "scales_less", "exceeds_targets")

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
    if e.measure == "cache_knee":
        if e.direction != "write":
            raise ValueError(f"experiment {e.key!r}: cache_knee is a write measure")
        k = cache_knee_bytes(s, lib, e.nodes, processes_per_node=e.processes_per_node, stripe_count=e.stripe_count,
                             request_bytes=e.request_bytes)
        if math.isinf(k):
            raise ValueError(f"experiment {e.key!r}: the model has no cache knee here (the cache never fills faster "
                             "than the targets drain it)")
        return k / GB, "GB", GB, "cache"
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
        most = e.ratio_high if e.ratio_high is not None else 0.5
        said = "below half of" if most == 0.5 else ("below" if most == 1.0 else f"below {most:g} of")
        return (ratio, f"rate at {e.data_bytes / GB:.0f} GB / at {cache / 2 / GB:.0f} GB", ratio < most,
                f"qualitative: past the cache size the rate falls {said} the in-cache rate")
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
    if e.measure in ("scales_linearly", "scales_less"):
        if not e.nodes_low or e.nodes_low >= e.nodes:
            raise ValueError(f"experiment {e.key!r}: {e.measure} needs facts.nodes_low below facts.nodes")
        growth = _rate(b, e) / _rate(b, e, nodes=e.nodes_low)
        span = f"{e.nodes_low} to {e.nodes} nodes"
        if e.measure == "scales_linearly":
            share = growth / (e.nodes / e.nodes_low)
            least = e.ratio_low or 0.0
            return (share, f"rate growth over {span} / node growth", share >= least,
                    f"qualitative: writes scale nearly linearly over {span} (at least {least:g} of linear)")
        other = e.baseline_storage or e.storage
        theirs = _rate(b, e, storage=other) / _rate(b, e, storage=other, nodes=e.nodes_low)
        mine, name = b.storage[e.storage].name, b.storage[other].name
        return (growth / theirs, f"rate growth over {span} on {mine} / on {name}", growth < theirs,
                f"qualitative: {mine} scales less than {name} over {span}")
    if e.measure == "exceeds_targets":
        s = b.storage[e.storage]
        if not (s.targets and s.target_write_bytes_per_s):
            raise ValueError(f"experiment {e.key!r}: exceeds_targets needs the storage's targets and their rate")
        expected = s.targets * s.target_write_bytes_per_s
        ratio = _rate(b, e) / expected
        return (ratio, f"rate / its targets' {expected / GB:.2f} GB/s", ratio > 1.0,
                "qualitative: the peak write rate is above what its targets add up to")
    raise ValueError(f"experiment {e.key!r}: unknown measure {e.measure!r}")


@dataclass(frozen=True)
class IOFit:
    """A fact fitted to the published figure of one experiment: its value in base units and the observations used."""

    owner: str  # storage | library
    slug: str
    fact: str
    value: float
    experiment: str
    observations: tuple[str, ...]
    method: str = ""


def _published(e: IOExperiment, obs: list[Observation], scale: float) -> tuple[float, str] | None:
    """(the published figure in the row's unit, its quantity) of a numeric experiment, None when not numeric."""
    if e.measure == "time_ratio":
        if len(obs) < 2 or not all(isinstance(x.value, int | float) for x in obs):
            return None
        return float(obs[0].value) / float(obs[1].value), f"{obs[0].quantity}_ratio"
    if isinstance(obs[0].value, int | float) and not isinstance(obs[0].value, bool):
        return float(obs[0].value) / scale, obs[0].quantity
    return None


def fit_io(b: Benchmarks, observations: list[Observation]) -> tuple[Benchmarks, tuple[IOFit, ...]]:
    """Run every fit the catalogue declares: each fact with provenance "fitted" names the ``experiment`` whose
    published figure it is solved for (the value at which the experiment's simulated figure equals it).

    Returns the benchmarks with the fitted values and the fits run.  A fit whose observation is not loaded is not
    run (the catalogue's value stands and no row is in sample by it); one that cannot reach the figure is refused
    naming the fact."""
    by_key = {o.key: o for o in observations}
    by_experiment = {e.key: e for e in b.experiments}
    fits = []
    for owner, slug, fact, src in fitted_facts(b):
        where = f"io_benchmarks.json: {owner} {slug!r} fact {fact!r}"
        e = by_experiment.get(src.get("experiment", ""))
        if e is None:
            raise ValueError(f"{where}: a fitted fact names the experiment it is fitted to (source.experiment); "
                             f"got {src.get('experiment')!r}")
        obs = [by_key[k] for k in e.observations if k in by_key]
        if not obs:
            continue
        current = fact_value(b, owner, slug, fact)
        if not current or current <= 0:
            raise ValueError(f"{where}: a fitted fact needs a positive starting value")
        _, _, scale, _ = _simulated(b, e)
        published = _published(e, obs, scale)
        if published is None:
            raise ValueError(f"{where}: experiment {e.key!r} has no numeric published figure to fit to")
        target = published[0]
        value = _solve(b, owner, slug, fact, e, target, current, where)
        b = with_fact(b, owner, slug, fact, value)
        fits.append(IOFit(owner, slug, fact, value, e.key, tuple(o.key for o in obs), src.get("method", "")))
    return b, tuple(fits)


def _solve(b: Benchmarks, owner: str, slug: str, fact: str, e: IOExperiment, target: float, start: float,
           where: str) -> float:
    """The fact's value (bisection in log space within 1000x of ``start``) at which ``e`` simulates ``target``."""

    def miss(log_v: float) -> float:
        return _simulated(with_fact(b, owner, slug, fact, math.exp(log_v)), e)[0] - target

    lo, hi = math.log(start / 1e3), math.log(start * 1e3)
    f_lo = miss(lo)
    if f_lo * miss(hi) > 0:
        raise ValueError(f"{where}: no value within 1000x of {start:g} reproduces {e.key!r}'s published {target:g}")
    for _ in range(100):
        mid = (lo + hi) / 2
        f_mid = miss(mid)
        if (f_mid < 0) == (f_lo < 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return math.exp((lo + hi) / 2)


def _uses(e: IOExperiment, fit: IOFit) -> bool:
    if fit.owner == "storage":
        return fit.slug in (e.storage, e.baseline_storage)
    return fit.slug in (e.library, e.baseline_library)


def _taken_as_fact(b: Benchmarks, e: IOExperiment, o: Observation) -> str:
    """The name of a fact of a storage system ``e`` uses whose value is ``o``'s published figure (the catalogue
    took the figure itself as that fact, e.g. a cache size known only as the knee it is said to match), else ""."""
    if not isinstance(o.value, int | float) or isinstance(o.value, bool) or not o.value:
        return ""
    for s in (b.storage[slug] for slug in (e.storage, e.baseline_storage) if slug):
        for fact, v in storage_facts(s).items():
            if abs(v - float(o.value)) <= 1e-9 * abs(float(o.value)):
                return f"{s.name}'s {fact.replace('_', ' ')}"
    return ""


def validate_io(b: Benchmarks, observations: list[Observation]) -> list[ValidationRow]:
    """One row per experiment whose published figure is in ``observations``, with the values of the fits
    :func:`fit_io` runs; a row is in sample when one of those fits used its observation, or when the catalogue
    holds its published figure as a fact of the storage the experiment uses (the model takes it as an input)."""
    b, fits = fit_io(b, observations)
    by_key = {o.key: o for o in observations}
    rows = []
    for e in b.experiments:
        obs = [by_key[k] for k in e.observations if k in by_key]
        if not obs:
            continue
        o = obs[0]
        fitted = {k for f in fits if _uses(e, f) for k in f.observations}
        taken = next((t for t in (_taken_as_fact(b, e, x) for x in obs) if t), "")
        in_sample = any(x.key in fitted for x in obs) or bool(taken)
        assumptions = f"{e.note}; {b.storage[e.storage].name}, {b.libraries[e.library].name}"
        if taken:
            assumptions += f"; the published figure is {taken} in the catalogue, so this row is not a prediction"
        if e.measure in QUALITATIVE_MEASURES:
            value, unit, met, target = _qualitative(b, e)
            rows.append(ValidationRow(e.measure, o.platform or e.storage, None, value, unit, None, target, met, in_sample,
                                      assumptions, "" if met else "the model's mechanisms do not show this effect "
                                      "with the catalogue's facts", o.where, o.key, o.seed, None))
            continue
        simulated, unit, scale, bound = _simulated(b, e)
        published = _published(e, obs, scale)
        if published is None:
            continue
        published_value, quantity = published
        err = (simulated - published_value) / published_value * 100.0
        met = abs(err) <= IO_TARGET * 100.0
        rows.append(ValidationRow(
            quantity, o.platform or e.storage, published_value, simulated, unit, err, f"±{IO_TARGET:.0%}", met,
            in_sample, f"{assumptions}; bound by {bound}",
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
