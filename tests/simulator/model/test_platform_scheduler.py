"""Scheduler semantics: one allocation per stage or one job per task (a job array), each job with its own queue
wait and dispatch overhead, at most the scheduler's running-job limit at once, nodes billed while held.

Every expected number is worked out by hand from the platform written in the test."""

import pytest

from simulator.contract import ContractError, RunOptions, scenario_spec
from simulator.model.catalogue import platform_from_dict
from simulator.model.simulate import simulate
from simulator.model.specs import (
    NodeTypeSpec,
    PlatformSpec,
    PricingSpec,
    QueueWaitSpec,
    ScenarioSpec,
    SchedulerSpec,
    StagePlacement,
    StageSpec,
    StorageSpec,
    WorkloadSpec,
)


def _campus(queue=None, dispatch=5.0, max_running=4, submission="allocation"):
    return PlatformSpec(
        slug="campus", name="campus", kind="cluster",
        scheduler=SchedulerSpec("slurm", queue or QueueWaitSpec("fixed", 100.0), submission=submission,
                                dispatch_overhead_s=dispatch, max_running_jobs=max_running),
        pricing=PricingSpec(billing_unit="node_hour", node_hour_aud=3600.0),  # 1 AUD a node-second
        node_types=(NodeTypeSpec("n12", cores=12, count=10),),
        storage=(StorageSpec("pfs", "parallel_fs", "shared", read_bytes_per_s=1e10, write_bytes_per_s=1e10),))


JOBS = WorkloadSpec("jobs", template="job_array", parameters={"n_jobs": 8},
                    stages=(StageSpec("job", cpu_seconds=60.0),))


def _run(platform, submission=None, seed=0):
    pl = StagePlacement("job", "n12", 8, "pfs", policy="dynamic", submission=submission)
    return simulate(ScenarioSpec(platform=platform, workload=JOBS, placements=(pl,), seed=seed),
                    record_utilisation=False)


def test_one_allocation_waits_once_and_is_dispatched_once():
    # one job for the stage: 100 s in the queue, 5 s to dispatch, then the 8 tasks on 8 nodes for 60 s: 165 s;
    # the 8 nodes are held (and billed) from 105 s to 165 s: 480 node-seconds
    r = _run(_campus())
    assert r.makespan_s == pytest.approx(165.0)
    assert r.queue_wait_s == pytest.approx(100.0)
    assert r.total_cost_aud == pytest.approx(8 * 60.0)


def test_one_job_per_task_waits_and_dispatches_per_job_under_the_running_limit():
    # each of the 8 jobs waits 100 s, then at most 4 run at once, each 5 s of dispatch + 60 s: two waves of 65 s
    # after the wait: 100 + 65 + 65 = 230 s; nodes are held only while a job runs: 8 x 65 = 520 node-seconds
    r = _run(_campus(), submission="job_per_task")
    assert r.makespan_s == pytest.approx(230.0)
    assert sorted({t.start_s for t in r.tasks}) == pytest.approx([100.0, 165.0])
    assert r.total_cost_aud == pytest.approx(8 * 65.0)


def test_the_scheduler_default_submission_and_no_running_limit():
    # the platform submits one job per task by default and has no limit: all 8 start at 100 s, end at 165 s
    r = _run(_campus(submission="job_per_task", max_running=None))
    assert r.makespan_s == pytest.approx(165.0)
    assert {t.start_s for t in r.tasks} == {100.0}


def test_each_job_draws_its_own_queue_wait():
    # an empirical wait of 10 s or 1000 s: one allocation waits one draw for every task; one job per task draws
    # per job, so some jobs start after 10 s (+ nothing else in the way: no limit) and others after 1000 s
    queue = QueueWaitSpec("empirical", samples_seconds=(10.0, 1000.0))
    alloc = _run(_campus(queue, dispatch=0.0, max_running=None))
    assert len({t.start_s for t in alloc.tasks}) == 1
    jobs = _run(_campus(queue, dispatch=0.0, max_running=None), submission="job_per_task")
    assert {t.start_s - t.ready_s for t in jobs.tasks} == {10.0, 1000.0}
    assert jobs.makespan_s == pytest.approx(1060.0)


def test_the_catalogue_gives_the_scheduler_facts():
    d = {"slug": "x", "kind": "hpc_centre", "facts": {
        "job_submission": {"value": "job_per_task", "unit": ""}, "dispatch_overhead": {"value": 2, "unit": "min"},
        "max_running_jobs": {"value": 50, "unit": ""}}}
    s = platform_from_dict(d).scheduler
    assert (s.submission, s.dispatch_overhead_s, s.max_running_jobs) == ("job_per_task", 120.0, 50)
    d["facts"]["job_submission"]["value"] = "one_big_job"
    with pytest.raises(ValueError, match="job_submission"):
        platform_from_dict(d)
    d["facts"]["job_submission"]["value"] = "allocation"
    d["facts"]["dispatch_overhead"]["value"] = -1
    with pytest.raises(ValueError, match="dispatch_overhead must be 0 s or more"):
        platform_from_dict(d)


def test_the_contract_refuses_job_per_task_on_elastic_instances():
    with pytest.raises(ContractError) as refused:
        scenario_spec(RunOptions.from_json({"placements": [{"stage": "job", "policy": "elastic",
                                                            "submission": "job_per_task"}]}), _campus(), JOBS)
    assert [e.path for e in refused.value.errors] == ["options.placements[0].submission"]
    with pytest.raises(ContractError) as refused:
        RunOptions.from_json({"placements": [{"stage": "job", "submission": "array"}]})
    assert [e.path for e in refused.value.errors] == ["placements[0].submission"]
