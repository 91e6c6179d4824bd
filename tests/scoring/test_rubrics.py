"""Rubrics map metrics to 0-5 with an explanation; bad rubrics are refused with the field named."""

import pytest

from apps.scoring.logic.criteria import (
    DEFAULT_CRITERIA,
    METRICS,
    RubricError,
    apply_rubric,
    score_platform,
    validate_rubric,
)
from apps.scoring.logic.inputs import PlatformInputs, RunSummary, StorageFacts

BANDS = {"kind": "thresholds", "bands": [{"at": 10, "score": 5, "label": "fast"}, {"at": 20, "score": 3}],
         "else_label": "slow"}


def test_it_scores_lower_is_better_thresholds():
    assert apply_rubric(10, BANDS, "lower") == (5, "fast")
    assert apply_rubric(15, BANDS, "lower")[0] == 3
    assert apply_rubric(25, BANDS, "lower") == (0, "slow")


def test_it_scores_higher_is_better_thresholds():
    rubric = {"kind": "thresholds", "bands": [{"at": 20, "score": 5, "label": "wide"}, {"at": 10, "score": 3}]}
    assert apply_rubric(25, rubric, "higher") == (5, "wide")
    assert apply_rubric(12, rubric, "higher") == (3, "")
    assert apply_rubric(9, rubric, "higher") == (0, "outside every band")


def test_it_scores_categories():
    rubric = {"kind": "categories", "scores": {"root": 5, "limited": 3}, "labels": {"root": "tunable"}}
    assert apply_rubric("root", rubric, "higher") == (5, "tunable")
    assert apply_rubric("other", rubric, "higher")[0] == 0


@pytest.mark.parametrize("rubric, message", [
    ({"kind": "nope"}, "rubric.kind"),
    ({"kind": "thresholds", "bands": []}, "rubric.bands"),
    ({"kind": "thresholds", "bands": [{"at": "x", "score": 1}]}, r"rubric.bands\[0\].at"),
    ({"kind": "thresholds", "bands": [{"at": 1, "score": 6}]}, r"rubric.bands\[0\].score"),
    ({"kind": "categories", "scores": {"a": -1}}, "rubric.scores.a"),
    ([1, 2], "JSON object"),
])
def test_it_refuses_bad_rubrics_naming_the_field(rubric, message):
    with pytest.raises(RubricError, match=message):
        validate_rubric(rubric, "makespan_h", "lower")


def test_it_refuses_thresholds_on_a_category_metric():
    with pytest.raises(RubricError, match="category"):
        validate_rubric(BANDS, "root_access", "higher")


def test_it_ships_valid_default_rubrics_for_the_papers_eight_criteria_and_the_write_bandwidth():
    assert [c.key for c in DEFAULT_CRITERIA] == [
        "completion_time", "capital_costs", "operational_costs", "data_transfer", "typical_bandwidth",
        "typical_write_bandwidth", "typical_iops", "control", "usability"]
    for c in DEFAULT_CRITERIA:
        validate_rubric(c.rubric, c.metric, c.direction)
        assert c.metric in METRICS


def test_it_explains_a_high_variance_link():
    p = PlatformInputs("cloud", "Cloud", "public_cloud", {"wan_bandwidth": 1.25e8, "wan_variability": 0.3})
    transfer = next(c for c in DEFAULT_CRITERIA if c.key == "data_transfer")
    (s,) = score_platform(p, [transfer])
    assert s.score == 3
    assert s.explanation == "3 — 1 Gb/s link with high variance (CV 0.30): at least 1 Gb/s"


def test_it_calls_a_missing_metric_unknown_and_says_why():
    p = PlatformInputs("x", "X", "hpc_centre", {}, run=RunSummary(error="could not simulate: no WAN"))
    scores = score_platform(p, list(DEFAULT_CRITERIA[:2]))
    assert [s.score for s in scores] == [None, None]
    assert all(s.missing for s in scores)
    assert scores[0].explanation == "unknown — could not simulate: no WAN; left out of the aggregate"
    assert scores[1].explanation.startswith("unknown — the catalogue has no capex")


def test_it_charges_owned_cluster_staff_and_power_for_the_run_time():
    # (87,600 + 0) AUD/year x 100 h / 8,760 h = 1,000 AUD on top of a zero bill
    p = PlatformInputs("own", "Own", "owned_cluster", {"staff_per_year": 87_600.0, "share_used": 1.0},
                       run=RunSummary(makespan_s=360_000, run_time_s=360_000, total_cost_aud=0.0))
    opex = next(c for c in DEFAULT_CRITERIA if c.key == "operational_costs")
    (s,) = score_platform(p, [opex])
    assert s.value == pytest.approx(1000.0)
    assert s.score == 5


def test_it_takes_storage_figures_from_what_the_run_achieved_not_the_tiers_peaks():
    # the tiers promise 10,000 IOPS and 500 MB/s; the run's tasks got a median of 25 IOPS and 12 MB/s
    p = PlatformInputs("c", "C", "public_cloud", storage=(
        StorageFacts("slow", "block_gp", 1.2e7, 1.2e7, 25, 25), StorageFacts("ssd", "local_ssd", 5e8, 5e8, 1e4, 1e4)),
        run=RunSummary(makespan_s=3600.0, tiers_used=("slow", "ssd"), read_bytes_per_s=1.2e7, read_tasks=4,
                       ops_per_s=25.0, ops_tasks=4))
    iops = next(c for c in DEFAULT_CRITERIA if c.key == "typical_iops")
    bandwidth = next(c for c in DEFAULT_CRITERIA if c.key == "typical_bandwidth")
    s, b = score_platform(p, [iops, bandwidth])
    assert s.value == 25 and s.score == 3  # at least 10 IOPS
    assert b.value == pytest.approx(12.0) and b.score == 2  # MB/s: at least 10 MB/s
