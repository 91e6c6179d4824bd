"""The scenario contract: JSON round trip, every limit, field paths in errors, completion of partial placements,
options a platform cannot honour, and the admission estimate."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import pytest

from simulator.contract import (
    CONTRACT_VERSION,
    LIMITS,
    AdmissionLimits,
    ContractError,
    PlatformOverrides,
    RunOptions,
    RunRequest,
    ScenarioRequest,
    SearchSpace,
    WhatIfEdit,
    WorkloadOverrides,
    admit,
    check_options,
    estimate,
    parse,
    scenario_spec,
    stage_defaults,
)
from simulator.model.catalogue import load_catalogue
from simulator.model.simulate import build

CATALOGUE = Path(__file__).resolve().parents[2] / "fixtures" / "catalogue"


@pytest.fixture(scope="module")
def catalogue():
    platforms, workloads, _ = load_catalogue(CATALOGUE)
    return platforms, workloads


def _request(**changes) -> dict:
    return {"name": "Magnus vs AWS", "workload": "chiles-epoch1",
            "platforms": [{"platform": "magnus"}, {"platform": "aws-sydney", "options": {
                "placements": [{"stage": "invert", "nodes": 10, "pricing": "spot"}], "spot_interruptions": True},
                "platform_overrides": {"storage_tiers": {"S3": {"iops": 2000.0}}}}],
            "workload_overrides": {"n_days": 21}, "replications": 3, "seed": 7, "tco_years": 4.0} | changes


def _paths(exc: pytest.ExceptionInfo) -> list[str]:
    return [e.path for e in exc.value.errors]


def test_a_request_survives_a_json_round_trip():
    request = ScenarioRequest.from_json(json.dumps(_request()))
    text = request.to_json()
    assert json.loads(text)["version"] == CONTRACT_VERSION
    assert ScenarioRequest.from_json(text) == request
    assert json.loads(text)["platforms"][1]["options"]["placements"] == [{"stage": "invert", "nodes": 10,
                                                                          "pricing": "spot"}]


def test_not_json_is_refused_with_its_position():
    with pytest.raises(ContractError, match="not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"):
        ScenarioRequest.from_json("{nope")


def test_errors_carry_the_path_of_each_field():
    bad = _request(platforms=[{"platform": "magnus"}, {"platform": "aws-sydney", "options": {"placements": [
        {"stage": "split"}, {"stage": "invert", "nodes": 0, "colour": "red"}]}}], replications="3")
    with pytest.raises(ContractError) as refused:
        ScenarioRequest.from_json(bad)
    assert sorted(_paths(refused)) == ["platforms[1].options.placements[1].colour",
                                       "platforms[1].options.placements[1].nodes", "replications"]
    assert refused.value.as_dict()["platforms[1].options.placements[1].colour"] == ["unknown field"]


@pytest.mark.parametrize("changes, path", [
    ({"version": 2}, "version"),
    ({"colour": "red"}, "colour"),
    ({"platforms": [{"platform": "magnus", "options": {"warp": 9}}, {"platform": "pleiades"}]},
     "platforms[0].options.warp"),
    ({"platforms": [{"platform": "magnus", "platform_overrides": {"facts": {"capex": 1.0}}}, {"platform": "pleiades"}]},
     "platforms[0].platform_overrides.facts.capex"),
    ({"platforms": [{"platform": "magnus", "platform_overrides": {"storage_tiers": {"x": {"colour": 1.0}}}},
                    {"platform": "pleiades"}]}, "platforms[0].platform_overrides.storage_tiers.x.colour"),
    ({"platforms": [{"platform": "magnus", "options": {"placements": [{"stage": "split", "pricing": "free"}]}},
                    {"platform": "pleiades"}]}, "platforms[0].options.placements[0].pricing"),
    ({"platforms": [{"platform": "magnus", "options": {"placements": [{"stage": "split"}, {"stage": "split"}]}},
                    {"platform": "pleiades"}]}, "platforms[0].options.placements"),
    ({"platforms": [{"platform": "magnus"}, {"platform": "magnus"}]}, "platforms"),
    ({"platforms": [{"platform": "magnus", "options": {"include_copy": "no"}}, {"platform": "pleiades"}]},
     "platforms[0].options.include_copy"),
    ({"tco_years": True}, "tco_years"),
    ({"workload_overrides": {"n_days": float("nan")}}, "workload_overrides.n_days"),
    ({"workload": "no slug!"}, "workload"),
    ({"name": "nul\x00"}, "name"),
    ({"workload_overrides": {"n_\x00days": 2.0}}, "workload_overrides.n_\x00days"),
])
def test_unknown_or_mistyped_fields_are_refused_by_path(changes, path):
    with pytest.raises(ContractError) as refused:
        ScenarioRequest.from_json(_request(**changes))
    assert _paths(refused) == [path]


def _over(value):
    return value + 1 if isinstance(value, int) else value * 1.01


#: every bound of the contract: (limit, request with the value just inside, path) -- just outside must be refused
BOUNDS = [
    ("min_replications", lambda v: _request(replications=v), "replications", -1),
    ("max_replications", lambda v: _request(replications=v), "replications", +1),
    ("max_seed", lambda v: _request(seed=v), "seed", +1),
    ("min_platforms", lambda v: _request(platforms=[{"platform": f"p{i}"} for i in range(v)]), "platforms", -1),
    ("max_platforms", lambda v: _request(platforms=[{"platform": f"p{i}"} for i in range(v)]), "platforms", +1),
    ("max_name_chars", lambda v: _request(name="n" * v), "name", +1),
    ("max_placements", lambda v: _request(platforms=[{"platform": "a", "options": {"placements": [
        {"stage": f"s{i}"} for i in range(v)]}}, {"platform": "b"}]), "platforms[0].options.placements", +1),
    ("max_nodes", lambda v: _request(platforms=[{"platform": "a", "options": {"placements": [
        {"stage": "split", "nodes": v}]}}, {"platform": "b"}]), "platforms[0].options.placements[0].nodes", +1),
    ("max_slots_per_node", lambda v: _request(platforms=[{"platform": "a", "options": {"placements": [
        {"stage": "split", "slots_per_node": v}]}}, {"platform": "b"}]),
     "platforms[0].options.placements[0].slots_per_node", +1),
    ("max_subbands_per_task", lambda v: _request(platforms=[{"platform": "a", "options": {"placements": [
        {"stage": "split", "subbands_per_task": v}]}}, {"platform": "b"}]),
     "platforms[0].options.placements[0].subbands_per_task", +1),
    ("max_launch_interval_s", lambda v: _request(platforms=[{"platform": "a", "options": {"placements": [
        {"stage": "split", "launch_interval_s": v}]}}, {"platform": "b"}]),
     "platforms[0].options.placements[0].launch_interval_s", +1),
    ("max_queue_wait_s", lambda v: _request(platforms=[{"platform": "a", "options": {"placements": [
        {"stage": "split", "queue_wait_s": v}]}}, {"platform": "b"}]),
     "platforms[0].options.placements[0].queue_wait_s", +1),
    ("max_retention_s", lambda v: _request(platforms=[{"platform": "a", "options": {"retention_after_run_s": v}},
                                                      {"platform": "b"}]),
     "platforms[0].options.retention_after_run_s", +1),
    ("max_override_value", lambda v: _request(workload_overrides={"n_days": v}), "workload_overrides.n_days", +1),
    ("max_overrides", lambda v: _request(workload_overrides={f"p{i}": 1.0 for i in range(v)}), "workload_overrides",
     +1),
    ("min_tco_years", lambda v: _request(tco_years=v), "tco_years", -1),
    ("max_tco_years", lambda v: _request(tco_years=v), "tco_years", +1),
    ("min_epochs_per_year", lambda v: _request(epochs_per_year=v), "epochs_per_year", -1),
    ("max_epochs_per_year", lambda v: _request(epochs_per_year=v), "epochs_per_year", +1),
]


@pytest.mark.parametrize("limit, make, path, side", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_every_limit_admits_its_bound_and_refuses_past_it(limit, make, path, side):
    bound = getattr(LIMITS, limit)
    ScenarioRequest.from_json(make(bound))
    past = (bound + side if isinstance(bound, int) else bound * (1 + 0.01 * side))
    with pytest.raises(ContractError) as refused:
        ScenarioRequest.from_json(make(past))
    assert _paths(refused) == [path]


def test_every_limit_is_tested():
    tested = {b[0] for b in BOUNDS} | {"max_slug_chars", "min_what_if_factor", "max_what_if_factor",
                                       "max_search_configurations"}
    assert tested == {f.name for f in fields(LIMITS)}


def test_slugs_what_ifs_and_searches_have_their_bounds():
    with pytest.raises(ContractError) as refused:
        RunRequest.from_json({"workload": "w" * (LIMITS.max_slug_chars + 1), "platform": "magnus"})
    assert _paths(refused) == ["workload"]
    WhatIfEdit.from_json({"kind": "queue", "target": "magnus", "factor": LIMITS.max_what_if_factor})
    for factor in (LIMITS.min_what_if_factor / 2, LIMITS.max_what_if_factor * 2):
        with pytest.raises(ContractError, match="factor"):
            WhatIfEdit.from_json({"kind": "queue", "target": "magnus", "factor": factor})
    space = SearchSpace.from_json({"stages": {"split": {"nodes": [1, 2, 3]}, "invert": {"pricing": ["spot"]}}})
    assert space.configurations() == 3
    with pytest.raises(ContractError) as refused:
        SearchSpace.from_json({"stages": {"split": {"nodes": [1, 0]}}})
    assert _paths(refused) == ["stages.split.nodes[1]"]


def test_overrides_models_refuse_by_path():
    with pytest.raises(ContractError) as refused:
        parse(WorkloadOverrides, {"n_days": 0})
    assert _paths(refused) == ["n_days"]
    assert PlatformOverrides.from_json({"facts": {"wan_bandwidth": 1e9}}).facts == {"wan_bandwidth": 1e9}


# --- against the catalogue ----------------------------------------------------------------------------

def test_a_partial_placement_is_completed_from_the_stage_default(catalogue):
    platforms, workloads = catalogue
    aws, chiles = platforms["aws-sydney"], workloads["chiles-epoch1"]
    options = RunOptions.from_json({"placements": [{"stage": "invert", "nodes": 10, "pricing": "spot"}]})
    spec = scenario_spec(options, aws, chiles, seed=3)
    default = stage_defaults(aws, chiles)["invert"]
    assert spec.placements == (replace(default, nodes=10, pricing="spot"),)
    assert spec.placements[0].storage_in is not None and spec.placements[0].node_type == default.node_type
    assert len(build(spec).graph.tasks) > 0  # it builds (it failed with 'NoneType' has no attribute 'kind')


def test_names_the_platform_does_not_have_are_refused_by_path(catalogue):
    platforms, workloads = catalogue
    options = RunOptions.from_json({"placements": [{"stage": "imaging"}, {"stage": "split", "node_type": "quantum",
                                                                          "storage_out": "floppy"}]})
    with pytest.raises(ContractError) as refused:
        check_options(options, platforms["magnus"], workloads["chiles-epoch1"], at="platforms[1].options")
    assert _paths(refused) == ["platforms[1].options.placements[0].stage", "platforms[1].options.placements[1].node_type",
                               "platforms[1].options.placements[1].storage_out"]


@pytest.mark.parametrize("platform, placements, single, words", [
    ("magnus", [{"stage": "invert", "queue_wait_s": 3600.0}], None, "with single_allocation the run waits once"),
    ("magnus", [{"stage": "split", "queue_wait_s": 3600.0}, {"stage": "concat", "queue_wait_s": 60.0}], True,
     "give every one of them the same queue wait"),
    ("magnus", [{"stage": "copy", "queue_wait_s": 3600.0}], None, "data-transfer node"),
    ("aws-sydney", [{"stage": "split", "queue_wait_s": 3600.0}], None, "the cloud"),
    ("magnus", [{"stage": "invert", "policy": "elastic", "queue_wait_s": 60.0}], False, "elastic"),
])
def test_a_queue_wait_the_model_cannot_honour_is_refused_naming_the_placement(catalogue, platform, placements, single,
                                                                              words):
    platforms, workloads = catalogue
    options = RunOptions.from_json({"placements": placements} | ({} if single is None else
                                                                  {"single_allocation": single}))
    with pytest.raises(ContractError, match=words) as refused:
        scenario_spec(options, platforms[platform], workloads["chiles-epoch1"])
    assert _paths(refused) == ["options.placements[0].queue_wait_s"]
    with pytest.raises(ContractError) as refused:
        scenario_spec(options, platforms[platform], workloads["chiles-epoch1"], at="platforms[2].options")
    assert _paths(refused) == ["platforms[2].options.placements[0].queue_wait_s"]


@pytest.mark.parametrize("options, stages", [
    ({"placements": [{"stage": s, "queue_wait_s": 3600.0} for s in ("split", "invert", "concat")]},
     {"split", "invert", "concat"}),
    ({"placements": [{"stage": "invert", "queue_wait_s": 3600.0}], "single_allocation": False}, {"invert"}),
])
def test_a_queue_wait_the_model_applies_is_accepted_and_applied(catalogue, options, stages):
    platforms, workloads = catalogue
    magnus = platforms["magnus"]
    spec = scenario_spec(RunOptions.from_json(options), magnus, workloads["chiles-epoch1"])
    built = build(spec)
    pool_of = {t.stage: t.pool for t in built.graph.tasks}
    waits = {p.name: p.queue_wait_s for p in built.graph.pools}
    for stage in stages:  # the one job of the allocation is dispatched once after its wait
        assert waits[pool_of[stage]] == pytest.approx(3600.0 + magnus.scheduler.dispatch_overhead_s)


def test_an_absurd_workload_is_refused_before_anything_is_built(catalogue):
    platforms, workloads = catalogue
    chiles = workloads["chiles-epoch1"]
    huge = replace(chiles, parameters={**chiles.parameters, "n_days": 1e9})
    spec = scenario_spec(RunOptions(), platforms["aws-sydney"], huge)
    limits = AdmissionLimits()
    with pytest.raises(ContractError, match=r"about 31,000,000,134 tasks per replication on aws-sydney; at most "
                                            r"100,000") as refused:
        admit(spec, 1, replace(limits, max_tasks_per_replication=100_000), overrides={"n_days": 1e9})
    assert _paths(refused) == ["workload_overrides.n_days"]


def test_memory_and_the_whole_request_have_their_bounds(catalogue):
    platforms, workloads = catalogue
    spec = scenario_spec(RunOptions(), platforms["aws-sydney"], workloads["chiles-epoch1"])
    tasks = estimate(spec).tasks
    with pytest.raises(ContractError, match="MB per replication") as refused:
        admit(spec, 1, AdmissionLimits(max_memory_bytes_per_replication=estimate(spec).memory_bytes - 1))
    assert _paths(refused) == ["workload"]
    admit(spec, 10, AdmissionLimits(max_tasks_per_request=tasks * 10 * 2), platforms=2)
    with pytest.raises(ContractError, match="tasks; at most") as refused:
        admit(spec, 10, AdmissionLimits(max_tasks_per_request=tasks * 10 * 2 - 1), platforms=2)
    assert _paths(refused) == ["replications"]


@pytest.mark.parametrize("platform", ["pleiades", "magnus", "aws-sydney"])
def test_the_estimate_of_chiles_counts_its_tasks_not_its_phases(catalogue, platform):
    """CHILES: one copy per day, one split per day and chunk of sub-bands (120 sub-bands; the stage's own
    cloud_items_per_task, 4, per instance on the cloud), one invert per sub-band, one concat per 12 sub-bands; a
    stage continuing another adds phases, not tasks: as many tasks as the model builds, plus at most one barrier per
    stage placed."""
    platforms, workloads = catalogue
    spec = scenario_spec(RunOptions(), platforms[platform], workloads["chiles-epoch1"])
    built = len(build(spec).graph.tasks)
    assert built == 42 * (1 + (30 if platform == "aws-sydney" else 1)) + 120 + 10 + 1
    assert built <= estimate(spec).tasks <= built + 4
    assert estimate(spec).events >= built * (5 + 1) * 2  # INVERT: five phases


def test_the_defaults_are_those_of_the_stages_a_request_may_place(catalogue):
    """A stage continuing another's task is placed with it: the builder and the API offer CHILES' four stages, not
    its ten phases."""
    platforms, workloads = catalogue
    for slug in ("magnus", "aws-sydney"):
        assert list(stage_defaults(platforms[slug], workloads["chiles-epoch1"])) == ["copy", "split", "invert",
                                                                                     "concat"]
