"""The rate a parallel I/O benchmark reaches on a shared file system, from the system's hardware facts.

Seeds 001, 002 and 004 publish write and read rates of many processes on Lustre and BeeGFS.  This module
predicts them from what their texts give about the hardware and the I/O library, with four mechanisms:

* **clients**: each writer (or reader) process streams at most ``client_*_bytes_per_s``; a request of ``b``
  bytes also waits one ``request_latency_s`` (a synchronous writer has one request in flight), so the
  process reaches ``b / (latency + b / rate)``: small requests collapse;
* **storage targets**: a file striped over ``k`` targets is served by at most ``k`` of them; a library
  writing a file per process spreads over ``min(targets, processes x k)``, one shared file over ``min(targets,
  k)``; readers of the same data all meet its ``k`` stripes (reading one table from many nodes flattens once
  the readers outrun them);
* **server links**: the servers' front-end links bound everything that reaches them;
* **write-back cache**: the servers absorb writes into ``cache_bytes`` at the front-end rate while the
  targets drain it; once full, the rest goes at the drain rate, so the rate drops past the cache size.  The
  cache sits in front of the targets, so a file reaching a share of them reaches that share of it;
* **library**: its layout (file per process or one shared file) and an efficiency factor per direction
  (its overhead: the time divided by it).

Everything comes from the arguments (the catalogue's ``io_benchmarks.json``, converted by
:func:`benchmarks_from_dict`); a missing fact is "no limit of that kind", never a filled-in number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from simulator.units import to_base

__all__ = ["SharedStorage", "IOLibrary", "IOExperiment", "IORate", "Benchmarks", "aggregate_rate",
           "knee_nodes", "cache_knee_bytes", "benchmarks_from_dict", "with_fact", "fact_value", "fitted_facts",
           "storage_facts"]

LAYOUTS = ("file_per_process", "shared_file")


@dataclass(frozen=True)
class SharedStorage:
    """A shared file system as its clients see it (rates in bytes/s, sizes in bytes, times in s)."""

    slug: str
    name: str
    targets: int | None = None
    target_write_bytes_per_s: float | None = None
    target_read_bytes_per_s: float | None = None
    server_link_bytes_per_s: float | None = None
    cache_bytes: float = 0.0
    client_write_bytes_per_s: float | None = None
    client_read_bytes_per_s: float | None = None
    request_latency_s: float = 0.0
    #: fact name -> provenance (the catalogue's source objects)
    sources: dict[str, dict] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class IOLibrary:
    slug: str
    name: str
    layout: str = "file_per_process"
    write_efficiency: float = 1.0
    read_efficiency: float = 1.0
    sources: dict[str, dict] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class IOExperiment:
    """One published benchmark run: who writes or reads how much, with which library and stripe count."""

    key: str
    storage: str
    library: str
    direction: str  # write | read
    nodes: int
    processes_per_node: int = 1
    #: bytes written in all (write) or read by each process (read)
    data_bytes: float = 0.0
    stripe_count: int = 1
    request_bytes: float | None = None
    #: what the published figure is: "rate", "rate_per_node", "knee_nodes", "cache_knee", "time_ratio", "rate_ratio", or a
    #: qualitative check ("flattens_past", "drops_past_cache", "collapses_at", "outperforms", "ratio_within",
    #: "scales_linearly", "scales_less", "exceeds_targets")
    measure: str = "rate"
    observations: tuple[str, ...] = ()
    #: for ratios and comparisons: the library and/or storage of the denominator
    baseline_library: str = ""
    baseline_storage: str = ""
    #: for "scales_linearly" and "scales_less": the node count the growth is measured from
    nodes_low: int | None = None
    #: for "ratio_within": the published range of the ratio; for "scales_linearly": the least fraction of linear
    ratio_low: float | None = None
    ratio_high: float | None = None
    note: str = ""
    sources: dict[str, dict] = field(default_factory=dict, compare=False)
    #: the model's curve through the experiment for charts: (attribute swept, its values in base units, unit shown)
    curve: tuple[str, tuple[float, ...], str] | None = None


@dataclass(frozen=True)
class IORate:
    bytes_per_s: float
    bound_by: str  # clients | targets | server links | cache
    seconds: float


def _client_rate(storage: SharedStorage, library: IOLibrary, direction: str, request_bytes: float | None) -> float:
    rate = storage.client_write_bytes_per_s if direction == "write" else storage.client_read_bytes_per_s
    if rate is None:
        return math.inf
    if request_bytes:
        rate = request_bytes / (storage.request_latency_s + request_bytes / rate)
    return rate


def _targets_rate(storage: SharedStorage, library: IOLibrary, direction: str, processes: int, stripes: int) -> float:
    per = storage.target_write_bytes_per_s if direction == "write" else storage.target_read_bytes_per_s
    if per is None:
        return math.inf
    # every reader reads the same data, so only its stripes serve them; writers of a file each spread wider
    files = processes if library.layout == "file_per_process" and direction == "write" else 1
    used = files * max(1, stripes)
    if storage.targets:
        used = min(storage.targets, used)
    return used * per


def aggregate_rate(storage: SharedStorage, library: IOLibrary, direction: str, nodes: int, *,
                   processes_per_node: int = 1, data_bytes: float, stripe_count: int = 1,
                   request_bytes: float | None = None) -> IORate:
    """The aggregate rate of ``nodes x processes_per_node`` processes moving ``data_bytes`` (in all when
    writing, each when reading) and what bounds it."""
    if direction not in ("write", "read"):
        raise ValueError(f"direction {direction!r}: expected 'write' or 'read'")
    if nodes < 1 or processes_per_node < 1 or data_bytes <= 0:
        raise ValueError("nodes, processes_per_node and data_bytes must be positive")
    processes = nodes * processes_per_node
    total = data_bytes if direction == "write" else data_bytes * processes
    limits = {"clients": processes * _client_rate(storage, library, direction, request_bytes),
              "server links": storage.server_link_bytes_per_s or math.inf}
    front_bound = min(limits, key=limits.get)
    front = limits[front_bound]
    drain = _targets_rate(storage, library, direction, processes, stripe_count)
    if math.isinf(front) and math.isinf(drain):
        raise ValueError(f"{storage.slug}: no rate is known for {direction}s (clients, links or targets)")
    efficiency = library.write_efficiency if direction == "write" else library.read_efficiency
    cache = storage.cache_bytes * _share_of_targets(storage, library, direction, processes, stripe_count)
    if direction == "read" or front <= drain or not cache:
        rate, bound = (front, front_bound) if front <= drain else (drain, "targets")
        rate *= efficiency
        return IORate(rate, bound, total / rate)
    # write-back cache: the part in front of the targets written to fills at (front - drain) while they drain
    # it, then writes go at the drain rate
    fill_s = cache / (front - drain)
    absorbed = front * fill_s
    if total <= absorbed:
        seconds, bound = total / front, "cache"
    else:
        seconds, bound = fill_s + (total - absorbed) / drain, "targets"
    seconds /= efficiency
    return IORate(total / seconds, bound, seconds)


def _share_of_targets(storage: SharedStorage, library: IOLibrary, direction: str, processes: int,
                      stripes: int) -> float:
    """The fraction of the targets (and so of their controllers' cache) the files written reach."""
    if not storage.targets:
        return 1.0
    files = processes if library.layout == "file_per_process" and direction == "write" else 1
    return min(1.0, files * max(1, stripes) / storage.targets)


def knee_nodes(storage: SharedStorage, library: IOLibrary, direction: str, *, processes_per_node: int = 1,
               data_bytes: float, stripe_count: int = 1, request_bytes: float | None = None) -> float:
    """The node count where the aggregate rate stops growing with nodes: the ceiling that does not grow with
    them (targets, server links) divided by what one node adds; ``inf`` when only the clients bound it."""
    ceiling = aggregate_rate(storage, library, direction, 10 ** 6, processes_per_node=processes_per_node,
                             data_bytes=data_bytes, stripe_count=stripe_count, request_bytes=request_bytes)
    per_node = processes_per_node * _client_rate(storage, library, direction, request_bytes)
    if ceiling.bound_by == "clients" or math.isinf(per_node):
        return math.inf
    return ceiling.bytes_per_s / per_node


def cache_knee_bytes(storage: SharedStorage, library: IOLibrary, nodes: int, *, processes_per_node: int = 1,
                     stripe_count: int = 1, request_bytes: float | None = None) -> float:
    """The data size past which the write rate starts to fall: what the writers put in while the write-back cache
    fills (its share the files reach, at the front rate less the drain rate); ``inf`` when the cache never fills
    (the front is no faster than the targets drain, or there is no cache)."""
    processes = nodes * processes_per_node
    front = min(processes * _client_rate(storage, library, "write", request_bytes),
                storage.server_link_bytes_per_s or math.inf)
    drain = _targets_rate(storage, library, "write", processes, stripe_count)
    cache = storage.cache_bytes * _share_of_targets(storage, library, "write", processes, stripe_count)
    if not cache or front <= drain or math.isinf(front):
        return math.inf
    return front * cache / (front - drain)


@dataclass(frozen=True)
class Benchmarks:
    storage: dict[str, SharedStorage]
    libraries: dict[str, IOLibrary]
    experiments: tuple[IOExperiment, ...]


_STORAGE_FACTS = {
    "targets": ("targets", None), "target_write_bw": ("target_write_bytes_per_s", "bandwidth"),
    "target_read_bw": ("target_read_bytes_per_s", "bandwidth"), "server_link_bw": ("server_link_bytes_per_s",
                                                                                   "bandwidth"),
    "cache": ("cache_bytes", "size"), "client_write_bw": ("client_write_bytes_per_s", "bandwidth"),
    "client_read_bw": ("client_read_bytes_per_s", "bandwidth"), "request_latency": ("request_latency_s", "time"),
}
_EXPERIMENT_FACTS = {"nodes": "nodes", "nodes_low": "nodes_low", "processes_per_node": "processes_per_node",
                     "data": "data_bytes",
                     "stripe_count": "stripe_count", "request_size": "request_bytes", "ratio_low": "ratio_low",
                     "ratio_high": "ratio_high"}


def _value(where: str, fact: Any) -> tuple[float | None, dict]:
    if not isinstance(fact, dict) or "value" not in fact:
        raise ValueError(f"{where}: expected a value object {{value, unit, source}}")
    value, unit = fact["value"], fact.get("unit") or ""
    if value is None:
        return None, fact.get("source") or {}
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{where}: value must be a non-negative number, got {value!r}")
    try:
        base = to_base(float(value), unit) if unit else float(value)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    return base, fact.get("source") or {}


def benchmarks_from_dict(d: dict[str, Any], *, name: str = "io_benchmarks.json") -> Benchmarks:
    """The catalogue's I/O benchmark systems, libraries and experiments; errors name the entry and fact."""
    storage: dict[str, SharedStorage] = {}
    for i, s in enumerate(d.get("storage", ())):
        kw: dict[str, Any] = {}
        sources = {}
        for fact, raw in (s.get("facts") or {}).items():
            if fact not in _STORAGE_FACTS:
                raise ValueError(f"{name}: storage[{i}].facts.{fact}: unknown fact")
            value, src = _value(f"{name}: storage[{i}].facts.{fact}", raw)
            sources[fact] = src
            if value is not None:
                attr = _STORAGE_FACTS[fact][0]
                kw[attr] = int(value) if attr == "targets" else value
        storage[s["slug"]] = SharedStorage(s["slug"], s.get("name", s["slug"]), sources=sources, **kw)
    libraries: dict[str, IOLibrary] = {}
    for i, lib in enumerate(d.get("libraries", ())):
        kw = {}
        sources = {}
        if lib.get("layout") not in LAYOUTS:
            raise ValueError(f"{name}: libraries[{i}].layout: expected one of {', '.join(LAYOUTS)}")
        for fact in ("write_efficiency", "read_efficiency"):
            if fact in (lib.get("facts") or {}):
                value, src = _value(f"{name}: libraries[{i}].facts.{fact}", lib["facts"][fact])
                sources[fact] = src
                if value is not None:
                    kw[fact] = value
        libraries[lib["slug"]] = IOLibrary(lib["slug"], lib.get("name", lib["slug"]), lib["layout"],
                                           sources=sources, **kw)
    experiments = []
    for i, e in enumerate(d.get("experiments", ())):
        where = f"{name}: experiments[{i}]"
        if e.get("storage") not in storage:
            raise ValueError(f"{where}.storage: no storage {e.get('storage')!r}")
        if e.get("baseline_storage") and e["baseline_storage"] not in storage:
            raise ValueError(f"{where}.baseline_storage: no storage {e['baseline_storage']!r}")
        for k in ("library", "baseline_library"):
            if e.get(k) and e[k] not in libraries:
                raise ValueError(f"{where}.{k}: no library {e[k]!r}")
        kw = {}
        sources = {}
        for fact, attr in _EXPERIMENT_FACTS.items():
            if fact in (e.get("facts") or {}):
                value, src = _value(f"{where}.facts.{fact}", e["facts"][fact])
                sources[fact] = src
                if value is not None:
                    kw[attr] = int(value) if attr in ("nodes", "nodes_low", "processes_per_node", "stripe_count") else value
        if "nodes" not in kw:
            raise ValueError(f"{where}.facts.nodes: required")
        curve = e.get("curve")
        if curve is not None:
            axis = _EXPERIMENT_FACTS.get(curve.get("axis", ""))
            if axis not in ("nodes", "data_bytes", "request_bytes"):
                raise ValueError(f"{where}.curve.axis: expected nodes, data or request_size")
            try:
                unit = curve.get("unit") or ""
                values = tuple(to_base(float(x), unit) if unit else float(x) for x in curve.get("values") or ())
            except (TypeError, ValueError) as err:
                raise ValueError(f"{where}.curve.values: {err}") from None
            if not values or min(values) <= 0:
                raise ValueError(f"{where}.curve.values: positive numbers expected")
            kw["curve"] = (axis, values, unit)
        experiments.append(IOExperiment(e["key"], e["storage"], e["library"], e.get("direction", "write"),
                                        measure=e.get("measure", "rate"),
                                        observations=tuple(e.get("observations") or ()),
                                        baseline_library=e.get("baseline_library", ""),
                                        baseline_storage=e.get("baseline_storage", ""), note=e.get("note", ""),
                                        sources=sources, **kw))
    return Benchmarks(storage, libraries, tuple(experiments))


def with_fact(b: Benchmarks, owner: str, slug: str, fact: str, value: float) -> Benchmarks:
    """``b`` with one catalogue fact (``owner`` "storage" or "library", its slug, the fact's catalogue name) set to
    ``value`` in base units."""
    if owner == "storage":
        attr = _STORAGE_FACTS[fact][0]
        new = replace(b.storage[slug], **{attr: int(round(value)) if attr == "targets" else value})
        return replace(b, storage={**b.storage, slug: new})
    if owner == "library" and fact in ("write_efficiency", "read_efficiency"):
        return replace(b, libraries={**b.libraries, slug: replace(b.libraries[slug], **{fact: value})})
    raise ValueError(f"{owner} {slug}: no fact {fact!r} to set")


def fact_value(b: Benchmarks, owner: str, slug: str, fact: str) -> float | None:
    """The value (base units) of one catalogue fact, None when unset."""
    if owner == "storage":
        return getattr(b.storage[slug], _STORAGE_FACTS[fact][0])
    return getattr(b.libraries[slug], fact)


def storage_facts(storage: SharedStorage) -> dict[str, float]:
    """The catalogue's facts of one storage system that are set: fact name -> value in base units."""
    out = {}
    for fact, (attr, _kind) in _STORAGE_FACTS.items():
        v = getattr(storage, attr)
        if isinstance(v, int | float) and v:
            out[fact] = float(v)
    return out


def fitted_facts(b: Benchmarks) -> list[tuple[str, str, str, dict]]:
    """(owner, slug, fact, provenance) of every fact whose provenance is "fitted"."""
    out = [("storage", slug, fact, src) for slug, s in b.storage.items() for fact, src in s.sources.items()
           if src.get("kind") == "fitted"]
    out += [("library", slug, fact, src) for slug, lib in b.libraries.items() for fact, src in lib.sources.items()
            if src.get("kind") == "fitted"]
    return out
