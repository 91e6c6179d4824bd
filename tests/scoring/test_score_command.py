"""``manage.py score`` prints criterion values, ranks with explanations, aggregates and TCO lines."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def test_it_prints_json_per_platform(catalogue):
    out = StringIO()
    call_command("score", "chiles-epoch1", "--platform", "aws-sydney", "--platform", "magnus", "--format", "json",
                 "--samples", "100", "--replications", "3", stdout=out)
    data = json.loads(out.getvalue())
    assert [p["slug"] for p in data["platforms"]] == ["aws-sydney", "magnus"]
    capital = {p["slug"]: p["scores"][1] for p in data["platforms"]}
    assert capital["magnus"]["score"] == 2
    assert capital["magnus"]["value"] == pytest.approx(12_000_000 * 0.028646)
    assert set(data["aggregates"]) == {"product", "weighted_sum", "weighted_product", "topsis"}
    assert data["tco"]["platforms"]["magnus"]["years"][0]["lines"][0]["category"] == "compute"


def test_it_prints_text(catalogue):
    out = StringIO()
    call_command("score", "chiles-epoch1", "--samples", "100", "--replications", "3", "--years", "2", stdout=out)
    text = out.getvalue()
    assert "Total cost of ownership: 2 years" in text
    assert "DISAGREE: the paper's arithmetic" in text


def test_it_refuses_unknown_names(catalogue):
    with pytest.raises(CommandError, match="no workload"):
        call_command("score", "nope")
    with pytest.raises(CommandError, match="unknown atlantis"):
        call_command("score", "chiles-epoch1", "--platform", "atlantis")
