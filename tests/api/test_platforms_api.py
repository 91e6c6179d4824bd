"""A workspace's platforms over the API: an editor creates one from scratch, adds, removes and renames node types and
storage tiers and changes a tier's kind, every value with a unit and a source (the catalogue loader's checks); a
viewer reads; anyone else gets a 404; the reference catalogue is read-only."""

from __future__ import annotations

import copy

import pytest

from apps.accounts.workspaces import Role, add_member, personal_workspace
from apps.platforms.models import Platform

pytestmark = pytest.mark.django_db

PRICE_PAGE = {"kind": "url", "url": "https://aws.amazon.com/ec2/pricing/on-demand/", "accessed": "2026-11-25"}
SPEC = {"kind": "paper", "title": "Instance type data sheet", "where": "Table 1"}
GUESS = {"kind": "assumption", "reason": "what the batch scheduler is configured with"}


def fact(value, unit="", source=SPEC) -> dict:
    return {"value": value, "unit": unit, "source": source}


CLOUD = {
    "name": "Our cloud cluster",
    "kind": "public_cloud",
    "facts": {"wan_bandwidth": fact(10, "Gb/s"), "billing_unit": fact("instance_hour", source=GUESS)},
    "node_types": [{"name": "c5.9xlarge", "facts": {
        "cores": fact(32), "memory": fact(72, "GiB"), "nic_bandwidth": fact(10, "Gb/s"), "slots": fact(24, source=GUESS),
        "local_disk": fact(600, "GB"), "local_disk_kind": fact("ssd"), "count": fact(20, source=GUESS),
        "on_demand_price": fact(3.06, "AUD/h", PRICE_PAGE)}}],
    "storage_tiers": [
        {"name": "S3", "kind": "object_store", "facts": {"scope": fact("shared"),
                                                         "read_bw": fact(5, "GB/s", GUESS)}},
        {"name": "instance store", "kind": "local_ssd", "facts": {"scope": fact("per_node"),
                                                                  "read_bw": fact(1, "GB/s")}},
    ],
}


@pytest.fixture
def created(api, user) -> dict:
    response = api.post("/api/v1/platforms/", CLOUD, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_an_editor_creates_a_platform_from_scratch_with_units_and_sources(created, api):
    assert (created["slug"], created["workspace"], created["copied_from"]) == ("our-cloud-cluster", "ada", None)
    node = created["node_types"][0]
    assert node["name"] == "c5.9xlarge"
    assert node["facts"]["slots"]["value"] == 24 and node["facts"]["cores"]["value"] == 32
    assert node["facts"]["nic_bandwidth"]["value"] == 1.25e9  # 10 Gb/s in bytes/s
    assert node["facts"]["on_demand_price"]["value"] == 3.06
    assert node["facts"]["on_demand_price"]["source"] == PRICE_PAGE
    assert {t["name"]: t["kind"] for t in created["storage_tiers"]} == {"S3": "object_store",
                                                                        "instance store": "local_ssd"}
    assert api.get("/api/v1/platforms/our-cloud-cluster/").json() == created


def test_patch_renames_a_node_type_changes_a_tier_kind_and_removes_a_tier(created, api):
    body = copy.deepcopy(CLOUD)
    body["node_types"][0]["name"] = "c5.9xl"
    body["storage_tiers"] = [{**body["storage_tiers"][1], "kind": "block_gp", "name": "EBS"}]
    response = api.patch("/api/v1/platforms/our-cloud-cluster/", {
        "node_types": body["node_types"], "storage_tiers": body["storage_tiers"],
        "facts": {"wan_bandwidth": fact(20, "Gb/s", GUESS), "billing_unit": None}}, format="json")

    assert response.status_code == 200, response.json()
    after = response.json()
    assert [n["name"] for n in after["node_types"]] == ["c5.9xl"]
    assert [(t["name"], t["kind"]) for t in after["storage_tiers"]] == [("EBS", "block_gp")]
    assert after["facts"]["wan_bandwidth"]["value"] == 2.5e9 and "billing_unit" not in after["facts"]
    platform = Platform.objects.get(slug="our-cloud-cluster")
    assert platform.node_types.count() == 1 and platform.storage_tiers.count() == 1


def test_put_adds_a_node_type(created, api):
    body = copy.deepcopy(CLOUD)
    body["node_types"].append({"name": "head", "facts": {"cores": fact(4), "memory": fact(8, "GiB")}})
    response = api.put("/api/v1/platforms/our-cloud-cluster/", body, format="json")
    assert response.status_code == 200, response.json()
    assert [n["name"] for n in response.json()["node_types"]] == ["c5.9xlarge", "head"]


@pytest.mark.parametrize(("change", "key", "words"), [
    (lambda b: b["node_types"][0]["facts"]["nic_bandwidth"].update(unit="GB"), "node_types[0].facts.nic_bandwidth",
     "GB"),
    (lambda b: b["node_types"][0]["facts"]["memory"].update(unit=""), "node_types[0].facts.memory", "needs a unit"),
    (lambda b: b["node_types"][0]["facts"]["cores"].pop("source"), "node_types[0].facts.cores", "'source'"),
    (lambda b: b["node_types"][0]["facts"]["cores"].update(value=0), "node_types[0]", "cores"),
    (lambda b: b["storage_tiers"][1].update(kind="floppy"), "storage_tiers[1]", "kind"),
    (lambda b: b["storage_tiers"][1].update(name="S3"), "storage_tiers[1].name", "a second one called 'S3'"),
    (lambda b: b["node_types"][0]["facts"].update(platform=fact(1)), "node_types[0].facts.platform",
     "unknown fact 'platform'"),
    (lambda b: b["facts"]["wan_bandwidth"].update(source={"kind": "paper", "title": "x"}),
     "facts.wan_bandwidth.source", "'where'"),
    (lambda b: b.update(kind="mainframe"), "", "kind"),
    (lambda b: b.update(node_types="c5"), "node_types", "expected a list"),
    (lambda b: b.update(name="Magnus (Pawsey Cray XC40)"), "name", "the name of another platform"),
    (lambda b: b.update(name="\x00"), "name", "NUL character"),
    (lambda b: b["storage_tiers"][1].update(name="ssd\x00"), "storage_tiers[1].name", "NUL character"),
])
def test_a_refused_platform_names_the_value_in_error_and_saves_nothing(api, catalogue, user, change, key, words):
    body = copy.deepcopy(CLOUD)
    change(body)
    before = Platform.objects.count()
    response = api.post("/api/v1/platforms/", body, format="json")

    assert response.status_code == 400
    errors = response.json()
    assert list(errors) == [key or "non_field_errors"], errors
    assert words in " ".join(errors[key or "non_field_errors"])
    assert Platform.objects.count() == before


def test_a_refused_change_leaves_the_platform_as_it_was(created, api):
    body = copy.deepcopy(CLOUD)
    body["storage_tiers"] = []
    body["node_types"][0]["facts"]["cores"]["value"] = -1
    assert api.put("/api/v1/platforms/our-cloud-cluster/", body, format="json").status_code == 400
    assert api.get("/api/v1/platforms/our-cloud-cluster/").json() == created


def test_the_reference_catalogue_is_read_only(api, catalogue, user):
    assert api.patch("/api/v1/platforms/magnus/", {"name": "x"}, format="json").status_code == 403
    assert api.put("/api/v1/platforms/magnus/", CLOUD, format="json").status_code == 403
    assert api.delete("/api/v1/platforms/magnus/").status_code == 403
    assert Platform.objects.get(slug="magnus").name == "Magnus (Pawsey Cray XC40)"


def test_a_copy_is_changed_like_a_platform_made_here(api, catalogue, user):
    copied = api.post("/api/v1/platforms/magnus/copy/").json()
    tiers = [{"name": t["name"], "kind": "parallel_fs" if t["kind"] != "parallel_fs" else t["kind"],
              "facts": {k: {"value": v["value"], "unit": v["unit"], "source": v["source"]}
                        for k, v in t["facts"].items()}} for t in copied["storage_tiers"]]
    response = api.patch(f"/api/v1/platforms/{copied['slug']}/", {"storage_tiers": tiers}, format="json")
    assert response.status_code == 200, response.json()
    assert {t["kind"] for t in response.json()["storage_tiers"]} == {"parallel_fs"}


def test_another_workspace_does_not_see_or_change_it_and_a_viewer_only_reads(created, user, bob, client_of):
    client = client_of(bob)
    assert client.get("/api/v1/platforms/our-cloud-cluster/").status_code == 404
    assert client.patch("/api/v1/platforms/our-cloud-cluster/", {"name": "x"}, format="json").status_code == 404
    assert client.delete("/api/v1/platforms/our-cloud-cluster/").status_code == 404
    add_member(personal_workspace(user), "bob", Role.VIEWER)
    assert client.get("/api/v1/platforms/our-cloud-cluster/").status_code == 200
    assert client.patch("/api/v1/platforms/our-cloud-cluster/", {"name": "x"}, format="json").status_code == 403
    assert client.delete("/api/v1/platforms/our-cloud-cluster/").status_code == 403


def test_an_editor_deletes_it(created, api):
    assert api.delete("/api/v1/platforms/our-cloud-cluster/").status_code == 204
    assert not Platform.objects.filter(slug="our-cloud-cluster").exists()
