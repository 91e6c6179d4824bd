"""A benchmark request with no live worker host says so: on the list page, after the request, and on the queued run's
page; a host that beat recently on the platform's queue is named instead."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from apps.benchmarks import services
from apps.benchmarks.models import BenchmarkRun
from apps.core.models import WorkerHeartbeat
from apps.platforms.models import Platform, StorageTier


@pytest.fixture
def candidate(db):
    p = Platform.objects.create(slug="quiet-host", name="Quiet candidate host", kind="owned_cluster")
    StorageTier.objects.create(platform=p, name="local scratch", kind="local_ssd")
    return p


@pytest.fixture
def unsent(monkeypatch):
    """Requests are saved and dispatched as usual, but the job lifecycle's one send step keeps them off the broker."""
    monkeypatch.setattr(services.BENCHMARK_JOBS, "send", lambda row, task_id: None)


def _beat(queues: str, seconds_ago: float) -> None:
    beat = WorkerHeartbeat.objects.create(hostname="bench-box", pid=4242, node="w@bench-box", queues=queues)
    WorkerHeartbeat.objects.filter(pk=beat.pk).update(seen_at=timezone.now() - timedelta(seconds=seconds_ago))


def test_the_live_platforms_are_those_whose_queue_a_recently_beating_worker_consumes(candidate):
    """Only this test's host is looked at: the suite's own workers (a benchmark worker among them) beat into the same
    database while it runs, and their rows are not this test's to change (an update would hold their next beat)."""
    interval = settings.SKYPLAN_HEARTBEAT_INTERVAL_S
    _beat("celery,bench.quiet-host", seconds_ago=4 * interval)  # three intervals without a beat: gone
    assert "quiet-host" not in services.live_bench_platforms()
    WorkerHeartbeat.objects.filter(hostname="bench-box").update(seen_at=timezone.now())
    assert "quiet-host" in services.live_bench_platforms()


def test_the_list_page_warns_when_no_worker_host_is_live_and_names_the_live_ones_otherwise(logged_in, candidate):
    body = logged_in.get("/benchmarks/").content.decode()
    assert 'id="no-host"' in body and "No live worker host" in body
    _beat("bench.quiet-host", seconds_ago=0)
    body = logged_in.get("/benchmarks/").content.decode()
    assert 'id="no-host"' not in body
    assert "A live worker measures Quiet candidate host." in body


def test_a_request_for_a_platform_with_no_live_host_is_queued_with_a_warning(logged_in, candidate, unsent):
    _beat("bench.another-host", seconds_ago=0)
    response = logged_in.post("/benchmarks/", {"platform": "quiet-host", "kind": "cpu", "seconds": "1"}, follow=True)
    run = BenchmarkRun.objects.get()
    assert run.status == "queued"
    body = response.content.decode()
    assert "No live worker serves Quiet candidate host (queue bench.quiet-host)" in body
    assert body.count("stays queued until a worker starts") == 2  # the message, and the run's own warning
    assert "CPU seconds per kernel" in body and "{'" not in body  # parameters under their labels, not a dict
    assert "<h1>CPU kernels on Quiet candidate host</h1>" in body  # the platform's name, not its slug


def test_a_queued_run_whose_host_is_live_carries_no_warning(logged_in, candidate, unsent):
    _beat("bench.quiet-host", seconds_ago=0)
    response = logged_in.post("/benchmarks/", {"platform": "quiet-host", "kind": "cpu"}, follow=True)
    assert BenchmarkRun.objects.get().status == "queued"
    assert "No live worker serves" not in response.content.decode()
