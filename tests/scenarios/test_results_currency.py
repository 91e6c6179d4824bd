"""A scenario's results and compare pages in its currency: every amount computed and stored in AUD, shown converted
at the catalogue's exchange rate, with the currency on every money label and chart axis and the rate, its date and
its source said near the top; an AUD scenario's pages are unchanged."""

from __future__ import annotations

import json
import re

import pytest

from apps.core.models import ExchangeRate
from apps.core.templatetags.skyplan import money
from apps.scenarios import services, summary
from apps.scenarios.models import Scenario
from simulator.units import CURRENCIES

pytestmark = pytest.mark.django_db

#: an amount of money as the pages write it: "AUD 1,234", "AUD 0.52", "2000 AUD"
CODES = "|".join(CURRENCIES)
AMOUNT = re.compile(rf"\b({CODES}) \d|\d ({CODES})\b")


def _simulate(scenario):
    scenario = services.run_scenario(scenario, dispatch=False)
    for run in scenario.runs():
        for rep in run.replication_set.all():
            services.execute_replication(str(run.id), rep.index)
    scenario.refresh_from_db()
    assert scenario.status() == "succeeded"
    return scenario


@pytest.fixture
def demo(catalogue, user):
    return _simulate(services.create_demo_scenario(user))


def _in_usd(scenario) -> Scenario:
    Scenario.objects.filter(pk=scenario.pk).update(currency="USD")
    return Scenario.objects.get(pk=scenario.pk)


def _aud_outcomes(scenario) -> dict:
    results = services.scenario_results(scenario)
    return summary.platform_outcomes(results, services.result_sections(scenario, results)["scoring"])


def _usd_per_aud() -> float:
    return float(ExchangeRate.objects.filter(currency="USD").latest("date").base_per_unit)


def _table(body: str, table_id: str) -> str:
    return re.search(rf'<table[^>]*id="{table_id}".*?</table>', body, re.S).group(0)


def _cell(body: str, table_id: str, slug: str, cls: str) -> str:
    row = re.search(rf'<tr data-slug="{slug}".*?</tr>', _table(body, table_id), re.S).group(0)
    return re.search(rf'<td class="num {cls}">(.*?)</td>', row, re.S).group(1)


def _figures(body: str, script_id: str) -> dict:
    data = json.loads(re.search(rf'<script id="{script_id}" type="application/json">(.*?)</script>', body,
                                re.S).group(1))
    return {name: json.loads(fig) for name, fig in data.items()} if isinstance(data, dict) else json.loads(data)


def _titles(figure: dict) -> list[str]:
    return [axis["title"]["text"] for key, axis in figure["layout"].items()
            if re.fullmatch(r"[xy]axis\d*", key) and (axis.get("title") or {}).get("text")]


def _amounts(body: str) -> set[str]:
    """The currency codes of the amounts a reader sees (the rank explanations' thresholds included), outside the
    validation against the paper (the paper's figures are in AUD, as the page says) and the sentences stating the
    rate."""
    body = re.sub(r"<script.*?</script>|<table[^>]*id=\"validation-table\".*?</table>", "", body, flags=re.S)
    body = re.sub(r'<(p|dd)[^>]*id="(page-currency|scenario-currency)".*?</\1>', "", body, flags=re.S)
    return {a or b for a, b in AMOUNT.findall(re.sub(r"<[^>]+>", " ", body))}


def test_a_usd_scenario_page_shows_every_amount_in_usd_at_the_catalogue_rate(logged_in, demo):
    aud = _aud_outcomes(demo)
    stored = services.scenario_results(demo)["summary"]
    rate = _usd_per_aud()
    body = logged_in.get(_in_usd(demo).get_absolute_url()).content.decode()

    sentence = re.search(r'<p class="hint" id="page-currency">(.*?)</p>', body, re.S).group(1)
    assert "Amounts in USD, computed in AUD and converted at 1 USD = 1.3 AUD (2015-03-06)" in sentence
    assert "Reserve Bank of Australia" in sentence
    assert 'id="rubric-currency"' in body and 'id="validation-currency"' in body
    for slug, o in aud.items():
        if o["cost"]:
            assert _cell(body, "cost-story", slug, "per-year") == money(o["cost"]["per_year_aud"] / rate, "USD")
            assert _cell(body, "cost-story", slug, "tco") == money(o["cost"]["tco_aud"] / rate, "USD")
    assert _amounts(body) == {"USD"}
    assert services.scenario_results(demo)["summary"] == stored  # only the page converts


def test_a_usd_scenario_page_draws_its_money_charts_in_usd(logged_in, demo):
    rate = _usd_per_aud()
    first = demo.entries.select_related("platform", "run").first()
    cost_aud = sorted(first.run.replication_set.values_list("cost_aud", flat=True))
    body = logged_in.get(_in_usd(demo).get_absolute_url()).content.decode()
    figures = _figures(body, "scenario-figures")

    assert _titles(figures["costs"]) == ["cost a year (USD)"]
    assert set(_titles(figures["cost"])) == {"cost of a run (USD)"}
    dots = next(t for t in figures["cost"]["data"] if t["y"][0] == first.platform.name and t["mode"] == "markers")
    assert sorted(dots["x"]) == pytest.approx([c / rate for c in cost_aud])
    curves = _figures(body, "curves-data")
    assert _titles(curves)[1] in ("cumulative cost (USD)", "cumulative cost (USD, log scale)")
    for trace in curves["data"]:
        assert "USD" in trace["hovertemplate"] and "AUD" not in trace["hovertemplate"]


def test_the_live_recommendation_of_a_usd_scenario_stays_in_usd(logged_in, demo):
    usd = _in_usd(demo)
    weights = ",".join("1" for _ in services.result_sections(usd, services.scenario_results(usd))["scoring"]["weights"])
    answer = logged_in.get(f"/scenarios/{usd.pk}/recommendation/?weights={weights}").json()
    assert _amounts(answer["recommendation"]) == {"USD"}


def test_an_aud_scenario_page_is_unchanged(logged_in, demo):
    aud = _aud_outcomes(demo)
    body = logged_in.get(demo.get_absolute_url()).content.decode()

    assert 'id="page-currency"' not in body and 'id="rubric-currency"' not in body
    for slug, o in aud.items():
        if o["cost"]:
            assert _cell(body, "cost-story", slug, "per-year") == money(o["cost"]["per_year_aud"], "AUD")
    assert _amounts(body) == {"AUD"}
    figures = _figures(body, "scenario-figures")
    assert _titles(figures["costs"]) == ["cost a year (AUD)"]
    assert set(_titles(figures["cost"])) == {"cost of a run (AUD)"}
    assert _titles(_figures(body, "curves-data"))[1] in ("cumulative cost (AUD)", "cumulative cost (AUD, log scale)")


def _what_if(scenario, user):
    return _simulate(services.what_if(scenario, change="queue wait on Magnus x0.5", user=user, entry_changes={
        "magnus": {"platform_overrides": {"facts": {"queue_wait_median": 85 * 3600.0}}}}))


def _compared(body: str, name: str, label: str) -> list[str]:
    """The A, B and B − A cells of one platform's measure in the outcome table."""
    table = _table(body, "outcome-diff")
    group = table[table.index(f">{name}</th>"):]
    row = re.search(rf'<th scope="row">{re.escape(label)}</th>(.*?)</tr>', group, re.S).group(1)
    return re.findall(r'<td class="num">(.*?)</td>', row, re.S)[:3]


def test_the_compare_page_of_two_usd_scenarios_shows_usd(logged_in, demo, user):
    usd = _in_usd(demo)
    clone = _what_if(usd, user)
    assert clone.currency == "USD"
    a, b = _aud_outcomes(usd), _aud_outcomes(clone)
    rate = _usd_per_aud()
    body = logged_in.get(f"/scenarios/compare/?a={usd.pk}&b={clone.pk}").content.decode()

    assert "converted at 1 USD = 1.3 AUD (2015-03-06)" in re.search(
        r'id="page-currency">(.*?)</p>', body, re.S).group(1)
    aws = a["aws-sydney"]["cost"]["per_year_aud"], b["aws-sydney"]["cost"]["per_year_aud"]
    cells = _compared(body, a["aws-sydney"]["name"], "Cost per year")
    assert cells[:2] == [money(aws[0] / rate, "USD"), money(aws[1] / rate, "USD")]
    assert _amounts(body) == {"USD"}


def test_a_comparison_across_two_currencies_shows_both_in_aud_and_says_so(logged_in, demo, user):
    clone = _what_if(demo, user)
    usd = _in_usd(clone)
    a = _aud_outcomes(demo)
    body = logged_in.get(f"/scenarios/compare/?a={demo.pk}&b={usd.pk}").content.decode()

    assert "A shows its amounts in AUD and B in USD: this comparison shows both in AUD" in body
    cells = _compared(body, a["aws-sydney"]["name"], "Cost per year")
    assert cells[0] == money(a["aws-sydney"]["cost"]["per_year_aud"], "AUD")
    assert _amounts(body) == {"AUD"}


def test_a_scenario_whose_rate_the_catalogue_lost_shows_aud_and_says_why(logged_in, demo):
    aud = _aud_outcomes(demo)
    usd = _in_usd(demo)
    ExchangeRate.objects.filter(currency="USD").delete()
    body = logged_in.get(usd.get_absolute_url()).content.decode()

    sentence = re.search(r'<p class="hint" id="page-currency">(.*?)</p>', body, re.S).group(1)
    assert sentence.startswith("Amounts in AUD: the scenario shows money in USD but the catalogue has no USD "
                               "exchange rate")
    slug, o = next((s, o) for s, o in aud.items() if o["cost"])
    assert _cell(body, "cost-story", slug, "per-year") == money(o["cost"]["per_year_aud"], "AUD")
    assert _amounts(body) == {"AUD"}
