"""Units are converted in one place: decimal vs binary prefixes, bits vs bytes."""

import pytest

from simulator.units import (
    ExchangeRate,
    UnitError,
    converted_from,
    format_quantity,
    from_base,
    parse_quantity,
    to_base,
    units_of,
)


def test_it_converts_a_gigabit_link_to_bytes_per_second():
    assert to_base(1, "Gb/s") == 1.25e8


def test_it_keeps_decimal_and_binary_prefixes_apart():
    assert to_base(1, "GB") == 1e9
    assert to_base(1, "GiB") == 2**30


def test_it_converts_hours_to_seconds_and_back():
    assert to_base(110, "h") == 396000
    assert from_base(396000, "h") == 110


def test_it_refuses_a_bare_number_where_the_dimension_has_units():
    with pytest.raises(UnitError, match=r"^add a unit, e\.g\. 12 MB/s$"):
        parse_quantity("12", "bandwidth")
    with pytest.raises(UnitError, match=r"^add a unit, e\.g\. 600 GB$"):
        parse_quantity("42", "bytes")


def test_it_takes_a_bare_number_where_there_is_no_unit():
    assert parse_quantity("42", "scalar") == 42
    assert parse_quantity("0.5", "scalar") == 0.5


def test_it_takes_600_gigabytes():
    assert parse_quantity("600 GB", "bytes") == 600e9


def test_an_error_lists_only_the_units_of_the_fields_dimension():
    with pytest.raises(UnitError) as caught:
        parse_quantity("5 furlongs", "bytes")
    message = str(caught.value)
    assert message == "unknown unit 'furlongs'; expected a bytes unit: B, GB, GiB, KiB, MB, MiB, PB, PiB, TB, TiB, kB"
    assert "AUD" not in message and "Hz" not in message
    with pytest.raises(UnitError, match=r"^unit 'Hz' is a frequency unit; expected a time unit: day, h, min, ms, s, us$"):
        parse_quantity("5 Hz", "time")


def test_a_unit_in_a_dimensionless_field_is_refused_as_such():
    with pytest.raises(UnitError, match=r"^unit 'GB' is a bytes unit; expected a plain number, with no unit$"):
        parse_quantity("2 GB", "scalar")


def test_money_takes_the_catalogues_currency_per_hour_and_per_gb_month():
    assert parse_quantity("1.5 AUD/h", "money_per_hour") == 1.5
    assert parse_quantity("1.5 AUD/hour", "money_per_hour") == 1.5
    assert parse_quantity("120 AUD/TB-month", "money_per_gb_month") == pytest.approx(0.12)
    with pytest.raises(UnitError, match=r"^add a unit, e\.g\. 1\.50 AUD/h$"):
        parse_quantity("1.5", "money_per_hour")


USD = ExchangeRate("USD", 1.30, "2015-03-06", {"kind": "assumption", "reason": "test rate"})


def test_another_currency_without_a_rate_is_refused_naming_the_currency():
    with pytest.raises(UnitError, match=r"^no USD exchange rate in the catalogue: give the amount in AUD/h, or add a "
                                        r"rate for USD \(rate, date, source\) to the catalogue$"):
        parse_quantity("3.06 USD/h", "money_per_hour")
    with pytest.raises(UnitError, match=r"^no EUR exchange rate in the catalogue: give the amount in AUD/GB-month"):
        parse_quantity("0.12 EUR/GB-month", "money_per_gb_month", {"USD": USD})
    with pytest.raises(UnitError, match=r"^unit 'USD/GB-month' is a money per GB-month unit; expected a money per "
                                        r"hour unit: AUD/h, AUD/hour, AUD/instance-hour, AUD/node-hour$"):
        parse_quantity("0.12 USD/GB-month", "money_per_hour", {"USD": USD})


def test_another_currency_converts_through_its_rate():
    assert parse_quantity("3.06 USD/h", "money_per_hour", {"USD": USD}) == pytest.approx(3.978)
    assert parse_quantity("120 USD/TB-month", "money_per_gb_month", {"USD": USD}) == pytest.approx(0.156)
    assert parse_quantity("2 USD", "money", {"USD": USD}) == pytest.approx(2.6)
    assert USD.from_base(2.6) == pytest.approx(2.0)


def test_the_original_amount_and_the_rate_are_kept_for_the_source():
    assert converted_from(3.06, "USD/h", {"USD": USD}) == {
        "value": 3.06, "unit": "USD/h", "exchange_rate": {
            "currency": "USD", "base_per_unit": 1.30, "base": "AUD", "date": "2015-03-06",
            "source": {"kind": "assumption", "reason": "test rate"}}}
    assert converted_from(3.06, "AUD/h", {"USD": USD}) is None
    assert converted_from(3.06, "h", {"USD": USD}) is None


def test_it_names_the_unknown_unit():
    with pytest.raises(UnitError, match="unknown unit 'parsecs'"):
        to_base(1, "parsecs")


def test_it_formats_a_bandwidth_readably():
    assert format_quantity(7e10, "bandwidth") == "70 GB/s"


def test_days_are_written_in_the_plural_but_for_one_and_read_either_way():
    assert format_quantity(7.08 * 86400, "time") == "7.08 days"
    assert format_quantity(86400, "time") == "1 day"
    assert format_quantity(3 * 86400, "time") == "3 days"
    assert parse_quantity("7.08 days", "time") == parse_quantity("7.08 day", "time") == pytest.approx(7.08 * 86400)
    assert parse_quantity(format_quantity(2.5 * 86400, "time"), "time") == 2.5 * 86400  # what is shown reads back
    assert "days" not in units_of("time")  # an error lists "day" once
