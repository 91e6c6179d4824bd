"""Shared fixtures: the reference catalogue, a logged-in client and a real Celery worker process."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from worker_processes import start_worker, stop_worker  # tests/ is on sys.path (rootdir conftest)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated_media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def catalogue(db):
    """The real reference catalogue from fixtures/catalogue, loaded into the test database."""
    from django.conf import settings

    from apps.workloads.catalogue import load_catalogue

    return load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)


@pytest.fixture
def user(db, django_user_model):
    return django_user_model.objects.create_user(username="ada", password="correct horse battery")


@pytest.fixture
def staff(db, django_user_model):
    return django_user_model.objects.create_superuser(username="root", password="correct horse battery")


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


def _need_redis():
    if not os.environ.get("CELERY_BROKER_URL", "").startswith("redis"):
        pytest.skip("worker tests need CELERY_BROKER_URL pointing at Redis (make test sets it)")


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    """A real ``celery worker`` process on the test database and the test broker, on a private queue."""
    from apps.celery import app

    _need_redis()
    queue = f"skyplan-test-{uuid.uuid4().hex[:8]}"
    proc, log_path, log = start_worker(queue, queue)
    app.conf.task_default_queue = queue
    yield {"process": proc, "queue": queue, "log": log_path}
    stop_worker(proc, log)


@pytest.fixture(scope="session")
def bench_worker(django_db_setup, django_db_blocker):
    """A real worker consuming the benchmark queue of platform ``bench-host-<random>`` (a candidate host)."""
    _need_redis()
    slug = f"bench-host-{uuid.uuid4().hex[:6]}"
    proc, log_path, log = start_worker(f"bench.{slug}", f"bench-{slug}")
    yield {"process": proc, "platform_slug": slug, "queue": f"bench.{slug}", "log": log_path}
    stop_worker(proc, log)
