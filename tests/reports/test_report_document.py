"""The report document: complete, valid against its versioned JSON schema, computed (not copied)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from apps.reports.document import SCHEMA_VERSION, ReportNotReady, build_document
from apps.scenarios.services import create_demo_scenario, what_if
from apps.scoring.logic import aggregate as agg

SCHEMA = Path(__file__).resolve().parents[2] / "apps" / "reports" / "schema" / f"report-{SCHEMA_VERSION}.json"


@pytest.fixture
def doc(demo_document):
    return demo_document


def test_the_document_validates_against_its_published_schema(doc):
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(doc)
    assert doc["schema_version"] == SCHEMA_VERSION


def test_the_ranking_follows_the_weighted_sum_of_the_ranks_it_lists(doc):
    ranks: dict[str, list[int]] = {}
    for r in doc["ranks"]:
        ranks.setdefault(r["platform"], []).append(r["score"])
    weights = [c["weight"] for c in doc["criteria"]]
    expected = agg.aggregate(ranks, weights)["weighted_sum"]
    assert [r["platform"] for r in doc["ranking"]] == agg.order(expected)
    assert [r["position"] for r in doc["ranking"]] == [1, 2, 3]
    for row in doc["ranking"]:
        assert row["score"] == pytest.approx(expected[row["platform"]])
    assert doc["recommendation"]["platform"] == doc["ranking"][0]["platform"]
    assert doc["recommendation"]["name"] in doc["recommendation"]["text"]


def test_costs_sum_to_the_median_replications_bill_and_tco_accumulates(doc):
    by_platform: dict[str, float] = {}
    for line in doc["costs"]:
        by_platform[line["platform"]] = by_platform.get(line["platform"], 0.0) + line["aud"]
    assert by_platform["aws-sydney"] > 0 and "pleiades" not in by_platform  # an owned cluster bills nothing per run
    for p in doc["tco"]["platforms"]:
        running = 0.0
        for year in p["years"]:
            running += year["total_aud"]
            assert year["cumulative_aud"] == pytest.approx(running)
        assert p["total_aud"] == pytest.approx(running)


def test_every_input_says_where_it_came_from(doc):
    assert len(doc["inputs"]) > 100
    kinds = {i["source_kind"] for i in doc["inputs"]}
    assert kinds <= {"seed", "measurement", "assumption", "fitted"}, kinds  # nothing overridden or stale here
    assert all(i["source"].strip() for i in doc["inputs"])
    owners = {i["owner"] for i in doc["inputs"]}
    assert owners == {"chiles-epoch1", "pleiades", "magnus", "aws-sydney"}
    seed_rows = [i for i in doc["inputs"] if i["source_kind"] == "seed"]
    # a seed source reads as its paper's citation, the file name kept in the full text
    assert all("(seed file 0" in i["source"] and "_" not in i["source_short"] for i in seed_rows)
    assert any(i["source_short"].startswith("Dodson et al. (CHILES) · ") for i in seed_rows)


def test_an_override_is_labelled_as_set_by_the_scenario(finished_demo, simulate_here):
    magnus = finished_demo.entries.get(platform__slug="magnus").platform
    halved = magnus.queue_wait_median / 2
    child = what_if(finished_demo, change="halve the Magnus queue wait",
                    entry_changes={"magnus": {"platform_overrides": {"facts": {"queue_wait_median": halved}}}})
    child = simulate_here(child)
    doc = build_document(child)
    [row] = [i for i in doc["inputs"] if i["owner"] == "magnus" and i["path"] == "facts.queue_wait_median"]
    assert row["source_kind"] == "override" and row["value"] == pytest.approx(halved)
    assert "Set by this scenario" in row["source"]
    assert doc["scenario"]["what_if_of"] == str(finished_demo.pk) and doc["validation"] is None


def test_the_papers_scenario_carries_its_validation_and_the_figures(doc):
    assert doc["validation"]["total"] > 0 and 0 <= doc["validation"]["met"] <= doc["validation"]["total"]
    assert {"radar", "tco", "gantt", "costs", "utilisation", "makespan", "cost"} <= set(doc["figures"])
    stages = {(t["platform"], t["stage"]) for t in doc["timeline"]}
    assert ("Magnus (Pawsey Cray XC40)", "queue wait") in stages


def test_a_scenario_that_never_ran_has_no_report(catalogue):
    scenario = create_demo_scenario()
    with pytest.raises(ReportNotReady, match="is draft: run it to the end"):
        build_document(scenario)
