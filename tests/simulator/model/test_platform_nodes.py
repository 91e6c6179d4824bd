"""Job slots per node (shared NIC, local disk and cores; billing per node) and background load on a shared tier.

Every expected number is worked out by hand from the platform written in the test."""

import pytest

from simulator.model.catalogue import platform_from_dict
from simulator.model.placement import tier_resources
from simulator.model.simulate import build, simulate
from simulator.model.specs import (
    NodeTypeSpec,
    PlatformSpec,
    PricingSpec,
    ScenarioSpec,
    StagePlacement,
    StageSpec,
    StorageSpec,
    WorkloadSpec,
)

GB = 1e9
NIC_10GBIT = 10e9 / 8  # 1.25e9 bytes/s


def _cloud(slots=1, cores=32, price=2.0):
    return PlatformSpec(
        slug="cloud", name="cloud", kind="cloud",
        node_types=(NodeTypeSpec("c32", cores=cores, nic_bytes_per_s=NIC_10GBIT, on_demand_aud_per_hour=price,
                                 slots=slots),),
        storage=(StorageSpec("object", "object_store", "shared"),
                 StorageSpec("ssd", "local_ssd", "per_node", read_bytes_per_s=2 * GB, write_bytes_per_s=2 * GB)),
        pricing=PricingSpec(billing_unit="instance_hour"))


def _jobs(n, **demands):
    return WorkloadSpec("jobs", template="job_array", parameters={"n_jobs": n}, stages=(StageSpec("job", **demands),))


def _run(platform, workload, **placement):
    pl = StagePlacement("job", "c32", placement.pop("nodes", 1), placement.pop("storage_in", "object"),
                        pricing="on_demand", policy="dynamic", **placement)
    return simulate(ScenarioSpec(platform=platform, workload=workload, placements=(pl,)), record_utilisation=False)


def test_it_shares_one_nic_between_the_24_slots_of_a_node():
    # 24 jobs on one node of 24 slots each read 0.6 GB from the object store through the node's 10 Gb/s NIC:
    # each gets 1.25e9 / 24 B/s, so each read takes 0.6e9 / (1.25e9 / 24) = 11.52 s
    r = _run(_cloud(slots=24), _jobs(24, seq_read_bytes=0.6 * GB))
    assert {t.node for t in r.tasks} == {"c32-0"}
    assert r.makespan_s == pytest.approx(0.6 * GB / (NIC_10GBIT / 24))
    assert r.makespan_s == pytest.approx(11.52)


def test_it_gives_each_node_its_own_nic():
    # the same 24 jobs on 24 nodes of one slot: 0.6e9 / 1.25e9 = 0.48 s each, all at once
    r = _run(_cloud(slots=1), _jobs(24, seq_read_bytes=0.6 * GB), nodes=24)
    assert len({t.node for t in r.tasks}) == 24
    assert r.makespan_s == pytest.approx(0.48)


def test_a_placement_overrides_the_node_types_slots():
    # 2 slots a node by the placement: 24 jobs on 12 nodes, 2 per NIC: 0.6e9 / (1.25e9 / 2) = 0.96 s
    r = _run(_cloud(slots=24), _jobs(24, seq_read_bytes=0.6 * GB), nodes=12, slots_per_node=2)
    assert len({t.node for t in r.tasks}) == 12
    assert r.makespan_s == pytest.approx(0.96)


def test_tasks_on_one_node_share_its_cores():
    # 48 single-threaded jobs of 100 core-seconds on one 32-core node of 48 slots: each gets 32/48 of a core,
    # so all end at 100 / (32 / 48) = 150 s; with 24 slots they fit the cores and take 100 s each (two waves: 200 s)
    r48 = _run(_cloud(slots=48), _jobs(48, cpu_seconds=100.0))
    assert r48.makespan_s == pytest.approx(150.0)
    assert {t.bound_by.split("@")[0] for t in r48.tasks} == {"cpu"}
    r24 = _run(_cloud(slots=24), _jobs(48, cpu_seconds=100.0))
    assert r24.makespan_s == pytest.approx(200.0)


def test_a_lone_task_on_a_slotted_node_uses_its_threads():
    # one job wanting 8 threads on a 32-core node of 24 slots has 8 cores: 800 / 8 = 100 s
    r = _run(_cloud(slots=24), _jobs(1, cpu_seconds=800.0, usable_threads=8))
    assert r.makespan_s == pytest.approx(100.0)


def test_the_shared_cores_are_not_counted_as_bytes_moved():
    r = _run(_cloud(slots=4), _jobs(4, cpu_seconds=10.0, seq_read_bytes=GB))
    assert not any(k.startswith("cpu") for k in r.bytes_moved)
    assert sum(v for k, v in r.bytes_moved.items() if k == "object") == pytest.approx(4 * GB)


def test_it_bills_per_instance_not_per_slot():
    # 24 jobs of one core-hour each on one 24-slot instance at 2 AUD/h: one instance-hour, 2 AUD (not 48)
    r = _run(_cloud(slots=24, price=2.0), _jobs(24, cpu_seconds=3600.0))
    assert r.makespan_s == pytest.approx(3600.0)
    assert r.compute_hours_billed == pytest.approx(1.0)
    assert r.total_cost_aud == pytest.approx(2.0)


def test_a_graph_of_one_slot_per_node_is_unchanged():
    w = _jobs(3, cpu_seconds=10.0)
    pl = (StagePlacement("job", "c32", 3, "object", policy="dynamic"),)
    g = build(ScenarioSpec(platform=_cloud(slots=1), workload=w, placements=pl)).graph
    assert not any(r.name.startswith("cpu") for r in g.resources)
    assert all(ph.cpu_seconds == 10.0 for t in g.tasks for ph in t.phases if ph.name == "compute")


def test_the_catalogue_gives_slots_and_refuses_a_fraction():
    d = {"slug": "x", "kind": "cloud", "node_types": [{"name": "n", "facts": {"cores": 32, "slots": 24}}]}
    assert platform_from_dict(d).node_types[0].slots == 24
    d["node_types"][0]["facts"]["slots"] = 2.5
    with pytest.raises(ValueError, match="slots must be a whole number"):
        platform_from_dict(d)


# --- background load -------------------------------------------------------------------------------

def _campus(load=0.0):
    return PlatformSpec(
        slug="campus", name="campus", kind="cluster",
        node_types=(NodeTypeSpec("n12", cores=12, count=10),),
        storage=(StorageSpec("pfs", "parallel_fs", "shared", read_bytes_per_s=10 * GB, write_bytes_per_s=10 * GB,
                             iops=1000.0, background_load=load),))


def test_other_users_load_takes_its_share_of_a_shared_tier():
    # 10 nodes each read 7 GB from a 10 GB/s file system that other users load at 30%: the jobs share 7 GB/s,
    # 0.7 GB/s each, so 10 s; unloaded they share 10 GB/s and take 7 s
    w = _jobs(10, seq_read_bytes=7 * GB)
    for load, expected in ((0.3, 10.0), (0.0, 7.0)):
        pl = (StagePlacement("job", "n12", 10, "pfs", policy="dynamic"),)
        r = simulate(ScenarioSpec(platform=_campus(load), workload=w, placements=pl), record_utilisation=False)
        assert r.makespan_s == pytest.approx(expected)


def test_background_load_takes_its_share_of_iops_too():
    bw, iops = tier_resources(_campus(0.3).storage[0])
    assert bw.capacity == pytest.approx(7 * GB)
    assert iops.capacity == pytest.approx(700.0)


def test_background_load_needs_an_aggregate_to_take_from():
    with pytest.raises(ValueError, match="no aggregate"):
        tier_resources(StorageSpec("s3", "object_store", "shared", background_load=0.2))


@pytest.mark.parametrize("share", [1.0, -0.1, 1.5])
def test_the_catalogue_refuses_a_background_load_outside_0_to_1(share):
    d = {"slug": "x", "kind": "cluster", "storage_tiers": [{"name": "pfs", "kind": "parallel_fs",
                                                            "facts": {"read_bw": 1e9, "background_load": share}}]}
    with pytest.raises(ValueError, match="background_load"):
        platform_from_dict(d)
