"""Starting a platform on the site with no copy: the new-platform page (name, kind, one node type and one storage
tier, each value with its unit and source) creates it in the active workspace through the API's service and opens
its edit page; refusals sit beside their field and save nothing; viewers cannot."""

from __future__ import annotations

import pytest

from apps.accounts.workspaces import personal_workspace
from apps.platforms.models import Platform

pytestmark = pytest.mark.django_db

SHEET = {"kind": "paper", "title": "Campus cluster user guide", "where": "§2, Table 1"}


def _sourced(prefix: str, value: str, source: dict = SHEET) -> dict:
    return {prefix: value, **{f"{prefix}-{key}": v for key, v in source.items()}}


def _new(**changes) -> dict:
    data = {"platform-new-name": "Campus cluster", "platform-new-kind": "owned_cluster",
            "platform-new-node_type": "compute", "platform-new-tier": "Lustre",
            "platform-new-tier_kind": "parallel_fs",
            **_sourced("platform-max_nodes", "8"), **_sourced("platform-wan_bandwidth", "10 Gb/s"),
            **_sourced("node-cores", "12"), **_sourced("node-memory", "64 GiB"),
            **_sourced("node-nic_bandwidth", "10 Gb/s"), **_sourced("node-count", "8"),
            **_sourced("tier-scope", "shared"), **_sourced("tier-read_bw", "2 GB/s"),
            **_sourced("tier-write_bw", "1.5 GB/s")}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def test_the_list_offers_a_new_platform_to_an_editor(logged_in):
    assert 'href="/platforms/new/"' in logged_in.get("/platforms/").content.decode()


def test_a_new_platform_is_created_with_its_node_type_and_tier_and_opens_its_edit_page(logged_in, catalogue, user):
    response = logged_in.post("/platforms/new/", _new())
    assert response.status_code == 302, response.context["editor"].error_summary()
    platform = Platform.objects.get(name="Campus cluster")
    assert response["Location"] == f"/platforms/{platform.slug}/edit/"
    assert platform.workspace == personal_workspace(user) and platform.kind == "owned_cluster"
    assert (platform.max_nodes, platform.wan_bandwidth) == (8, 1.25e9)
    (node,) = platform.node_types.all()
    (tier,) = platform.storage_tiers.all()
    assert (node.name, node.cores, node.memory, node.count) == ("compute", 12, 64 * 2**30, 8)
    assert (tier.name, tier.kind, tier.read_bw, tier.write_bw) == ("Lustre", "parallel_fs", 2e9, 1.5e9)
    assert tier.source_of("read_bw") == SHEET and node.source_of("cores") == SHEET
    for page in (response["Location"], f"/platforms/{platform.slug}/structure/", f"/platforms/{platform.slug}/"):
        assert logged_in.get(page).status_code == 200


def test_a_price_in_another_currency_keeps_its_amount_and_rate_in_its_source(logged_in, catalogue):
    prices = {"kind": "url", "url": "https://aws.amazon.com/ec2/pricing/on-demand/", "accessed": "2026-11-25"}
    response = logged_in.post("/platforms/new/", _new(**{
        "platform-new-kind": "public_cloud", **_sourced("node-on_demand_price", "1.728 USD/h", {
            "kind": "url", "url": prices["url"]})}))
    assert response.status_code == 302, response.context["editor"].error_summary()
    node = Platform.objects.get(name="Campus cluster").node_types.get()
    assert node.source_of("on_demand_price")["converted_from"]


@pytest.mark.parametrize(("changes", "form", "field", "words"), [
    ({"node-cores-kind": ""}, "node_type", "cores", "give its new source"),
    ({"tier-read_bw": "2 GB"}, "tier", "read_bw", "unit"),
    ({"node-cores": "0"}, "node_type", "cores", ""),
    ({"platform-new-name": "Magnus (Pawsey Cray XC40)"}, "identity", "name", "another platform"),
])
def test_a_refusal_sits_beside_its_field_and_nothing_is_saved(logged_in, catalogue, changes, form, field, words):
    response = logged_in.post("/platforms/new/", _new(**changes))
    assert response.status_code == 400
    errors = getattr(response.context["editor"], form).errors
    assert field in errors, response.context["editor"].error_summary()
    assert words in " ".join(errors[field])
    assert not Platform.objects.filter(workspace__isnull=False).exists()


def test_a_viewer_cannot_create_a_platform(as_viewer, catalogue, user):
    client, shared = as_viewer, personal_workspace(user)
    assert 'href="/platforms/new/"' not in client.get("/platforms/").content.decode()
    assert client.get("/platforms/new/").status_code == 403
    assert client.post("/platforms/new/", _new()).status_code == 403
    assert not Platform.objects.filter(workspace=shared).exists()
