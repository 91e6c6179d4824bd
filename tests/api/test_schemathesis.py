"""Schemathesis over every operation of the served OpenAPI schema, in process (WSGI), with a real token, the
reference catalogue and PostgreSQL: no server error and no response outside what the schema documents (status
codes, content types, bodies, headers).  ``SKYPLAN_SCHEMATHESIS_CASES`` examples per operation and generation mode (3 in the suite, to keep
its time reasonable: about 1,000 requests); ``make schemathesis`` runs 12 (about 2,400) once and prints the counts."""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

#: every default check but one: "a schema-valid request is accepted" cannot hold where validity depends on the data
#: (a workload slug that exists, a scenario of yours): those answer a documented 400/404, which the other checks
#: validate (status code, content type and body against the documented schema)
EXCLUDED = [positive_data_acceptance]
#: cases per operation
CASES = int(os.environ.get("SKYPLAN_SCHEMATHESIS_CASES", "3"))
#: generated cases sent, printed at the end of the module (``-s`` shows it; failures are pytest's own)
COUNTS = {"cases": 0}


def _schema():
    """The schema the API serves (the same generator as ``/api/schema/``), called through the WSGI application."""
    from drf_spectacular.generators import SchemaGenerator

    loaded = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))
    loaded.app = get_wsgi_application()
    return loaded


schema = _schema()


def teardown_module():
    print(f"\nschemathesis: {sum(1 for _ in schema.get_all_operations())} operations, {COUNTS['cases']} cases")


@pytest.fixture(scope="module")
def module_token(django_db_setup, django_db_blocker):
    """The reference catalogue and a user's token, made once for the module in a transaction rolled back at the end
    (each test's own transaction nests inside it)."""
    from django.conf import settings as django_settings
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from rest_framework.authtoken.models import Token

    from apps.workloads.catalogue import load_catalogue

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            load_catalogue(django_settings.SKYPLAN_CATALOGUE_DIR)
            user = get_user_model().objects.create_user(username="schemathesis", password="schema horse battery")
            yield Token.objects.create(user=user).key
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture
def wsgi_keeps_the_test_connection():
    """Requests keep the test's database connection, as Django's test client does (the handler would close it
    after each request, ending the test's transaction)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@schema.parametrize()
@pytest.mark.django_db
@settings(max_examples=CASES, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_every_operation_conforms_to_its_schema(case, module_token, wsgi_keeps_the_test_connection):
    COUNTS["cases"] += 1
    headers = {} if case.path == "/api/v1/auth/token/" else {"Authorization": f"Token {module_token}"}
    case.call_and_validate(headers=headers, excluded_checks=EXCLUDED)
