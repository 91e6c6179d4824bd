"""One source contract: a paper, a web page, a measurement, an assumption or a fit, each with what it needs."""

import pytest

from apps.core.provenance import clean_source, describe_source, short_source, source_errors

VALID = [
    {"kind": "paper", "title": "Parallel table writes with AdiosStMan", "where": "Table 2"},
    {"kind": "paper", "title": "BeeGFS back-ends", "where": "Fig. 4", "authors": "A. Author", "year": "2019",
     "doi": "10.1000/xyz"},
    {"kind": "url", "url": "https://aws.amazon.com/ec2/pricing/on-demand/"},
    {"kind": "url", "url": "http://example.org/page?a=1", "accessed": "2026-11-25"},
    {"kind": "measurement", "host": "nid00012", "date": "2026-11-20", "note": "fio, 4 jobs"},
    {"kind": "assumption", "reason": "the quota we were granted"},
    {"kind": "fitted", "method": "least squares to the 394-job run time on campus"},
    {"kind": "seed", "file": "000_a6c81710fa62f1c4.txt", "where": "Table 1"},
]


@pytest.mark.parametrize("source", VALID, ids=lambda s: s["kind"])
def test_it_accepts_each_kind_with_what_it_needs(source):
    assert source_errors(source) == []


@pytest.mark.parametrize(("source", "error"), [
    ({"kind": "paper", "title": "A study"}, "a paper source needs a non-empty 'where'"),
    ({"kind": "paper", "where": "Table 3"}, "a paper source needs a non-empty 'title'"),
    ({"kind": "url", "url": ""}, "a url source needs a non-empty 'url'"),
    ({"kind": "url", "url": "javascript:alert(1)"}, "'url' must be a web address starting with http:// or https://"),
    ({"kind": "url", "url": "https://x.org", "accessed": "yesterday"}, "'accessed' must be a date as YYYY-MM-DD"),
    ({"kind": "measurement", "host": "h", "date": "last week"}, "'date' must be a date as YYYY-MM-DD"),
    ({"kind": "fitted"}, "a fitted source needs a non-empty 'method'"),
    ({"kind": "assumption", "reason": "r", "host": "h"}, "an assumption source takes note, reason; not host"),
    ({"kind": "guess"}, "source kind 'guess' is not one of seed, paper, url, measurement, assumption, fitted"),
    ({"kind": ["paper"]}, "source kind \"['paper']\" is not one of"),
    ({"kind": "assumption", "reason": "x" * 1001}, "'reason' is longer than 1000 characters"),
    ({"kind": "assumption", "reason": {"a": 1}}, "'reason' must be text"),
])
def test_it_names_what_a_source_is_missing(source, error):
    assert any(e.startswith(error) for e in source_errors(source)), source_errors(source)


def test_it_keeps_only_the_keys_a_kind_takes():
    source = clean_source("paper", {"title": " A study ", "where": "Fig. 2", "host": "ignored", "doi": ""})
    assert source == {"kind": "paper", "title": "A study", "where": "Fig. 2"}
    assert source_errors(source) == []


def test_it_cites_a_paper_and_a_page_in_words():
    paper = {"kind": "paper", "title": "BeeGFS back-ends", "where": "Fig. 4", "authors": "A. Author", "year": "2019"}
    assert describe_source(paper) == "From A. Author, BeeGFS back-ends (2019), Fig. 4."
    assert short_source(paper) == "BeeGFS back-ends · Fig. 4"
    page = {"kind": "url", "url": "https://www.example.org/prices", "accessed": "2026-11-25"}
    assert describe_source(page) == "From https://www.example.org/prices (accessed 2026-11-25)."
    assert short_source(page) == "example.org/prices"


def test_a_value_given_in_another_currency_keeps_the_original_and_the_rate_in_its_source():
    given = {"value": 0.12, "unit": "USD/GB-month", "exchange_rate": {
        "currency": "USD", "base_per_unit": 1.3, "base": "AUD", "date": "2015-03-06",
        "source": {"kind": "assumption", "reason": "test rate"}}}
    source = {"kind": "assumption", "reason": "list price", "converted_from": given}
    assert source_errors(source) == []
    assert describe_source(source) == ("Assumption: list price Given as 0.12 USD/GB-month, converted at 1 USD = 1.3 "
                                       "AUD (2015-03-06).")
    assert source_errors({**source, "converted_from": {"value": 0.12, "unit": "USD/GB-month"}}) == [
        "'converted_from' must give the original 'value' and 'unit' and the 'exchange_rate' used (currency, "
        "base_per_unit, date)"]
