"""The scenario contract's platform-side options: job slots, storage roles and staging, background load.

Each refusal names the field by its path; a valid request reaches the simulator spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulator.contract import ContractError, RunOptions, ScenarioRequest, SearchSpace, estimate, scenario_spec
from simulator.model.catalogue import load_catalogue
from simulator.model.simulate import build
from simulator.model.specs import StageSpec, WorkloadSpec

CATALOGUE = Path(__file__).resolve().parents[2] / "fixtures" / "catalogue"
JOBS = WorkloadSpec("jobs", template="job_array", parameters={"n_jobs": 4},
                    stages=(StageSpec("job", seq_read_bytes=1e9, seq_write_bytes=1e8, cpu_seconds=10.0),))


@pytest.fixture(scope="module")
def platforms():
    return load_catalogue(CATALOGUE)[0]


def _spec(platforms, slug, options, at="options"):
    return scenario_spec(RunOptions.from_json(options), platforms[slug], JOBS, at=at)


def _paths(exc: pytest.ExceptionInfo) -> list[str]:
    return [e.path for e in exc.value.errors]


def test_staging_can_be_on_for_one_platform_and_off_for_another_in_one_scenario(platforms):
    request = ScenarioRequest.from_json({"name": "cloud vs campus", "workload": "jobs", "platforms": [
        {"platform": "aws-sydney", "options": {"placements": [
            {"stage": "job", "node_type": "r3.4xlarge", "storage_in": "S3 Reduced Redundancy",
             "storage_scratch": "Instance store (ephemeral SSD)", "stage_in": True, "stage_out": True,
             "slots_per_node": 16, "policy": "dynamic"}]}},
        {"platform": "magnus", "options": {"placements": [
            {"stage": "job", "storage_in": "Sonexion Lustre scratch", "policy": "dynamic"}],
            "background_load": {"Sonexion Lustre scratch": {"share": 0.3, "source": "assumption: busy week"}}}}]})
    aws = scenario_spec(request.platforms[0].options, platforms["aws-sydney"], JOBS)
    magnus = scenario_spec(request.platforms[1].options, platforms["magnus"], JOBS)
    pl = aws.placement("job")
    assert (pl.stage_in, pl.stage_out, pl.storage_scratch, pl.slots_per_node) == (
        True, True, "Instance store (ephemeral SSD)", 16)
    assert not magnus.placement("job").stage_in
    assert magnus.platform.storage_tier("Sonexion Lustre scratch").background_load == 0.3
    assert platforms["magnus"].storage_tier("Sonexion Lustre scratch").background_load == 0.0  # catalogue untouched


def test_a_scratch_tier_the_platform_lacks_is_refused_at_its_path(platforms):
    with pytest.raises(ContractError) as refused:
        _spec(platforms, "magnus", {"placements": [{"stage": "job", "storage_scratch": "nvme"}]})
    assert _paths(refused) == ["options.placements[0].storage_scratch"]


def test_staging_onto_the_input_tier_itself_is_refused(platforms):
    # Magnus has one tier: scratch defaults to it, so a copy in would move the data onto itself
    with pytest.raises(ContractError, match="other than the input tier") as refused:
        _spec(platforms, "magnus", {"placements": [{"stage": "job", "stage_in": True}]}, at="platforms[1].options")
    assert _paths(refused) == ["platforms[1].options.placements[0].storage_scratch"]


def test_several_slots_on_elastic_instances_are_refused(platforms):
    with pytest.raises(ContractError, match="one task per instance") as refused:
        _spec(platforms, "aws-sydney", {"placements": [{"stage": "job", "policy": "elastic", "slots_per_node": 4}]})
    assert _paths(refused) == ["options.placements[0].slots_per_node"]


@pytest.mark.parametrize("slots", [0, -1, 2.5, True])
def test_slots_per_node_is_a_whole_number_from_1(slots):
    with pytest.raises(ContractError) as refused:
        RunOptions.from_json({"placements": [{"stage": "job", "slots_per_node": slots}]})
    assert _paths(refused) == ["placements[0].slots_per_node"]


@pytest.mark.parametrize("load, path", [
    ({"pfs": {"share": 1.0, "source": "x"}}, "background_load.pfs.share"),
    ({"pfs": {"share": -0.1, "source": "x"}}, "background_load.pfs.share"),
    ({"pfs": {"share": 0.3}}, "background_load.pfs.source"),
    ({"pfs": {"share": 0.3, "source": "x", "other": 1}}, "background_load.pfs.other"),
])
def test_a_background_load_needs_a_share_below_1_and_a_source(load, path):
    with pytest.raises(ContractError) as refused:
        RunOptions.from_json({"background_load": load})
    assert _paths(refused) == [path]


def test_a_background_load_on_an_unknown_tier_or_one_with_no_aggregate_is_refused(platforms):
    with pytest.raises(ContractError) as refused:
        _spec(platforms, "magnus", {"background_load": {"nope": {"share": 0.2, "source": "x"}}})
    assert _paths(refused) == ["options.background_load.nope"]
    with pytest.raises(ContractError, match="no aggregate") as refused:
        _spec(platforms, "aws-sydney", {"background_load": {"EBS snapshots": {"share": 0.2, "source": "x"}}})
    assert _paths(refused) == ["options.background_load.EBS snapshots.share"]
    with pytest.raises(ContractError, match="node-local") as refused:
        _spec(platforms, "aws-sydney",
              {"background_load": {"Instance store (ephemeral SSD)": {"share": 0.2, "source": "x"}}})
    assert _paths(refused) == ["options.background_load.Instance store (ephemeral SSD).share"]


def test_several_slots_for_chiles_run_several_work_units_on_a_node(platforms):
    """CHILES is data of the general model: a placement's job slots apply to it as to any workload (the case study
    ran one work-unit per node, which stays its default)."""
    chiles = load_catalogue(CATALOGUE)[1]["chiles-epoch1"]
    spec = scenario_spec(RunOptions.from_json({"placements": [{"stage": "invert", "slots_per_node": 4}]}),
                         platforms["magnus"], chiles)
    assert spec.placement("invert").slots_per_node == 4
    built = build(spec)
    pools = {p.name: p for p in built.graph.pools}
    slots = {t.stage: pools[t.pool].slots_per_node for t in built.graph.tasks if t.pool}
    assert slots == {"copy": 1, "split": 1, "invert": 4, "concat": 1}


def test_a_search_may_vary_slots_submission_and_staging():
    space = SearchSpace.from_json({"stages": {"job": {"slots_per_node": [1, 24], "stage_in": [True, False],
                                                      "submission": ["allocation", "job_per_task"]}}})
    assert space.configurations() == 8
    with pytest.raises(ContractError) as refused:
        SearchSpace.from_json({"stages": {"job": {"slots_per_node": [0], "submission": ["array"]}}})
    assert sorted(_paths(refused)) == ["stages.job.slots_per_node[0]", "stages.job.submission[0]"]


def test_the_admission_estimate_counts_staging_phases(platforms):
    # 4 jobs + 1 stage = 5 tasks; a task is 2 phases, 4 when staged in and out: events 5 x (4 + 1) x 2 = 50 and
    # twice the memory of an unstaged task
    plain = estimate(_spec(platforms, "aws-sydney", {"placements": [{"stage": "job"}]}))
    staged = estimate(_spec(platforms, "aws-sydney", {"placements": [
        {"stage": "job", "storage_in": "S3 Reduced Redundancy", "stage_in": True, "stage_out": True}]}))
    assert (plain.tasks, plain.events, staged.tasks, staged.events) == (5, 30, 5, 50)
    assert staged.memory_bytes == 2 * plain.memory_bytes
