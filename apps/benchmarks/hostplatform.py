"""A new platform made from a benchmarked host: its node (cores, memory) and the storage tier it measured.

The platform goes into a workspace (an editable copy, as copies of the reference catalogue are), every fact with
its provenance: "measured on host H, date D" for what the benchmark measured, an assumption with its reason for
what a benchmark cannot know (the platform kind, the tier kind from the file-system type).
"""

from __future__ import annotations

import os

from django.db import transaction
from django.utils.text import slugify

from apps.accounts.workspaces import Role, require_role
from apps.benchmarks.models import BenchmarkRun
from apps.platforms.models import NodeType, Platform, StorageTier
from apps.platforms.services import insert_with_free_slug

__all__ = ["platform_from_host", "tier_kind_for"]

#: file-system types whose tier kind is known; anything else is taken for a local disk (an assumption, said so)
_FS_KINDS = {"nfs": "nfs_raid", "nfs4": "nfs_raid", "cifs": "nfs_raid", "smb3": "nfs_raid", "lustre": "parallel_fs",
             "beegfs": "parallel_fs", "gpfs": "parallel_fs", "cephfs": "parallel_fs", "ceph": "parallel_fs",
             "fuse.s3fs": "object_store", "fuse.gcsfuse": "object_store", "fuse.goofys": "object_store"}
_TIER_FACTS = ("read_bw", "write_bw", "iops", "read_bw_per_client", "write_bw_per_client", "iops_per_client")


def _mount_of(directory: str, disks: list[dict]) -> dict | None:
    """The host's disk whose mount point holds ``directory`` (the longest matching mount)."""
    path = os.path.normpath(directory or "/")
    best = None
    for d in disks or []:
        mount = os.path.normpath(d.get("mount", ""))
        if (path == mount or path.startswith(mount.rstrip("/") + "/")) and (best is None or len(mount) > len(best["mount"])):
            best = d
    return best


def tier_kind_for(fstype: str) -> tuple[str, str]:
    """The storage-tier kind for a file-system type, and the reason given in its provenance."""
    kind = _FS_KINDS.get((fstype or "").lower())
    if kind:
        return kind, f"the benchmarked directory is on a {fstype} file system"
    return "local_ssd", (f"the benchmarked directory is on a {fstype or 'unknown'} file system, taken for a local disk "
                         "of the host (the benchmark cannot tell SSD from HDD; edit the kind if it is not)")


def _names(hostname: str, attempt: int) -> tuple[str, str]:
    base = (slugify(hostname) or "host")[:40]
    suffix = "" if attempt == 1 else f"-{attempt}"
    return f"{base}-measured{suffix}", f"{hostname} (measured){'' if attempt == 1 else f' {attempt}'}"


def platform_from_host(run: BenchmarkRun, workspace, user=None) -> Platform:
    """A new platform in ``workspace`` from a succeeded storage benchmark's host and measured values."""
    if run.kind != BenchmarkRun.Kind.STORAGE or run.status != BenchmarkRun.Status.SUCCEEDED:
        raise ValueError("only a succeeded storage benchmark measures a host's storage: run one on this host first")
    if user is not None:
        require_role(user, workspace, Role.EDITOR)
    host = run.host or {}
    hostname = host.get("hostname") or "host"
    date = (run.finished_at or run.created_at).date().isoformat()

    def measured(note: str) -> dict:
        return {"kind": "measurement", "host": hostname, "date": date,
                "note": f"{note}; Skyplan benchmark {run.pk} ({run.kind})"}

    values = {mv.name: mv for mv in run.measured_values.filter(name__in=_TIER_FACTS)}
    directory = (run.result or {}).get("directory") or run.parameters.get("directory") or ""
    disk = _mount_of(directory, host.get("disks", []))
    kind, kind_reason = tier_kind_for(disk.get("fstype", "") if disk else "")
    with transaction.atomic():
        platform = Platform(
            kind=Platform.Kind.OWNED_CLUSTER, workspace=workspace,
            description=f"Made from benchmark {run.pk} of host {hostname} ({host.get('os', '')}).",
            location=hostname, max_nodes=1, scheduler=Platform.Scheduler.NONE,
            queue_wait_model=Platform.QueueWaitModel.NONE, billing_unit=Platform.BillingUnit.NONE,
            provenance={
                "location": measured("host name"),
                "max_nodes": {"kind": "assumption", "reason": "one benchmarked host; add nodes if it has peers"},
                "scheduler": {"kind": "assumption", "reason": "a single host runs jobs directly"},
                "queue_wait_model": {"kind": "assumption", "reason": "a single host without a batch queue"},
                "billing_unit": {"kind": "assumption", "reason": "a host of one's own: no usage billing; add "
                                                                "its capital cost to compare ownership"},
            })
        insert_with_free_slug(platform, lambda attempt: _names(hostname, attempt))
        cores = host.get("usable_cores") or host.get("cores")
        node = NodeType(platform=platform, name="host", count=1, provenance={
            "count": {"kind": "assumption", "reason": "one benchmarked host"}})
        if cores:
            node.cores = float(cores)
            node.provenance["cores"] = measured("usable cores (sched_getaffinity)")
        if host.get("memory_bytes"):
            node.memory = float(host["memory_bytes"])
            node.provenance["memory"] = measured("MemTotal of /proc/meminfo")
        if disk:
            node.local_disk = float(disk["size_bytes"])
            node.provenance["local_disk"] = measured(f"size of {disk['mount']} ({disk['fstype']})")
        node.full_clean()
        node.save()
        tier = StorageTier(platform=platform, name=f"{disk['mount'] if disk else directory or 'scratch'}",
                           kind=kind, scope=StorageTier.Scope.PER_NODE,
                           provenance={"scope": {"kind": "assumption", "reason": kind_reason}})
        for name, mv in values.items():
            setattr(tier, name, mv.value)
            tier.provenance[name] = mv.source
        if disk:
            tier.capacity = float(disk["size_bytes"])
            tier.provenance["capacity"] = measured(f"size of {disk['mount']}")
        tier.full_clean()
        tier.save()
    return platform
