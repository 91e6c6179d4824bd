"""A finished demo scenario (the paper's CHILES epoch on its three platforms), simulated in-process."""

from __future__ import annotations

import pytest
from django.db import transaction

from apps.scenarios.services import create_demo_scenario, execute_replication, run_scenario


def execute(scenario) -> None:
    for run in scenario.runs():
        for rep in run.replication_set.all():
            execute_replication(str(run.id), rep.index)


@pytest.fixture
def simulate_here():
    """``simulate_here(scenario)`` creates the scenario's runs and executes them in this process; returns it."""

    def run(scenario):
        scenario = run_scenario(scenario, dispatch=False)
        execute(scenario)
        scenario.refresh_from_db()
        return scenario

    return run


@pytest.fixture
def finished_demo(catalogue, user):
    scenario = create_demo_scenario(user)
    scenario = run_scenario(scenario, dispatch=False)
    execute(scenario)
    scenario.refresh_from_db()
    assert scenario.status() == "succeeded"
    return scenario


@pytest.fixture(scope="module")
def demo_document(django_db_setup, django_db_blocker):
    """The report document of the finished demo, computed once per test module in a transaction that is then
    rolled back (the document is plain data; the exports need no database)."""
    from django.conf import settings

    from apps.reports.document import build_document
    from apps.workloads.catalogue import load_catalogue

    with django_db_blocker.unblock(), transaction.atomic():
        load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
        scenario = run_scenario(create_demo_scenario(), dispatch=False)
        execute(scenario)
        scenario.refresh_from_db()
        doc = build_document(scenario)
        transaction.set_rollback(True)
    return doc
