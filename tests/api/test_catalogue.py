"""Platforms and workloads over the API: lists, details, every value with its unit and provenance."""

from __future__ import annotations


def test_platforms_are_listed_with_links(api, catalogue):
    body = api.get("/api/v1/platforms/").json()
    slugs = {p["slug"] for p in body["results"]}
    assert {"magnus", "pleiades", "aws-sydney"} <= slugs
    assert body["count"] == len(slugs)
    magnus = next(p for p in body["results"] if p["slug"] == "magnus")
    assert magnus["url"].endswith("/api/v1/platforms/magnus/")


def test_a_platform_shows_each_value_with_its_source(api, catalogue):
    from apps.platforms.models import Platform

    magnus = Platform.objects.get(slug="magnus")
    body = api.get("/api/v1/platforms/magnus/").json()
    median = body["facts"]["queue_wait_median"]
    assert median["value"] == magnus.queue_wait_median and median["unit"] == "s"
    assert median["source"] == magnus.source_of("queue_wait_median")
    assert median["source_text"] == magnus.source_text("queue_wait_median")
    tier = body["storage_tiers"][0]
    assert tier["facts"] and all("source" in f for f in tier["facts"].values())
    assert body["node_types"][0]["facts"]["cores"]["unit"] == ""


def test_a_workload_shows_parameters_and_stage_demands_with_sources(api, catalogue):
    from apps.workloads.models import Workload

    workload = Workload.objects.get(slug="chiles-epoch1")
    body = api.get("/api/v1/workloads/chiles-epoch1/").json()
    assert body["template"] == "stages"
    name, value = next(iter(workload.parameters.items()))
    assert body["parameters"][name]["value"] == value
    assert body["parameters"][name]["source"] == workload.source_of(name)
    assert [s["name"] for s in body["stages"]] == ["copy", "split", "split_regrid", "split_flag", "invert",
                                                 "invert_grid_serial", "invert_grid_parallel", "invert_deconvolve",
                                                 "invert_finalise", "concat"]


def test_an_unknown_slug_is_a_json_404(api, catalogue):
    for url in ("/api/v1/platforms/nowhere/", "/api/v1/workloads/nothing/"):
        response = api.get(url)
        assert response.status_code == 404
        assert response.json() == {"detail": "No Platform matches the given query."} or "detail" in response.json()
