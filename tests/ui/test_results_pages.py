"""Results and compare pages in headless Chromium at 1400 and 400 px: no horizontal overflow, no overlapping text,
no raw Python data or slug on screen, no console error, every chart axis titled with its unit; moving a weight
slider that changes the winner changes every number that depends on the weights, and a tie reads as a tie."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"
HOUR = 3600.0
WIDTHS = (1400, 400)

#: text boxes of the page's own elements that overlap one another (plotly's SVG is checked through its axes)
OVERLAPS = """() => {
  const boxes = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim() || node.parentElement.closest('svg, .js-plotly-plot, option, select, script')) continue;
    const el = node.parentElement;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || el.closest('details:not([open])') && !el.closest('summary')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width > 1 && r.height > 1) boxes.push({r, el, text: node.textContent.trim().slice(0, 40)});
    }
  }
  const out = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].r, b = boxes[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 2 && h > 2 && boxes[i].el !== boxes[j].el && !boxes[i].el.contains(boxes[j].el)
          && !boxes[j].el.contains(boxes[i].el)) out.push(boxes[i].text + ' / ' + boxes[j].text);
    }
  }
  return out.slice(0, 10);
}"""

#: captions wider than the scrolling wrapper of their table, whose end the reader cannot see (the wrapper clips it)
CLIPPED_CAPTIONS = """() => Array.from(document.querySelectorAll('main .scroll caption')).filter(c => {
  const r = c.getBoundingClientRect(), s = c.closest('.scroll').getBoundingClientRect();
  return r.width > 0 && (r.right > s.right + 0.5 || r.left < s.left - 0.5);
}).map(c => c.textContent.trim().slice(0, 60))"""

#: every drawn cartesian axis with tick labels and its title (plotly's full layout)
AXES = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(el => {
  const layout = el._fullLayout || {};
  return Object.keys(layout).filter(k => /^[xy]axis\\d*$/.test(k)).map(k => {
    const ax = layout[k];
    return {chart: el.id, axis: k, type: ax.type, ticks: ax.showticklabels && ax.visible !== false,
            title: (ax.title && ax.title.text) || ''};
  });
})"""

#: a title names its unit: "(hours)", "(AUD…)", "MB/s"
UNIT = re.compile(r"\((?:hours|AUD[^)]*|years)\)|MB/s")
#: identifiers a reader should never see: the platforms' and workload's slugs, snake_case names, Python data
RAW = re.compile(r"\{'|\[\{'|\b[a-z]+_[a-z_]+\b|\baws-sydney\b|\bchiles-epoch1\b|(?<![\w(])(?:magnus|pleiades)\b")


@pytest.fixture
def pages(live_server, django_user_model):
    """The demo scenario and its what-if (Magnus's queue wait halved), run to completion in this process."""
    from django.conf import settings

    from apps.scenarios import services
    from apps.workloads.catalogue import load_catalogue

    load_catalogue(settings.SKYPLAN_CATALOGUE_DIR)
    user = django_user_model.objects.create_user(username="grace", password=PASSWORD)

    def run(scenario):
        services.run_scenario(scenario, user=user, dispatch=False)
        for run_ in scenario.runs():
            for index in range(run_.replications):
                services.execute_replication(str(run_.pk), index)
        return scenario

    demo = run(services.create_demo_scenario(user))
    clone = run(services.what_if(
        demo, change="queue wait on Magnus (Pawsey Cray XC40) x0.5", user=user,
        entry_changes={"magnus": {"platform_overrides": {"facts": {"queue_wait_median": 85 * HOUR}}}}))
    return {"results": f"/scenarios/{demo.pk}/", "compare": f"/scenarios/compare/?a={demo.pk}&b={clone.pk}",
            "scenario": demo}


def _open(log_in, live_server, path: str, width: int):
    context, page, errors = log_in(live_server.url, path, width)
    page.wait_for_load_state("networkidle")
    page.wait_for_function("() => Array.from(document.querySelectorAll('.chart')).every(el => el.querySelector"
                           "('.main-svg'))")
    return context, page, errors


def test_results_and_compare_hold_at_1400_and_400_px_with_readable_text_and_titled_axes(log_in, live_server, pages,
                                                                                        screenshot):
    for name, width in [(n, w) for n in ("results", "compare") for w in WIDTHS]:
        context, page, errors = _open(log_in, live_server, pages[name], width)
        try:
            screenshot(page, f"{name}-{width}")
            where = f"{name} at {width} px"
            assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{where}: horizontal overflow"
            assert page.evaluate(OVERLAPS) == [], f"{where}: overlapping text"
            assert page.evaluate(CLIPPED_CAPTIONS) == [], f"{where}: captions cut off by their table's scrolling"
            text = page.inner_text("main")
            assert not RAW.findall(text), f"{where}: {RAW.findall(text)[:5]}"
            assert errors == [], f"{where}: {errors}"
            for axis in page.evaluate(AXES):
                if axis["ticks"] and axis["type"] in ("linear", "log"):
                    assert UNIT.search(axis["title"]), f"{where}: {axis}"
        finally:
            context.close()


def test_moving_a_slider_that_changes_the_winner_updates_every_number_that_depends_on_the_weights(
        log_in, live_server, pages):
    from apps.scenarios.services import scenario_results
    from apps.scenarios.summary import recommendation
    from apps.scoring.services import scoring_section

    scenario = pages["scenario"]
    results = scenario_results(scenario)
    scoring = scoring_section(scenario, results)
    context, page, errors = _open(log_in, live_server, pages["results"], 1400)
    try:
        assert page.text_content("#winner") == "AWS Sydney (EC2 / EBS / S3)"
        before = {sel: page.text_content(sel) for sel in ("#margin", "#ranking-table tbody", "#aggregate-table")}
        usability = [c["label"] for c in scoring["report"]["criteria"]].index("Usability")
        weights = [0.0] * len(scoring["weights"])
        weights[usability] = 3.0
        for i, w in enumerate(weights):  # all the weight on usability: Magnus and Pleiades ranked 4, AWS 2
            page.locator(f"#weights-form input[name=w{i}]").fill(f"{w:g}")
        page.wait_for_function("() => document.getElementById('winner').textContent.startsWith('Magnus')")
        expected = recommendation(results, scoring, weights, papers=True)
        assert page.text_content("#winner") == expected["winner_names"] == (
            "Magnus (Pawsey Cray XC40) and Pleiades (ICRAR departmental cluster)")
        assert page.text_content("#rec-h").startswith("Tie for first")
        for sel in before:  # the margin sentence, the places and chances of first, every method's order
            assert page.text_content(sel) != before[sel], sel
        assert " ".join(page.text_content("#margin").split()) == "How firm: " + expected["margin_text"]
        rows = page.locator("#ranking-table tbody tr")
        assert [rows.nth(i).locator("td").first.text_content() for i in range(3)] == ["1 (tie)", "1 (tie)", "3"]
        for i, row in enumerate(expected["rows"]):
            assert rows.nth(i).locator("td").last.text_content() == f"{100 * row['p_first_near']:.0f}%"
        assert "Magnus (Pawsey Cray XC40) = Pleiades (ICRAR departmental cluster) > AWS Sydney" in page.text_content(
            "#aggregate-table tr[data-method='weighted_sum'] td.order")
        # each slider says the value it is at
        for i, w in enumerate(weights):
            slider = page.locator(f"#weights-form input[name=w{i}]")
            assert float(slider.input_value()) == w
            assert slider.locator("xpath=following-sibling::output").text_content() == f"{w:g}"
            assert slider.get_attribute("aria-valuetext") == f"{w:g}"
        # back to the saved weights: back to the first recommendation
        page.get_by_role("button", name="Back to the saved weights").click()
        page.wait_for_function("() => document.getElementById('winner').textContent.startsWith('AWS')")
        assert page.text_content("#margin") == before["#margin"]
        assert errors == []
    finally:
        context.close()
