"""The discrete-event core: ordering, deferred end-of-instant work, determinism."""

from __future__ import annotations

from simulator.core import DISPATCH, FLUSH, URGENT, Environment


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
