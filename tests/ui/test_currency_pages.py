"""The builder offers the currency choice with each rate and a scenario's page names its report currency, at 1400
and 400 px in a real Chromium."""

from __future__ import annotations

import pytest

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
            assert "(this page shows AUD)" in text
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            screenshot(page, f"currency-scenario-{width}")
        finally:
            context.close()
