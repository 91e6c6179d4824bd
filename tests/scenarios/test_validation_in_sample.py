"""``validate_model --format json``: one row per comparison, ``in_sample`` from the fits actually run."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

from django.conf import settings
from django.core.management import call_command

from apps.platforms.models import Platform, StorageTier
from apps.scenarios.adapters import observations
from apps.scenarios.validation import _inputs, fit_model, io_benchmarks
from apps.workloads.models import ReferenceObservation, Workload
from simulator.model.calibration import FIT_INVERT_CPU, fit_invert_cpu
from simulator.model.io_validation import fit_io

KEYS = {"seed", "quantity", "platform", "published", "simulated", "unit", "in_sample", "target_pct"}


def _rows() -> list[dict]:
    out = io.StringIO()
    call_command("validate_model", "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def test_it_marks_in_sample_exactly_the_rows_the_fits_used(catalogue):
    fitted = fit_model("chiles-epoch1")
    # independently of the validation code: what the fit that just ran took as inputs, and the fit marks
    used = {key for f in fitted for key in f.observations}
    marked = set(ReferenceObservation.objects.exclude(fit="").values_list("key", flat=True))
    assert used and used <= marked

    # each single INVERT time is predicted by the split refitted to the other platforms' times when they can
    # identify it (two thread counts among them); otherwise by the catalogue's fit above
    platforms, spec, obs = _inputs(Workload.objects.get(slug="chiles-epoch1"))
    invert = [o for o in obs if o.quantity == "invert_single_time"]
    produced_by = {}
    for o in invert:
        others = [dataclasses.replace(x, fit=FIT_INVERT_CPU) for x in invert if x.platform != o.platform]
        try:
            produced_by[o.key] = {k for f in fit_invert_cpu(platforms, spec, others) for k in f.observations}
        except ValueError:
            produced_by[o.key] = used
    assert produced_by["invert_single_time.aws-sydney"] == {"invert_single_time.magnus", "invert_single_time.pleiades"}

    # the I/O benchmarks: the fits their catalogue declares, run here on the loaded observations
    _, io_fits = fit_io(io_benchmarks(), observations(ReferenceObservation.objects.all()))
    io_fitted = {key for f in io_fits for key in f.observations}
    assert io_fitted == {"adiosstman_write_bw.magnus.80nodes_36GB", "adiosstman_read_rate_ratio.magnus"}

    # the platforms' facts fitted to an observation (the object store's per-client rate to the INVERT staging time)
    plats = json.loads((Path(settings.SKYPLAN_CATALOGUE_DIR) / "platforms.json").read_text())["platforms"]
    platform_fitted = {key for p in plats for entry in (p, *p.get("node_types", ()), *p.get("storage_tiers", ()))
                       for fact in entry.get("facts", {}).values() if isinstance(fact, dict)
                       and (fact.get("source") or {}).get("kind") == "fitted"
                       for key in fact["source"].get("observations", ())}
    assert {"invert_s3_transfer_time.aws-sydney", "invert_single_time.magnus"} <= platform_fitted
    params = Workload.objects.get(slug="chiles-epoch1").parameters
    bench = json.loads((Path(settings.SKYPLAN_CATALOGUE_DIR) / "io_benchmarks.json").read_text())
    published = {o["key"]: (o["value"], o["unit"]) for o in json.loads(
        (Path(settings.SKYPLAN_CATALOGUE_DIR) / "reference_observations.json").read_text())["observations"]
        if isinstance(o["value"], int | float)}
    facts = {s["slug"]: {(f["value"], f["unit"]) for f in s["facts"].values() if isinstance(f["value"], int | float)}
             for s in bench["storage"]}
    read_off = {key for e in bench["experiments"] for key in e["observations"]
                if key in published and published[key] in facts[e["storage"]] | facts.get(e.get("baseline_storage"), set())}
    assert read_off == {"cache_knee_global_array.fornax", "cache_knee_global_array.magnus-phase1"}

    rows = _rows()
    assert isinstance(rows, list) and rows
    assert {r["seed"] for r in rows} == {"000", "001", "002", "004"}
    for r in rows:
        assert KEYS <= set(r), r
        assert r["seed"] in {"000", "001", "002", "004"}
        assert (r["target_pct"] is None) == r["target"].startswith("qualitative")
        expected = r["observation"] in produced_by.get(r["observation"], used)
        if r["seed"] != "000":  # an I/O benchmark: in sample when a fit run on io_benchmarks.json used it, or when
            # the catalogue holds the published figure (same value, same unit) as a fact of the storage measured
            expected = r["observation"] in io_fitted or r["observation"] in read_off
        elif r["observation"] in platform_fitted:
            expected = True
        elif r["quantity"] in params:  # a published exponent the model's CPU law takes as a parameter
            expected = abs(float(params[r["quantity"]]) - r["published"]) <= 1e-9
        elif r["quantity"] == "capital_cost":  # the published figure is the catalogue's price itself
            p = Platform.objects.get(slug=r["platform"])
            expected = abs(p.capex * (1.0 if p.share_used is None else p.share_used) - r["published"]) <= 1e-6
        if r["quantity"] == "queue_wait":  # the model's median is the published wait: an input, not a prediction
            median = Platform.objects.get(slug=r["platform"]).queue_wait_median
            expected = abs(median / 3600.0 - r["published"]) <= 1e-9 * r["published"]
        assert r["in_sample"] is expected, r
    assert {r["observation"] for r in rows if r["in_sample"]} >= used - {"invert_single_time.aws-sydney"}


def test_a_row_is_out_of_sample_when_no_fit_used_it(catalogue):
    fit_model("chiles-epoch1")
    before = {(r["quantity"], r["platform"]): r["in_sample"] for r in _rows()}
    assert before[("invert_single_time", "magnus")] is True
    # the same values typed in by hand (provenance not "fitted"): nothing is in sample by a fit any more
    why = {"kind": "assumption", "reason": "test: the same numbers, not produced by a fit"}
    for st in Workload.objects.get(slug="chiles-epoch1").stages.filter(name__startswith="invert_grid"):
        st.provenance = {**st.provenance, "cpu_seconds": why}
        st.save(update_fields=["provenance"])
    before_cv = _rows()
    assert {(r["quantity"], r["platform"]): r["in_sample"] for r in before_cv}[("invert_single_time", "magnus")] is True
    # ... but Magnus' storage scatter is fitted to the scatter of its INVERT time: typed in by hand too
    for tier in StorageTier.objects.filter(platform__slug="magnus"):
        tier.provenance = {name: (why if "invert_single_time.magnus" in (src.get("observations") or ()) else src)
                           for name, src in tier.provenance.items()}
        tier.save(update_fields=["provenance"])
    after = {(r["quantity"], r["platform"]): r["in_sample"] for r in _rows()}
    assert after[("invert_single_time", "aws-sydney")] is False
    assert after[("invert_single_time", "magnus")] is False
    assert after[("queue_wait", "magnus")] is True


def test_the_text_format_shows_the_same_rows_and_counts_out_of_sample_only(catalogue):
    fit_model("chiles-epoch1")
    rows = _rows()
    out = io.StringIO()
    call_command("validate_model", "--format", "text", stdout=out)
    lines = out.getvalue().splitlines()
    seeds = sorted({r["seed"] for r in rows})
    assert len(lines) == len(rows) + len(seeds) + 1
    for seed, line in zip(seeds, lines[len(rows):-1], strict=True):
        scored = [r for r in rows if r["seed"] == seed and r["target_pct"] is not None and not r["in_sample"]]
        assert line.startswith(f"seed {seed}: {len(scored)} out-of-sample rows, median |error| ")
    for r, line in zip(rows, lines, strict=False):
        assert r["quantity"] in line and r["platform"] in line
        assert ("[in sample]" in line) == r["in_sample"]
    scored = [r for r in rows if r["target_pct"] is not None and r["published"] is not None and not r["in_sample"]]
    assert lines[-1].startswith(f"{sum(r['met'] for r in scored)}/{len(scored)} out-of-sample targets met")
