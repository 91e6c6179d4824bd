"""Criteria: metrics computed from a platform's facts and its simulated run, and rubrics mapping them to 0-5.

A criterion names a metric (a key of :data:`METRICS`), a direction and a rubric.  A rubric is JSON:

* ``{"kind": "thresholds", "bands": [{"at": 336, "score": 5, "label": "under two weeks"}, ...]}`` —
  with direction ``lower`` a value scores the best band whose ``at`` it does not exceed, with ``higher``
  the best band it reaches; a value in no band scores ``else_score`` (default 0, label ``else_label``).
* ``{"kind": "categories", "scores": {"root": 5, "limited": 3}, "labels": {...}}`` for text metrics.

Thresholds are in the metric's display unit (hours, AUD, Gb/s, MB/s, IOPS) so people can edit them, unless the
rubric says ``"scale": "best"``: then each ``at`` is a multiple of the best value among the platforms compared
(lower is better: value / lowest; higher is better: highest / value), so the same rubric fits a pipeline of hours
and one of weeks (``{"at": 1.25, "score": 5}`` = within 25% of the best).
Every score carries its explanation, e.g. ``"3 — 1 Gb/s link with high variance (CV 0.30): at least 1 Gb/s"``.
A metric with no value (a fact the catalogue lacks, a run that could not be simulated) scores ``None``: shown
"unknown" and left out of the aggregates (:mod:`.aggregate`), never scored 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from simulator.units import format_quantity, from_base

from .inputs import PlatformInputs

__all__ = [
    "MetricValue", "Metric", "METRICS", "CriterionSpec", "Score", "DEFAULT_CRITERIA", "SCALE_LABELS",
    "SECONDS_PER_YEAR", "RubricError", "validate_rubric", "apply_rubric", "score_platform", "score_platforms",
    "default_criteria", "SCALES", "range_notes", "blind_criteria", "BLIND_DOUBLINGS",
]

SECONDS_PER_HOUR = 3600.0
SECONDS_PER_YEAR = 365.0 * 24.0 * SECONDS_PER_HOUR
#: the paper's words for the 0-5 scale (§9, Table 3 caption)
SCALE_LABELS = {0: "unacceptable", 1: "poor", 2: "passable", 3: "acceptable", 4: "good", 5: "excellent"}
#: WAN throughput coefficient of variation from which a link is called "high variance"
HIGH_VARIANCE_CV = 0.25
#: how a thresholds rubric reads its ``at`` values: in the metric's display unit, or as multiples of the best
SCALES = ("absolute", "best")


class RubricError(ValueError):
    """A rubric that cannot be applied; the message says what is wrong."""


@dataclass(frozen=True)
class MetricValue:
    value: float | str | None
    text: str
    missing: str = ""  # why there is no value


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    unit: str
    kind: str  # number | category
    compute: Callable[[PlatformInputs], MetricValue]
    help: str = ""


@dataclass(frozen=True)
class CriterionSpec:
    key: str
    label: str
    metric: str
    direction: str  # higher | lower
    rubric: dict[str, Any]
    weight: float = 1.0


@dataclass(frozen=True)
class Score:
    criterion: str
    value: float | str | None
    text: str
    score: int | None  # None: unknown, left out of the aggregates
    explanation: str
    missing: bool = False


def _hours(s: float) -> str:
    return f"{s / SECONDS_PER_HOUR:,.0f} h"


def _aud(x: float) -> str:
    return f"AUD {x:,.0f}"


def _completion(p: PlatformInputs) -> MetricValue:
    run = p.run
    if run is None or run.makespan_s is None:
        return MetricValue(None, "not simulated", run.error if run else "no simulation")
    text = _hours(run.makespan_s)
    if run.queue_wait_s:
        text += f" incl. {_hours(run.queue_wait_s)} queue wait"
    if not run.completed:
        text += " (the run does not complete as a usable pipeline)"
    return MetricValue(run.makespan_s / SECONDS_PER_HOUR, text)


def _capital(p: PlatformInputs) -> MetricValue:
    capex = p.fact("capex")
    if capex is None:
        return MetricValue(None, "capital cost unknown", "the catalogue has no capex for this platform")
    share = p.fact("share_used", 1.0)
    value = float(capex) * float(share)
    text = _aud(value) if share == 1.0 else f"{_aud(value)} ({share:.1%} of {_aud(capex)})"
    return MetricValue(value, text)


def owned_running_cost(p: PlatformInputs, seconds: float) -> float:
    """Staff and power of an owned cluster for ``seconds`` of use, at the share of the machine used."""
    per_year = float(p.fact("staff_per_year", 0.0)) + float(p.fact("power_per_year", 0.0))
    return per_year * float(p.fact("share_used", 1.0)) * seconds / SECONDS_PER_YEAR


def _operational(p: PlatformInputs) -> MetricValue:
    run = p.run
    if run is None or run.total_cost_aud is None:
        return MetricValue(None, "not simulated", run.error if run else "no simulation")
    value = float(run.total_cost_aud)
    parts = [f"{_aud(value)} billed"] if value else []
    if p.kind == "owned_cluster":
        own = owned_running_cost(p, run.run_time_s or 0.0)
        value += own
        parts.append(f"{_aud(own)} staff and power for {_hours(run.run_time_s or 0.0)}")
    return MetricValue(value, f"{_aud(value)} per epoch" + (f" ({'; '.join(parts)})" if parts else ""))


def _transfer(p: PlatformInputs) -> MetricValue:
    bw = p.fact("wan_bandwidth")
    if bw is None:
        return MetricValue(None, "WAN bandwidth unknown", "the catalogue has no WAN bandwidth")
    gbps = from_base(float(bw), "Gb/s")
    cv = p.fact("wan_variability")
    text = f"{gbps:g} Gb/s link"
    if cv is not None and cv >= HIGH_VARIANCE_CV:
        text += f" with high variance (CV {cv:.2f})"
    elif cv is not None:
        text += f" (CV {cv:.2f})"
    return MetricValue(gbps, text)


#: why an achieved rate is unknown when the run is older than the record of it
NOT_RECORDED = ("this run was simulated before Skyplan recorded what each task's I/O achieved (not the tier's "
                "peak); run it again to score this")


def _achieved(p: PlatformInputs, tasks: int | None, what: str, none_done: str) -> MetricValue | None:
    """The unknown value of an achieved-rate metric when the run cannot give it, else None."""
    run = p.run
    if run is None or run.makespan_s is None:
        return MetricValue(None, "not simulated", run.error if run else "no simulation")
    if tasks is None:
        return MetricValue(None, f"achieved {what} not recorded", NOT_RECORDED)
    if tasks == 0:
        return MetricValue(None, f"no {what} in the run", none_done)
    return None


def _bandwidth(p: PlatformInputs) -> MetricValue:
    run = p.run
    unknown = _achieved(p, run.read_tasks if run else None, "storage reads", "no task of the run reads from storage")
    if unknown is not None:
        return unknown
    bps = float(run.read_bytes_per_s)
    return MetricValue(from_base(bps, "MB/s"), f"{format_quantity(bps, 'bandwidth')} per task achieved (median of "
                                               f"{run.read_tasks:,} tasks' reads)")


def _write_bandwidth(p: PlatformInputs) -> MetricValue:
    run = p.run
    unknown = _achieved(p, run.write_tasks if run else None, "storage writes",
                        "no task of the run writes to storage")
    if unknown is not None:
        return unknown
    bps = float(run.write_bytes_per_s)
    return MetricValue(from_base(bps, "MB/s"), f"{format_quantity(bps, 'bandwidth')} per task achieved (median of "
                                               f"{run.write_tasks:,} tasks' writes)")


def _iops(p: PlatformInputs) -> MetricValue:
    run = p.run
    unknown = _achieved(p, run.ops_tasks if run else None, "random I/O", "no task of the run does random I/O")
    if unknown is not None:
        return unknown
    ops = float(run.ops_per_s)
    return MetricValue(ops, f"{ops:,.0f} IOPS per task achieved (median of {run.ops_tasks:,} tasks' random I/O)")


def _control(p: PlatformInputs) -> MetricValue:
    root = p.facts.get("root_access")
    if root is None:
        return MetricValue(None, "root access unknown", "the catalogue does not say whether users get root")
    return MetricValue("root" if root else "limited", "root access" if root else "limited access (no root)")


def _usability(p: PlatformInputs) -> MetricValue:
    u = p.fact("usability")
    if u is None:
        return MetricValue(None, "usability unknown", "the catalogue has no usability rating")
    note = p.fact("usability_note", "")
    return MetricValue(u, f"{u}" + (f": {note}" if note else ""))


METRICS: dict[str, Metric] = {m.key: m for m in (
    Metric("makespan_h", "completion time incl. queue wait", "h", "number", _completion,
           "makespan of the median simulated replication, from submission to the last task"),
    Metric("capital_aud", "capital cost × share used", "AUD", "number", _capital,
           "purchase price times the share of the machine the project uses (the paper's convention)"),
    Metric("operational_aud", "operational cost per epoch", "AUD", "number", _operational,
           "simulated bill (node-hours, instance-hours, storage, IOPS) plus owned-cluster staff and power"),
    Metric("wan_gbps", "WAN bandwidth to the data source", "Gb/s", "number", _transfer,
           "nominal link rate; the explanation flags high variability"),
    Metric("bandwidth_mbs", "achieved per-task storage read bandwidth", "MB/s", "number", _bandwidth,
           "what each task's reads got in the simulated run (bytes / the seconds its reads took), median over tasks"),
    Metric("write_bandwidth_mbs", "achieved per-task storage write bandwidth", "MB/s", "number", _write_bandwidth,
           "what each task's writes got in the simulated run (bytes / the seconds its writes took), median over "
           "tasks"),
    Metric("iops", "achieved per-task IOPS", "IOPS", "number", _iops,
           "what each task's random I/O got in the simulated run (requests / their seconds), median over tasks"),
    Metric("root_access", "root access", "", "category", _control, "root | limited"),
    Metric("usability", "ease of use", "", "category", _usability, "simple | moderate | complex"),
)}


def _bands(*rows):
    return {"kind": "thresholds", "bands": [{"at": a, "score": s, "label": lab} for a, s, lab in rows]}


#: the paper's eight considerations (§9, Table 3), and the write bandwidth the run achieved; thresholds chosen so
#: the case study's inputs reproduce its ranks where they support them (see docs/scoring.md for each choice)
DEFAULT_CRITERIA: tuple[CriterionSpec, ...] = (
    CriterionSpec("completion_time", "Completion time", "makespan_h", "lower", {
        **_bands((336, 5, "within two weeks"), (432, 4, "within 18 days"), (528, 3, "within 22 days"),
                 (624, 2, "within 26 days"), (720, 1, "within 30 days")),
        "else_label": "over a month per epoch"}),
    CriterionSpec("capital_costs", "Capital costs", "capital_aud", "lower", {
        **_bands((1000, 5, "no capital outlay"), (100_000, 4, "up to AUD 100K"), (250_000, 3, "up to AUD 250K"),
                 (500_000, 2, "up to AUD 500K"), (1_000_000, 1, "up to AUD 1M")),
        "else_label": "over AUD 1M"}),
    CriterionSpec("operational_costs", "Operational costs", "operational_aud", "lower", {
        **_bands((5000, 5, "up to AUD 5K per epoch"), (10_000, 4, "up to AUD 10K"), (25_000, 3, "up to AUD 25K"),
                 (50_000, 2, "up to AUD 50K"), (100_000, 1, "up to AUD 100K")),
        "else_label": "over AUD 100K per epoch"}),
    CriterionSpec("data_transfer", "Data transfer", "wan_gbps", "higher", {
        **_bands((40, 5, "at least 40 Gb/s"), (10, 4, "at least 10 Gb/s"), (1, 3, "at least 1 Gb/s"),
                 (0.1, 2, "at least 100 Mb/s"), (0.01, 1, "at least 10 Mb/s")),
        "else_label": "under 10 Mb/s"}),
    CriterionSpec("typical_bandwidth", "Typical bandwidth", "bandwidth_mbs", "higher", {
        **_bands((1000, 5, "at least 1 GB/s"), (500, 4, "at least 500 MB/s"), (100, 3, "at least 100 MB/s"),
                 (10, 2, "at least 10 MB/s"), (1, 1, "at least 1 MB/s")),
        "else_label": "under 1 MB/s"}),
    # not one of the paper's eight: Table 3 has no write rank, so the comparison with it leaves this one out
    CriterionSpec("typical_write_bandwidth", "Typical write bandwidth", "write_bandwidth_mbs", "higher", {
        **_bands((1000, 5, "at least 1 GB/s"), (500, 4, "at least 500 MB/s"), (100, 3, "at least 100 MB/s"),
                 (10, 2, "at least 10 MB/s"), (1, 1, "at least 1 MB/s")),
        "else_label": "under 1 MB/s"}),
    CriterionSpec("typical_iops", "Typical IOPS", "iops", "higher", {
        **_bands((1000, 5, "at least 1,000 IOPS"), (100, 4, "at least 100 IOPS"), (10, 3, "at least 10 IOPS"),
                 (1, 2, "at least 1 IOPS"), (0.1, 1, "some random I/O")),
        "else_label": "no random I/O"}),
    CriterionSpec("control", "Control", "root_access", "higher", {
        "kind": "categories", "scores": {"root": 5, "limited": 3},
        "labels": {"root": "full control, can tune the system", "limited": "cannot reconfigure or tune"}}),
    CriterionSpec("usability", "Usability", "usability", "higher", {
        "kind": "categories", "scores": {"simple": 4, "moderate": 3, "complex": 2},
        "labels": {"simple": "batch submission of scripts", "moderate": "some platform plumbing",
                   "complex": "instances, volumes and launches managed by hand"}}),
)


#: one grading rule for every criterion, fixed without looking at any published rank (the blind Table 3 check):
#: a number is graded against the best platform compared, one grade per doubling — within 2x of the best is 5,
#: 4x is 4, 8x is 3, 16x is 2, 32x is 1, beyond (or against a best of 0) is 0; a category's levels, listed
#: best first, are spread evenly from 5 down to 1
BLIND_DOUBLINGS = (2.0, 4.0, 8.0, 16.0, 32.0)


def _blind(c: CriterionSpec) -> CriterionSpec:
    if c.rubric.get("kind") == "categories":
        levels = list(c.rubric["scores"])  # the default rubric's levels, best first
        step = 4.0 / max(1, len(levels) - 1)
        scores = {lv: round(5 - i * step) if len(levels) > 1 else 5 for i, lv in enumerate(levels)}
        return replace(c, rubric={"kind": "categories", "scores": scores, "labels": c.rubric.get("labels", {})})
    bands = [{"at": at, "score": 5 - i, "label": f"within {at:g}x of the best"} for i, at in enumerate(BLIND_DOUBLINGS)]
    return replace(c, rubric={"kind": "thresholds", "scale": "best", "bands": bands,
                              "else_label": f"over {BLIND_DOUBLINGS[-1]:g}x the best"})


def blind_criteria() -> list[CriterionSpec]:
    """The paper's eight considerations graded by :data:`BLIND_DOUBLINGS`' rule instead of the default bands."""
    return [_blind(c) for c in DEFAULT_CRITERIA]


def default_criteria() -> list[CriterionSpec]:
    return list(DEFAULT_CRITERIA)


def _number(x: Any, where: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise RubricError(f"{where}: must be a number")
    return float(x)


def validate_rubric(rubric: Any, metric: str, direction: str) -> None:
    """Raise :class:`RubricError` naming the problem when ``rubric`` cannot score ``metric``."""
    if metric not in METRICS:
        raise RubricError(f"metric: unknown {metric!r}; one of {', '.join(METRICS)}")
    if direction not in ("higher", "lower"):
        raise RubricError("direction: 'higher' or 'lower'")
    if not isinstance(rubric, dict):
        raise RubricError("rubric: must be a JSON object")
    kind = rubric.get("kind")
    if kind == "thresholds":
        if METRICS[metric].kind != "number":
            raise RubricError(f"rubric: metric {metric} is a category; use kind 'categories'")
        bands = rubric.get("bands")
        if not isinstance(bands, list) or not bands:
            raise RubricError("rubric.bands: a non-empty list of {at, score, label}")
        for i, b in enumerate(bands):
            if not isinstance(b, dict):
                raise RubricError(f"rubric.bands[{i}]: must be an object")
            _number(b.get("at"), f"rubric.bands[{i}].at")
            s = b.get("score")
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= 5:
                raise RubricError(f"rubric.bands[{i}].score: an integer from 0 to 5")
        scale = rubric.get("scale", "absolute")
        if scale not in SCALES:
            raise RubricError(f"rubric.scale: one of {', '.join(SCALES)}")
        if scale == "best":
            for i, b in enumerate(bands):
                if float(b["at"]) < 1:
                    raise RubricError(f"rubric.bands[{i}].at: with scale 'best' a multiple of the best value, at "
                                      f"least 1 (1.5 = within 50% of the best)")
        es = rubric.get("else_score", 0)
        if isinstance(es, bool) or not isinstance(es, int) or not 0 <= es <= 5:
            raise RubricError("rubric.else_score: an integer from 0 to 5")
    elif kind == "categories":
        scores = rubric.get("scores")
        if not isinstance(scores, dict) or not scores:
            raise RubricError("rubric.scores: a non-empty object mapping values to 0-5")
        for k, s in scores.items():
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= 5:
                raise RubricError(f"rubric.scores.{k}: an integer from 0 to 5")
    else:
        raise RubricError("rubric.kind: 'thresholds' or 'categories'")


def apply_rubric(value: float | str, rubric: dict[str, Any], direction: str) -> tuple[int, str]:
    """The 0-5 score of ``value`` and the label of the band or category that gave it."""
    if rubric["kind"] == "categories":
        key = str(value)
        if key not in rubric["scores"]:
            return int(rubric.get("else_score", 0)), f"{key!r} is not in the rubric"
        return int(rubric["scores"][key]), (rubric.get("labels") or {}).get(key, "")
    v = float(value)
    bands = sorted(rubric["bands"], key=lambda b: float(b["at"]), reverse=(direction == "higher"))
    best: tuple[int, str] | None = None
    for b in bands:
        ok = v <= float(b["at"]) if direction == "lower" else v >= float(b["at"])
        if ok and (best is None or int(b["score"]) > best[0]):
            best = (int(b["score"]), b.get("label", ""))
    if best is None:
        return int(rubric.get("else_score", 0)), rubric.get("else_label", "outside every band")
    return best


def _ratio_to_best(value: float, best: float, direction: str) -> float:
    """How many times worse than the best ``value`` is (1 = the best); infinite when the best is 0 and it is not."""
    if direction == "lower":
        if value == best:
            return 1.0
        return math.inf if best <= 0 else value / best
    if value == best:
        return 1.0
    return math.inf if value <= 0 else best / value


def _best(values: list[float], direction: str) -> float | None:
    return (min(values) if direction == "lower" else max(values)) if values else None


def _score_one(c: CriterionSpec, mv: MetricValue, best: float | None) -> Score:
    if mv.value is None:
        why = mv.missing or mv.text
        return Score(c.key, None, mv.text, None, f"unknown — {why}; left out of the aggregate", True)
    if c.rubric.get("kind") == "thresholds" and c.rubric.get("scale") == "best" and best is not None:
        ratio = _ratio_to_best(float(mv.value), best, c.direction)
        s, label = apply_rubric(ratio, c.rubric, "lower")
        unit = METRICS[c.metric].unit
        where = "the best" if ratio == 1.0 else (
            f"{ratio:.2g}× the best ({best:,.3g}{' ' + unit if unit else ''})" if math.isfinite(ratio)
            else f"against a best of {best:g}{' ' + unit if unit else ''}")
        expl = f"{s} — {mv.text}, {where}" + (f": {label}" if label else "")
        return Score(c.key, mv.value, mv.text, s, expl)
    s, label = apply_rubric(mv.value, c.rubric, c.direction)
    expl = f"{s} — {mv.text}" + (f": {label}" if label else "")
    return Score(c.key, mv.value, mv.text, s, expl)


def score_platforms(platforms: dict[str, PlatformInputs], criteria: list[CriterionSpec]) -> dict[str, list[Score]]:
    """One :class:`Score` per criterion for each platform compared; a rubric with ``scale: best`` is read against
    the best value among them.  A metric with no value is unknown (score ``None``) and says why."""
    values = {slug: [METRICS[c.metric].compute(p) for c in criteria] for slug, p in platforms.items()}
    out: dict[str, list[Score]] = {slug: [] for slug in platforms}
    for j, c in enumerate(criteria):
        known = [float(v[j].value) for v in values.values()
                 if isinstance(v[j].value, (int, float)) and not isinstance(v[j].value, bool)]
        best = _best(known, c.direction)
        for slug in platforms:
            out[slug].append(_score_one(c, values[slug][j], best))
    return out


def score_platform(p: PlatformInputs, criteria: list[CriterionSpec]) -> list[Score]:
    """The scores of one platform alone (a rubric with ``scale: best`` then compares it with itself)."""
    return score_platforms({p.slug: p}, criteria)[p.slug]


def range_notes(scores: dict[str, list[Score]], criteria: list[CriterionSpec], *, spread: float = 2.0) -> list[str]:
    """Where an absolute rubric cannot tell the platforms apart in this comparison's range: every platform lands in
    the same band although their values differ ``spread``-fold or more (a rubric drawn for weeks, a run of hours)."""
    notes = []
    for j, c in enumerate(criteria):
        if c.rubric.get("kind") != "thresholds" or c.rubric.get("scale", "absolute") != "absolute":
            continue
        known = [(s[j].value, s[j].score) for s in scores.values() if s[j].score is not None]
        nums = [float(v) for v, _ in known if isinstance(v, (int, float))]
        if len(known) < 2 or len({sc for _, sc in known}) != 1 or not nums or min(nums) <= 0:
            continue
        if max(nums) / min(nums) >= spread:
            unit = METRICS[c.metric].unit
            notes.append(f"{c.label}: every platform scores {known[0][1]} although the values differ "
                         f"{max(nums) / min(nums):.1f}-fold ({min(nums):,.3g} to {max(nums):,.3g}"
                         f"{' ' + unit if unit else ''}); the rubric's bands are set for another range — "
                         f"score it relative to the best (scale 'best') to tell them apart")
    return notes
