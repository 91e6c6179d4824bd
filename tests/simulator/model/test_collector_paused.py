"""A replication runs with Python's cyclic collector paused and leaves it as it found it (see
:mod:`simulator.collector`); what it leaves behind is freed once the collector runs again."""

import gc

import pytest

import simulator.model.simulate as model_simulate
from simulator.collector import collector_paused
from simulator.graph import Task
from simulator.model.simulate import prepare
from simulator.model.specs import ScenarioSpec


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_paused_while_a_replication_runs_and_on_again_after(platforms, chiles, collector_on):
    seen = []
    model_simulate.simulate(ScenarioSpec(platform=platforms["magnus"], workload=chiles, include_copy=False),
                            progress=lambda done, total: seen.append(gc.isenabled()))
    assert seen and not any(seen)
    assert gc.isenabled()


def test_the_collector_is_on_again_when_a_replication_fails(collector_on):
    @collector_paused()
    def fails():
        assert not gc.isenabled()
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        fails()
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled(collector_on):
    gc.disable()
    with collector_paused():
        with collector_paused():
            pass
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_the_graph_a_replication_drew_is_freed_once_the_collector_runs(platforms, chiles, collector_on):
    model = prepare(ScenarioSpec(platform=platforms["magnus"], workload=chiles, include_copy=False))
    gc.collect()
    before = _tasks_alive()
    gc.disable()  # nothing collects before it is looked at
    model.simulate(12345, record_utilisation=False, task_bars=False)
    # the tasks the replication drew are kept by the engine's closures until the collector runs...
    assert _tasks_alive() > before
    # ...and the first allocations after a replication collect the young generation, which frees them
    gc.collect(0)
    assert _tasks_alive() == before


def _tasks_alive() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is Task)
