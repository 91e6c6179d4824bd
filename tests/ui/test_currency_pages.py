"""The builder offers the currency choice with each rate, a scenario's page names its currency, and a finished USD
scenario's results page shows its amounts and money charts in USD with the rate said near the top, at 1400 and
400 px in a real Chromium."""

from __future__ import annotations

import re

import pytest

from simulator.units import CURRENCIES

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"
WIDTHS = (1400, 400)


@pytest.fixture
def usd_scenario(live_server, django_user_model):
    from django.conf import settings

    from apps.platforms.models import Platform
    from apps.scenarios.services import create_scenario
    from apps.workloads.catalogue import load_catalogue
    from apps.workloads.models import Workload

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    user = django_user_model.objects.create_user(username="grace", password=PASSWORD)

    entries = [(Platform.objects.get(slug=s, workspace=None), {}, {}) for s in ("magnus", "aws-sydney")]
    return create_scenario(name="Magnus vs AWS in dollars", workload=Workload.objects.get(slug="chiles-epoch1"),
                           entries=entries, user=user, currency="USD")


@pytest.fixture
def finished_usd(live_server, django_user_model):
    """The demo scenario in USD, run to completion in this process."""
    from django.conf import settings

    from apps.scenarios import services
    from apps.scenarios.models import Scenario
    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    user = django_user_model.objects.create_user(username="grace", password=PASSWORD)
    scenario = services.create_demo_scenario(user)
    Scenario.objects.filter(pk=scenario.pk).update(currency="USD")
    scenario = services.run_scenario(Scenario.objects.get(pk=scenario.pk), user=user, dispatch=False)
    for run in scenario.runs():
        for index in range(run.replications):
            services.execute_replication(str(run.pk), index)
    return scenario


#: every drawn cartesian axis with tick labels, its chart and its title (plotly's full layout)
AXES = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(el => {
  const layout = el._fullLayout || {};
  return Object.keys(layout).filter(k => /^[xy]axis\\d*$/.test(k)).map(k => {
    const ax = layout[k];
    return {chart: el.id, ticks: ax.showticklabels && ax.visible !== false, title: (ax.title && ax.title.text) || ''};
  });
})"""
#: the charts whose axis (the one titled with money) is in the page's currency
MONEY_CHARTS = {"fig-costs", "fig-cost", "curves"}
#: an amount as the page writes it: "USD 1,234", "2000 AUD"
CODES = "|".join(CURRENCIES)
AMOUNT = re.compile(rf"\b({CODES}) \d|\d ({CODES})\b")


def _open(log_in, live_server, path: str, width: int):
    context, page, _ = log_in(live_server.url, path, width)
    page.wait_for_load_state("networkidle")
    return context, page



def test_the_builder_and_the_scenario_page_show_the_currency_and_its_rate(log_in, live_server, usd_scenario,
                                                                         screenshot):
    for width in WIDTHS:
        context, page = _open(log_in, live_server, "/scenarios/new/?workload=chiles-epoch1", width)
        try:
            options = page.locator("select[name='currency'] option").all_inner_texts()
            assert options[:2] == ["AUD", "USD (1 USD = 1.3 AUD (2015-03-06))"]
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            screenshot(page, f"currency-builder-{width}")
        finally:
            context.close()
        context, page = _open(log_in, live_server, f"/scenarios/{usd_scenario.pk}/", width)
        try:
            text = page.inner_text("#scenario-currency")
            assert "Amounts in USD, computed in AUD and converted at 1 USD = 1.3 AUD (2015-03-06)" in text
            assert text.startswith("USD: this page and its reports.")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            screenshot(page, f"currency-scenario-{width}")
        finally:
            context.close()


def test_a_usd_scenarios_results_page_shows_usd_at_1400_and_400_px(log_in, live_server, finished_usd, screenshot):
    for width in WIDTHS:
        context, page = _open(log_in, live_server, f"/scenarios/{finished_usd.pk}/", width)
        try:
            page.wait_for_function("() => Array.from(document.querySelectorAll('.chart')).every(el => "
                                   "el.querySelector('.main-svg'))")
            screenshot(page, f"currency-results-{width}")
            where = f"at {width} px"
            assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{where}: horizontal overflow"
            sentence = page.locator("#page-currency")
            assert sentence.is_visible()
            assert "Amounts in USD, computed in AUD and converted at 1 USD = 1.3 AUD (2015-03-06)" in \
                sentence.inner_text()
            # amounts outside the rank explanations and the validation against the paper (in AUD, as the page says)
            # and the sentences stating the rate
            shown = page.evaluate("""() => { const main = document.querySelector('main').cloneNode(true);
              main.querySelectorAll('#rank-table, #validation-table, #page-currency, #scenario-currency, script')
                  .forEach(el => el.remove());
              return main.textContent; }""")
            codes = {a or b for a, b in AMOUNT.findall(shown)}
            assert codes == {"USD"}, f"{where}: {codes}"
            money_axes = [a for a in page.evaluate(AXES) if a["chart"] in MONEY_CHARTS and a["ticks"]
                          and "cost" in a["title"]]
            assert {a["chart"] for a in money_axes} == MONEY_CHARTS, f"{where}: {money_axes}"
            for axis in page.evaluate(AXES):
                assert "AUD" not in axis["title"], f"{where}: {axis}"
            assert all("USD" in a["title"] for a in money_axes), f"{where}: {money_axes}"
        finally:
            context.close()


def test_the_compare_page_of_two_usd_scenarios_shows_usd_at_1400_and_400_px(log_in, live_server, finished_usd,
                                                                            screenshot):
    from apps.scenarios import services

    clone = services.run_scenario(services.what_if(
        finished_usd, change="queue wait on Magnus x0.5", user=finished_usd.created_by,
        entry_changes={"magnus": {"platform_overrides": {"facts": {"queue_wait_median": 85 * 3600.0}}}}),
        dispatch=False)
    for run in clone.runs():
        for index in range(run.replications):
            services.execute_replication(str(run.pk), index)
    for width in WIDTHS:
        context, page = _open(log_in, live_server, f"/scenarios/compare/?a={finished_usd.pk}&b={clone.pk}", width)
        try:
            screenshot(page, f"currency-compare-{width}")
            assert page.evaluate("document.documentElement.scrollWidth") <= width, f"at {width} px: overflow"
            assert "converted at 1 USD = 1.3 AUD (2015-03-06)" in page.inner_text("#page-currency")
            codes = {a or b for a, b in AMOUNT.findall(page.inner_text("#outcome-diff"))}
            assert codes == {"USD"}, f"at {width} px: {codes}"
        finally:
            context.close()
