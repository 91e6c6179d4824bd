"""On the paper's scenario the default criteria reproduce Table 3 where the inputs support it."""

import pytest

from apps.scoring.services import score_report
from apps.workloads.models import Workload

#: (platform, criterion) pairs where we expect a disagreement, each with its documented cause
EXPECTED_DISAGREEMENTS = {("pleiades", "operational_costs"), ("aws-sydney", "typical_bandwidth")}


_CACHE: dict = {}


@pytest.fixture
def report(catalogue):
    """The report is plain data: computed once, shared by the tests of this module."""
    if "report" not in _CACHE:
        _CACHE["report"] = score_report(Workload.objects.get(slug="chiles-epoch1"), samples=300)
    return _CACHE["report"]


def test_it_reproduces_every_table3_rank_except_the_documented_ones(report):
    rows = report["comparison"]["ranks"]
    assert len(rows) == 24  # 3 platforms x 8 criteria
    disagree = {(r["platform"], r["criterion"]) for r in rows if not r["agree"]}
    assert disagree == EXPECTED_DISAGREEMENTS
    reasons = {(r["platform"], r["criterion"]): r["reason"] for r in rows if not r["agree"]}
    assert "could not measure" in reasons[("pleiades", "operational_costs")]
    assert "what each task's reads achieved" in reasons[("aws-sydney", "typical_bandwidth")]


def test_it_reports_the_papers_product_arithmetic_for_aws(report):
    products = {r["platform"]: r for r in report["comparison"]["products"]}
    # Table 3's own AWS ranks: 5*5*5*3*4*5*5*2 / 5^8 = 75,000 / 390,625 = 0.192, printed as 0.15
    assert products["aws-sydney"]["from_published_ranks"] == pytest.approx(0.192)
    assert not products["aws-sydney"]["arithmetic_ok"]
    # ours differ only on bandwidth, ranked on what the tasks achieved: 5*5*5*3*2*5*5*2 / 5^8 = 37,500 / 390,625
    assert products["aws-sydney"]["from_computed_ranks"] == pytest.approx(37_500 / 390_625)
    assert "0.15" in products["aws-sydney"]["reason"]
    # Magnus: 5*2*5*4*3*4*3*4 / 5^8 = 28,800 / 390,625 = 0.0737, printed 0.07
    assert products["magnus"]["from_published_ranks"] == pytest.approx(28_800 / 390_625)
    assert products["magnus"]["arithmetic_ok"]
    assert products["pleiades"]["from_computed_ranks"] == 0.0


def test_it_explains_every_score(report):
    aws = next(p for p in report["platforms"] if p["slug"] == "aws-sydney")
    by_key = {s["criterion"]: s for s in aws["scores"]}
    assert by_key["data_transfer"]["explanation"].startswith("3 — 1 Gb/s link with high variance")
    assert by_key["capital_costs"]["explanation"] == "5 — AUD 0: no capital outlay"


def test_the_ranks_compared_with_table3_are_the_papers_eight_not_the_write_bandwidth(report):
    assert {r["criterion"] for r in report["comparison"]["ranks"]} == {
        "completion_time", "capital_costs", "operational_costs", "data_transfer", "typical_bandwidth", "typical_iops",
        "control", "usability"}
    aws = next(p for p in report["platforms"] if p["slug"] == "aws-sydney")
    write = next(s for s in aws["scores"] if s["criterion"] == "typical_write_bandwidth")
    assert write["score"] == 2 and "tasks' writes" in write["explanation"]


def test_aws_leads_the_sums_and_magnus_the_products_once_writes_are_scored(report):
    # with the paper's eight criteria AWS led every aggregate; the achieved write bandwidth (AWS tasks write their
    # EBS volumes at ~77 MB/s, rank 2; Magnus' Lustre ~127 MB/s, rank 3) tips both products to Magnus:
    # AWS 5*5*5*3*2*2*5*5*2 / 5^9 = 0.0384 < Magnus 5*2*5*4*3*3*4*3*4 / 5^9 = 0.0442
    orders = report["orders"]
    assert orders["weighted_sum"][0] == orders["topsis"][0] == "aws-sydney"
    assert orders["product"][0] == orders["weighted_product"][0] == "magnus"
    assert report["aggregates"]["product"]["aws-sydney"] == pytest.approx(0.0384)
    assert report["aggregates"]["product"]["magnus"] == pytest.approx(0.0442368)
    p = report["robustness"]["first_place_probability"]
    assert sum(p.values()) == pytest.approx(1.0)
    assert report["robustness"]["winners"] == ["aws-sydney"]


def test_it_projects_tco_for_each_platform(report):
    t = report["tco"]
    assert set(t["platforms"]) == {"aws-sydney", "magnus", "pleiades"}
    pleiades = t["platforms"]["pleiades"]
    # AUD 50,000 over 4 years + AUD 110,000 staff + AUD 10,500 power, share 1.0
    assert pleiades["years"][0]["total_aud"] == pytest.approx(12_500 + 110_000 + 10_500)
    aws = t["platforms"]["aws-sydney"]
    run = next(p for p in report["platforms"] if p["slug"] == "aws-sydney")["run"]
    assert aws["total_aud"] == pytest.approx(5 * run["total_cost_aud"])


def test_a_rule_fixed_without_the_published_ranks_agrees_as_it_falls(report):
    """Every criterion graded by one rule (one grade per doubling from the best; categories spread 5..1), chosen
    without looking at Table 3: the agreement is reported, not tuned."""
    rows = report["comparison"]["blind_ranks"]
    assert len(rows) == 24
    by = {(r["platform"], r["criterion"]): r for r in rows}
    # the rule: the best platform on a numeric criterion is within 2x of itself, so it is graded 5
    for criterion in ("completion_time", "operational_costs", "typical_iops"):
        assert max(r["computed"] for r in rows if r["criterion"] == criterion) == 5
    # a best of AUD 0 capital puts every platform that spends any at 0 (infinitely many doublings away)
    assert by[("magnus", "capital_costs")]["computed"] == by[("pleiades", "capital_costs")]["computed"] == 0
    assert by[("magnus", "control")]["computed"] == 1 and by[("aws-sydney", "usability")]["computed"] == 1
    assert sum(r["agree"] for r in rows) == 6  # of 24, as computed on 2026-11-27 (docs/scoring.md)
    assert all("band for" in r["reason"] for r in rows if not r["agree"])
