"""Shared fixtures: the reference catalogue, a logged-in client and a real Celery worker process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated_media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def catalogue(db):
    """The real reference catalogue from fixtures/catalogue, loaded into the test database."""
    from django.conf import settings

    from apps.core.catalogue import load_catalogue

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


def start_worker(queues: str, name: str):
    """Start a real ``celery worker`` process on the test database consuming ``queues``; returns (process, log path,
    log file).  Stop it with :func:`stop_worker`."""
    from django.db import connection

    settings_dict = connection.settings_dict
    db_url = (
        f"postgres://{settings_dict['USER']}@{settings_dict['HOST'] or '127.0.0.1'}:"
        f"{settings_dict['PORT'] or 5432}/{settings_dict['NAME']}"
    )
    env = dict(os.environ, DATABASE_URL=db_url, CELERY_TASK_DEFAULT_QUEUE=queues.split(",")[0], PYTHONUNBUFFERED="1")
    log_path = ROOT / "var" / f"test-worker-{name}.log"
    log_path.parent.mkdir(exist_ok=True)
    log = open(log_path, "w")  # noqa: SIM115 - closed by stop_worker
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "apps", "worker", "-Q", queues, "--pool=prefork", "--concurrency=2",
         "--loglevel=INFO", "--without-mingle", "--without-gossip", "-n", f"{name}@%h"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited early, see {log_path}:\n{log_path.read_text()[-3000:]}")
        if "ready." in log_path.read_text():
            return proc, log_path, log
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError(f"worker did not become ready, see {log_path}")


def stop_worker(proc, log) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


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
