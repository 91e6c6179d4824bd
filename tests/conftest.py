"""Shared fixtures: the reference catalogue, a logged-in client and a real Celery worker process."""

from __future__ import annotations

import os
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from worker_processes import start_worker, stop_worker  # tests/ is on sys.path (rootdir conftest)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated_media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def catalogue(db, _catalogue_rows):
    """The real reference catalogue from fixtures/catalogue, loaded into the test database: the rows one real load
    wrote, copied back in (milliseconds, where a load takes seconds); a real load when they could not be kept."""
    from django.conf import settings
    from django.db import transaction

    from apps.workloads.catalogue import load_catalogue

    summary, rows = _catalogue_rows
    if rows is None:
        return load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    with transaction.atomic():  # foreign keys are checked at its end, whatever the order of the tables
        for table, data in rows.items():
            _copy_in(table, data)
    return replace(summary)


@pytest.fixture(scope="session")
def _catalogue_rows(django_db_setup, django_db_blocker):
    """(summary, rows): the reference catalogue loaded once per session by the real loader, in a transaction rolled
    back after the rows it wrote were copied out (COPY data per table).  ``rows`` is None when the load also changed
    tables that held rows before (copying them back would not give what a load gives), or the database is not
    PostgreSQL."""
    from django.conf import settings
    from django.db import connection, transaction

    from apps.workloads.catalogue import load_catalogue

    if connection.vendor != "postgresql":  # COPY is PostgreSQL's
        return None, None
    with django_db_blocker.unblock(), transaction.atomic():
        tables = _tables()
        before = {table: _fingerprint(table) for table in tables}
        summary = load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
        changed = [table for table in tables if _fingerprint(table) != before[table]]
        rows = {table: _copy_out(table) for table in changed} if all(before[t][0] == 0 for t in changed) else None
        transaction.set_rollback(True)
    return summary, rows


def _tables() -> dict[str, str | None]:
    """Every table the models have, with its auto-incremented primary key column (None when it has none)."""
    from django.apps import apps
    from django.db import connection

    auto = ("AutoField", "BigAutoField", "SmallAutoField")
    existing = set(connection.introspection.table_names())
    return {model._meta.db_table: model._meta.pk.column if model._meta.pk.get_internal_type() in auto else None
            for model in apps.get_models(include_auto_created=True)
            if model._meta.managed and model._meta.db_table in existing}


def _fingerprint(table: str) -> tuple[int, str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f'SELECT count(*), md5(coalesce(string_agg(t::text, \'|\' ORDER BY t::text), \'\')) '
                       f'FROM "{table}" t')
        return cursor.fetchone()


def _copy_out(table: str) -> tuple[bytes, str | None]:
    from django.db import connection

    pk = _tables()[table]  # before the COPY: while it is open the connection takes no other query
    with connection.cursor() as cursor, cursor.cursor.copy(f'COPY "{table}" TO STDOUT') as copy:
        return b"".join(bytes(block) for block in copy), pk


def _copy_in(table: str, data: tuple[bytes, str | None]) -> None:
    """Copy the rows back, and move the table's id sequence past them (a test may have reset it)."""
    from django.db import connection

    content, pk = data
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f'COPY "{table}" FROM STDIN') as copy:
            copy.write(content)
        if not pk:
            return
        cursor.execute(f"SELECT pg_get_serial_sequence('\"{table}\"', '{pk}'), max(\"{pk}\") FROM \"{table}\"")
        sequence, top = cursor.fetchone()
        if sequence and top is not None:
            cursor.execute(f"SELECT last_value FROM {sequence}")
            if cursor.fetchone()[0] < top:
                cursor.execute("SELECT setval(%s, %s)", [sequence, top])


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


@pytest.fixture
def as_viewer(client, user, django_user_model):
    """A client logged in as carol, a viewer of ada's personal workspace, with that workspace active."""
    from apps.accounts.models import Membership
    from apps.accounts.workspaces import SESSION_KEY, Role, personal_workspace

    carol = django_user_model.objects.create_user(username="carol", password="another horse battery")
    shared = personal_workspace(user)
    Membership.objects.create(user=carol, workspace=shared, role=Role.VIEWER)
    client.force_login(carol)
    session = client.session
    session[SESSION_KEY] = shared.pk
    session.save()
    return client


@pytest.fixture
def token(user) -> str:
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=user).key


@pytest.fixture
def api(token):
    """A REST client authenticated as the test user by ``Authorization: Token ...`` (no session)."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def no_import_dispatch(monkeypatch):
    """Profile imports are queued but not sent to a broker (the test runs or inspects them itself)."""
    from apps.profiles import services

    monkeypatch.setattr(services, "dispatch_import", lambda job: None)


@pytest.fixture(scope="session")
def moto_server():
    """moto's S3 server on a free loopback port for the session (stopped at its end)."""
    from moto.server import ThreadedMotoServer
    from private_servers import free_port

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


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
