"""The capacity a profile's phases are labelled against is the node the model would run it on."""

from __future__ import annotations

from apps.platforms.models import Platform
from apps.profiles.adapters import default_node_and_tier, host_capacity


def test_it_uses_the_platforms_default_node_type_not_the_first_by_name(catalogue):
    pleiades = Platform.objects.get(slug="pleiades")
    by_name = pleiades.node_types.order_by("name").first()
    node_name, tier_name = default_node_and_tier(pleiades)
    default = pleiades.node_types.get(name=node_name)
    # the compute partition (most cores in total), not the 2-core data-transfer node first in name order
    assert by_name.name != default.name
    assert by_name.cores != default.cores
    capacity = host_capacity(pleiades)
    assert capacity.cores == float(default.cores)
    assert tier_name in capacity.source


def test_it_has_no_capacity_without_a_platform():
    assert host_capacity(None) is None
