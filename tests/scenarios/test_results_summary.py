"""The results page leads with the answer: one cost story that reconciles, a recommendation that follows the
weights (ties shown as ties), inputs in words; the comparison says whether the winner changes."""

from __future__ import annotations

import re

import pytest

from apps.platforms.services import reference_platforms
from apps.scenarios.models import Scenario
from apps.scenarios.services import (
    answer_first,
    create_scenario,
    execute_replication,
    run_scenario,
    scenario_results,
    what_if,
)
from apps.scenarios.summary import caveats, recommendation
from apps.scoring.logic.robustness import slider_margin, tiers, weight_verdict
from apps.scoring.services import scoring_section
from apps.workloads.models import Workload

pytestmark = pytest.mark.django_db

HOUR = 3600.0


def _run(scenario: Scenario) -> Scenario:
    run_scenario(scenario, dispatch=False)
    for run in scenario.runs():
        for rep in run.replication_set.all():
            execute_replication(str(run.id), rep.index)
    return Scenario.objects.get(pk=scenario.pk)


@pytest.fixture
def papers_three(catalogue, user):
    """The paper's epoch on its three platforms, 2 replications, 4 runs a year over 3 years."""
    platforms = {p.slug: p for p in reference_platforms()}
    scenario = create_scenario(
        name="three platforms", workload=Workload.objects.get(slug="chiles-epoch1"), replications=2, seed=0,
        tco_years=3, epochs_per_year=4, user=user,
        entries=[(platforms[s], {}, {}) for s in ("pleiades", "magnus", "aws-sydney")])
    return _run(scenario)


def _money(text: str) -> float:
    text = text.strip()
    return 0.0 if text in ("–", "AUD 0") else float(re.sub(r"[^0-9.]", "", text))


def test_per_run_times_runs_a_year_plus_fixed_costs_is_the_yearly_figure_for_each_platform(papers_three, logged_in):
    scenario = papers_three
    results = scenario_results(scenario)
    context = answer_first(scenario, results, scoring_section(scenario, results))
    stories = {o["slug"]: o["cost"] for o in context["outcomes"]}
    assert set(stories) == {"pleiades", "magnus", "aws-sydney"}
    for slug, c in stories.items():
        assert c["runs_per_year"] == 4
        assert c["per_run_aud"] * 4 + c["fixed_per_year_aud"] == pytest.approx(c["per_year_aud"], rel=1e-9), slug
        assert c["per_year_aud"] * 3 == pytest.approx(c["tco_aud"], rel=1e-9), slug  # no data growth: 3 equal years
        assert sum(c["per_run"].values()) == pytest.approx(c["per_run_aud"], rel=1e-12)
    # Pleiades (catalogue): AUD 50,000 over 4 years + AUD 110,000 staff + AUD 10,500 power, all of it used
    assert stories["pleiades"]["fixed_per_year_aud"] == pytest.approx(50_000 / 4 + 110_000 + 10_500)
    assert stories["pleiades"]["per_run_aud"] == 0.0
    assert stories["pleiades"]["all_in_per_run_aud"] == pytest.approx(133_000 / 4)
    assert stories["magnus"]["fixed_per_year_aud"] == 0.0 and stories["magnus"]["per_run_aud"] > 0
    # the page shows the same numbers, and they add up as shown (each rounded to the dollar)
    body = logged_in.get(scenario.get_absolute_url()).content.decode()
    table = body[body.index('id="cost-story"'):body.index("</table>", body.index('id="cost-story"'))]
    for slug in stories:
        row = table[table.index(f'data-slug="{slug}"'):]
        row = row[:row.index("</tr>")]
        cells = [_money(c) if "AUD" in c or c.strip() == "–" else c.strip()
                 for c in re.findall(r'<td class="num[^"]*">([^<]*)</td>', row)]
        capital, staff, power, compute, storage, transfer, run_total, runs, per_year, tco = cells
        assert runs == "4"
        assert abs(compute + storage + transfer - run_total) <= 2, slug
        assert abs(run_total * 4 + capital + staff + power - per_year) <= 6, slug
        assert abs(per_year * 3 - tco) <= 3, slug
    assert "AUD 133,000" in table and "AUD 399,000" in table
    assert "Pleiades costs AUD 0" not in body and "nothing billed" in body


def test_the_recommendation_follows_the_weights_and_a_tie_is_shown_as_a_tie(papers_three, logged_in):
    scenario = papers_three
    results = scenario_results(scenario)
    scoring = scoring_section(scenario, results)
    saved = recommendation(results, scoring)
    assert [w["slug"] for w in saved["winners"]] == ["aws-sydney"] and not saved["tie"]
    # all the weight on usability: Magnus and Pleiades are both ranked 4 there (AWS 2)
    usability = [c["key"] for c in scoring["report"]["criteria"]].index("usability")
    weights = [0.0] * len(scoring["weights"])
    weights[usability] = 3.0
    tied = recommendation(results, scoring, weights)
    assert tied["tie"] and {w["slug"] for w in tied["winners"]} == {"magnus", "pleiades"}
    assert [r["position"] for r in tied["rows"]] == [1, 1, 3] and tied["rows"][0]["tied"]
    assert tied["methods"][1]["method"] == "weighted_sum"
    assert tied["methods"][1]["order"].count(" = ") == 1
    assert "tie breaks at the slightest change" in tied["margin_text"]
    assert sum(r["p_first_near"] for r in tied["rows"]) == pytest.approx(1.0)
    # the endpoint the sliders call renders the same block
    url = f"/scenarios/{scenario.pk}/recommendation/?weights=" + ",".join(f"{w:g}" for w in weights)
    data = logged_in.get(url).json()
    assert sorted(data["winners"]) == ["magnus", "pleiades"]
    assert "Tie for first" in data["recommendation"] and "1 (tie)" in data["recommendation"]
    assert "aws-sydney" not in data["recommendation"].replace('data-slug="aws-sydney"', "")


def test_bad_weights_are_a_400_naming_the_weights(papers_three, logged_in):
    for weights in ["", "1,2", "a,b,c,d,e,f,g,h", "0,0,0,0,0,0,0,0", "1,1,1,1,1,1,1,-1", "nan,1,1,1,1,1,1,1"]:
        response = logged_in.get(f"/scenarios/{papers_three.pk}/recommendation/?weights={weights}")
        assert response.status_code == 400 and response.json()["error"].startswith("weights:"), weights


def test_the_margin_is_told_in_the_weights_a_user_sets():
    # a = 4w0 + w1 + 3w2, b = w0 + 5w1 + 3w2 (raw weights; the common divisor does not change the order)
    scores = {"a": [4, 1, 3], "b": [1, 5, 3]}
    verdict = weight_verdict(scores, [1.0, 2.0, 1.0], samples=200)
    assert verdict["winners"] == ["b"] and verdict["tiers"] == [["b"], ["a"]]
    margin = verdict["margin"]
    # lowering w1 from 2: 7 + w1 = 4 + 5 w1 at w1 = 0.75 (raising w0 needs 8/3, further from 1)
    assert margin["criterion"] == 1 and margin["from_weight"] == 2.0
    assert margin["to_weight"] == pytest.approx(0.75, abs=1e-6)
    assert margin["after"] == ["a"]
    assert slider_margin({"a": [5, 5], "b": [1, 1]}, [1.0, 1.0]) is None  # nothing flips a dominant platform
    # b only ties a when every other weight is zero: no finite raw weight does it (it used to print ~4e11)
    assert slider_margin({"a": [5, 5, 5], "b": [5, 4, 4]}, [0.3, 0.7, 1.3]) is None
    assert tiers({"a": 0.5, "b": 0.5, "c": 0.4}) == [["a", "b"], ["c"]]


def test_compare_shows_inputs_in_words_the_outcome_deltas_and_whether_the_winner_changes(papers_three, logged_in,
                                                                                           user):
    clone = what_if(papers_three, change="queue wait on Magnus (Pawsey Cray XC40) x0.5", user=user,
                    entry_changes={"magnus": {"platform_overrides": {"facts": {"queue_wait_median": 85 * HOUR}}}})
    clone = _run(clone)
    body = logged_in.get(f"/scenarios/compare/?a={papers_three.pk}&b={clone.pk}").content.decode()
    diff = body[body.index('id="input-diff"'):body.index("</table>", body.index('id="input-diff"'))]
    assert "Magnus (Pawsey Cray XC40): queue wait median" in diff
    assert "7.08 days (catalogue)" in diff and "<mark>3.54 days</mark>" in diff
    assert "queue_wait_median" not in diff and "{" not in diff
    assert "The recommendation stays the same" in body and "AWS Sydney (EC2 / EBS / S3)" in body
    outcomes = body[body.index('id="outcome-diff"'):]
    assert "Cost per year" in outcomes and "Chance of first" in outcomes
    assert re.search(r'<tr class="changed"><th scope="rowgroup"[^>]*>Magnus \(Pawsey Cray XC40\)</th>\s*'
                     r'<th scope="row">Time to result \(P50\)', outcomes)


def test_the_report_leads_with_the_same_recommendation_and_cost_story_as_the_page(papers_three):
    from apps.reports.document import build_document
    from apps.reports.render import render_html

    scenario = papers_three
    results = scenario_results(scenario)
    page = recommendation(results, scoring_section(scenario, results), papers=True)
    doc = build_document(scenario)
    assert doc["recommendation"]["margin_text"] == page["margin_text"]
    assert doc["recommendation"]["caveats"] == page["caveats"] and page["caveats"]
    assert page["margin_text"] in doc["recommendation"]["text"]
    html = render_html(doc).decode()
    first = html[html.index('id="recommendation"'):html.index('id="ranks"')]
    assert 'id="cost-story"' in first and "Before you decide" in first and "Cost of ownership" in first
    assert "AUD 133,000" in first and "AUD 399,000" in first  # Pleiades: a year, and 3 years
    assert not re.search(r"\baws-sydney\b|weighted_sum|\{'", html[:html.index('id="inputs"')])


def test_an_unknown_input_is_said_to_be_left_out_not_ranked_zero():
    notes = caveats({}, {"x": {"name": "Campus cluster", "missing": ["typical_iops"], "owned": False, "cost": None}},
                    {"typical_iops": "Typical IOPS"}, papers=True)
    assert notes[-1] == "Campus cluster: unknown input for Typical IOPS (left out of its aggregate, not ranked 0)."
