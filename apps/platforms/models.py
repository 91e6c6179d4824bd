"""Platforms with their node types and storage tiers; every fact carries provenance.

Values are stored in base units (bytes, bytes/s, seconds, AUD); forms and the admin
accept and show units (see :mod:`apps.core.fields`).
"""

from __future__ import annotations

from django.db import models
from django.urls import reverse

from apps.core.fields import QuantityField
from apps.core.labels import readable
from apps.core.models import CatalogueModel

__all__ = ["Platform", "NodeType", "StorageTier"]


class Platform(CatalogueModel):
    class Kind(models.TextChoices):
        OWNED_CLUSTER = "owned_cluster", "owned cluster"
        HPC_CENTRE = "hpc_centre", "shared HPC centre"
        PUBLIC_CLOUD = "public_cloud", "public cloud"

    class Scheduler(models.TextChoices):
        NONE = "none", "none"
        PBS = "pbs", "PBS"
        SLURM = "slurm", "SLURM"
        CLOUD_API = "cloud_api", "cloud API"

    class QueueWaitModel(models.TextChoices):
        NONE = "none", "no queue"
        FIXED = "fixed", "fixed"
        LOGNORMAL = "lognormal", "lognormal (median, sigma)"
        EMPIRICAL = "empirical", "empirical samples"

    class JobSubmission(models.TextChoices):
        ALLOCATION = "allocation", "one allocation per stage"
        JOB_PER_TASK = "job_per_task", "one job per task (job array)"

    class BillingUnit(models.TextChoices):
        NONE = "none", "none (owned)"
        NODE_HOUR = "node_hour", "node-hour"
        INSTANCE_HOUR = "instance_hour", "instance-hour"

    class Usability(models.TextChoices):
        SIMPLE = "simple", "simple"
        MODERATE = "moderate", "moderate"
        COMPLEX = "complex", "complex"

    FACT_FIELDS = (
        "location",
        "region",
        "max_nodes",
        "root_access",
        "usability",
        "usability_note",
        "wan_bandwidth",
        "wan_streams_to_saturate",
        "wan_variability",
        "scheduler",
        "queue_wait_model",
        "queue_wait_median",
        "queue_wait_sigma",
        "queue_wait_samples",
        "usable_threads_per_task",
        "job_submission",
        "dispatch_overhead",
        "max_running_jobs",
        "billing_unit",
        "billing_granularity",
        "capex",
        "amortisation_years",
        "share_used",
        "node_hour_rate",
        "staff_per_year",
        "power_per_year",
        "egress_per_gb",
        "price_date",
    )

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    description = models.TextField(blank=True)
    location = models.CharField(max_length=200, blank=True)
    region = models.CharField(max_length=100, blank=True)
    max_nodes = QuantityField("nodes a project can hold", dimension="scalar", strictly_positive=True)
    root_access = models.BooleanField(null=True, blank=True)
    usability = models.CharField(max_length=20, choices=Usability.choices, blank=True)
    usability_note = models.CharField(max_length=300, blank=True)
    wan_bandwidth = QuantityField("WAN bandwidth to the data source", dimension="bandwidth", strictly_positive=True)
    wan_streams_to_saturate = QuantityField("WAN streams needed to saturate", dimension="scalar", strictly_positive=True)
    wan_variability = QuantityField("WAN throughput variability (CV)", dimension="scalar")
    scheduler = models.CharField(max_length=20, choices=Scheduler.choices, blank=True)
    queue_wait_model = models.CharField(max_length=20, choices=QueueWaitModel.choices, blank=True)
    queue_wait_median = QuantityField("queue wait median", dimension="time")
    queue_wait_sigma = QuantityField("queue wait lognormal sigma", dimension="scalar")
    queue_wait_samples = models.JSONField("queue wait samples (s)", null=True, blank=True)
    usable_threads_per_task = QuantityField("usable threads per task", dimension="scalar", strictly_positive=True)
    job_submission = models.CharField(
        "how tasks are submitted", max_length=20, choices=JobSubmission.choices, blank=True,
        help_text="one allocation holding a stage's nodes (one queue wait) or one job per task (a queue wait each); "
                  "blank: one allocation")
    dispatch_overhead = QuantityField("dispatch overhead per job", dimension="time")
    max_running_jobs = QuantityField("most running jobs per user", dimension="scalar", strictly_positive=True)
    billing_unit = models.CharField(max_length=20, choices=BillingUnit.choices, blank=True)
    billing_granularity = QuantityField("billing granularity", dimension="time", strictly_positive=True)
    capex = QuantityField("capital cost", dimension="money")
    amortisation_years = QuantityField("amortisation (years)", dimension="scalar", strictly_positive=True)
    share_used = QuantityField("share of the machine used", dimension="scalar")
    node_hour_rate = QuantityField("node-hour rate", dimension="money_per_hour")
    staff_per_year = QuantityField("staff cost per year", dimension="money_per_year")
    power_per_year = QuantityField("power cost per year", dimension="money_per_year")
    egress_per_gb = QuantityField("egress price", dimension="money_per_gb")
    price_date = models.DateField("prices as of", null=True, blank=True)
    workspace = models.ForeignKey(
        "accounts.Workspace", null=True, blank=True, on_delete=models.CASCADE, related_name="platforms",
        help_text="the workspace whose editable copy this is; none: the shared, read-only reference catalogue")
    copied_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="copies",
                                    help_text="the platform this copy was made from")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_reference(self) -> bool:
        """Part of the shared reference catalogue (not a workspace's copy)."""
        return self.workspace_id is None

    def get_absolute_url(self) -> str:
        return reverse("platforms:detail", args=[self.slug])

    def clean(self):
        from django.core.exceptions import ValidationError

        errors = {}
        if self.share_used is not None and self.share_used > 1:
            errors["share_used"] = "is a fraction of the machine: between 0 and 1"
        if self.queue_wait_samples is not None:
            samples = self.queue_wait_samples
            if not isinstance(samples, list) or not all(
                isinstance(s, (int, float)) and not isinstance(s, bool) and s >= 0 for s in samples
            ):
                errors["queue_wait_samples"] = "must be a list of non-negative numbers of seconds"
        if self.queue_wait_model == self.QueueWaitModel.LOGNORMAL and self.queue_wait_median is None:
            errors["queue_wait_median"] = "a lognormal queue wait needs a median"
        if self.queue_wait_model == self.QueueWaitModel.EMPIRICAL and not self.queue_wait_samples:
            errors["queue_wait_samples"] = "an empirical queue wait needs at least one sample"
        if errors:
            raise ValidationError(errors)
        super().clean()


class NodeType(CatalogueModel):
    """A compute node or cloud instance type of a platform."""

    class DiskKind(models.TextChoices):
        NONE = "none", "none"
        HDD = "hdd", "HDD"
        SSD = "ssd", "SSD"
        NVME = "nvme", "NVMe"

    FACT_FIELDS = (
        "cores",
        "memory",
        "local_disk",
        "local_disk_kind",
        "nic_bandwidth",
        "count",
        "on_demand_price",
        "spot_price",
        "reserved_price",
        "spot_rise_per_instance",
        "boot_time",
        "core_speed",
        "used_for",
        "default_stage",
        "slots",
    )

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="node_types")
    name = models.CharField(max_length=100)
    cores = QuantityField("cores (or vCPUs)", dimension="scalar", strictly_positive=True)
    memory = QuantityField(dimension="bytes", strictly_positive=True)
    local_disk = QuantityField("local disk", dimension="bytes")
    local_disk_kind = models.CharField(max_length=10, choices=DiskKind.choices, blank=True)
    nic_bandwidth = QuantityField("NIC bandwidth", dimension="bandwidth", strictly_positive=True)
    count = QuantityField("nodes available", dimension="scalar", strictly_positive=True)
    on_demand_price = QuantityField("on-demand price", dimension="money_per_hour")
    spot_price = QuantityField("spot price", dimension="money_per_hour")
    reserved_price = QuantityField("reserved price", dimension="money_per_hour")
    spot_rise_per_instance = QuantityField("spot price rise per concurrent instance", dimension="scalar")
    boot_time = QuantityField("boot time", dimension="time")
    core_speed = QuantityField("per-core speed (profiles' reference core = 1)", dimension="scalar",
                               strictly_positive=True)
    used_for = models.CharField(max_length=200, blank=True)
    default_stage = models.CharField(
        "stage it runs by default", max_length=50, blank=True,
        help_text="the workload stage (e.g. invert) placed on this type unless a scenario says otherwise")
    slots = QuantityField("job slots (tasks a node runs at once)", dimension="scalar", strictly_positive=True)

    class Meta:
        ordering = ["platform", "name"]
        constraints = [models.UniqueConstraint(fields=["platform", "name"], name="unique_node_type_per_platform")]

    def __str__(self) -> str:
        return f"{self.platform.name} · {self.label}"

    @property
    def label(self) -> str:
        """The type's name as words ("xc40 compute"), for pages."""
        return readable(self.name)

    def clean(self):
        from django.core.exceptions import ValidationError

        if self.slots is not None and self.slots != int(self.slots):
            raise ValidationError({"slots": "is a whole number of tasks a node runs at once"})
        super().clean()


class StorageTier(CatalogueModel):
    """A storage tier of a platform: a shared file system, volumes, local SSD or an object store."""

    class Kind(models.TextChoices):
        PARALLEL_FS = "parallel_fs", "parallel file system"
        NFS_RAID = "nfs_raid", "NFS / network-attached RAID"
        BLOCK_GP = "block_gp", "block volume, general purpose"
        BLOCK_PIOPS = "block_piops", "block volume, provisioned IOPS"
        LOCAL_SSD = "local_ssd", "local / ephemeral SSD"
        OBJECT_STORE = "object_store", "object store"
        SNAPSHOT = "snapshot", "volume snapshots"

    class Scope(models.TextChoices):
        SHARED = "shared", "shared by all nodes"
        PER_NODE = "per_node", "per node"
        PER_VOLUME = "per_volume", "per volume"

    FACT_FIELDS = (
        "scope",
        "read_bw",
        "write_bw",
        "read_bw_per_client",
        "write_bw_per_client",
        "iops",
        "iops_per_client",
        "latency",
        "capacity",
        "degrade_after_streams",
        "degrade_exponent",
        "performance_cv",
        "price_per_gb_month",
        "price_per_iops_month",
        "provisioned_iops",
        "snapshot_restore_time",
        "background_load",
    )

    platform = models.ForeignKey(Platform, on_delete=models.CASCADE, related_name="storage_tiers")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    scope = models.CharField(max_length=20, choices=Scope.choices, blank=True)
    read_bw = QuantityField("aggregate read bandwidth", dimension="bandwidth", strictly_positive=True)
    write_bw = QuantityField("aggregate write bandwidth", dimension="bandwidth", strictly_positive=True)
    read_bw_per_client = QuantityField("read bandwidth per client", dimension="bandwidth", strictly_positive=True)
    write_bw_per_client = QuantityField("write bandwidth per client", dimension="bandwidth", strictly_positive=True)
    iops = QuantityField("aggregate IOPS", dimension="rate", strictly_positive=True)
    iops_per_client = QuantityField("IOPS per client", dimension="rate", strictly_positive=True)
    latency = QuantityField(dimension="time")
    capacity = QuantityField(dimension="bytes")
    degrade_after_streams = QuantityField("degrades beyond (streams)", dimension="scalar", strictly_positive=True)
    degrade_exponent = QuantityField("degradation exponent", dimension="scalar")
    performance_cv = QuantityField("performance variation per task (coefficient of variation)", dimension="scalar")
    price_per_gb_month = QuantityField("price per GB-month", dimension="money_per_gb_month")
    price_per_iops_month = QuantityField("price per provisioned IOPS-month", dimension="money_per_iops_month")
    provisioned_iops = QuantityField("provisioned IOPS", dimension="rate")
    snapshot_restore_time = QuantityField("volume-from-snapshot time", dimension="time")
    background_load = QuantityField("share of bandwidth and IOPS other users take", dimension="scalar")

    class Meta:
        ordering = ["platform", "name"]
        constraints = [models.UniqueConstraint(fields=["platform", "name"], name="unique_storage_tier_per_platform")]

    def __str__(self) -> str:
        return f"{self.platform.name} · {self.name}"

    def clean(self):
        from django.core.exceptions import ValidationError

        if self.background_load is not None and not 0 <= self.background_load < 1:
            raise ValidationError({"background_load": "is a share of the tier: 0 or more and less than 1"})
        super().clean()
