"""A scenario's report in the user's currency: computed in AUD, shown in the chosen currency at the catalogue's
exchange rate, with the rate, its date and its source in every format."""

from __future__ import annotations

import copy
import csv
import io
import json
import zipfile
from pathlib import Path

import jsonschema
import pytest
from openpyxl import load_workbook

from apps.core.models import ExchangeRate, MissingRate, currency_section
from apps.reports.currency import in_currency
from apps.reports.document import SCHEMA_VERSION, build_document
from apps.reports.render import render_csv, render_html, render_json, render_xlsx
from apps.scenarios.services import InvalidScenario, create_demo_scenario, create_scenario
from apps.workloads.models import Workload

SCHEMA = Path(__file__).resolve().parents[2] / "apps" / "reports" / "schema" / f"report-{SCHEMA_VERSION}.json"
USD = {"code": "USD", "base": "AUD", "base_per_unit": 1.25, "date": "2026-01-05",
       "source": {"kind": "assumption", "reason": "test rate"},
       "text": "Amounts in USD, computed in AUD and converted at 1 USD = 1.25 AUD (2026-01-05); rate source: test"}


@pytest.fixture
def usd_doc(demo_document):
    doc = copy.deepcopy(demo_document)
    doc["currency"] = dict(USD)
    return doc


def test_an_aud_report_says_so_and_converts_nothing(demo_document):
    assert demo_document["currency"]["code"] == "AUD" and demo_document["currency"]["base_per_unit"] == 1.0
    assert in_currency(demo_document) is demo_document


def test_the_json_keeps_aud_and_carries_the_rate_its_date_and_source(usd_doc, demo_document):
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(usd_doc)
    back = json.loads(render_json(usd_doc))
    assert back["currency"] == USD
    assert back["costs"] == demo_document["costs"]  # stored amounts stay in the base currency


def test_every_amount_is_divided_by_the_rate_and_nothing_else_changes(usd_doc):
    shown = in_currency(usd_doc)
    first, before = shown["ranking"][0], usd_doc["ranking"][0]
    assert first["cost_p50_aud"] == pytest.approx(before["cost_p50_aud"] / 1.25)
    assert first["tco_total_aud"] == pytest.approx(before["tco_total_aud"] / 1.25)
    assert first["makespan_p50_s"] == before["makespan_p50_s"]
    for line, original in zip(shown["costs"], usd_doc["costs"], strict=True):
        assert line["aud"] == pytest.approx(original["aud"] / 1.25)
        assert line["quantity"] == original["quantity"]
    story = next(r["cost"] for r in usd_doc["ranking"] if r.get("cost"))
    shown_story = next(r["cost"] for r in shown["ranking"] if r.get("cost"))
    assert shown_story["per_run"] == {k: v / 1.25 for k, v in story["per_run"].items()}


def test_csv_and_xlsx_head_money_columns_with_the_currency_and_hold_the_rate(usd_doc):
    archive = zipfile.ZipFile(io.BytesIO(render_csv(usd_doc)))
    rate = list(csv.DictReader(io.StringIO(archive.read("currency.csv").decode("utf-8-sig"))))
    assert (rate[0]["currency"], rate[0]["base per unit"], rate[0]["rate date"]) == ("USD", "1.25", "2026-01-05")
    assert rate[0]["rate source"] == "Assumption: test rate"
    ranking = list(csv.DictReader(io.StringIO(archive.read("ranking.csv").decode("utf-8-sig"))))
    assert float(ranking[0]["cost P50 (USD)"]) == pytest.approx(usd_doc["ranking"][0]["cost_p50_aud"] / 1.25)
    assert "cost P50 (AUD)" not in ranking[0]
    assert USD["text"] in archive.read("recommendation.txt").decode()

    book = load_workbook(io.BytesIO(render_xlsx(usd_doc)))
    assert ["Currency", USD["text"]] in [list(r) for r in book["summary"].iter_rows(values_only=True)]
    costs = [list(r) for r in book["costs"].iter_rows(values_only=True)]
    assert costs[0][5:7] == ["rate (USD)", "cost (USD)"]
    assert costs[1][6] == pytest.approx(usd_doc["costs"][0]["aud"] / 1.25)


def test_the_html_and_so_the_pdf_show_the_currency_the_rate_and_converted_amounts(usd_doc):
    html = render_html(usd_doc).decode()
    assert USD["text"] in html
    first = usd_doc["costs"][0]
    assert f"USD {first['aud'] / 1.25:,.2f}" in html
    assert f"AUD {first['aud']:,.2f}" not in html or first["aud"] == 0


@pytest.mark.django_db
def test_a_scenario_in_usd_reports_at_the_catalogues_rate(catalogue, user):
    scenario = create_demo_scenario(user)
    scenario.currency = "USD"
    section = currency_section(scenario.currency)
    rate = ExchangeRate.objects.get(currency="USD")
    assert (section["base_per_unit"], section["date"]) == (rate.base_per_unit, rate.date.isoformat())
    assert "1 USD = 1.3 AUD (2015-03-06)" in section["text"] and "Assumption:" in section["text"]
    assert "1 USD = 1.3 AUD" in scenario.currency_text()


@pytest.mark.django_db
def test_a_currency_without_a_rate_is_refused_when_the_scenario_is_made(catalogue, user):
    workload = Workload.objects.get(slug="chiles-epoch1")
    demo = create_demo_scenario(user)
    entries = [(e.platform, {}, {}) for e in demo.entries.select_related("platform")]
    with pytest.raises(InvalidScenario) as err:
        create_scenario(name="in euros", workload=workload, entries=entries, user=user, currency="EUR")
    assert [(e.path, e.message) for e in err.value.errors] == [
        ("currency", "the catalogue has no EUR exchange rate: choose AUD, USD")]
    with pytest.raises(InvalidScenario) as err:
        create_scenario(name="in doubloons", workload=workload, entries=entries, user=user, currency="XYZ")
    assert err.value.errors[0].path == "currency" and "is not a currency Skyplan knows" in err.value.errors[0].message
    made = create_scenario(name="in dollars", workload=workload, entries=entries, user=user, currency="USD")
    assert made.currency == "USD"
    with pytest.raises(MissingRate):
        currency_section("GBP")


@pytest.mark.django_db
def test_the_report_of_a_usd_scenario_is_built_with_the_rate(finished_demo):
    finished_demo.currency = "USD"
    finished_demo.save(update_fields=["currency"])
    doc = build_document(finished_demo)
    assert doc["currency"]["code"] == "USD" and doc["currency"]["base_per_unit"] == 1.3
    assert doc["scenario"]["currency"] == "USD"


MONEY_CRITERIA = {"capital_costs", "operational_costs"}


def test_money_rank_explanations_state_their_amounts_and_thresholds_in_the_currency(usd_doc):
    shown = in_currency(usd_doc)
    converted = 0
    for before, after in zip(usd_doc["ranks"], shown["ranks"], strict=True):
        assert after["score"] == before["score"]  # the stored score, whatever the currency
        if before["criterion"] not in MONEY_CRITERIA or before["value"] is None:
            assert after == before
            continue
        converted += 1
        assert after["value"] == pytest.approx(before["value"] / 1.25)
        assert "AUD" not in after["explanation"] and "AUD" not in after["text"]
        # the amount as the explanation writes it (whole AUD), at the rate
        assert f"USD {round(before['value']) / 1.25:,.0f}" in after["explanation"]
    assert converted >= 3
    # the thresholds too: "up to AUD 5K per epoch" is USD 4,000
    operational = [(b, a) for b, a in zip(usd_doc["ranks"], shown["ranks"], strict=True)
                   if b["criterion"] == "operational_costs" and "up to AUD 5K" in b["explanation"]]
    assert operational and all("up to USD 4K" in a["explanation"] for _, a in operational)


def test_csv_and_html_carry_the_converted_rank_explanations(usd_doc):
    shown = {(r["platform"], r["criterion"]): r for r in in_currency(usd_doc)["ranks"]}
    archive = zipfile.ZipFile(io.BytesIO(render_csv(usd_doc)))
    rows = list(csv.DictReader(io.StringIO(archive.read("ranks.csv").decode("utf-8-sig"))))
    html = render_html(usd_doc).decode()
    for row in rows:
        if row["criterion"] in MONEY_CRITERIA and row["value"]:
            expected = shown[(row["platform"], row["criterion"])]
            assert row["explanation"] == expected["explanation"] and "AUD" not in row["explanation"]
            assert float(row["value"]) == pytest.approx(expected["value"])
            assert expected["explanation"].replace("&", "&amp;") in html


@pytest.mark.django_db
def test_the_report_of_a_usd_scenario_draws_its_money_charts_in_usd(finished_demo):
    finished_demo.currency = "USD"
    finished_demo.save(update_fields=["currency"])
    rate = ExchangeRate.objects.get(currency="USD").base_per_unit
    doc = build_document(finished_demo)
    figures = doc["figures"]
    # the cost of a run: each replication's stored AUD cost at the rate
    for entry in finished_demo.entries.select_related("platform", "run"):
        stored = sorted(r.result["total_cost_aud"] / rate for r in entry.run.replication_set.all())
        dots = next(t for t in figures["cost"]["data"] if t["name"] == "replications" and t["y"][0] == entry.platform.name)
        assert sorted(dots["x"]) == pytest.approx(stored)
    assert figures["cost"]["layout"]["xaxis"]["title"]["text"] == "cost of a run (USD)"
    # the cost a year: each platform's total (the document's AUD) at the rate
    totals = next(t for t in figures["costs"]["data"] if t["type"] == "scatter")
    per_year = {r["name"]: r["cost"]["per_year_aud"] / rate for r in doc["ranking"] if r.get("cost")}
    assert dict(zip(totals["y"], totals["x"], strict=True)) == pytest.approx(per_year)
    assert figures["costs"]["layout"]["xaxis"]["title"]["text"] == "cost a year (USD)"
    # the cumulative cost of ownership after each epoch
    for p in doc["tco"]["platforms"]:
        line = next(t for t in figures["tco"]["data"] if t["name"] == p["name"])
        assert line["y"] == pytest.approx([c["aud"] / rate for c in p["cumulative_by_epoch"]])
    assert "cumulative cost (USD" in figures["tco"]["layout"]["yaxis"]["title"]["text"]
    for name in ("cost", "costs", "tco"):
        assert "AUD" not in json.dumps(figures[name])
