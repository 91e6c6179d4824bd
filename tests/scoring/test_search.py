"""Configuration search: space checks, Pareto front, deadline/budget picks, and parallel Celery chunks."""

import time
from pathlib import Path

import pytest

from apps.scoring.logic.search import (
    SpaceError,
    cheapest_within,
    chunks,
    enumerate_space,
    fastest_within,
    pareto_front,
    validate_space,
)
from apps.scoring.models import ConfigurationSearch, Status
from apps.scoring.services import cancel_search, create_search, dispatch_search
from simulator.model.catalogue import load_catalogue
from simulator.model.validation import epoch_scenario

ROOT = Path(__file__).resolve().parents[2]

POINTS = [
    {"config": "a", "cost_aud": 100.0, "makespan_s": 50.0},
    {"config": "b", "cost_aud": 80.0, "makespan_s": 90.0},
    {"config": "c", "cost_aud": 120.0, "makespan_s": 60.0},  # dominated by a
    {"config": "d", "cost_aud": 300.0, "makespan_s": 10.0},
    {"config": "e", "error": "ValueError: boom"},
]


def test_it_keeps_only_non_dominated_points_cheapest_first():
    assert [p["config"] for p in pareto_front(POINTS)] == ["b", "a", "d"]


def test_it_picks_the_cheapest_within_a_deadline_and_the_fastest_within_a_budget():
    assert cheapest_within(POINTS, 60.0)["config"] == "a"
    assert cheapest_within(POINTS, 5.0) is None
    assert fastest_within(POINTS, 150.0)["config"] == "a"
    assert fastest_within(POINTS, 50.0) is None


def test_it_enumerates_every_combination():
    space = {"stages": {"split": {"nodes": [1, 2], "pricing": ["spot"]}, "invert": {"nodes": [3, 4, 5]}}}
    configs = enumerate_space(space)
    assert len(configs) == 6
    assert configs[0] == {"invert": {"nodes": 3}, "split": {"nodes": 1, "pricing": "spot"}}
    assert chunks(6, 4) == [(0, 4), (4, 6)]


@pytest.mark.parametrize("space, message", [
    ({"stages": {}}, "space.stages"),
    ({"stages": {"nope": {"nodes": [1]}}}, "not a stage"),
    ({"stages": {"split": {"colour": [1]}}}, r"space.stages.split.colour: unknown field"),
    ({"stages": {"split": {"nodes": [0]}}}, r"space.stages.split.nodes\[0\]: Input should be greater than or equal to 1"),
    ({"stages": {"split": {"pricing": ["free"]}}}, "pricing"),
    ({"stages": {"split": {"storage_in": ["floppy"]}}}, "not a storage tier"),
    ({"stages": {"split": {"nodes": list(range(1, 101))}, "invert": {"nodes": list(range(1, 101))}}}, "at most"),
])
def test_it_refuses_a_bad_space_naming_the_field(space, message):
    platforms, workloads, _ = load_catalogue(ROOT / "fixtures" / "catalogue")
    sc = epoch_scenario(platforms["aws-sydney"], workloads["chiles-epoch1"])
    with pytest.raises(SpaceError, match=message):
        validate_space(space, sc.platform, sc.workload)


def test_it_refuses_a_stage_that_continues_another_as_it_is_placed_with_it():
    platforms, workloads, _ = load_catalogue(ROOT / "fixtures" / "catalogue")
    general = workloads["chiles-epoch1"]
    assert validate_space({"stages": {"invert": {"nodes": [1, 2]}}}, platforms["aws-sydney"], general) == 2
    with pytest.raises(SpaceError, match=r"space.stages.invert_grid_serial: not a stage .*\(copy, split, invert, "
                                         r"concat\)"):
        validate_space({"stages": {"invert_grid_serial": {"nodes": [1]}}}, platforms["aws-sydney"], general)


def _wait(search, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        search.refresh_from_db()
        if search.is_finished:
            return search
        time.sleep(0.3)
    raise AssertionError(f"search still {search.status} after {timeout} s")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_it_runs_a_search_in_parallel_chunks_on_the_worker(celery_worker_process, catalogue):
    from apps.platforms.models import Platform
    from apps.workloads.models import Workload

    space = {"stages": {"split": {"pricing": ["spot", "on_demand"]}, "invert": {"nodes": [5, 10], "launch_interval_s": [0, 300]}}}
    search = create_search(platform=Platform.objects.get(slug="aws-sydney"),
                           workload=Workload.objects.get(slug="chiles-epoch1"), space=space,
                           deadline_s=200 * 3600.0, budget_aud=1e6)
    assert search.total == 8 and search.chunks.count() == 1
    dispatch_search(search)
    search = _wait(search)
    assert search.status == Status.SUCCEEDED
    r = search.results
    assert r["evaluated"] == 8 and r["failed"] == 0
    front = r["pareto"]
    assert front and all(a["cost_aud"] < b["cost_aud"] and a["makespan_s"] > b["makespan_s"]
                         for a, b in zip(front, front[1:], strict=False))
    # on-demand is never cheaper than spot for the same placement
    spot = [p for p in r["points"] if p["config"]["split"]["pricing"] == "spot"]
    ondemand = [p for p in r["points"] if p["config"]["split"]["pricing"] == "on_demand"]
    assert min(p["cost_aud"] for p in spot) < min(p["cost_aud"] for p in ondemand)
    assert r["fastest_within_budget"]["makespan_s"] == min(p["makespan_s"] for p in r["points"])


@pytest.mark.django_db
def test_it_cancels_a_queued_search(catalogue):
    from apps.platforms.models import Platform
    from apps.workloads.models import Workload

    search = create_search(platform=Platform.objects.get(slug="magnus"),
                           workload=Workload.objects.get(slug="chiles-epoch1"),
                           space={"stages": {"invert": {"nodes": [10, 20, 44]}}})
    assert cancel_search(search)
    search.refresh_from_db()
    assert search.status == Status.CANCELLED
    assert set(search.chunks.values_list("status", flat=True)) == {"cancelled"}
    assert not cancel_search(search)
    from apps.scoring.services import execute_chunk

    assert execute_chunk(str(search.id), 0) == "cancelled"
    assert ConfigurationSearch.objects.get(pk=search.pk).results is None
