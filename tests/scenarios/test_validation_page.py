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
