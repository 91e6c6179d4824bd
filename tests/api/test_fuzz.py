"""A schema-driven fuzz run (schemathesis 4, in-process WSGI): no input, valid or not, makes the API answer 5xx.

Every operation of /api/schema/ gets up to ``MAX_EXAMPLES`` generated requests, positive (valid per the schema)
and negative (violating it), with a valid token, against the real catalogue.  Celery dispatch is a no-op during the
fuzz (it is about the HTTP layer, in one rolled-back transaction a worker could not see); then a sample of the
scenarios it accepted, and docs/api.md's example, are created again and run for real on a worker process
(test_fuzz_on_a_worker.py, a module of its own so that it runs outside this module's transaction).
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from apps.wsgi import application

MAX_EXAMPLES = 12
CALLS: dict[str, int] = {}
#: scenario bodies the fuzz got a 201 for (its dispatch is a no-op): a sample then runs on a real worker
ACCEPTED_SCENARIOS: list[dict] = []


def teardown_module():
    print(f"\nfuzz: {len(CALLS)} operations, {sum(CALLS.values())} requests", sorted(CALLS.items()))

# Loaded at collection time from the app itself (schemathesis' lazy fixture loader does not work with pytest 9).
schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
# Header values never carry control characters: gunicorn (bin/serve-prod) refuses such a request with a 400 before
# it reaches Django (RFC 9110 section 5.5); only an in-process WSGI call could send them.  For the same reason the
# credentials (token header, session cookie) are not generated: every request carries a valid token, and
# test_auth.py tries malformed ones.
CONTROL = "".join(chr(c) for c in [*range(0x00, 0x09), *range(0x0A, 0x20), 0x7F])
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=MAX_EXAMPLES,
                                exclude_header_characters=CONTROL, with_security_parameters=False)


@pytest.fixture(scope="module")
def module_catalogue(django_db_setup, django_db_blocker):
    """The reference catalogue, loaded once for every operation of this module in a transaction rolled back at the
    end (each test's own transaction nests inside it as a savepoint)."""
    from django.conf import settings
    from django.db import transaction

    from apps.workloads.catalogue import load_catalogue

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
            yield _existing_objects()
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def _existing_objects() -> dict[str, dict[str, str]]:
    """A user with a token, and one object of each kind in the user's workspace, so that every operation on an
    object is also tried on a real one: a finished scenario (its runs), a benchmark, an import with its profile, a
    generated report, the user's workspace and an invitation to the user.  Path parameter name -> value, per the
    first part of the path."""
    from pathlib import Path

    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from apps.accounts.models import Invitation
    from apps.accounts.workspaces import personal_workspace
    from apps.benchmarks.services import create_benchmark
    from apps.calibration.fitting import create_calibration
    from apps.calibration.services import record_observation
    from apps.platforms.models import Platform
    from apps.profiles.services import import_file
    from apps.reports.services import generate_report, request_report
    from apps.scenarios.models import Scenario
    from apps.scenarios.services import create_scenario, execute_replication, run_scenario
    from apps.workloads.models import Workload

    user = get_user_model().objects.create_user(username="fuzzer", password="fuzzed horse battery")
    platforms = Platform.objects.filter(slug__in=["magnus", "aws-sydney"]).order_by("slug")
    scenario = create_scenario(name="fuzzed", workload=Workload.objects.get(slug="chiles-epoch1"),
                               entries=[(p, {}, {}) for p in platforms], replications=1, user=user)
    run_scenario(scenario, user=user, dispatch=False)
    runs = Scenario.objects.get(pk=scenario.pk).runs()
    for run in runs:
        execute_replication(str(run.id), 0)
    report = request_report(scenario, "json", user=user)
    generate_report(report.pk)
    benchmark = create_benchmark(platform=platforms[0], kind="cpu", user=user)
    job = import_file(Path(__file__).resolve().parents[2] / "fixtures" / "profiles" / "rand_read.skyplan.csv",
                      user=user)
    workspace = personal_workspace(user)
    observation = record_observation(
        workspace, label="observed run", workload="sdp-predict-p3", platform="magnus", quantity="makespan",
        value_s=1500.0, source={"kind": "assumption", "reason": "an observed run for the fuzz test"}, user=user)
    calibration = create_calibration(workspace, "sdp-predict-p3", [{"name": "compute.cpu_seconds", "lower": "1 s",
                                                                    "upper": "10 h"}], user=user)
    inviter = get_user_model().objects.create_user(username="inviter", password="inviting horse battery")
    invitation = Invitation.objects.create(workspace=personal_workspace(inviter), user=user, role="editor",
                                           invited_by=inviter)
    return {
        "token": Token.objects.create(user=user).key,
        "workspaces": {"workspace_id": workspace.pk}, "invitations": {"invitation_id": invitation.pk},
        "platforms": {"slug": "magnus"}, "workloads": {"slug": "chiles-epoch1"},
        "scenarios": {"scenario_id": str(scenario.pk)}, "runs": {"run_id": str(runs[0].pk)},
        "benchmarks": {"run_id": str(benchmark.pk)}, "reports": {"report_id": str(report.pk)},
        "profiles": {"profile_id": job.profile_id, "job_id": str(job.pk)},
        "observations": {"observation_id": observation.pk}, "calibrations": {"calibration_id": str(calibration.pk)},
    }


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
    from apps.calibration import fitting
    from apps.profiles import services as profiles
    from apps.scenarios import services as scenarios

    monkeypatch.setattr(scenarios, "dispatch_run", lambda run: None)
    monkeypatch.setattr(profiles, "dispatch_import", lambda job: None)
    monkeypatch.setattr(benchmarks, "dispatch", lambda run: None)
    monkeypatch.setattr(fitting, "dispatch_calibration", lambda job: None)


@schema.parametrize()
@pytest.mark.django_db
@settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_request_gets_a_server_error(case, module_catalogue, quiet_dispatch, in_test_transaction):
    token = module_catalogue["token"]
    operation = f"{case.operation.method.upper()} {case.operation.path}"
    _call(case, token, operation)
    if case.path_parameters:  # the same request on a real object
        surface = case.operation.path.split("/")[3]
        case.path_parameters = {k: module_catalogue[surface].get(k, v) for k, v in case.path_parameters.items()}
        _call(case, token, operation)


def _call(case, token, operation):
    response = case.call(headers={"Authorization": f"Token {token}"})
    CALLS[operation] = CALLS.get(operation, 0) + 1
    if operation == "POST /api/v1/scenarios/" and response.status_code == 201 and isinstance(case.body, dict):
        ACCEPTED_SCENARIOS.append(case.body)
    assert response.status_code < 500, f"{case.method} {case.formatted_path} -> {response.status_code}: " \
                                        f"{response.text[:2000]}\n{case.as_curl_command()}\ncookies: {case.cookies!r}"

