"""A sample of what the API fuzz (test_fuzz.py) accepted, run for real: created again through the API with the
real dispatch and run on a worker process, with docs/api.md's scenario example (a partial placement, which the API
accepted and whose run then failed with 'NoneType' object has no attribute 'kind').  Each must finish, succeeded or
failed with a plain reason, never an internal error.  Run without test_fuzz.py, the docs example alone is the
sample."""

from __future__ import annotations

import sys

import pytest
from worker_processes import wait_for

#: how many of the fuzz's accepted scenarios the real worker runs (with one replication each: the suite's time)
WORKER_SAMPLE = 2
#: docs/api.md's scenario example (a partial placement), which the API accepted and the run then failed on
DOCS_EXAMPLE = {
    "name": "Magnus vs AWS", "workload": "chiles-epoch1",
    "platforms": [
        {"platform": "magnus", "platform_overrides": {"facts": {"queue_wait_median": 306000}}},
        {"platform": "aws-sydney", "options": {"placements": [{"stage": "invert", "nodes": 10, "pricing": "spot"}]}},
    ],
    "workload_overrides": {"n_days": 21}, "replications": 5, "seed": 0, "tco_years": 5, "epochs_per_year": 1,
    "run": False,
}
#: a plain body the API accepts, when the fuzz did not run in this session
PLAIN = {"name": "plain", "workload": "chiles-epoch1", "platforms": [{"platform": "magnus"}, {"platform": "aws-sydney"}],
         "seed": 0}
#: what a run's error shows when the code crashed rather than refused (the attack: 'NoneType' object has no
#: attribute 'kind')
INTERNAL = ("object has no attribute", "NoneType", "Traceback", "KeyError", "TypeError")


def _fuzz_sample() -> list[dict]:
    fuzzed = getattr(sys.modules.get("test_fuzz"), "ACCEPTED_SCENARIOS", [])
    return fuzzed[:WORKER_SAMPLE]


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
@pytest.mark.parametrize("which", [
    "docs example",  # its partial placement is completed from the stage's default by the scenario contract
    "fuzz sample",
])
def test_what_the_api_accepts_runs_on_a_real_worker(celery_worker_process, user, settings, which):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from apps import settings as project_settings
    from apps.workloads.catalogue import load_catalogue

    settings.MEDIA_ROOT = project_settings.MEDIA_ROOT
    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    # the fuzz sample needs test_fuzz.py run first in the session; alone, a plain accepted body stands in
    sample = [DOCS_EXAMPLE] if which == "docs example" else (_fuzz_sample() or [PLAIN])
    for body in sample:
        created = client.post("/api/v1/scenarios/", {**body, "replications": 1, "run": True}, format="json")
        assert created.status_code == 201, (body, created.json())
        url = f"/api/v1/scenarios/{created.json()['id']}/status/"
        status = wait_for(lambda url=url: (answer := client.get(url).json())["finished"] and answer, 300,
                          f"the scenario {body.get('name')!r} to finish on the worker")
        assert status["status"] in ("succeeded", "failed"), (body, status)
        for platform in status["platforms"]:
            assert not any(marker in (platform.get("error") or "") for marker in INTERNAL), (body, platform)
