"""Shared fixtures of the profile tests: the sample files and a platform for this host."""

from __future__ import annotations

from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "profiles"


@pytest.fixture
def samples() -> Path:
    return SAMPLES


@pytest.fixture
def this_host(db):
    """A platform standing for the machine the sample profiles were recorded on: one node, one local disk.

    Its disk figures start as placeholders marked as assumptions; tests measure them with the fio sample."""
    from apps.platforms.models import NodeType, Platform, StorageTier

    why = {"kind": "assumption", "reason": "test platform for the host the sample profiles came from"}
    platform = Platform.objects.create(slug="sample-host", name="Sample host (vm)", kind="owned_cluster",
                                       max_nodes=1, provenance={"max_nodes": why})
    NodeType.objects.create(platform=platform, name="vm", cores=2, memory=24e9, count=1,
                            provenance={"cores": why, "memory": why, "count": why})
    StorageTier.objects.create(platform=platform, name="virtio disk", kind="local_ssd", scope="per_node",
                               read_bw=1e8, write_bw=1e8, iops=1000,
                               provenance={"scope": why, "read_bw": why, "write_bw": why, "iops": why})
    return platform
