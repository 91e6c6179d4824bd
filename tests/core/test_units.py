"""Units are converted in one place: decimal vs binary prefixes, bits vs bytes."""

import pytest

from simulator.units import UnitError, format_quantity, from_base, parse_quantity, to_base


def test_it_converts_a_gigabit_link_to_bytes_per_second():
    assert to_base(1, "Gb/s") == 1.25e8


def test_it_keeps_decimal_and_binary_prefixes_apart():
    assert to_base(1, "GB") == 1e9
    assert to_base(1, "GiB") == 2**30


def test_it_converts_hours_to_seconds_and_back():
    assert to_base(110, "h") == 396000
    assert from_base(396000, "h") == 110


def test_it_takes_a_bare_number_in_base_units():
    assert parse_quantity("42", "bytes") == 42


def test_it_names_the_unknown_unit():
    with pytest.raises(UnitError, match="unknown unit 'parsecs'"):
        to_base(1, "parsecs")


def test_it_formats_a_bandwidth_readably():
    assert format_quantity(7e10, "bandwidth") == "70 GB/s"
