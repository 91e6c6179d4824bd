"""The scenario contract: what a user asks to simulate, defined once.

A request names a workload (with parameter overrides), one or more platforms each with its options
(per-stage placement: node type, nodes, job slots per node, storage tiers by role (input, scratch, output) and
staging in/out, pricing, allocation policy, launch staggering, a fixed queue wait; spot interruptions, the copy
stage, single allocation, retention, background load on shared tiers; catalogue what-ifs),
replications, a seed and the TCO horizon.  It is versioned JSON (:meth:`ScenarioRequest.from_json`,
:meth:`ScenarioRequest.to_json`); its limits are the constants below and nowhere else; every refusal is a
:class:`ContractError` whose entries carry the path of the field in error
(``platforms[1].options.placements[0].nodes``).  Unknown fields are refused.

The form, the API serializers, the configuration search and the what-if edits translate to and from these
models and keep no rules of their own; the OpenAPI schema is their JSON schema.  Checks that need the
catalogue (a stage of the workload, a node type or storage tier of the platform, an option a platform
cannot honour) are :func:`check_options` and :func:`check_overrides`; :func:`scenario_spec` turns a
platform's options into the simulator's :class:`~simulator.model.specs.ScenarioSpec`, completing a partial
placement from the stage's default; :func:`estimate` and :func:`admit` bound the work a request may queue.

Pure Python on pydantic: no Django here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, field_validator

from simulator.errors import ContractError, FieldError, join_path
from simulator.model.placement import stage_tiers, tier_resources
from simulator.model.simulate import check_scenario
from simulator.model.specs import (
    POLICIES,
    PRICING_MODELS,
    SUBMISSIONS,
    PlatformSpec,
    ScenarioSpec,
    StagePlacement,
    WorkloadSpec,
)
from simulator.model.stage_defaults import MAX_INSTANCES, MAX_ITEMS_PER_TASK, MAX_LAUNCH_INTERVAL_S
from simulator.model.stages import as_general, default_placement, task_count, work_chunks
from simulator.model.sub_pipeline import chain
from simulator.units import CURRENCIES, CURRENCY

__all__ = [
    "CONTRACT_VERSION", "LIMITS", "Limits", "FieldError", "ContractError", "Placement", "BackgroundLoad", "RunOptions",
    "PlatformOverrides", "WorkloadOverrides", "PlatformEntry", "ScenarioRequest", "RunRequest", "WhatIfEdit", "SearchSpace",
    "PLATFORM_OVERRIDE_FACTS", "TIER_OVERRIDE_FACTS", "PLACEMENT_OPTIONS", "path_of", "parse", "check_options",
    "check_overrides", "stage_defaults", "scenario_spec", "Estimate", "AdmissionLimits", "estimate", "admit",
]

#: bumped when a field changes meaning or is removed (adding an optional field keeps the version)
CONTRACT_VERSION = 1


@dataclass(frozen=True)
class Limits:
    """Every bound of the contract, in one place (the form, the API schema and the services read these)."""

    min_replications: int = 1
    max_replications: int = 1000  # the work they make is bounded by the admission limits
    max_seed: int = 2**62
    min_platforms: int = 2  # a scenario compares; a run has one platform
    max_platforms: int = 50
    max_name_chars: int = 200
    max_slug_chars: int = 100
    max_placements: int = 50
    max_nodes: int = MAX_INSTANCES
    max_slots_per_node: int = 10_000
    max_subbands_per_task: int = MAX_ITEMS_PER_TASK
    max_launch_interval_s: float = MAX_LAUNCH_INTERVAL_S  # 11.6 days between launches
    max_queue_wait_s: float = 3.6e8  # 100,000 hours
    max_retention_s: float = 1e9  # 31.7 years
    #: a workload or platform override (bytes, bytes/s, counts, IOPS): positive and at most this
    max_override_value: float = 1e18
    max_overrides: int = 100
    min_tco_years: float = 0.1
    max_tco_years: float = 50.0
    min_epochs_per_year: float = 0.01
    max_epochs_per_year: float = 10_000.0
    min_what_if_factor: float = 0.01
    max_what_if_factor: float = 100.0
    #: a configuration search larger than this is refused (each point is one simulation)
    max_search_configurations: int = 5000


LIMITS = Limits()

#: platform facts a scenario may override (what-ifs such as "halve the queue wait")
PLATFORM_OVERRIDE_FACTS = ("queue_wait_median", "wan_bandwidth")
#: storage-tier facts a scenario may override (what-ifs such as "raise the volume's IOPS")
TIER_OVERRIDE_FACTS = ("iops", "iops_per_client", "provisioned_iops", "read_bw", "write_bw",
                       "read_bw_per_client", "write_bw_per_client")


# --- errors -----------------------------------------------------------------------------------------

def path_of(loc: tuple) -> str:
    """A pydantic error location as a field path: ``('platforms', 1, 'nodes')`` -> ``platforms[1].nodes``."""
    path = ""
    for part in loc:
        if part == "[key]":  # pydantic marks an error in a mapping's key this way; the path names the key already
            continue
        path = f"{path}[{part}]" if isinstance(part, int) else join_path(path, str(part))
    return path


def _message(err: dict) -> str:
    if err["type"] == "extra_forbidden":
        return "unknown field"
    if err["type"] == "missing":
        return "required"
    msg = err["msg"]
    return msg[len("Value error, "):] if msg.startswith("Value error, ") else msg


def parse(model: type[BaseModel], data: Any):
    """``model`` validated from plain JSON data (a dict), or a ContractError naming each field in error."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = []
        for err in exc.errors(include_url=False):
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
            errors.append(FieldError(path_of(loc), _message(err)))
        raise ContractError(errors) from None


# --- the models ------------------------------------------------------------------------------------

class _Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False, str_strip_whitespace=True)

    @classmethod
    def from_json(cls, data: str | bytes | Mapping):
        """Validated from JSON text or an already parsed object; raises ContractError."""
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise ContractError.at("", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") \
                    from None
            except RecursionError:
                raise ContractError.at("", "not valid JSON: nested too deep") from None
        return parse(cls, data)

    def to_data(self) -> dict[str, Any]:
        """Plain JSON types, leaving out what was not set (so a stored request stays as the user wrote it)."""
        data = self.model_dump(mode="json", exclude_none=True, exclude_unset=True)
        if "version" in type(self).model_fields:
            data["version"] = self.version
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_data(), sort_keys=True)


#: text never holds a NUL (PostgreSQL refuses it in text and JSON), nor other control characters
PRINTABLE = r"^[^\x00-\x1f\x7f]*$"
Slug = Annotated[str, Field(min_length=1, max_length=LIMITS.max_slug_chars, pattern=r"^[-a-zA-Z0-9_]+$")]
Name = Annotated[str, Field(min_length=1, max_length=LIMITS.max_name_chars, pattern=PRINTABLE)]
OverrideValue = Annotated[float, Field(gt=0, le=LIMITS.max_override_value)]
Pricing = Literal[PRICING_MODELS]  # type: ignore[valid-type]
Policy = Literal[POLICIES]  # type: ignore[valid-type]
Submission = Literal[SUBMISSIONS]  # type: ignore[valid-type]
NodeCount = Annotated[int, Field(ge=1, le=LIMITS.max_nodes)]
LaunchInterval = Annotated[float, Field(ge=0, le=LIMITS.max_launch_interval_s)]
QueueWait = Annotated[float, Field(ge=0, le=LIMITS.max_queue_wait_s)]
SubbandsPerTask = Annotated[int, Field(ge=1, le=LIMITS.max_subbands_per_task)]
SlotCount = Annotated[int, Field(ge=1, le=LIMITS.max_slots_per_node)]
ResourceName = Annotated[str, Field(min_length=1, max_length=LIMITS.max_slug_chars, pattern=PRINTABLE)]


class Placement(_Contract):
    """Where and how one stage runs; a field left out keeps the stage's default on the platform (what the stage's
    placement facts say, else the platform's compute partition)."""

    stage: ResourceName = Field(description="a stage of the workload, e.g. invert")
    node_type: ResourceName | None = Field(None, description="node or instance type of the platform")
    nodes: NodeCount | None = Field(None, description="parallel nodes (static, dynamic) or most concurrent "
                                                      "instances (elastic)")
    storage_in: ResourceName | None = Field(None, description="storage tier the stage reads from")
    storage_out: ResourceName | None = Field(None, description="storage tier the stage writes to")
    pricing: Pricing | None = Field(None, description="on_demand or spot on a cloud; node_hour or none otherwise")
    policy: Policy | None = Field(None, description="allocation policy")
    launch_interval_s: LaunchInterval | None = Field(None, description="elastic: seconds between launches")
    queue_wait_s: QueueWait | None = Field(None, description="a fixed queue wait instead of the platform's model "
                                                             "(batch platforms)")
    subbands_per_task: SubbandsPerTask | None = Field(None, description="a stage whose work comes in items: items "
                                                                        "one task processes one after the other")
    storage_scratch: ResourceName | None = Field(None, description="storage tier used as working space (default: "
                                                                   "the node-local tier, else the input tier)")
    stage_in: bool | None = Field(None, description="copy each task's inputs from storage_in to scratch before "
                                                    "computing")
    stage_out: bool | None = Field(None, description="write outputs to scratch and copy them to storage_out after "
                                                     "computing")
    slots_per_node: SlotCount | None = Field(None, description="tasks one node runs at once, sharing its cores, "
                                                               "NIC and local disk (default: the node type's slots)")
    submission: Submission | None = Field(None, description="allocation (one job holding the stage's nodes) or "
                                                            "job_per_task (a job array: a queue wait and dispatch "
                                                            "per task); default: the scheduler's")


#: the per-stage options (what a search may vary and the builder shows), from the model itself
PLACEMENT_OPTIONS = tuple(name for name in Placement.model_fields if name != "stage")


class BackgroundLoad(_Contract):
    """The share of a storage tier's bandwidth and IOPS other users take during the run, and where it comes from."""

    share: Annotated[float, Field(ge=0, lt=1)] = Field(description="0 (none) to below 1")
    source: Name = Field(description="where the share comes from (a measurement, a paper, an assumption and why)")


class RunOptions(_Contract):
    """Options of a simulation on one platform; all optional (the defaults are the stage defaults)."""

    placements: list[Placement] = Field(default_factory=list, max_length=LIMITS.max_placements)
    retention_after_run_s: Annotated[float, Field(ge=0, le=LIMITS.max_retention_s)] | None = Field(
        None, description="keep the data stored this long after the run (storage billing)")
    spot_interruptions: bool | None = Field(None, description="spot instances can be reclaimed")
    include_copy: bool | None = Field(None, description="include the copy-in stage")
    single_allocation: bool | None = Field(None, description="batch platforms: one allocation for every stage")
    background_load: dict[ResourceName, BackgroundLoad] = Field(
        default_factory=dict, max_length=LIMITS.max_overrides,
        description="storage tier -> the share other users take (replaces the catalogue's)")

    @field_validator("placements")
    @classmethod
    def _one_per_stage(cls, value: list[Placement]) -> list[Placement]:
        seen = set()
        for p in value:
            if p.stage in seen:
                raise ValueError(f"stage {p.stage!r} is placed twice")
            seen.add(p.stage)
        return value


PlatformFact = Literal[PLATFORM_OVERRIDE_FACTS]  # type: ignore[valid-type]
TierFact = Literal[TIER_OVERRIDE_FACTS]  # type: ignore[valid-type]


class PlatformOverrides(_Contract):
    """What-if changes to the catalogue for this scenario only (positive numbers in base units)."""

    facts: dict[PlatformFact, OverrideValue] = Field(default_factory=dict, description="platform fact -> value")
    storage_tiers: dict[ResourceName, dict[TierFact, OverrideValue]] = Field(
        default_factory=dict, max_length=LIMITS.max_overrides, description="tier name -> {fact -> value}")


class PlatformEntry(_Contract):
    """One platform of a scenario with its options and what-if overrides."""

    platform: Slug
    options: RunOptions = Field(default_factory=RunOptions)
    platform_overrides: PlatformOverrides = Field(default_factory=PlatformOverrides)


_OverridesDict = Annotated[dict[ResourceName, OverrideValue], Field(max_length=LIMITS.max_overrides)]


class WorkloadOverrides(RootModel[_OverridesDict]):
    """Workload parameter -> value in base units (each a parameter of the workload: :func:`check_overrides`)."""

    model_config = ConfigDict(frozen=True, strict=True, allow_inf_nan=False)


class ScenarioRequest(_Contract):
    """A scenario: one workload on two or more platforms, compared."""

    version: Literal[CONTRACT_VERSION] = CONTRACT_VERSION  # type: ignore[valid-type]
    name: Name
    workload: Slug
    workload_overrides: _OverridesDict = Field(default_factory=dict,
                                                  description="workload parameter -> value in base units")
    platforms: list[PlatformEntry] = Field(max_length=LIMITS.max_platforms, description="two or more platforms, each once",
                                           json_schema_extra={"minItems": LIMITS.min_platforms})
    replications: Annotated[int, Field(ge=LIMITS.min_replications, le=LIMITS.max_replications)] = \
        Field(5, description="Monte Carlo replications per platform")
    seed: Annotated[int, Field(ge=0, le=LIMITS.max_seed)] = 0
    tco_years: Annotated[float, Field(ge=LIMITS.min_tco_years, le=LIMITS.max_tco_years)] = Field(
        5.0, description="TCO horizon (years)")
    epochs_per_year: Annotated[float, Field(ge=LIMITS.min_epochs_per_year, le=LIMITS.max_epochs_per_year)] = Field(
        1.0, description="how often the workload runs per year, for TCO")
    currency: str = Field(CURRENCY, max_length=3, description=(
        f"the currency the results and reports show money in ({', '.join(CURRENCIES)}); amounts are computed in "
        f"{CURRENCY} and converted through the catalogue's exchange rate for it"))

    @field_validator("currency")
    @classmethod
    def _known_currency(cls, value: str) -> str:
        if value not in CURRENCIES:
            raise ValueError(f"{value[:10]!r} is not a currency Skyplan knows: {', '.join(CURRENCIES)}")
        return value

    @field_validator("platforms")
    @classmethod
    def _each_once(cls, value: list[PlatformEntry]) -> list[PlatformEntry]:
        if len(value) < LIMITS.min_platforms:
            raise ValueError(f"choose at least {LIMITS.min_platforms} platforms to compare")
        slugs = [e.platform for e in value]
        twice = sorted({s for s in slugs if slugs.count(s) > 1})
        if twice:
            raise ValueError(f"each platform can appear once ({', '.join(twice)} twice)")
        return value


class RunRequest(_Contract):
    """A simulation of one workload on one platform."""

    version: Literal[CONTRACT_VERSION] = CONTRACT_VERSION  # type: ignore[valid-type]
    workload: Slug
    platform: Slug
    options: RunOptions = Field(default_factory=RunOptions)
    replications: Annotated[int, Field(ge=LIMITS.min_replications, le=LIMITS.max_replications)] = \
        Field(1, description="Monte Carlo replications (queue waits, WAN variability, spot)")
    seed: Annotated[int, Field(ge=0, le=LIMITS.max_seed)] = 0
    label: Annotated[str, Field(max_length=LIMITS.max_name_chars, pattern=PRINTABLE)] = ""


class WhatIfEdit(_Contract):
    """One what-if edit of a scenario: scale a platform's median queue wait or a storage tier's IOPS."""

    kind: Literal["queue", "iops"]
    target: Annotated[str, Field(min_length=1, max_length=2 * LIMITS.max_slug_chars + 1, pattern=PRINTABLE)]
    factor: Annotated[float, Field(ge=LIMITS.min_what_if_factor, le=LIMITS.max_what_if_factor)] = 0.5


def _values(kind):
    return Annotated[list[kind], Field(min_length=1, max_length=LIMITS.max_search_configurations)] | None


class SearchDimensions(_Contract):
    """The values a configuration search tries for one stage (each list one dimension; the types are the
    placement's)."""

    node_type: _values(ResourceName) = None
    nodes: _values(NodeCount) = None
    pricing: _values(Pricing) = None
    policy: _values(Policy) = None
    storage_in: _values(ResourceName) = None
    storage_out: _values(ResourceName) = None
    launch_interval_s: _values(LaunchInterval) = None
    slots_per_node: _values(SlotCount) = None
    submission: _values(Submission) = None
    stage_in: _values(bool) = None
    stage_out: _values(bool) = None


class SearchSpace(_Contract):
    """A configuration search's space: stage -> dimensions."""

    stages: Annotated[dict[ResourceName, SearchDimensions], Field(min_length=1, max_length=LIMITS.max_placements)]

    def configurations(self) -> int:
        n = 1
        for dims in self.stages.values():
            for values in dims.model_dump(exclude_none=True).values():
                n *= len(values)
        return n


# --- checks against the catalogue -----------------------------------------------------------------

def check_overrides(request_overrides: Mapping[str, float], workload: WorkloadSpec, *,
                    at: str = "workload_overrides") -> None:
    """Every overridden name is a parameter of the workload."""
    errors = [FieldError(f"{at}.{name}", f"not a parameter of {workload.slug}")
              for name in request_overrides if name not in workload.parameters]
    if errors:
        raise ContractError(errors)


def _tier_names(platform: PlatformSpec) -> list[str]:
    return [t.name for t in platform.storage]


def check_options(options: RunOptions, platform: PlatformSpec, workload: WorkloadSpec, *, at: str = "options",
                  overrides: PlatformOverrides | None = None, overrides_at: str = "platform_overrides") -> None:
    """What the platform and workload have: placed stages exist, node types and tiers are the platform's.  (What
    the model can honour, such as where a fixed queue wait applies, is :func:`simulator.model.simulate.check_scenario`'s
    to say; :func:`scenario_spec` asks it.)"""
    errors: list[FieldError] = []
    stages = [s.name for s in workload.stages]
    nodes = [n.name for n in platform.node_types]
    tiers = _tier_names(platform)
    for i, p in enumerate(options.placements):
        where = f"{at}.placements[{i}]"
        if stages and p.stage not in stages:
            errors.append(FieldError(f"{where}.stage", f"{p.stage!r} is not a stage of {workload.slug} "
                                                       f"({', '.join(stages)})"))
        if p.node_type is not None and p.node_type not in nodes:
            errors.append(FieldError(f"{where}.node_type", f"{platform.slug} has no node type {p.node_type!r} "
                                                           f"({', '.join(nodes) or 'none'})"))
        for key in ("storage_in", "storage_out", "storage_scratch"):
            name = getattr(p, key)
            if name is not None and name not in tiers:
                errors.append(FieldError(f"{where}.{key}", f"{platform.slug} has no storage tier {name!r} "
                                                           f"({', '.join(tiers) or 'none'})"))
        if p.slots_per_node is not None and p.slots_per_node > 1 and p.policy == "elastic":
            errors.append(FieldError(f"{where}.slots_per_node", "an elastic pool runs one task per instance; use a "
                                                                "static or dynamic policy to run several per node"))
    for name in options.background_load:
        if name not in tiers:
            errors.append(FieldError(f"{at}.background_load.{name}", f"{platform.slug} has no storage tier {name!r} "
                                                                     f"({', '.join(tiers) or 'none'})"))
    for name in (overrides.storage_tiers if overrides else {}):
        if name not in tiers:
            errors.append(FieldError(f"{overrides_at}.storage_tiers.{name}",
                                     f"{platform.slug} has no storage tier {name!r} ({', '.join(tiers) or 'none'})"))
    if errors:
        raise ContractError(errors)


# --- to the simulator ------------------------------------------------------------------------------

def stage_defaults(platform: PlatformSpec, workload: WorkloadSpec) -> dict[str, StagePlacement]:
    """The placement each stage a request may place gets when the request leaves it out:
    :func:`simulator.model.stages.default_placement` (the stage's own placement facts, else one pool of the compute
    partition for every stage).  A stage continuing another's task is placed with it, so it has none of its own."""
    sc = ScenarioSpec(platform=platform, workload=workload)
    placed = [s.name for s in as_general(workload).stages if s.dependency != "continues"]
    if not platform.node_types:
        return {name: StagePlacement(stage=name) for name in placed}
    return {name: default_placement(sc, name) for name in placed}


def complete(p: Placement, default: StagePlacement | None) -> StagePlacement:
    """A placement with every field the request left out taken from the stage's default."""
    given = p.model_dump(exclude_none=True)
    return replace(default, **given) if default is not None else StagePlacement(**given)


def scenario_spec(options: RunOptions, platform: PlatformSpec, workload: WorkloadSpec, *, seed: int = 0,
                  at: str = "options") -> ScenarioSpec:
    """The simulator scenario of one platform's options (checked with :func:`check_options` first)."""
    check_options(options, platform, workload, at=at)
    platform = _with_background_load(platform, options.background_load, at)
    defaults = stage_defaults(platform, workload) if options.placements else {}
    placements = tuple(complete(p, defaults.get(p.stage)) for p in options.placements)
    errors = []
    for i, pl in enumerate(placements):
        if pl.slots_per_node is not None and pl.slots_per_node > 1 and pl.policy == "elastic":
            errors.append(FieldError(f"{at}.placements[{i}].slots_per_node",
                                     "an elastic pool runs one task per instance; use a static or dynamic policy to "
                                     "run several per node"))
        if pl.submission == "job_per_task" and pl.policy == "elastic":
            errors.append(FieldError(f"{at}.placements[{i}].submission",
                                     "job_per_task cannot apply here: elastic instances are launched one per task, "
                                     "not submitted as batch jobs; use allocation"))
        try:
            stage_tiers(platform, pl)
        except ValueError as exc:
            errors.append(FieldError(f"{at}.placements[{i}].storage_scratch", str(exc)))
    if errors:
        raise ContractError(errors)
    flags = {k: v for k, v in (("spot_interruptions", options.spot_interruptions),
                               ("include_copy", options.include_copy),
                               ("single_allocation", options.single_allocation)) if v is not None}
    spec = ScenarioSpec(platform=platform, workload=workload, placements=placements, seed=int(seed),
                        retention_after_run_s=float(options.retention_after_run_s or 0.0), **flags)
    try:
        check_scenario(spec)  # options the model would ignore (a queue wait no queue applies) are refused
    except ContractError as exc:
        if at == "options":
            raise
        raise ContractError([FieldError(join_path(at, e.path.removeprefix("options").lstrip(".")), e.message)
                             for e in exc.errors]) from None
    return spec


def _with_background_load(platform: PlatformSpec, loads: Mapping[str, BackgroundLoad], at: str) -> PlatformSpec:
    """``platform`` with the request's background loads on its tiers; a tier with no aggregate to take a share of
    is refused at its path."""
    if not loads:
        return platform
    storage = tuple(replace(t, background_load=loads[t.name].share) if t.name in loads else t
                    for t in platform.storage)
    errors = []
    for t in storage:
        if t.name in loads:
            try:
                tier_resources(t)
            except ValueError as exc:
                errors.append(FieldError(f"{at}.background_load.{t.name}.share", str(exc)))
    if errors:
        raise ContractError(errors)
    return replace(platform, storage=storage)


# --- admission -------------------------------------------------------------------------------------

#: memory of one replication per task of one phase (bytes), measured on the reference catalogue (2026-11-25,
#: ``bench/admission.py``): the general model (the SDP job array, 40,000 jobs = 120,000 tasks) 1.2 kB of resident
#: memory per task.  Rounded up so the estimate errs on the side of refusing; a task of more phases takes more
#: (the CHILES epoch, five phases in its longest task: 2.7-5.6 kB of traced peak per task, 2026-11-27, estimated
#: 12.5 kB).
BYTES_PER_TASK = 2_500
#: engine events per task: each phase starts and ends, plus the task's own start and end (a bound)
EVENTS_PER_PHASE = 2


@dataclass(frozen=True)
class Estimate:
    """The work one replication of a scenario needs, estimated from the request without building it."""

    tasks: int
    events: int
    memory_bytes: float


@dataclass(frozen=True)
class AdmissionLimits:
    """Bounds on the work one request may queue (per workspace; the service reads them from the settings)."""

    max_tasks_per_replication: int = 500_000
    max_memory_bytes_per_replication: float = 1.5e9
    max_tasks_per_request: int = 2_000_000


def _count(value: Any, default: float = 1.0) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return default
    return v if math.isfinite(v) and v > 0 else default


def estimate(spec: ScenarioSpec) -> Estimate:
    """Tasks, events and memory of one replication of ``spec``, from its parameters (never by building the
    graph, which is what an absurd request would make too large)."""
    g = as_general(spec.workload)
    placed = {p.stage: p for p in spec.placements}
    # a stage continuing another adds phases to that stage's tasks, not tasks; the others are placed as the
    # scenario says, else by their defaults (their own placement facts)
    heads = [s for s in g.stages if s.dependency != "continues"]
    defaults = stage_defaults(spec.platform, g) if spec.platform.node_types and len(placed) < len(heads) else {}
    try:  # a stage whose work comes in items runs one task per chunk of them
        counts = [task_count(s, g) * len(work_chunks(s, g, placed.get(s.name) or defaults.get(s.name)
                                                     or StagePlacement(s.name))) for s in heads]
    except ValueError:
        counts = [1 for _ in heads]  # the build names the bad count
    tasks = float(sum(max(1, c) for c in counts)) + len(heads)
    longest = max((len(chain(g, h.name)) for h in heads), default=1)
    phases_per_task = 2.0 * longest  # overhead, then CPU and I/O together, for each phase of the longest task
    # staging copies in and out, and a job's dispatch, are phases of their own
    extra = max((int(p.stage_in) + int(p.stage_out) + int((p.submission or spec.platform.scheduler.submission)
                                                           == "job_per_task") for p in spec.placements), default=0)
    memory_scale = (phases_per_task + extra) / 2.0  # measured on tasks of one phase
    phases_per_task += extra
    tasks = math.ceil(tasks) if math.isfinite(tasks) else math.inf
    per_task = BYTES_PER_TASK * memory_scale
    return Estimate(tasks=tasks, events=math.ceil(tasks * (phases_per_task + 1) * EVENTS_PER_PHASE)
                    if math.isfinite(tasks) else math.inf, memory_bytes=tasks * per_task)


def _blame(spec: ScenarioSpec, overrides: Mapping[str, float], at: str) -> str:
    """The field a too-large estimate comes from: an overridden size parameter, else the workload."""
    for name in ("n_days", "n_jobs", "n_subbands", "bandwidth", "day_sizes"):
        if name in overrides:
            return f"{at}.{name}"
    return "workload"


def admit(spec: ScenarioSpec, replications: int, limits: AdmissionLimits, *,
          overrides: Mapping[str, float] | None = None, overrides_at: str = "workload_overrides",
          platforms: int = 1) -> Estimate:
    """The estimate of ``spec``, or a ContractError naming the field and the bound it exceeds."""
    est = estimate(spec)
    field = _blame(spec, overrides or {}, overrides_at)
    if est.tasks > limits.max_tasks_per_replication:
        raise ContractError.at(field, f"about {est.tasks:,.0f} tasks per replication on {spec.platform.slug}; "
                                      f"at most {limits.max_tasks_per_replication:,} are admitted")
    if est.memory_bytes > limits.max_memory_bytes_per_replication:
        raise ContractError.at(field, f"about {est.memory_bytes / 1e6:,.0f} MB per replication on "
                                      f"{spec.platform.slug}; at most "
                                      f"{limits.max_memory_bytes_per_replication / 1e6:,.0f} MB are admitted")
    total = est.tasks * replications * platforms
    if total > limits.max_tasks_per_request:
        raise ContractError.at("replications", f"{replications} replications x {platforms} platform(s) x about "
                                               f"{est.tasks:,.0f} tasks = {total:,.0f} tasks; at most "
                                               f"{limits.max_tasks_per_request:,} per request")
    return est
