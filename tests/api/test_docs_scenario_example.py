"""What the API accepts actually runs: docs/api.md's scenario example (a partial placement on AWS, a queue-wait
override on Magnus, a workload override) is created, run on a real Celery worker, and finishes on every platform.

It used to be accepted with a 201 and then fail on the worker (``'NoneType' object has no attribute 'kind'``): the
placement ``{"stage": "invert", "nodes": 10, "pricing": "spot"}`` left the storage tiers out.  The scenario contract
now completes a partial placement from the stage's default.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from apps.scenarios.models import Scenario
from tests.worker_processes import wait_for

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def documented_scenario() -> dict:
    """The JSON body under "Creating a scenario" in docs/api.md, as written there."""
    text = DOCS.read_text()
    block = re.search(r"### Creating a scenario\s+```json\s+POST /api/v1/scenarios/\s+(\{.*?\})\s+```", text, re.S)
    assert block, "docs/api.md has no scenario example under 'Creating a scenario'"
    return json.loads(block.group(1))


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_the_documented_scenario_is_accepted_and_runs_on_a_worker(celery_worker_process, user, settings):
    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    client = APIClient()
    client.force_authenticate(user)
    body = documented_scenario() | {"run": True, "replications": 2}
    assert body["platforms"][1]["options"]["placements"] == [{"stage": "invert", "nodes": 10, "pricing": "spot"}]

    created = client.post("/api/v1/scenarios/", body, format="json")
    assert created.status_code == 201, created.json()
    url = f"/api/v1/scenarios/{created.json()['id']}/status/"

    status = wait_for(lambda: (lambda s: s if s["finished"] else None)(client.get(url).json()), 300,
                      "the documented scenario to finish")
    assert status["status"] == "succeeded", status
    assert [p["status"] for p in status["platforms"]] == ["succeeded", "succeeded"]
    aws = Scenario.objects.get().entries.get(platform__slug="aws-sydney").run
    invert = [t for t in aws.replication_set.first().result["tasks"] if t["stage"] == "invert"]
    assert len(invert) == 120  # one per sub-band
    assert most_at_once(invert) <= 10  # the placement's "nodes": 10 instances at most


def most_at_once(tasks: list[dict]) -> int:
    """The largest number of tasks running at the same time."""
    events = sorted([(t["start_s"], 1) for t in tasks] + [(t["end_s"], -1) for t in tasks], key=lambda e: (e[0], e[1]))
    running = peak = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    return peak
