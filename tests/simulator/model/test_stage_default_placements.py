"""A stage's own placement facts (``batch_policy``, ``cloud_*``) give its placement when the scenario does not place
it: the node type whose ``default_stage`` names it, its instances (or as many as keep a rising spot price under the
workload's ceiling), storage following the data (a stage over a link onto fresh block volumes, the rest through the
object store, staged on the instance disk); a stage without them keeps the general default.  Platforms and
workloads are written here; the expected placements follow from the rules by hand."""

import pytest

from simulator.model.simulate import simulate
from simulator.model.specs import (
    NodeTypeSpec,
    PlatformSpec,
    PricingSpec,
    ScenarioSpec,
    StagePlacement,
    StageSpec,
    StorageSpec,
    WanSpec,
    WorkloadSpec,
)
from simulator.model.stages import check_workload, default_placement

GB = 1e9


def _cloud(rise=0.1):
    return PlatformSpec(
        slug="cloud", name="cloud", kind="cloud", wan=WanSpec(bytes_per_s=1e8),
        node_types=(NodeTypeSpec("small", cores=2, on_demand_aud_per_hour=0.1, spot_aud_per_hour=0.01,
                                 default_stage="fetch"),
                    NodeTypeSpec("big", cores=16, on_demand_aud_per_hour=1.0, spot_aud_per_hour=0.2,
                                 spot_rise_per_instance=rise, default_stage="image")),
        storage=(StorageSpec("gp", "block_gp", "per_volume", read_bytes_per_s=1e8, write_bytes_per_s=1e8),
                 StorageSpec("piops", "block_piops", "per_volume", read_bytes_per_s=1e8, write_bytes_per_s=1e8),
                 StorageSpec("s3", "object_store", "shared", read_bytes_per_s_per_client=1e8,
                             write_bytes_per_s_per_client=1e8),
                 StorageSpec("ssd", "local_ssd", "per_node", read_bytes_per_s=5e8, write_bytes_per_s=5e8)))


def _cluster():
    return PlatformSpec(slug="campus", name="campus", kind="cluster", max_nodes=8, wan=WanSpec(bytes_per_s=1e8),
                        node_types=(NodeTypeSpec("node", cores=16, count=20),),
                        storage=(StorageSpec("lustre", "parallel_fs", "shared", read_bytes_per_s=1e9,
                                             write_bytes_per_s=1e9),),
                        pricing=PricingSpec(billing_unit="node_hour", node_hour_aud=1.0))


def _workload(**image):
    facts = {"batch_policy": "static", "cloud_pricing": "spot"}
    return WorkloadSpec("w", template="stages", parameters={"n": 4, "spot_price_ceiling_ratio": 1.5}, stages=(
        StageSpec("fetch", tasks_per="n", link="wan", seq_write_bytes=1 * GB, cloud_policy="dynamic",
                  cloud_instances=1, **facts),
        StageSpec("reduce", tasks_per="n", depends_on=("fetch",), dependency="one_to_one", seq_read_bytes=1 * GB,
                  seq_write_bytes=0.1 * GB, cloud_policy="elastic", cloud_instances=3, **facts),
        StageSpec("image", depends_on=("reduce",), seq_read_bytes=0.4 * GB, seq_write_bytes=0.1 * GB,
                  **{**facts, "cloud_policy": "elastic", "cloud_instances": 2, "cloud_launch_interval_s": 60.0,
                     **image}),
        StageSpec("report", depends_on=("image",), cpu_seconds=10.0)))


def _placements(platform, workload, **options):
    sc = ScenarioSpec(platform=platform, workload=workload, **options)
    return {s.name: default_placement(sc, s.name) for s in workload.stages}


def test_on_the_cloud_each_stage_runs_where_its_facts_say_and_its_data_flows_through_the_tiers():
    got = _placements(_cloud(), _workload())
    # fetch: its type by default_stage, one kept instance, writes the link's data onto fresh provisioned-IOPS volumes
    assert got["fetch"] == StagePlacement("fetch", "small", 1, None, "piops", "spot", "dynamic")
    # reduce: no type names it (the platform's default type, the first), reads the volumes, writes to the object
    # store
    assert got["reduce"] == StagePlacement("reduce", "small", 3, "piops", "s3", "spot", "elastic")
    # image: reads from the object store, so it stages through the instance disk; a rising spot price (0.2 x
    # (1 + 0.1 (n - 1))) stays under 1.5 x base for n <= 6, which is its concurrency (its cloud_instances is not)
    assert got["image"] == StagePlacement("image", "big", 6, "s3", "s3", "spot", "elastic", launch_interval_s=60.0,
                                          storage_scratch="ssd", stage_in=True, stage_out=True)


def test_the_scenarios_ceiling_replaces_the_workloads_and_a_flat_price_leaves_the_stages_instances():
    assert _placements(_cloud(), _workload(), spot_price_ceiling_ratio=1.25)["image"].nodes == 3  # 1 + 0.25/0.1
    assert _placements(_cloud(rise=0.0), _workload())["image"].nodes == 2
    assert _placements(_cloud(), _workload(cloud_pricing="on_demand"))["image"].nodes == 2


def test_on_a_cluster_a_static_stage_holds_the_platforms_node_limit_on_its_first_tier():
    got = _placements(_cluster(), _workload())
    assert got["reduce"] == StagePlacement("reduce", "node", 8, "lustre", "lustre", "node_hour", "static")


def test_a_stage_without_placement_facts_keeps_the_general_default():
    for platform in (_cloud(), _cluster()):
        got = _placements(platform, _workload())["report"]
        assert got.policy == "dynamic" and got.storage_in is None


def test_a_cloud_stage_without_instances_is_refused_naming_it():
    w = _workload(cloud_pricing="on_demand", cloud_instances=None)
    with pytest.raises(ValueError, match="stage 'image'.*cloud_instances"):
        _placements(_cloud(), w)


def test_the_data_already_there_is_read_where_the_left_out_stage_would_have_written_it():
    r = simulate(ScenarioSpec(platform=_cloud(), workload=_workload(), include_copy=False), record_utilisation=False)
    assert "fetch" not in {s.stage for s in r.stages}
    assert "piops" in r.gb_months  # reduce holds its day's volume on the block tier while it reads it


def test_the_workload_check_names_a_wrong_placement_fact():
    w = _workload(cloud_instances=None, cloud_pricing="free")
    assert check_workload(w) == [
        ("stages[2].facts.cloud_pricing", "unknown value 'free'; one of on_demand, spot"),
        ("stages[2].facts.cloud_instances", "cloud_policy 'elastic' needs the number of instances")]
    assert check_workload(_workload()) == []


def test_a_placement_fact_beyond_what_a_request_may_place_is_refused():
    # a workload's defaults build pools as a scenario's placement does, so they have its bounds (the contract's)
    w = _workload(cloud_instances=1e9, cloud_items_per_task=0.5, cloud_launch_interval_s=1e7)
    assert check_workload(w) == [
        ("stages[2].facts.cloud_instances", "must be from 1 to 100,000, not 1e+09"),
        ("stages[2].facts.cloud_items_per_task", "must be from 1 to 100,000, not 0.5"),
        ("stages[2].facts.cloud_launch_interval", "must be from 0 to 1e+06 s")]
