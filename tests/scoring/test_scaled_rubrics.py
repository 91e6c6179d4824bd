"""Rubrics read against the compared platforms' own range (scale 'best'), and absolute bands that cannot tell the
platforms apart are pointed out."""

import pytest

from apps.scoring.logic.criteria import (
    DEFAULT_CRITERIA,
    CriterionSpec,
    RubricError,
    range_notes,
    score_platforms,
    validate_rubric,
)
from apps.scoring.logic.inputs import PlatformInputs, RunSummary

#: within 25% of the best 5, within 2x 3, within 4x 1, else 0
RELATIVE = {"kind": "thresholds", "scale": "best",
            "bands": [{"at": 1.25, "score": 5, "label": "near the best"}, {"at": 2, "score": 3}, {"at": 4, "score": 1}],
            "else_label": "far behind"}


def _run(hours: float) -> PlatformInputs:
    return PlatformInputs(f"p{hours:g}", f"P {hours:g}", "public_cloud",
                          run=RunSummary(makespan_s=hours * 3600.0, run_time_s=hours * 3600.0))


def _completion(rubric) -> CriterionSpec:
    return CriterionSpec("completion_time", "Completion time", "makespan_h", "lower", rubric)


@pytest.mark.parametrize("unit_h", [1.0, 168.0])  # the same pipeline shape in hours or in weeks
def test_it_scores_completion_time_against_the_fastest_platform_in_any_range(unit_h):
    platforms = {p.slug: p for p in (_run(2 * unit_h), _run(2.4 * unit_h), _run(3.5 * unit_h), _run(9 * unit_h))}
    scores = score_platforms(platforms, [_completion(RELATIVE)])
    # ratios to the fastest (2 units): 1, 1.2, 1.75, 4.5
    assert [sc[0].score for sc in scores.values()] == [5, 5, 3, 0]
    slow = scores[f"p{9 * unit_h:g}"][0]
    assert "4.5× the best" in slow.explanation and slow.explanation.endswith("far behind")


def test_it_reads_higher_is_better_as_the_best_over_the_value():
    c = CriterionSpec("typical_bandwidth", "Bandwidth", "wan_gbps", "higher", RELATIVE)
    fast = PlatformInputs("fast", "Fast", "hpc_centre", {"wan_bandwidth": 1.25e9})  # 10 Gb/s
    slow = PlatformInputs("slow", "Slow", "hpc_centre", {"wan_bandwidth": 3.125e8})  # 2.5 Gb/s: 4x below
    scores = score_platforms({"fast": fast, "slow": slow}, [c])
    assert scores["fast"][0].score == 5
    assert scores["slow"][0].score == 1


def test_it_leaves_unknown_values_out_of_the_best():
    missing = PlatformInputs("x", "X", "hpc_centre", run=RunSummary(error="could not simulate: no tier"))
    scores = score_platforms({"a": _run(10), "b": _run(30), "x": missing}, [_completion(RELATIVE)])
    assert [s[0].score for s in scores.values()] == [5, 1, None]


def test_it_refuses_a_multiple_of_the_best_under_one():
    rubric = {**RELATIVE, "bands": [{"at": 0.5, "score": 5}]}
    with pytest.raises(RubricError, match=r"rubric.bands\[0\].at"):
        validate_rubric(rubric, "makespan_h", "lower")
    with pytest.raises(RubricError, match="rubric.scale"):
        validate_rubric({**RELATIVE, "scale": "weeks"}, "makespan_h", "lower")


def test_it_says_when_absolute_bands_cannot_tell_the_platforms_apart():
    completion = next(c for c in DEFAULT_CRITERIA if c.key == "completion_time")
    scores = score_platforms({"a": _run(2), "b": _run(7)}, [completion])  # hours against bands in weeks
    assert [s[0].score for s in scores.values()] == [5, 5]
    (note,) = range_notes(scores, [completion])
    assert note.startswith("Completion time: every platform scores 5 although the values differ 3.5-fold")
    assert range_notes(score_platforms({"a": _run(2), "b": _run(7)}, [_completion(RELATIVE)]),
                       [_completion(RELATIVE)]) == []
