"""/validation/: a section per seed study with its summary line and charts (curves with the published points)."""

import json

from apps.scenarios.validation import validation_report


def test_it_shows_each_seed_with_its_summary_and_the_model_curves_through_the_published_points(logged_in, catalogue):
    response = logged_in.get("/validation/")
    body = response.content.decode()
    report = validation_report()
    for sm in report["seeds"][1:]:
        assert f'id="seed-{sm["seed"]}"' in body
        assert f"{sm['rows']} out-of-sample row" in body
    figures = response.context["figures"]
    assert {"errors-000", "errors-001", "errors-002", "errors-004"} <= set(figures)
    curves = json.loads(figures["curves-002-0"])
    lines = [t for t in curves["data"] if t["mode"] == "lines"]
    markers = [t for t in curves["data"] if t["mode"] == "markers"]
    assert lines and markers
    # the 80-node AdiosStMan write is the fit point: an open diamond; the benchmark points are predictions
    symbols = {t["marker"]["symbol"] for t in markers}
    assert symbols == {"diamond-open", "circle"}
    # the published knee of the parallel reads is drawn where the paper puts it
    assert any(s.get("x0") == 20 for s in curves["layout"].get("shapes", []))


def test_the_fitted_values_include_the_io_fit_the_validation_runs_and_a_knee_on_a_log_axis_is_labelled_there(
        logged_in, catalogue):
    response = logged_in.get("/validation/")
    fitted = {f["name"]: f for f in response.context["report"]["fitted"]}
    magnus = fitted["Magnus Sonexion 1600 Lustre (phases 1 and 2): client write bw"]
    assert abs(magnus["value"] - 125.0) < 1e-6 and magnus["unit"] == "MB/s"
    assert magnus["sources"] == "adiosstman write bw (Magnus (Pawsey Cray XC40))"  # as a reader knows it, not its key
    # seed 004's Fornax knee: the dashed line at 32 GB and its label placed by log10(32) on the log data-size axis
    curves = json.loads(response.context["figures"]["curves-004-0"])
    assert curves["layout"]["xaxis"]["type"] == "log"
    assert any(s.get("x0") == 32 for s in curves["layout"]["shapes"])
    (label,) = [a for a in curves["layout"]["annotations"] if a["text"].startswith("published knee")]
    assert abs(label["x"] - 1.50515) < 1e-4
