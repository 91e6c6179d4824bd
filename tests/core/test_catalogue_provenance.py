"""The reference catalogue loads, and every value in it says where it came from."""

import pytest

from apps.core.provenance import source_errors
from apps.platforms.models import NodeType, Platform, StorageTier
from apps.workloads.models import ReferenceObservation, Workload, WorkloadStage

pytestmark = pytest.mark.django_db

CHILES_PLATFORMS = {"pleiades", "magnus", "aws-sydney"}


def test_it_loads_the_three_chiles_platforms_and_the_epoch_workload(catalogue):
    assert CHILES_PLATFORMS <= set(Platform.objects.values_list("slug", flat=True))
    assert Workload.objects.filter(slug="chiles-epoch1", template="stages").exists()


def test_it_loads_the_aws_instance_types_of_table_2(catalogue):
    names = set(NodeType.objects.filter(platform__slug="aws-sydney").values_list("name", flat=True))
    assert {"m3.medium", "m3.xlarge", "r3.2xlarge", "r3.4xlarge"} <= names


def test_it_converts_units_on_load(catalogue):
    r3 = NodeType.objects.get(platform__slug="aws-sydney", name="r3.4xlarge")
    assert r3.cores == 16
    assert r3.memory == pytest.approx(122e9, rel=0.08)  # Table 2 says 122 GB (decimal or binary)


@pytest.mark.parametrize("model", [Platform, NodeType, StorageTier, Workload, WorkloadStage])
def test_it_has_provenance_for_every_value(catalogue, model):
    objects = list(model.objects.all())
    assert objects, f"no {model.__name__} in the catalogue"
    problems = {str(obj): obj.provenance_problems() for obj in objects if obj.provenance_problems()}
    assert problems == {}


def test_it_has_a_valid_source_for_every_reference_observation(catalogue):
    bad = {o.key: source_errors(o.source) for o in ReferenceObservation.objects.all() if source_errors(o.source)}
    assert ReferenceObservation.objects.count() > 10
    assert bad == {}


def test_it_detects_a_value_without_provenance(catalogue):
    platform = Platform.objects.get(slug="magnus")
    platform.provenance.pop("max_nodes")

    assert platform.provenance_problems() == {"max_nodes": ["has a value but no source"]}
