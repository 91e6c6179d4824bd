"""The compare view's time differences: in the unit the values compared are shown in, nothing when zero."""

from apps.scenarios.templatetags.scenario_tags import signed_hours, signed_money, signed_points

DAY, HOUR = 86400.0, 3600.0


def test_a_difference_beside_values_in_days_is_in_days():
    assert signed_hours(1.5 * DAY, 10 * DAY) == "+1.5 d"
    assert signed_hours(-2 * HOUR, 10 * DAY) == "−0.1 d"


def test_no_difference_shows_nothing_not_plus_minus_zero_seconds():
    assert signed_hours(0.0, 7.08 * DAY) == ""
    assert signed_hours(60.0, 7.08 * DAY) == ""  # under the 0.1 d the values are written to
    assert signed_hours(0.0, 30.0) == ""


def test_a_difference_beside_values_in_hours_or_seconds_is_in_theirs():
    assert signed_hours(1.5 * HOUR, 12 * HOUR) == "+1.50 h"
    assert signed_hours(-20.0, 300.0) == "−20 s"
    assert signed_hours(None, 10.0) == "—"
    assert signed_hours(3 * HOUR) == "+3.00 h"  # no values given: the difference's own unit


def test_no_difference_in_money_or_shares_shows_nothing_either():
    assert signed_money(0.0) == "" and signed_money(-1163.0, "USD") == "−USD 1,163"
    assert signed_points(0.004) == "" and signed_points(0.12) == "+12 pts"
