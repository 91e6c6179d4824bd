"""The discrete-event core: ordering, deferred end-of-instant work, determinism."""

from __future__ import annotations

from simulator.core import DISPATCH, FLUSH, URGENT, Environment
from simulator.graph import Flow, Phase, Task


def test_it_orders_events_by_time_then_priority_then_sequence():
    env = Environment()
    seen = []
    env.schedule(2.0, URGENT, seen.append, "t2")
    env.schedule(1.0, DISPATCH, seen.append, "t1-dispatch")
    env.schedule(1.0, URGENT, seen.append, "t1-urgent-a")
    env.schedule(1.0, URGENT, seen.append, "t1-urgent-b")
    env.run()
    assert seen == ["t1-urgent-a", "t1-urgent-b", "t1-dispatch", "t2"]
    assert env.now == 2.0
    assert env.events == 4


def test_it_runs_deferred_work_after_every_lower_priority_event_of_the_instant():
    env = Environment()
    seen = []

    def first(_):
        seen.append(("first", env.now))
        env.defer(FLUSH, lambda _: seen.append(("flush", env.now)))
        env.defer(DISPATCH, lambda _: seen.append(("dispatch", env.now)))
        env.schedule(env.now, URGENT, lambda _: seen.append(("same-instant", env.now)))

    env.schedule(3.0, URGENT, first)
    env.schedule(4.0, URGENT, lambda _: seen.append(("later", env.now)))
    env.run()
    assert seen == [("first", 3.0), ("same-instant", 3.0), ("dispatch", 3.0), ("flush", 3.0), ("later", 4.0)]


def test_it_stops_before_events_after_until():
    env = Environment()
    seen = []
    for t in (1.0, 2.0, 3.0):
        env.schedule(t, URGENT, seen.append, t)
    env.run(until=2.0)
    assert seen == [1.0, 2.0]
    assert env.peek() == 3.0
    env.run()
    assert seen == [1.0, 2.0, 3.0]


def test_it_schedules_relative_to_now():
    env = Environment()
    seen = []

    def tick(k):
        seen.append(env.now)
        if k:
            env.schedule_in(0.5, tick, k - 1)

    env.schedule(1.0, URGENT, tick, 3)
    env.run()
    assert seen == [1.0, 1.5, 2.0, 2.5]


def test_the_fast_copies_of_flows_phases_and_tasks_equal_dataclasses_replace():
    # every field given a value other than its default: a field added later and not copied fails here
    from dataclasses import fields, replace

    flow = Flow(("a", "b"), 3.0, 2.0, "seq_read")
    phase = Phase("p", 4.0, 3, (flow,), 1.5)
    task = Task(7, "s", (phase,), (1, 2), "pool", 4, 5e9, 3, 12.0)
    for obj, defaults in ((flow, Flow(("x",), 1.0)), (phase, Phase("q")), (task, Task(0, "t"))):
        assert all(getattr(obj, f.name) != getattr(defaults, f.name) for f in fields(obj))
    assert flow.scaled(1.7) == replace(flow, amount=3.0 * 1.7)
    other = (Flow(("c",), 1.0),)
    assert phase.with_flows(other) == replace(phase, flows=other)
    assert task.with_phases((Phase("r"),)) == replace(task, phases=(Phase("r"),))


def test_flows_phases_and_tasks_are_made_as_the_dataclasses_would_make_them():
    # their __init__ stores through the slots directly: same parameters and defaults, still frozen and picklable
    import inspect
    import pickle
    from dataclasses import MISSING, FrozenInstanceError, fields

    import pytest

    for cls, obj in ((Flow, Flow(("a",), 2.0)), (Phase, Phase("p", 1.0)), (Task, Task(3, "s", deps=(1,)))):
        params = list(inspect.signature(cls).parameters.values())
        assert [p.name for p in params] == [f.name for f in fields(cls)]
        assert [p.default for p in params] == [inspect.Parameter.empty if f.default is MISSING else f.default
                                               for f in fields(cls)]
        assert obj == pickle.loads(pickle.dumps(obj)) and hash(obj) == hash(pickle.loads(pickle.dumps(obj)))
        with pytest.raises(FrozenInstanceError):
            setattr(obj, params[0].name, params[0].default)
    assert Task(3, "s", deps=(1,)) == Task(id=3, stage="s", phases=(), deps=(1,), pool="default", cores=1,
                                            memory_bytes=0.0, slot=None, queue_s=0.0)


def test_flows_phases_and_tasks_keep_their_class_and_a_subclass_stores_its_own_fields():
    # their __init__ stores while the object has a twin class with the same slots, then gives it its class back
    from dataclasses import astuple

    class Pinned(Task):
        __slots__ = ()

    for cls, args in ((Flow, (("a",), 2.0, 3.0, "x")), (Phase, ("p", 1.0, 2, (), 0.5)),
                      (Task, (3, "s", (), (1,), "q", 2, 1e9, 4, 7.0)), (Pinned, (3, "s", (), (1,), "q", 2, 1e9, 4, 7.0))):
        obj = cls(*args)
        assert type(obj) is cls and obj.__class__ is cls
        assert astuple(obj) == args


def test_it_calls_end_of_instant_work_after_everything_else_at_that_instant():
    env = Environment()
    seen = []

    def first(_):
        seen.append(("first", env.now))
        env.at_end(lambda: seen.append(("end", env.now)))
        env.defer(DISPATCH, lambda _: env.schedule(env.now, URGENT, lambda _: seen.append(("pushed", env.now))))
        env.schedule(env.now, URGENT, lambda _: seen.append(("same-instant", env.now)))

    env.schedule(3.0, URGENT, first)
    env.schedule(4.0, URGENT, lambda _: seen.append(("later", env.now)))
    assert env.run() == 4.0
    assert seen == [("first", 3.0), ("same-instant", 3.0), ("pushed", 3.0), ("end", 3.0), ("later", 4.0)]
    assert env.events == 6  # the end-of-instant call counts as an event
