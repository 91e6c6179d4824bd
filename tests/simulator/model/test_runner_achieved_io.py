"""The runner times reads and random I/O per task; achieved_io turns them into the rates tasks got."""

import pytest

from simulator.graph import Flow, Phase, PoolSpec, ResourceSpec, Task, TaskGraph
from simulator.model.achieved import achieved_io, io_timer
from simulator.runner import run

GB = 1e9


def _graph(tasks, *resources):
    return TaskGraph(resources, (PoolSpec("p", len(tasks)),), tuple(tasks))


def test_read_seconds_run_from_the_phase_start_to_the_last_read_not_the_cpu():
    # 4 tasks each read 1 GB and write 1 GB on a 400 MB/s tier while computing 100 s: 8 flows of 50 MB/s, reads
    # done at 20 s; the CPU (100 s) and the writes are not read time
    tasks = [Task(i, "s", (Phase("c", cpu_seconds=100.0, flows=(
        Flow(("fs",), GB, None, "input_read"), Flow(("fs",), GB, None, "output_write"))),), pool="p")
        for i in range(4)]
    r = run(_graph(tasks, ResourceSpec("fs", 4e8)), timed_flows=io_timer)
    assert list(r.flow_seconds["read"]) == pytest.approx([20.0] * 4)
    io = achieved_io(tasks, r.flow_seconds)
    assert io.read_tasks == 4 and io.read_bytes_per_s_median == pytest.approx(5e7)
    # the writes are timed apart: 50 MB/s each too, also done at 20 s
    assert list(r.flow_seconds["write"]) == pytest.approx([20.0] * 4)
    assert io.write_tasks == 4 and io.write_bytes_per_s_median == pytest.approx(5e7)
    assert io.ops_tasks == 0 and io.ops_per_s_median is None


def test_two_reads_in_one_phase_count_once_and_phases_add_up():
    # phase 1 reads 1 GB and 3 GB at once on separate 100 MB/s disks: reads end at 10 s and 30 s, so 30 s count;
    # phase 2 stages 1 GB in at 100 MB/s: 10 s more; 5 GB in 40 s = 125 MB/s
    t = Task(0, "s", (Phase("a", flows=(Flow(("d1",), GB, None, "seq_read"), Flow(("d2",), 3 * GB, None, "seq_read"))),
                      Phase("b", flows=(Flow(("d1",), GB, None, "stage_in"),))), pool="p")
    r = run(_graph([t], ResourceSpec("d1", 1e8), ResourceSpec("d2", 1e8)), timed_flows=io_timer)
    assert r.flow_seconds["read"][0] == pytest.approx(40.0)
    assert achieved_io([t], r.flow_seconds).read_bytes_per_s_median == pytest.approx(5 * GB / 40.0)


def test_a_stage_out_copy_is_write_time_and_random_writes_are_not():
    # phase 1 writes 1 GB at 100 MB/s (10 s) and 1,000 random writes at 100 IOPS (10 s, not write time); phase 2
    # stages 2 GB out at 100 MB/s: 20 s more; 3 GB in 30 s = 100 MB/s
    t = Task(0, "s", (Phase("a", flows=(Flow(("d1",), GB, None, "seq_write"),
                                        Flow(("d1:iops",), 1000.0, None, "rand_write"))),
                      Phase("b", flows=(Flow(("d1",), 2 * GB, None, "stage_out"),))), pool="p")
    r = run(_graph([t], ResourceSpec("d1", 1e8), ResourceSpec("d1:iops", 100.0, kind="iops")), timed_flows=io_timer)
    assert r.flow_seconds["write"][0] == pytest.approx(30.0)
    io = achieved_io([t], r.flow_seconds)
    assert io.write_bytes == 3 * GB and io.write_bytes_per_s_median == pytest.approx(1e8)
    assert io.ops_tasks == 1 and io.read_tasks == 0


def test_random_requests_per_second_under_a_per_client_cap():
    # 2 tasks of 1,000 requests on 1,000 IOPS capped at 200 per client: 200 each, 5 s
    tasks = [Task(i, "s", (Phase("r", flows=(Flow(("fs:iops",), 1000.0, 200.0, "rand_write"),)),), pool="p")
             for i in range(2)]
    r = run(_graph(tasks, ResourceSpec("fs:iops", 1000.0, kind="iops")), timed_flows=io_timer)
    io = achieved_io(tasks, r.flow_seconds)
    assert io.ops_tasks == 2 and io.ops_per_s_median == pytest.approx(200.0) and io.ops_seconds == pytest.approx(10.0)


def test_timing_changes_nothing_else():
    tasks = [Task(i, "s", (Phase("c", cpu_seconds=3.0, flows=(Flow(("fs",), GB * (i + 1), None, "seq_read"),)),),
                  pool="p") for i in range(3)]
    g = _graph(tasks, ResourceSpec("fs", 3e8))
    plain, timed = run(g), run(g, timed_flows=io_timer)
    assert plain.flow_seconds == {}
    assert plain.makespan_s == timed.makespan_s and list(plain.tasks) == list(timed.tasks)
