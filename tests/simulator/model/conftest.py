"""The shipped catalogue as simulator specs, through the one conversion (``simulator.model.catalogue``)."""

from pathlib import Path

import pytest

from simulator.model.catalogue import load_catalogue

CATALOGUE = Path(__file__).resolve().parents[3] / "fixtures" / "catalogue"


@pytest.fixture(scope="session")
def specs():
    """``(platforms, workloads, observations)`` of ``fixtures/catalogue`` (no database)."""
    return load_catalogue(CATALOGUE)


@pytest.fixture(scope="session")
def platforms(specs):
    return specs[0]


@pytest.fixture(scope="session")
def chiles(specs):
    return specs[1]["chiles-epoch1"]
