"""Storage roles and staging: copies in from the input tier to node-local scratch and out again are flows on the
real tiers and the node's NIC; expected times are worked out by hand from the platform written here."""

import pytest

from simulator.model.placement import stage_tiers
from simulator.model.simulate import build, simulate
from simulator.model.specs import (
    NodeTypeSpec,
    PlatformSpec,
    ScenarioSpec,
    StagePlacement,
    StageSpec,
    StorageSpec,
    WorkloadSpec,
)

GB = 1e9
NIC = 10e9 / 8  # 10 Gb/s


def _cloud(slots=1):
    return PlatformSpec(
        slug="cloud", name="cloud", kind="cloud",
        node_types=(NodeTypeSpec("c32", cores=32, nic_bytes_per_s=NIC, on_demand_aud_per_hour=1.0, slots=slots),),
        storage=(StorageSpec("s3", "object_store", "shared", read_bytes_per_s_per_client=1e8,
                             write_bytes_per_s_per_client=5e7),
                 StorageSpec("ssd", "local_ssd", "per_node", read_bytes_per_s=5e8, write_bytes_per_s=5e8)))


def _jobs(n=1):
    return WorkloadSpec("jobs", template="job_array", parameters={"n_jobs": n},
                        stages=(StageSpec("job", seq_read_bytes=1 * GB, seq_write_bytes=0.1 * GB),))


def _run(platform, workload, nodes=1, **staging):
    pl = StagePlacement("job", "c32", nodes, "s3", pricing="on_demand", policy="dynamic", **staging)
    return simulate(ScenarioSpec(platform=platform, workload=workload, placements=(pl,)), record_utilisation=False)


def test_a_staged_job_copies_in_computes_on_scratch_and_copies_out():
    # stage in: 1 GB from S3 at its 100 MB/s per-client read cap (the NIC's 1.25 GB/s does not bind): 10 s.
    # compute on the SSD (500 MB/s shared by the 1 GB read and the 0.1 GB write): 250 MB/s each until the write
    # ends at 0.4 s, then the 0.9 GB left at 500 MB/s: 1.8 s, so 2.2 s.  stage out: 0.1 GB at S3's 50 MB/s
    # per-client write cap: 2 s.  Total 14.2 s.
    r = _run(_cloud(), _jobs(), stage_in=True, stage_out=True)
    assert r.makespan_s == pytest.approx(10.0 + 2.2 + 2.0)


def test_without_staging_the_job_reads_and_writes_the_input_tier_directly():
    # 1 GB read at 100 MB/s (10 s) overlapping the 0.1 GB write at 50 MB/s (2 s): 10 s
    r = _run(_cloud(), _jobs())
    assert r.makespan_s == pytest.approx(10.0)


def test_only_the_staged_side_is_copied():
    # staging in only: 10 s copy + compute reading 1 GB from the SSD at 500 MB/s (2 s) while writing 0.1 GB to
    # S3 at 50 MB/s (2 s): 12 s
    r = _run(_cloud(), _jobs(), stage_in=True)
    assert r.makespan_s == pytest.approx(12.0)
    phases = [ph.name for ph in build(ScenarioSpec(platform=_cloud(), workload=_jobs(), placements=(
        StagePlacement("job", "c32", 1, "s3", stage_in=True),))).graph.tasks[0].phases]
    assert phases == ["stage_in", "compute"]


def test_24_slots_copying_in_share_the_nodes_scratch():
    # 24 jobs on one node of 24 slots copy 1 GB each from S3 to the node's SSD.  Per copy: the NIC gives
    # 1.25e9 / 24 = 52.1 MB/s, S3 100 MB/s, the SSD 5e8 / 24 = 20.8 MB/s, the tightest: 1e9 / 20.8e6 = 48 s.
    # Then the 24 computes read 24 GB from the SSD (500 MB/s: 48 s) while each writes 0.1 GB to S3 at 50 MB/s
    # (2 s, 1.2 GB/s in all, under the NIC): 48 s.  Total 96 s, bound by the SSD.
    r = _run(_cloud(slots=24), _jobs(24), stage_in=True)
    assert r.makespan_s == pytest.approx(1e9 / (5e8 / 24) + 24e9 / 5e8)
    assert r.makespan_s == pytest.approx(96.0)
    assert {t.bound_by for t in r.tasks} == {"ssd@c32-0"}


def test_the_copy_in_rate_of_24_slots_is_the_nic_share_when_the_scratch_is_fast():
    # with a 4 GB/s SSD the NIC binds: each of the 24 copies gets 1.25e9 / 24 B/s, so 1 GB takes 19.2 s; the
    # computes then read 24 GB from the SSD (4 GB/s: 6 s) while writing 0.1 GB each to S3 (50 MB/s: 2 s): 6 s
    fast = PlatformSpec(slug="cloud", name="cloud", kind="cloud", node_types=_cloud(24).node_types,
                        storage=(_cloud().storage[0], StorageSpec("ssd", "local_ssd", "per_node",
                                                                  read_bytes_per_s=4e9, write_bytes_per_s=4e9)))
    r = _run(fast, _jobs(24), stage_in=True)
    assert 1e9 / (NIC / 24) == pytest.approx(19.2)
    assert r.makespan_s == pytest.approx(1e9 / (NIC / 24) + 24e9 / 4e9)


def test_scratch_defaults_to_the_node_local_tier_and_output_to_the_input_tier():
    roles = stage_tiers(_cloud(), StagePlacement("job", storage_in="s3", stage_in=True))
    assert (roles.input.name, roles.scratch.name, roles.output.name) == ("s3", "ssd", "s3")
    assert (roles.compute_in.name, roles.compute_out.name) == ("ssd", "s3")


def test_staging_onto_the_same_tier_is_refused():
    with pytest.raises(ValueError, match="other than the output tier"):
        stage_tiers(_cloud(), StagePlacement("job", storage_in="s3", storage_scratch="s3", stage_out=True))
