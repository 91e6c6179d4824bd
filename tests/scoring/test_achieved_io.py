"""Bandwidth and IOPS are scored on what the simulated run's tasks achieved, not on the tiers' peaks."""

import orjson
import pytest

from apps.scoring.adapters import summary_from_results
from apps.scoring.logic.criteria import DEFAULT_CRITERIA, NOT_RECORDED, score_platforms
from apps.scoring.logic.inputs import PlatformInputs, StorageFacts
from simulator.model.simulate import simulate
from simulator.model.specs import NodeTypeSpec, PlatformSpec, RoleIO, ScenarioSpec, StageSpec, StorageSpec, WorkloadSpec
from simulator.units import from_base

MB, GB = 1e6, 1e9
TASKS = 16
BANDWIDTH = next(c for c in DEFAULT_CRITERIA if c.key == "typical_bandwidth")
IOPS = next(c for c in DEFAULT_CRITERIA if c.key == "typical_iops")

#: every task reads 2 GB of input at once (one task per node, all 16 nodes)
WORKLOAD = WorkloadSpec("read-heavy", template="stages", stages=(
    StageSpec("read", n_tasks=TASKS, cpu_seconds=1.0, io=(RoleIO("input", read_bytes=2 * GB),)),))
#: a shared file system with a 2 GB/s per-client peak, but 1 GB/s for everybody: 16 readers get 62.5 MB/s each
SHARED = StorageSpec("Shared FS", "parallel_fs", "shared", read_bytes_per_s=1 * GB, write_bytes_per_s=1 * GB,
                     read_bytes_per_s_per_client=2 * GB, write_bytes_per_s_per_client=2 * GB)
#: a node-local disk of 200 MB/s: each task has one to itself
LOCAL = StorageSpec("Local disk", "local_ssd", "per_node", read_bytes_per_s=200 * MB, write_bytes_per_s=200 * MB,
                    read_bytes_per_s_per_client=200 * MB, write_bytes_per_s_per_client=200 * MB)


def _platform(slug: str, tier: StorageSpec) -> PlatformSpec:
    return PlatformSpec(slug, slug.title(), "cluster", node_types=(NodeTypeSpec("node", cores=4, count=TASKS),),
                        storage=(tier,))


def _stored(platform: PlatformSpec, workload: WorkloadSpec = WORKLOAD) -> dict:
    """The run's result as a scenario stores it (JSON, without the per-task details)."""
    result = simulate(ScenarioSpec(platform, workload), seed=0, record_utilisation=False)
    data = orjson.loads(orjson.dumps(result))
    data.pop("tasks")
    return data


def _inputs(slug: str, tier: StorageSpec, stored: dict | None) -> PlatformInputs:
    facts = StorageFacts(tier.name, tier.kind, tier.read_bytes_per_s, tier.read_bytes_per_s_per_client)
    run = summary_from_results([stored], slug) if stored is not None else None
    return PlatformInputs(slug, slug.title(), "owned_cluster", {}, (facts,), (), run)


def test_the_run_records_what_each_tasks_reads_got():
    shared = _stored(_platform("shared", SHARED))["achieved_io"]
    # 16 readers share 1 GB/s: 62.5 MB/s each, so each 2 GB read takes 32 s
    assert shared["read_tasks"] == TASKS
    assert shared["read_bytes"] == pytest.approx(TASKS * 2 * GB)
    assert shared["read_seconds"] == pytest.approx(TASKS * 32.0)
    assert shared["read_bytes_per_s_median"] == pytest.approx(62.5 * MB)
    local = _stored(_platform("local", LOCAL))["achieved_io"]
    assert local["read_bytes_per_s_median"] == pytest.approx(200 * MB)
    assert local["ops_tasks"] == 0 and local["ops_per_s_median"] is None


def test_a_higher_peak_under_contention_ranks_lower_on_bandwidth():
    stored = {"shared": _stored(_platform("shared", SHARED)), "local": _stored(_platform("local", LOCAL))}
    inputs = {"shared": _inputs("shared", SHARED, stored["shared"]), "local": _inputs("local", LOCAL, stored["local"])}
    scores = score_platforms(inputs, [BANDWIDTH])
    for slug, (s,) in scores.items():
        # the metric is the run's own recorded median, in MB/s
        assert s.value == pytest.approx(from_base(stored[slug]["achieved_io"]["read_bytes_per_s_median"], "MB/s"))
        assert "per task achieved" in s.text and "peak" not in s.text
    # 62.5 MB/s is at least 10 MB/s (2); 200 MB/s at least 100 MB/s (3); on peaks shared (2 GB/s) would score 5
    assert scores["shared"][0].score == 2 < scores["local"][0].score == 3


def test_random_io_is_scored_on_the_requests_per_second_tasks_got():
    tier = StorageSpec("Shared FS", "parallel_fs", "shared", read_bytes_per_s=10 * GB, iops=1000.0,
                       iops_per_client=500.0)
    workload = WorkloadSpec("random", template="stages", stages=(StageSpec("read", n_tasks=8, io=(
        RoleIO("input", read_bytes=100 * 4096.0, pattern="random", request_bytes=4096.0),)),))
    platform = PlatformSpec("p", "P", "cluster", node_types=(NodeTypeSpec("node", count=8),), storage=(tier,))
    stored = _stored(platform, workload)
    io = stored["achieved_io"]
    # 8 tasks of 100 requests share 1,000 IOPS: 125 each (under the 500 per-client cap)
    assert io["ops_tasks"] == 8 and io["ops_per_s_median"] == pytest.approx(125.0)
    (s,) = score_platforms({"p": _inputs("p", tier, stored)}, [IOPS])["p"]
    assert s.value == pytest.approx(io["ops_per_s_median"]) and s.score == 4  # at least 100 IOPS


def test_a_run_that_did_not_record_it_is_unknown_not_the_peak():
    stored = _stored(_platform("shared", SHARED))
    del stored["achieved_io"]  # a result stored before runs recorded it
    (bw,), = score_platforms({"old": _inputs("old", SHARED, stored)}, [BANDWIDTH]).values()
    assert bw.score is None and bw.missing
    assert NOT_RECORDED in bw.explanation and "left out of the aggregate" in bw.explanation


def test_a_run_without_random_io_has_unknown_iops():
    stored = _stored(_platform("local", LOCAL))
    (s,), = score_platforms({"local": _inputs("local", LOCAL, stored)}, [IOPS]).values()
    assert s.score is None and "no task of the run does random I/O" in s.explanation


WRITE = next(c for c in DEFAULT_CRITERIA if c.key == "typical_write_bandwidth")
#: every task writes 1 GB of output at once (one task per node, all 16 nodes)
WRITER = WorkloadSpec("write-heavy", template="stages", stages=(
    StageSpec("write", n_tasks=TASKS, cpu_seconds=1.0, io=(RoleIO("output", write_bytes=1 * GB),)),))


def test_the_run_records_what_each_tasks_writes_got_and_scores_them():
    shared = _stored(_platform("shared", SHARED), WRITER)
    io = shared["achieved_io"]
    # 16 writers share 1 GB/s: 62.5 MB/s each, so each 1 GB write takes 16 s; nothing is read
    assert io["write_tasks"] == TASKS and io["write_bytes"] == pytest.approx(TASKS * GB)
    assert io["write_seconds"] == pytest.approx(TASKS * 16.0)
    assert io["write_bytes_per_s_median"] == pytest.approx(62.5 * MB)
    assert io["read_tasks"] == 0
    local = _stored(_platform("local", LOCAL), WRITER)
    scores = score_platforms({"shared": _inputs("shared", SHARED, shared), "local": _inputs("local", LOCAL, local)},
                             [WRITE, BANDWIDTH])
    (write, read), = [scores["shared"]]
    assert write.value == pytest.approx(62.5) and write.score == 2  # at least 10 MB/s
    assert "62.5 MB/s per task achieved (median of 16 tasks' writes)" in write.text
    assert read.score is None and "no task of the run reads from storage" in read.explanation
    assert scores["local"][0].value == pytest.approx(200.0) and scores["local"][0].score == 3


def test_a_run_stored_before_writes_were_timed_has_an_unknown_write_bandwidth_not_zero():
    stored = _stored(_platform("shared", SHARED), WRITER)
    for key in ("write_tasks", "write_bytes", "write_seconds", "write_bytes_per_s_median", "write_bytes_per_s_mean"):
        del stored["achieved_io"][key]  # as runs stored their achieved I/O before writes were recorded
    (s,), = score_platforms({"old": _inputs("old", SHARED, stored)}, [WRITE]).values()
    assert s.score is None and s.missing and s.value is None
    assert NOT_RECORDED in s.explanation and "left out of the aggregate" in s.explanation


def test_a_run_without_writes_has_an_unknown_write_bandwidth():
    stored = _stored(_platform("local", LOCAL))
    (s,), = score_platforms({"local": _inputs("local", LOCAL, stored)}, [WRITE]).values()
    assert s.score is None and "no task of the run writes to storage" in s.explanation
