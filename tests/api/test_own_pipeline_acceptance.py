"""Acceptance of "your own pipeline" through the API alone, as a non-staff editor: a 3-stage job array (stage-in
from object storage to node-local disk, compute, stage-out), a cloud platform of 32-vCPU instances with 24 job slots
each (object store + local SSD, an hourly price in USD), a campus cluster of 12-core nodes on a shared parallel file
system under a 30% background load, a scenario comparing them, run, and its ranked results.

The replications run in this process (the scenario's runs are sent to workers on commit, which a test's transaction
never reaches); everything else is the HTTP API."""

from __future__ import annotations

import pytest

from apps.scenarios.models import Scenario
from apps.scenarios.services import execute_replication

pytestmark = pytest.mark.django_db

LOG = {"kind": "measurement", "host": "campus-login1", "date": "2026-11-02"}
GUESS = {"kind": "assumption", "reason": "what our scheduler is configured with"}
PRICES = {"kind": "url", "url": "https://aws.amazon.com/ec2/pricing/on-demand/", "accessed": "2026-11-25"}
SHEET = {"kind": "paper", "title": "Campus cluster user guide", "where": "§2, Table 1"}
JOBS = 48


def fact(value, unit="", source=GUESS) -> dict:
    return {"value": value, "unit": unit, "source": source}


PIPELINE = {
    "name": "Spectra per file",
    "template": "job_array",
    "parameters": {"n_jobs": fact(JOBS)},
    "stages": [
        {"name": "stage_in", "facts": {"n_tasks": fact(JOBS), "input_read_bytes": fact(0.6, "GB", LOG),
                                       "scratch_write_bytes": fact(0.6, "GB", LOG)}},
        {"name": "compute", "facts": {"n_tasks": fact(JOBS), "depends_on": fact(["stage_in"]),
                                      "dependency": fact("one_to_one"), "cpu_seconds": fact(60, "s", LOG),
                                      "scratch_read_bytes": fact(0.6, "GB", LOG),
                                      "scratch_write_bytes": fact(0.15, "GB", LOG)}},
        {"name": "stage_out", "facts": {"n_tasks": fact(JOBS), "depends_on": fact(["compute"]),
                                        "dependency": fact("one_to_one"), "scratch_read_bytes": fact(0.15, "GB", LOG),
                                        "output_write_bytes": fact(0.15, "GB", LOG)}},
    ],
}

CLOUD = {
    "name": "Cloud batch cluster",
    "kind": "public_cloud",
    "facts": {"wan_bandwidth": fact(10, "Gb/s"), "billing_unit": fact("instance_hour", source=PRICES),
              "billing_granularity": fact(1, "h", PRICES), "max_nodes": fact(4)},
    "node_types": [{"name": "c5.9xlarge", "facts": {
        "cores": fact(32, source=PRICES), "memory": fact(72, "GiB", PRICES), "nic_bandwidth": fact(10, "Gb/s", PRICES),
        "slots": fact(24), "local_disk": fact(900, "GB", PRICES), "local_disk_kind": fact("ssd", source=PRICES),
        "count": fact(4), "on_demand_price": fact(1.728, "USD/h", PRICES)}}],
    "storage_tiers": [
        {"name": "S3", "kind": "object_store", "facts": {"scope": fact("shared"), "read_bw": fact(5, "GB/s"),
                                                         "write_bw": fact(5, "GB/s"),
                                                         "read_bw_per_client": fact(100, "MB/s"),
                                                         "write_bw_per_client": fact(100, "MB/s")}},
        {"name": "instance store", "kind": "local_ssd", "facts": {"scope": fact("per_node"),
                                                                  "read_bw": fact(1, "GB/s", PRICES),
                                                                  "write_bw": fact(800, "MB/s", PRICES)}},
    ],
}

CAMPUS = {
    "name": "Campus cluster",
    "kind": "owned_cluster",
    "facts": {"wan_bandwidth": fact(10, "Gb/s", SHEET), "max_nodes": fact(8, source=SHEET)},
    "node_types": [{"name": "compute", "facts": {
        "cores": fact(12, source=SHEET), "memory": fact(64, "GiB", SHEET), "nic_bandwidth": fact(10, "Gb/s", SHEET),
        "slots": fact(12, source=SHEET), "count": fact(8, source=SHEET)}}],
    "storage_tiers": [
        {"name": "Lustre", "kind": "parallel_fs", "facts": {"scope": fact("shared", source=SHEET),
                                                            "read_bw": fact(2, "GB/s", SHEET),
                                                            "write_bw": fact(1.5, "GB/s", SHEET)}},
    ],
}


def _placements(node_type: str, nodes: int, tier_in: str, scratch: str, tier_out: str) -> list[dict]:
    return [{"stage": stage, "node_type": node_type, "nodes": nodes, "policy": "dynamic", "storage_in": tier_in,
             "storage_scratch": scratch, "storage_out": tier_out} for stage in ("stage_in", "compute", "stage_out")]


def test_a_new_user_models_their_own_pipeline_and_gets_a_ranked_comparison(api, catalogue, user):
    assert not user.is_staff
    created = {}
    for path, body in (("workloads", PIPELINE), ("platforms", CLOUD), ("platforms", CAMPUS)):
        response = api.post(f"/api/v1/{path}/", body, format="json")
        assert response.status_code == 201, response.json()
        created[body["name"]] = response.json()
    cloud, campus = created["Cloud batch cluster"], created["Campus cluster"]
    price = cloud["node_types"][0]["facts"]["on_demand_price"]
    assert price["source"]["converted_from"]  # kept in AUD with the USD amount and the rate

    scenario = api.post("/api/v1/scenarios/", {
        "name": "Cloud or campus for our spectra", "workload": created["Spectra per file"]["slug"],
        "replications": 1,
        "platforms": [
            {"platform": cloud["slug"], "options": {
                "placements": _placements("c5.9xlarge", 2, "S3", "instance store", "S3")}},
            {"platform": campus["slug"], "options": {
                "placements": _placements("compute", 4, "Lustre", "Lustre", "Lustre"),
                "background_load": {"Lustre": {"share": 0.3, "source": "assumption: other users' share"}}}},
        ]}, format="json")
    assert scenario.status_code == 201, scenario.json()
    scenario_id = scenario.json()["id"]
    assert api.post(f"/api/v1/scenarios/{scenario_id}/run/").status_code == 202
    for run in Scenario.objects.get(pk=scenario_id).runs():
        assert execute_replication(str(run.pk), 0) == "succeeded"

    results = api.get(f"/api/v1/scenarios/{scenario_id}/results/")
    assert results.status_code == 200, results.json()
    body = results.json()
    summary = {row["platform"]: row["results"] for row in body["summary"]}
    # billed per instance, not per slot: 2 instances for one started hour (the run takes minutes)
    assert summary[cloud["slug"]]["makespan_p50_s"] < 3600
    assert summary[cloud["slug"]]["cost_p50_aud"] == pytest.approx(2 * price["value"])
    # the campus file system keeps 70% of its 2 GB/s for us: 48 jobs reading 1.35 GB each take at least this long
    assert summary[campus["slug"]]["makespan_p50_s"] >= JOBS * 1.35e9 / (0.7 * 2e9)
    aggregates = body["scoring"]["rows"]["aggregate_rows"]
    assert aggregates and all(sorted(row["order"]) == sorted([cloud["slug"], campus["slug"]]) for row in aggregates)
