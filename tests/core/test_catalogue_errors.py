"""A malformed catalogue is refused whole, with an error naming the file and the JSON path."""

import json
import shutil

import pytest
from django.conf import settings

from apps.core.models import ExchangeRate
from apps.platforms.models import Platform, StorageTier
from apps.workloads.catalogue import CatalogueError, load_catalogue

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalogue_copy(tmp_path):
    target = tmp_path / "catalogue"
    shutil.copytree(settings.SKYPLAN_CATALOGUE_DIR, target)
    return target


def _edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_it_names_file_and_path_of_an_unknown_unit(catalogue_copy):
    _edit(catalogue_copy / "platforms.json", lambda d: d["platforms"][0]["facts"]["wan_bandwidth"].update(unit="furlongs/s"))

    with pytest.raises(CatalogueError) as err:
        load_catalogue(catalogue_copy)

    assert err.value.file == "platforms.json"
    assert err.value.path == "$.platforms[0].facts.wan_bandwidth.unit"
    assert "unknown unit 'furlongs/s'" in err.value.message


def test_it_refuses_a_value_without_a_source(catalogue_copy):
    _edit(catalogue_copy / "platforms.json", lambda d: d["platforms"][0]["facts"]["max_nodes"].pop("source"))

    with pytest.raises(CatalogueError, match=r"platforms\.json: \$\.platforms\[0\]\.facts\.max_nodes"):
        load_catalogue(catalogue_copy)


def test_it_refuses_an_assumption_without_a_reason(catalogue_copy):
    _edit(
        catalogue_copy / "platforms.json",
        lambda d: d["platforms"][0]["facts"].update(max_nodes={"value": 4, "unit": "", "source": {"kind": "assumption"}}),
    )

    with pytest.raises(CatalogueError, match="an assumption source needs a non-empty 'reason'"):
        load_catalogue(catalogue_copy)


def test_it_refuses_a_negative_bandwidth(catalogue_copy):
    _edit(catalogue_copy / "platforms.json", lambda d: d["platforms"][0]["facts"]["wan_bandwidth"].update(value=-1))

    with pytest.raises(CatalogueError, match="wan_bandwidth"):
        load_catalogue(catalogue_copy)


def test_it_saves_nothing_when_a_later_file_is_broken(catalogue_copy):
    (catalogue_copy / "reference_observations.json").write_text('{"observations": [ {"key": ')

    with pytest.raises(CatalogueError) as err:
        load_catalogue(catalogue_copy)

    assert err.value.file == "reference_observations.json"
    assert err.value.path.startswith("line 1")
    assert Platform.objects.count() == 0


def _sdp(data):
    return next(w for w in data["workloads"] if w["slug"] == "sdp-predict-p3")


def test_it_refuses_a_one_to_one_dependency_between_stages_of_different_sizes(catalogue_copy):
    def change(d):
        _sdp(d)["stages"][0]["facts"].pop("tasks_per")
        _sdp(d)["stages"][0]["facts"]["n_tasks"] = {"value": 3, "unit": "", "source": {"kind": "assumption",
                                                                                      "reason": "test"}}
    _edit(catalogue_copy / "workloads.json", change)

    with pytest.raises(CatalogueError) as err:
        load_catalogue(catalogue_copy)

    assert err.value.file == "workloads.json"
    assert err.value.path == "$.workloads[1].stages[1].facts.dependency"
    assert "depends one to one on 'stage_in', but has 32 tasks and 'stage_in' has 3" in err.value.message


def test_it_refuses_random_access_without_a_request_size(catalogue_copy):
    def change(d):
        facts = _sdp(d)["stages"][2]["facts"]
        facts["output_pattern"]["value"] = "random"
        facts.pop("output_request_bytes")
    _edit(catalogue_copy / "workloads.json", change)

    with pytest.raises(CatalogueError) as err:
        load_catalogue(catalogue_copy)

    assert err.value.path == "$.workloads[1].stages[2].facts.output_request_bytes"
    assert "needs a request size" in err.value.message


def test_it_refuses_an_unknown_dependency_kind_naming_the_choices(catalogue_copy):
    _edit(catalogue_copy / "workloads.json",
          lambda d: _sdp(d)["stages"][1]["facts"]["dependency"].update(value="some"))

    with pytest.raises(CatalogueError, match=r"\$\.workloads\[1\]\.stages\[1\]: dependency: Value 'some' is not a "
                                             r"valid choice"):
        load_catalogue(catalogue_copy)


def _aws_tier(data, name):
    aws = next(p for p in data["platforms"] if p["slug"] == "aws-sydney")
    return next(t for t in aws["storage_tiers"] if t["name"] == name)["facts"]


def test_a_usd_price_is_stored_in_aud_through_the_rate_fact_with_the_original_in_its_source(catalogue_copy):
    load_catalogue(catalogue_copy)

    rate = ExchangeRate.objects.get(currency="USD")
    tier = StorageTier.objects.get(platform__slug="aws-sydney", name="EBS snapshots")
    given = json.loads((catalogue_copy / "platforms.json").read_text())
    fact = _aws_tier(given, "EBS snapshots")["price_per_gb_month"]
    assert fact["unit"] == "USD/GB-month"  # the shipped catalogue states this price in USD
    assert tier.price_per_gb_month == pytest.approx(fact["value"] * rate.base_per_unit)
    assert tier.provenance["price_per_gb_month"]["converted_from"] == {
        "value": fact["value"], "unit": "USD/GB-month", "exchange_rate": {
            "currency": "USD", "base_per_unit": rate.base_per_unit, "base": "AUD", "date": rate.date.isoformat(),
            "source": rate.provenance}}


def test_a_price_in_a_currency_without_a_rate_is_refused_naming_where(catalogue_copy):
    _edit(catalogue_copy / "platforms.json",
          lambda d: _aws_tier(d, "EBS snapshots")["price_per_gb_month"].update(unit="EUR/GB-month"))

    with pytest.raises(CatalogueError) as err:
        load_catalogue(catalogue_copy)

    assert err.value.file == "platforms.json"
    assert err.value.path.endswith(".facts.price_per_gb_month")
    assert "no EUR exchange rate in the catalogue" in err.value.message


def test_a_rate_without_a_source_is_refused_and_nothing_is_saved(catalogue_copy):
    _edit(catalogue_copy / "exchange_rates.json", lambda d: d["exchange_rates"][0]["rate"].pop("source"))

    with pytest.raises(CatalogueError) as err:
        load_catalogue(catalogue_copy)

    assert (err.value.file, err.value.path) == ("exchange_rates.json", "$.exchange_rates[0].rate")
    assert not ExchangeRate.objects.exists() and not Platform.objects.exists()
