"""Job slots, storage roles with staging and background load reach the simulator from the catalogue records and
the run options, through the one adapter a user's run takes (real PostgreSQL)."""

import pytest

from apps.accounts.workspaces import personal_workspace
from apps.platforms.models import NodeType, Platform, StorageTier
from apps.platforms.services import copy_platform
from apps.scenarios.adapters import scenario_from_inputs
from apps.scenarios.services import (
    InvalidEntry,
    InvalidScenario,
    create_scenario,
    execute_replication,
    run_inputs,
    run_scenario,
)
from apps.workloads.models import Workload, WorkloadStage
from simulator.model.simulate import build, simulate

ASSUMED = {"kind": "assumption", "reason": "a test workload"}


@pytest.fixture
def io_jobs(db):
    w = Workload.objects.create(slug="io-jobs", name="I/O jobs", template="job_array", parameters={"n_jobs": 24})
    WorkloadStage.objects.create(workload=w, name="job", seq_read_bytes=0.6e9, seq_write_bytes=0.15e9,
                                 provenance={"seq_read_bytes": ASSUMED, "seq_write_bytes": ASSUMED})
    return w


def test_the_catalogue_gives_slots_scheduler_facts_and_background_load_with_sources(catalogue):
    node = NodeType.objects.get(platform__slug="magnus", name="xc40-compute")
    assert node.slots == 1 and node.source_of("slots")["where"] == "§5.1"
    magnus = Platform.objects.get(slug="magnus")
    assert magnus.job_submission == "allocation" and magnus.source_of("job_submission")["kind"] == "seed"
    lustre = StorageTier.objects.get(platform=magnus, kind="parallel_fs")
    assert lustre.background_load is None and "other users" in lustre.source_of("background_load")["note"]


def test_a_copys_slots_and_staging_reach_the_simulation(catalogue, user, io_jobs):
    copy = copy_platform(Platform.objects.get(slug="aws-sydney"), personal_workspace(user))
    node = copy.node_types.get(name="r3.4xlarge")
    node.slots = 24
    node.provenance = {**node.provenance, "slots": {"kind": "assumption", "reason": "24 jobs per instance"}}
    node.save()
    options = {"placements": [{"stage": "job", "node_type": "r3.4xlarge", "nodes": 1, "policy": "dynamic",
                               "pricing": "on_demand", "storage_in": "S3 Reduced Redundancy",
                               "stage_in": True, "stage_out": True}]}
    inputs = run_inputs(platform=copy, workload=io_jobs, options=options, seed=1)
    scenario = scenario_from_inputs(inputs, 1)
    task = build(scenario).graph.tasks[0]
    assert [ph.name for ph in task.phases] == ["stage_in", "compute", "stage_out"]
    r = simulate(scenario, record_utilisation=False)
    assert {t.node for t in r.tasks} == {"r3.4xlarge-0"}  # all 24 on the one instance
    # billed per instance, per hour or part thereof: one instance-hour for a run under an hour, not 24
    assert r.makespan_s < 3600.0
    assert r.compute_hours_billed == pytest.approx(1.0)


def test_a_background_load_in_the_options_takes_its_share_of_the_tier(catalogue, user, io_jobs):
    magnus = Platform.objects.get(slug="magnus")
    lustre = magnus.storage_tiers.get(kind="parallel_fs")
    options = {"placements": [{"stage": "job", "storage_in": lustre.name, "policy": "dynamic"}],
               "background_load": {lustre.name: {"share": 0.3, "source": "assumption: a busy week"}}}
    scenario = scenario_from_inputs(run_inputs(platform=magnus, workload=io_jobs, options=options, seed=1), 1)
    resource = next(r for r in build(scenario).graph.resources if r.name == lustre.name)
    assert resource.capacity == pytest.approx(0.7 * max(lustre.read_bw, lustre.write_bw))


def test_a_bad_platform_option_is_refused_at_its_path(catalogue, io_jobs):
    magnus = Platform.objects.get(slug="magnus")
    with pytest.raises(InvalidScenario) as refused:
        run_inputs(platform=magnus, workload=io_jobs, options={"placements": [{"stage": "job", "stage_in": True}]})
    assert [e.path for e in refused.value.errors] == ["options.placements[0].storage_scratch"]


def test_a_scenario_stages_on_the_cloud_and_loads_the_campus_file_system(catalogue, user, io_jobs):
    # one scenario, two platforms: staging and 24 slots on the cloud copy, a 30% background load on Magnus
    workspace = personal_workspace(user)
    cloud = copy_platform(Platform.objects.get(slug="aws-sydney"), workspace)
    node = cloud.node_types.get(name="r3.4xlarge")
    node.slots = 24
    node.provenance = {**node.provenance, "slots": {"kind": "assumption", "reason": "24 jobs per instance"}}
    node.save()
    magnus = Platform.objects.get(slug="magnus")
    lustre = magnus.storage_tiers.get(kind="parallel_fs").name
    entries = [
        (cloud, {"placements": [{"stage": "job", "node_type": "r3.4xlarge", "nodes": 1, "policy": "dynamic",
                                 "pricing": "on_demand", "storage_in": "S3 Reduced Redundancy", "stage_in": True,
                                 "stage_out": True}]}, {}),
        (magnus, {"placements": [{"stage": "job", "storage_in": lustre, "policy": "dynamic", "nodes": 24,
                                  "queue_wait_s": 0.0}],
                  "background_load": {lustre: {"share": 0.3, "source": "assumption: other users' share"}}}, {}),
    ]
    scenario = create_scenario(name="cloud vs campus", workload=io_jobs, entries=entries, replications=1,
                               user=user, workspace=workspace)
    scenario = run_scenario(scenario, user, dispatch=False)
    results = {}
    for entry in scenario.entries.select_related("platform", "run"):
        assert execute_replication(str(entry.run.id), 0) == "succeeded"
        results[entry.platform.slug] = entry.run.replication_set.get(index=0).result
    cloud_result = results[cloud.slug]
    assert {t["node"] for t in cloud_result["tasks"]} == {"r3.4xlarge-0"}
    assert any(k.startswith("Instance store") for k in cloud_result["bytes_moved"])  # the staged copies
    assert not any(k.startswith("Instance store") for k in results["magnus"]["bytes_moved"])


def test_a_scenario_entry_with_a_bad_platform_option_names_the_platform_and_path(catalogue, user, io_jobs):
    magnus = Platform.objects.get(slug="magnus")
    entries = [(magnus, {"placements": [{"stage": "job", "stage_in": True}]}, {}),
               (Platform.objects.get(slug="pleiades"), {}, {})]
    with pytest.raises(InvalidEntry) as refused:
        create_scenario(name="bad", workload=io_jobs, entries=entries, replications=1, user=user)
    assert refused.value.platform_slug == "magnus"
    assert [e.path for e in refused.value.errors] == ["platforms[0].options.placements[0].storage_scratch"]
