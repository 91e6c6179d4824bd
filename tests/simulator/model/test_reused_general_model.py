"""A general-template (stages) model built once for a batch of seeds gives, seed by seed, what building it again
gives: the pools' queue waits drawn in the same order, the same run wait, and the same result.  A workload whose
task sizes or per-job queue waits are drawn from the seed is built again for every seed, with the same result."""

from dataclasses import replace

from simulator.model.simulate import prepare, replication_seed, simulate
from simulator.model.specs import ScenarioSpec, StageSpec, WorkloadSpec

SEEDS = [replication_seed(11, i) for i in range(4)]


def _same_per_seed(scenario):
    model = prepare(scenario)
    waits = []
    for seed in SEEDS:
        fresh = simulate(scenario, seed=seed, record_utilisation=False)
        reused = model.simulate(seed, record_utilisation=False)
        assert [(t.ready_s, t.start_s, t.end_s) for t in reused.tasks] == [
            (t.ready_s, t.start_s, t.end_s) for t in fresh.tasks]
        assert reused == fresh
        waits.append(reused.queue_wait_s)
    return model, waits


def test_per_job_queue_waits_rebuild_the_graph_for_each_seed(specs):
    platforms, workloads, _ = specs
    magnus = platforms["magnus"]
    per_job = replace(magnus, scheduler=replace(magnus.scheduler, submission="job_per_task"))
    w = workloads["sdp-predict-p3"]
    w = replace(w, parameters={**w.parameters, "n_jobs": 12.0})
    model, waits = _same_per_seed(ScenarioSpec(platform=per_job, workload=w))
    assert model.built is None  # one wait a job, drawn as each task is added
    assert len(set(waits)) == len(SEEDS)


def test_a_pools_queue_wait_is_drawn_again_per_seed(specs):
    platforms, workloads, _ = specs
    model, waits = _same_per_seed(ScenarioSpec(platform=platforms["magnus"], workload=workloads["adiosstman-validation"]))
    assert model.built is not None and len(model.built.wait_draws) == 1
    assert len(set(waits)) == len(SEEDS)


def test_sizes_drawn_from_the_seed_rebuild_the_graph_for_each_seed(specs):
    platforms, _, _ = specs
    st = StageSpec("a", n_tasks=6, cpu_seconds=100, size_distribution="lognormal", size_sigma=0.5)
    w = WorkloadSpec("w", template="stages", stages=(st,))
    model, _ = _same_per_seed(ScenarioSpec(platform=platforms["magnus"], workload=w))
    assert model.built is None
