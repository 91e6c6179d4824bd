"""The content security policy holds in a real browser: the pages with charts draw them in headless Chromium with
no policy violation (reported as `securitypolicyviolation` events and console errors)."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"
SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "profiles"
#: collects violations from the first script on every page (Playwright's init scripts are not subject to the policy)
WATCH_VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  `${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber} ${e.sample}`));
"""


@pytest.fixture
def pages(live_server, django_user_model):
    """The demo scenario run to completion in this process (no worker needed), a scored workload and a profile."""
    from django.conf import settings
    from django.test import Client

    from apps.profiles.services import import_file
    from apps.scenarios import services
    from apps.scoring.models import ScoreReport
    from apps.scoring.services import execute_report
    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    user = django_user_model.objects.create_user(username="grace", password=PASSWORD)
    with mock.patch.object(services, "dispatch_run"):
        scenario = services.run_scenario(services.create_demo_scenario(user), user=user)
    for entry in scenario.entries.select_related("run"):
        for index in range(entry.run.replications):
            services.execute_replication(str(entry.run.pk), index)
    run = scenario.entries.first().run
    profile = import_file(SAMPLES / "seq_read.skyplan.csv", user=user).profile
    scoring = "/scoring/workloads/chiles-epoch1/?platform=magnus&platform=aws-sydney&platform=pleiades"
    tco = "/scoring/workloads/chiles-epoch1/tco/?platform=magnus&platform=aws-sydney"
    client = Client()
    client.force_login(user)
    for url in (scoring, tco):  # the pages ask for their reports; computed here as a worker would
        client.get(url)
    for pk in ScoreReport.objects.values_list("pk", flat=True):
        assert execute_report(pk) == "succeeded"
    return {
        "scenario": (f"/scenarios/{scenario.pk}/", ["fig-gantt", "fig-utilisation", "fig-costs", "fig-makespan",
                                                    "fig-cost", "radar", "curves"]),
        "run": (f"/runs/{run.pk}/", ["timeline", "utilisation"]),
        "profile": (f"/profiles/{profile.pk}/", None),
        "scoring": (scoring, ["radar"]),
        "tco": (tco, ["curves"]),
    }


@pytest.fixture
def page(browser, live_server, pages):
    context = browser.new_context(viewport={"width": 1366, "height": 800})
    context.add_init_script(WATCH_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.console_errors = []
    page.on("console", lambda msg: msg.type == "error" and page.console_errors.append(msg.text))
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("User name").fill("grace")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")
    yield page
    context.close()


def _drawn(page, element_id: str) -> int:
    """How many traces plotly drew in the element (waits until it has drawn)."""
    page.wait_for_function(f"() => {{ const el = document.getElementById('{element_id}');"
                           f" return el && el.data && el.data.length > 0 && el.querySelector('.main-svg'); }}")
    return page.evaluate(f"document.getElementById('{element_id}').data.length")


def _hover_shows_bold_text(page, element_id: str) -> bool:
    page.locator(f"#{element_id}").scroll_into_view_if_needed()
    box = page.locator(f"#{element_id} .nsewdrag").first.bounding_box()
    for y in (0.1, 0.3, 0.5, 0.7, 0.9):
        for x in (0.05, 0.2, 0.4, 0.6, 0.8):
            page.mouse.move(box["x"] + box["width"] * x, box["y"] + box["height"] * y)
            page.wait_for_timeout(100)
            if page.evaluate("[...document.querySelectorAll('.hoverlayer tspan[style]')]"
                             ".some(t => getComputedStyle(t).fontWeight === '700')"):
                return True
    return False


def test_the_chart_pages_draw_with_no_policy_violation(page, live_server, pages, screenshot):
    for name, (path, charts) in pages.items():
        response = page.goto(f"{live_server.url}{path}")
        assert response.status == 200, name
        assert "script-src 'self'" in response.headers["content-security-policy"]
        if charts is None:  # the profile page names its charts after the series it has
            charts = page.evaluate("[...document.querySelectorAll('div.chart')].map(el => el.id)")
        assert charts, name
        for element_id in charts:
            assert _drawn(page, element_id) > 0, f"{name}: {element_id}"
        page.locator(f"#{charts[0]}").scroll_into_view_if_needed()
        box = page.locator(f"#{charts[0]} .main-svg").first.bounding_box()
        for fraction in (0.2, 0.4, 0.6, 0.8):  # hover labels (bold text) and the mode bar (its styles)
            page.mouse.move(box["x"] + box["width"] * fraction, box["y"] + box["height"] / 2)
            page.wait_for_timeout(150)
        if name == "run":  # its timeline's hover labels have bold text, an inline style the policy allows by hash
            assert _hover_shows_bold_text(page, "timeline")
        screenshot(page, f"csp-{name}")
        violations = page.evaluate("window.__csp")
        assert violations == [], f"{name}: {violations}"
        assert [m for m in page.console_errors if "Content Security Policy" in m] == [], name


@pytest.mark.parametrize(("path", "drawn"), [("/api/docs/", ".swagger-ui .info .title"),
                                              ("/api/redoc/", "redoc .api-content h1")])
def test_the_api_documentation_renders_with_no_policy_violation(browser, live_server, path, drawn):
    context = browser.new_context(viewport={"width": 1366, "height": 800})
    context.add_init_script(WATCH_VIOLATIONS)
    page = context.new_page()
    console_errors = []
    page.on("console", lambda msg: msg.type == "error" and console_errors.append(msg.text))
    response = page.goto(f"{live_server.url}{path}")
    assert response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector(drawn, timeout=30_000)
    page.wait_for_timeout(500)
    # ReDoc's sidebar shows Redocly's logo from their CDN: the policy blocks that request (as it should), nothing else
    violations = [v for v in page.evaluate("window.__csp")
                  if not v.startswith("img-src blocked https://cdn.redoc.ly/")]
    context.close()
    assert violations == [], violations
    assert [m for m in console_errors if "Content Security Policy" in m and "cdn.redoc.ly" not in m] == []


def test_the_admin_works_with_no_policy_violation(browser, live_server, django_user_model):
    from django.conf import settings

    from apps.platforms.models import Platform
    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    django_user_model.objects.create_superuser(username="root", password=PASSWORD)
    platform = Platform.objects.get(slug="magnus")
    context = browser.new_context(viewport={"width": 1366, "height": 800})
    context.add_init_script(WATCH_VIOLATIONS)
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.get_by_label("Username").fill("root")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/admin/")
    violations = {}
    for path in ("/admin/", "/admin/platforms/platform/", f"/admin/platforms/platform/{platform.pk}/change/",
                 "/admin/auth/user/add/"):
        assert page.goto(f"{live_server.url}{path}").status == 200, path
        page.wait_for_timeout(300)
        violations[path] = page.evaluate("window.__csp")
    context.close()
    assert violations == {path: [] for path in violations}
