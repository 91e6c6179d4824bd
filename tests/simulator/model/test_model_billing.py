"""Billing, queue and spot tests with hand-computed expectations."""

import random

import pytest

from simulator.graph import PoolRecord, RunResult, TaskGraph, TaskRecord
from simulator.model.billing import (
    SECONDS_PER_MONTH,
    bill,
    billed_seconds,
    gb_months,
    node_hour_cost,
)
from simulator.model.built import BuiltGraph, DataObject, PoolInfo
from simulator.model.queue import queue_wait_quantile, sample_queue_wait
from simulator.model.specs import (
    NodeTypeSpec,
    PlatformSpec,
    PricingSpec,
    QueueWaitSpec,
    ScenarioSpec,
    StorageSpec,
    WorkloadSpec,
)
from simulator.model.spot import SpotMarket, max_concurrent_under_ceiling, sample_interruption


def test_it_rounds_hourly_billing_up():
    assert billed_seconds(1, 3600) == 3600
    assert billed_seconds(3600, 3600) == 3600
    assert billed_seconds(3601, 3600) == 7200
    assert billed_seconds(0, 3600) == 0


def test_it_bills_per_second():
    assert billed_seconds(3601.2, 1) == 3602
    assert billed_seconds(59, 1) == 59


def test_it_integrates_gb_months():
    # 1 TB held for one 730-hour month is 1000 GB-months; for half a month 500
    assert gb_months(1e12, SECONDS_PER_MONTH) == pytest.approx(1000.0)
    assert gb_months(1e12, SECONDS_PER_MONTH / 2) == pytest.approx(500.0)


def test_it_computes_node_hour_cost():
    # the paper's Magnus figure: 44 nodes x 110 h x AUD 0.67 = 3242.8
    assert node_hour_cost(44 * 110 * 3600, 0.67) == pytest.approx(3242.8)


def _cloud(granularity=3600.0):
    nt = NodeTypeSpec("big", cores=16, on_demand_aud_per_hour=1.0, spot_aud_per_hour=0.2, spot_rise_per_instance=0.5)
    vol = StorageSpec("vol", "block_piops", "per_volume", aud_per_gb_month=0.1, aud_per_iops_month=0.05,
                      provisioned_iops=100.0)
    obj = StorageSpec("obj", "object_store", "shared", aud_per_gb_month=0.03)
    return PlatformSpec("c", "c", "cloud", node_types=(nt,), storage=(vol, obj),
                        pricing=PricingSpec("instance_hour", granularity))


def _run(instances, tasks=(), makespan=None):
    end = max(b for _, b in instances)
    rec = PoolRecord("p", 0.0, 0.0, end, len(instances), sum(b - a for a, b in instances), tuple(instances))
    return RunResult(makespan if makespan is not None else end, tuple(tasks), (rec,))


def test_it_bills_on_demand_instances_per_started_hour():
    p = _cloud()
    built = BuiltGraph(TaskGraph((), (), ()), (), (PoolInfo("p", "s", "big", "on_demand"),), 0.0)
    result = _run([(0.0, 3601.0), (0.0, 100.0)])
    b = bill(built, result, ScenarioSpec(platform=p, workload=WorkloadSpec("w")))
    # 2 h + 1 h at AUD 1.00
    assert b.compute_hours_billed == pytest.approx(3.0)
    assert b.total_aud == pytest.approx(3.0)


def test_it_bills_spot_at_the_concurrency_driven_price():
    p = _cloud()
    built = BuiltGraph(TaskGraph((), (), ()), (), (PoolInfo("p", "s", "big", "spot"),), 0.0)
    # two instances alive together for one hour: each hour priced 0.2 * (1 + 0.5) = 0.3
    result = _run([(0.0, 3000.0), (0.0, 3000.0)])
    b = bill(built, result, ScenarioSpec(platform=p, workload=WorkloadSpec("w")))
    assert b.total_aud == pytest.approx(0.6)
    # alone: 0.2
    b1 = bill(built, _run([(0.0, 3000.0)]), ScenarioSpec(platform=p, workload=WorkloadSpec("w")))
    assert b1.total_aud == pytest.approx(0.2)


def test_it_bills_storage_for_the_time_data_sits_in_each_tier():
    p = _cloud()
    tasks = (TaskRecord(0, "s", "p", "n0", 0.0, 0.0, 3650.0, "cpu"),
             TaskRecord(1, "s", "p", "n1", 0.0, 3650.0, 7300.0, "cpu"))
    objs = (DataObject("vol", 1e12, 0, 0, True),  # a 1 TB volume for the 3650 s of task 0
            DataObject("obj", 2e12, 0, None, False))  # 2 TB in the object store from 3650 s to the end (7300 s)
    built = BuiltGraph(TaskGraph((), (), ()), objs, (PoolInfo("p", "s", "big", "none"),), 0.0)
    result = _run([(0.0, 7300.0)], tasks, makespan=7300.0)
    b = bill(built, result, ScenarioSpec(platform=p, workload=WorkloadSpec("w")))
    frac = 3650.0 / SECONDS_PER_MONTH
    assert b.gb_months["vol"] == pytest.approx(1000 * frac)
    assert b.gb_months["obj"] == pytest.approx(2000 * frac)
    storage = {(ln.category, ln.item): ln.aud for ln in b.lines}
    assert storage[("storage", "vol")] == pytest.approx(1000 * frac * 0.1)
    assert storage[("storage", "obj")] == pytest.approx(2000 * frac * 0.03)
    assert storage[("iops", "vol")] == pytest.approx(100 * frac * 0.05)


def test_it_samples_queue_waits_deterministically_per_seed():
    spec = QueueWaitSpec("lognormal", median_seconds=1000.0, sigma=0.5)
    a = [sample_queue_wait(spec, random.Random(7)) for _ in range(3)]
    b = [sample_queue_wait(spec, random.Random(7)) for _ in range(3)]
    assert a == b
    rng1, rng2 = random.Random(1), random.Random(2)
    assert sample_queue_wait(spec, rng1) != sample_queue_wait(spec, rng2)
    assert queue_wait_quantile(spec, 0.5) == pytest.approx(1000.0)


def test_it_samples_fixed_none_and_empirical_waits():
    rng = random.Random(0)
    assert sample_queue_wait(QueueWaitSpec("none"), rng) == 0.0
    assert sample_queue_wait(QueueWaitSpec("fixed", median_seconds=42.0), rng) == 42.0
    xs = {sample_queue_wait(QueueWaitSpec("empirical", samples_seconds=(1.0, 2.0, 3.0)), rng) for _ in range(50)}
    assert xs <= {1.0, 2.0, 3.0} and len(xs) > 1
    with pytest.raises(ValueError):
        sample_queue_wait(QueueWaitSpec("weird"), rng)


def test_it_raises_the_spot_price_with_concurrent_instances():
    m = SpotMarket("r3.4xlarge", 0.16, 0.10, on_demand_aud_per_hour=1.68)
    assert m.price(1) == pytest.approx(0.16)
    assert m.price(11) == pytest.approx(0.32)  # ten more instances: "driven almost double" (Fig. 3)
    assert m.price(1000) == pytest.approx(1.68)  # never above on-demand
    assert max_concurrent_under_ceiling(m, 1.5) == 6


def test_it_samples_spot_interruptions_deterministically():
    a = sample_interruption(36000.0, 0.5, 120.0, random.Random(3))
    b = sample_interruption(36000.0, 0.5, 120.0, random.Random(3))
    assert a == b and a is not None
    assert a.extra_s == pytest.approx(a.lost_s + 120.0 + 120.0)
    assert sample_interruption(100.0, 0.0, 120.0, random.Random(3)) is None
