"""A schema-driven fuzz run (schemathesis 4, in-process WSGI): no input, valid or not, makes the API answer 5xx.

Every operation of /api/schema/ gets up to ``MAX_EXAMPLES`` generated requests, positive (valid per the schema)
and negative (violating it), with a valid token, against the real catalogue.  Celery dispatch is replaced by a
no-op: this run is about the HTTP layer; test_flow.py drives a real worker.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from apps.wsgi import application

MAX_EXAMPLES = 20
CALLS: dict[str, int] = {}


def teardown_module():
    print(f"\nfuzz: {len(CALLS)} operations, {sum(CALLS.values())} requests", sorted(CALLS.items()))

# Loaded at collection time from the app itself (schemathesis' lazy fixture loader does not work with pytest 9).
schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=MAX_EXAMPLES)


@pytest.fixture(scope="module")
def module_catalogue(django_db_setup, django_db_blocker):
    """The reference catalogue, loaded once for every operation of this module in a transaction rolled back at the
    end (each test's own transaction nests inside it as a savepoint)."""
    from django.conf import settings
    from django.db import transaction

    from apps.core.catalogue import load_catalogue

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture
def in_test_transaction():
    """Keep the test's database connection across WSGI requests (as Django's test client does): the handler's
    end-of-request cleanup would otherwise close it inside the test's transaction."""
    from django.core import signals
    from django.db import close_old_connections

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def quiet_dispatch(monkeypatch):
    from apps.benchmarks import services as benchmarks
    from apps.profiles import services as profiles
    from apps.scenarios import services as scenarios

    monkeypatch.setattr(scenarios, "dispatch_run", lambda run: None)
    monkeypatch.setattr(profiles, "dispatch_import", lambda job: None)
    monkeypatch.setattr(benchmarks, "dispatch", lambda run: None)


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_request_gets_a_server_error(case, module_catalogue, token, quiet_dispatch, in_test_transaction):
    response = case.call(headers={"Authorization": f"Token {token}"})
    CALLS[f"{case.operation.method.upper()} {case.operation.path}"] = CALLS.get(
        f"{case.operation.method.upper()} {case.operation.path}", 0) + 1
    assert response.status_code < 500, f"{case.method} {case.formatted_path} -> {response.status_code}: " \
                                        f"{response.text[:2000]}\n{case.as_curl_command()}"
