"""The structure page of a workspace's platform: an editor renames a node type, adds a storage tier as a copy of
another and changes a tier's kind, through the catalogue entry the API takes; a change the loader refuses is shown
beside its row and nothing is saved; the reference catalogue and viewers cannot use it."""

from __future__ import annotations

import pytest

from apps.platforms.models import Platform
from apps.workloads.platform_entries import platform_entry

pytestmark = pytest.mark.django_db


def _data(client, platform, **changes) -> dict:
    """The page's form as shown (nothing changed), then ``changes`` by input name."""
    response = client.get(f"/platforms/{platform.slug}/structure/")
    assert response.status_code == 200
    data = {}
    for form in response.context["editor"].forms():
        for name in form.fields:
            value = form[name].value()
            if value not in (None, False, ""):
                data[form[name].html_name] = value
    data.update(changes)
    return data


def test_a_node_type_is_renamed_and_a_tier_added_as_a_copy_with_its_values_and_sources(client, team, magnus_copy):
    client.force_login(team["dave"])
    node = magnus_copy.node_types.get()
    tier = magnus_copy.storage_tiers.get()
    data = _data(client, magnus_copy, **{f"node_types-{node.pk}-name": "haswell", "add-storage_tiers-name": "burst",
                                         "add-storage_tiers-like": tier.name})
    response = client.post(f"/platforms/{magnus_copy.slug}/structure/", data)
    assert response.status_code == 302, response.context["editor"].error_summary()
    platform = Platform.objects.get(pk=magnus_copy.pk)
    assert [n.name for n in platform.node_types.all()] == ["haswell"]
    renamed = platform.node_types.get()
    given = [n for n in node.FACT_FIELDS if getattr(node, n) not in (None, "")]
    assert {n: getattr(renamed, n) for n in given} == {n: getattr(node, n) for n in given}
    assert {n: renamed.source_of(n) for n in given} == {n: node.source_of(n) for n in given}
    burst = platform.storage_tiers.get(name="burst")
    assert burst.read_bw == tier.read_bw and burst.source_of("read_bw") == tier.source_of("read_bw")
    assert burst.kind == tier.kind


def test_a_tiers_kind_changes(client, team, magnus_copy):
    client.force_login(team["dave"])
    tier = magnus_copy.storage_tiers.get()
    data = _data(client, magnus_copy, **{f"storage_tiers-{tier.pk}-kind": "nfs_raid"})
    response = client.post(f"/platforms/{magnus_copy.slug}/structure/", data)
    assert response.status_code == 302, response.context["editor"].error_summary()
    assert Platform.objects.get(pk=magnus_copy.pk).storage_tiers.get().kind == "nfs_raid"


def test_a_refused_change_is_shown_beside_its_row_and_nothing_is_saved(client, team, magnus_copy):
    client.force_login(team["dave"])
    before = platform_entry(Platform.objects.get(pk=magnus_copy.pk))
    tier = magnus_copy.storage_tiers.get()
    data = _data(client, magnus_copy, **{"add-storage_tiers-name": tier.name, "add-storage_tiers-like": tier.name})
    response = client.post(f"/platforms/{magnus_copy.slug}/structure/", data)
    assert response.status_code == 400
    summary = " | ".join(response.context["editor"].error_summary())
    assert "New storage tier" in summary and tier.name in summary, summary
    assert platform_entry(Platform.objects.get(pk=magnus_copy.pk)) == before


def test_the_reference_catalogue_and_viewers_cannot_change_the_structure(client, team, magnus_copy):
    client.force_login(team["dave"])
    assert client.get("/platforms/magnus/structure/").status_code == 403
    assert "Node types and storage tiers" in client.get(f"/platforms/{magnus_copy.slug}/").content.decode()
    client.force_login(team["carol"])
    assert client.get(f"/platforms/{magnus_copy.slug}/structure/").status_code == 403
    assert "Node types and storage tiers" not in client.get(f"/platforms/{magnus_copy.slug}/").content.decode()
