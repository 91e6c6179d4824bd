"""Input specifications of the model layer: platform, workload and scenario.

All values are in base units (bytes, bytes/s, seconds, operations, AUD) and every
class is a frozen dataclass, JSON-serialisable with :func:`dataclasses.asdict`.
Optional facts are ``None`` when unknown.  Every value comes from the catalogue
records (:mod:`simulator.model.catalogue` converts them); the model holds no
reference values of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "NodeTypeSpec",
    "StorageSpec",
    "WanSpec",
    "QueueWaitSpec",
    "SchedulerSpec",
    "PricingSpec",
    "PlatformSpec",
    "RoleIO",
    "StageSpec",
    "ROLES",
    "ACCESS_PATTERNS",
    "DEPENDENCY_KINDS",
    "SIZE_DISTRIBUTIONS",
    "LINKS",
    "WorkloadSpec",
    "StagePlacement",
    "ScenarioSpec",
    "POLICIES",
    "SUBMISSIONS",
    "PRICING_MODELS",
]

POLICIES = ("static", "dynamic", "elastic")
SUBMISSIONS = ("allocation", "job_per_task")
PRICING_MODELS = ("on_demand", "spot", "node_hour", "none")
#: storage roles a stage reads and writes; a scenario's placement maps each to a tier of the platform
ROLES = ("input", "scratch", "output")
ACCESS_PATTERNS = ("sequential", "random")
#: how the tasks of a stage wait for those of a stage it depends on (``continues``: task i is further phases of
#: the upstream stage's task i, run in that task on its node)
DEPENDENCY_KINDS = ("all", "one_to_one", "grouped", "continues")
#: how one task's size (a multiplier of the stage's per-task demands) varies across the stage's tasks
SIZE_DISTRIBUTIONS = ("fixed", "list", "lognormal", "spread")
#: links a stage can bring its data in over
LINKS = ("wan",)


@dataclass(frozen=True)
class NodeTypeSpec:
    """A node (cluster/HPC) or instance type (cloud)."""

    name: str
    cores: int = 1
    memory_bytes: float | None = None
    local_disk_bytes: float | None = None
    local_disk_kind: str = "none"  # none | hdd | ssd | nvme
    nic_bytes_per_s: float | None = None
    count: int | None = None  # None = elastic / unbounded
    on_demand_aud_per_hour: float | None = None
    spot_aud_per_hour: float | None = None
    spot_rise_per_instance: float | None = None
    boot_seconds: float | None = None
    #: per-core speed relative to the reference core of the workload profiles (1.0 = same)
    core_speed: float = 1.0
    used_for: str = ""
    #: the pipeline stage this type runs unless a placement says otherwise (cloud; "" = none)
    default_stage: str = ""
    #: job slots: tasks one node runs at once, sharing its cores, NIC and local disk (billing stays per node)
    slots: int = 1


@dataclass(frozen=True)
class StorageSpec:
    """A storage tier.  ``scope`` says whether one capacity is shared by everybody
    (``shared``), exists once per node (``per_node``, e.g. instance SSD) or once per
    attached volume (``per_volume``, e.g. an EBS volume)."""

    name: str
    kind: str  # parallel_fs | nfs_raid | block_gp | block_piops | local_ssd | object_store
    scope: str = "shared"
    read_bytes_per_s: float | None = None
    write_bytes_per_s: float | None = None
    read_bytes_per_s_per_client: float | None = None
    write_bytes_per_s_per_client: float | None = None
    iops: float | None = None
    iops_per_client: float | None = None
    latency_seconds: float | None = None
    capacity_bytes: float | None = None
    degrade_after_streams: int | None = None
    degrade_exponent: float = 0.0
    #: coefficient of variation of the rate one task gets from the tier (a lognormal factor per task, mean 1)
    performance_cv: float = 0.0
    aud_per_gb_month: float | None = None
    aud_per_iops_month: float | None = None
    provisioned_iops: float | None = None
    snapshot_restore_seconds: float | None = None
    #: share (0 <= x < 1) of the tier's aggregate bandwidth and IOPS that other users take
    background_load: float = 0.0


@dataclass(frozen=True)
class WanSpec:
    """The link from the data source (the observatory archive copy at ICRAR) to the platform."""

    bytes_per_s: float | None = None
    streams_to_saturate: int | None = None
    variability: float | None = None  # coefficient of variation of throughput


@dataclass(frozen=True)
class QueueWaitSpec:
    """How long a batch submission waits before it starts (see :mod:`simulator.model.queue`)."""

    model: str = "none"  # none | fixed | lognormal | empirical
    median_seconds: float | None = None
    sigma: float | None = None
    samples_seconds: tuple[float, ...] = ()


@dataclass(frozen=True)
class SchedulerSpec:
    kind: str = "none"  # none | pbs | slurm | cloud_api
    queue_wait: QueueWaitSpec = field(default_factory=QueueWaitSpec)
    #: threads a task can actually use under this scheduler (e.g. 1 where OpenMP is unusable under SLURM); None = no cap
    usable_threads_per_task: int | None = None
    #: how a stage's tasks are submitted: ``allocation`` (one job holding the stage's nodes, one queue wait) or
    #: ``job_per_task`` (a job array: each task its own job with its own queue wait, nodes held only while busy)
    submission: str = "allocation"
    #: seconds the scheduler takes to dispatch one job before it runs (prolog, launch)
    dispatch_overhead_s: float = 0.0
    #: most jobs of one user running at once (job_per_task); None = no limit
    max_running_jobs: int | None = None


@dataclass(frozen=True)
class PricingSpec:
    billing_unit: str = "none"  # none | node_hour | instance_hour
    billing_granularity_seconds: float = 1.0  # 3600 = per hour or part thereof
    node_hour_aud: float | None = None
    capex_aud: float | None = None
    amortisation_years: float | None = None
    share_used: float | None = None
    staff_aud_per_year: float | None = None
    power_aud_per_year: float | None = None
    egress_aud_per_gb: float | None = None


@dataclass(frozen=True)
class PlatformSpec:
    slug: str
    name: str
    kind: str  # cluster | hpc_centre | cloud
    max_nodes: int | None = None
    root_access: bool | None = None
    wan: WanSpec = field(default_factory=WanSpec)
    scheduler: SchedulerSpec = field(default_factory=SchedulerSpec)
    pricing: PricingSpec = field(default_factory=PricingSpec)
    node_types: tuple[NodeTypeSpec, ...] = ()
    storage: tuple[StorageSpec, ...] = ()

    def node_type(self, name: str | None = None) -> NodeTypeSpec:
        """The node type called ``name``.  When ``name`` is None: on a cluster or HPC centre the
        compute partition (the most cores in total, count x cores), on the cloud the first type."""
        if not self.node_types:
            raise KeyError(f"platform {self.slug!r} has no node types")
        if name is None:
            if self.is_cloud:
                return self.node_types[0]
            return max(self.node_types, key=lambda n: ((n.count or 1) * n.cores, -self.node_types.index(n)))
        for nt in self.node_types:
            if nt.name == name:
                return nt
        raise KeyError(f"platform {self.slug!r} has no node type {name!r}; known: {[n.name for n in self.node_types]}")

    def storage_tier(self, name: str | None = None, *, kind: str | None = None) -> StorageSpec:
        """The storage tier called ``name``, or the first of ``kind``, or the first one."""
        for st in self.storage:
            if (name is not None and st.name == name) or (name is None and kind is not None and st.kind == kind):
                return st
        if name is None and kind is None and self.storage:
            return self.storage[0]
        raise KeyError(f"platform {self.slug!r} has no storage tier {name or kind!r}; known: {[s.name for s in self.storage]}")

    def has_storage(self, *, kind: str) -> bool:
        return any(st.kind == kind for st in self.storage)

    @property
    def is_cloud(self) -> bool:
        return self.kind == "cloud"


@dataclass(frozen=True)
class RoleIO:
    """Bytes one task reads and writes on the tier playing ``role`` (input, scratch, output).

    ``pattern`` ``random`` moves the bytes in requests of ``request_bytes``, each one
    operation of the tier's IOPS; ``sequential`` costs bandwidth only."""

    role: str
    read_bytes: float = 0.0
    write_bytes: float = 0.0
    pattern: str = "sequential"
    request_bytes: float | None = None

    @property
    def ops(self) -> float:
        """I/O operations of one task (random access only)."""
        if self.pattern != "random" or not self.request_bytes:
            return 0.0
        return (self.read_bytes + self.write_bytes) / self.request_bytes


@dataclass(frozen=True)
class StageSpec:
    """One stage of a workload: how many tasks, what one task demands, what it waits for.

    The task count is ``n_tasks``, or, when ``tasks_per`` names a workload parameter, that
    parameter's value (a number) or its number of items (a list).  ``cpu_seconds`` are
    core-seconds on a core of ``reference_speed`` (on the scale of a node type's
    ``core_speed``).  ``io`` gives bytes per storage role; a stage with no ``io`` uses the
    legacy fields (``seq_read_bytes`` from the input role, ``seq_write_bytes`` to the
    output role, ``random_*_ops`` on the input tier's IOPS), as CHILES does.  Task ``i``'s
    CPU and bytes are multiplied by its size factor (``size_distribution``: ``fixed`` = 1,
    ``list`` = ``size_values[i]``, ``lognormal`` = mean 1 and log-sigma ``size_sigma``,
    drawn from the scenario seed, ``spread`` = the i-th of sizes with a known mean, min and max over
    ``size_reference``).  ``dependency`` applies to every stage in
    ``depends_on``: ``all`` (wait for every task), ``one_to_one`` (task i waits for task i)
    or ``grouped`` (task i waits for tasks ``i*group_size`` .. ``(i+1)*group_size - 1``); ``continues`` (one
    upstream stage, equal counts) makes task i further phases of upstream task i, run in that task on its node
    after its phases.  ``max_read_bytes_per_s`` is the application's own ceiling on each of a task's reads
    (whatever the tier would give), ``None`` for none."""

    name: str
    seq_read_bytes: float = 0.0
    seq_write_bytes: float = 0.0
    random_read_ops: float = 0.0
    random_write_ops: float = 0.0
    random_op_bytes: float = 0.0
    cpu_seconds: float = 0.0
    usable_threads: int = 1
    peak_memory_bytes: float = 0.0
    overhead_s: float = 0.0
    n_tasks: int = 1
    depends_on: tuple[str, ...] = ()
    tasks_per: str = ""
    reference_speed: float = 1.0
    io: tuple[RoleIO, ...] = ()
    dependency: str = "all"
    group_size: int = 1
    size_distribution: str = "fixed"
    size_values: tuple[float, ...] = ()
    size_sigma: float = 0.0
    max_read_bytes_per_s: float | None = None
    #: ``spread``: the tasks' data sizes have exactly this mean, smallest and largest value; the demands are for a
    #: task of ``size_reference`` (default: the mean), so task i's multiplier is its size / the reference
    size_mean: float | None = None
    size_min: float | None = None
    size_max: float | None = None
    size_reference: float | None = None
    #: a parameter counting the items each task's work is made of (demands are per item); a placement's
    #: ``subbands_per_task`` (items per task) splits each task into tasks of at most that many items
    work_items: str = ""
    #: ``wan``: the stage brings its data in over the platform's WAN link (its writes cross the link; on a cluster
    #: or HPC centre it runs on the centre's data-transfer node); "" for none
    link: str = ""
    #: where the stage runs when a scenario does not place it (:mod:`simulator.model.stage_defaults`): on a cluster
    #: or HPC centre ``batch_policy`` (``static``: one allocation on the platform's node limit, task i on node
    #: i mod nodes); on the cloud ``cloud_policy`` (``elastic``: one instance per task, at most ``cloud_instances``
    #: at once; ``dynamic``: ``cloud_instances`` instances kept for the stage) on the node type whose
    #: ``default_stage`` names the stage, ``cloud_items_per_task`` work items per task, ``cloud_launch_interval_s``
    #: between launches and ``cloud_pricing``; "" / None: the general default
    batch_policy: str = ""
    cloud_policy: str = ""
    cloud_instances: int | None = None
    cloud_items_per_task: int | None = None
    cloud_launch_interval_s: float = 0.0
    cloud_pricing: str = ""

    def role_io(self) -> tuple[RoleIO, ...]:
        """Per-role demands of one task: ``io``, or the legacy fields expressed as roles."""
        if self.io:
            return self.io
        out = []
        if self.seq_read_bytes:
            out.append(RoleIO("input", read_bytes=self.seq_read_bytes))
        if self.seq_write_bytes:
            out.append(RoleIO("output", write_bytes=self.seq_write_bytes))
        return tuple(out)

    @property
    def legacy_ops(self) -> float:
        """Random operations given as counts (the legacy fields), charged to the input tier's IOPS if it has any."""
        return 0.0 if self.io else self.random_read_ops + self.random_write_ops


@dataclass(frozen=True)
class WorkloadSpec:
    """A workload: a template (``stages``, the general DAG of stages; ``job_array`` and ``custom_dag``, older
    names of ``stages`` kept as aliases), its numeric
    parameters in base units (``n_days``, ``day_size_mean`` ...) and per-stage demands."""

    slug: str
    name: str = ""
    template: str = "stages"
    parameters: dict[str, Any] = field(default_factory=dict)
    stages: tuple[StageSpec, ...] = ()

    def param(self, key: str, default: Any = None) -> Any:
        value = self.parameters.get(key)
        return default if value is None else value

    def stage(self, name: str) -> StageSpec | None:
        for st in self.stages:
            if st.name == name:
                return st
        return None


@dataclass(frozen=True)
class StagePlacement:
    """Where and how one stage runs.

    Storage roles: ``storage_in`` holds the stage's inputs, ``storage_out`` receives its outputs (default: the
    input tier) and ``storage_scratch`` is its working space (default: the node type's node-local tier if the
    platform has one, else the input tier).  With ``stage_in`` each task first copies its inputs from the input
    tier to scratch and reads them there; with ``stage_out`` it writes its outputs to scratch and copies them to
    the output tier after computing (see :func:`simulator.model.placement.stage_tiers`)."""

    stage: str
    node_type: str | None = None
    nodes: int = 1  # parallel nodes (static/dynamic) or max concurrent instances (elastic)
    storage_in: str | None = None
    storage_out: str | None = None
    pricing: str = "on_demand"  # on_demand | spot (cloud); node_hour | none otherwise
    policy: str = "static"  # static | dynamic | elastic
    launch_interval_s: float = 0.0  # elastic launch staggering
    queue_wait_s: float | None = None  # override of the sampled queue wait
    #: a stage whose work comes in items: the items one task processes one after the other (None: all of them)
    subbands_per_task: int | None = None
    #: the tier of the scratch role (None: the node-local tier if the platform has one, else ``storage_in``)
    storage_scratch: str | None = None
    stage_in: bool = False
    stage_out: bool = False
    #: tasks one node runs at once; None = the node type's job slots
    slots_per_node: int | None = None
    #: ``allocation`` | ``job_per_task``; None = the scheduler's default submission
    submission: str | None = None


@dataclass(frozen=True)
class ScenarioSpec:
    """A platform, a workload and how each stage is placed; ``seed`` drives all sampling."""

    platform: PlatformSpec
    workload: WorkloadSpec
    placements: tuple[StagePlacement, ...] = ()
    spot_interruptions: bool = False
    #: probability rate of a spot reclaim per instance-hour when interruptions are on (assumption)
    spot_interruption_rate_per_hour: float = 0.05
    #: INVERT on spot: launch only while the price stays under this multiple of the base price
    spot_price_ceiling_ratio: float | None = None
    replications: int = 1
    seed: int = 0
    include_copy: bool = True
    #: batch platforms: one allocation (largest stage's node count) held for the whole run,
    #: as in the founding case study's HPC job; False = one allocation per stage
    single_allocation: bool = True
    #: object-store / snapshot data kept after the run ends (seconds) for storage billing
    retention_after_run_s: float = 0.0
    label: str = ""

    def placement(self, stage: str) -> StagePlacement:
        for p in self.placements:
            if p.stage == stage:
                return p
        return StagePlacement(stage=stage)

    def with_seed(self, seed: int) -> ScenarioSpec:
        return replace(self, seed=seed)
