"""Quantities are entered with units, converted once, and bad values are refused with a clear message."""

import pytest
from django.core.exceptions import ValidationError

from apps.core.fields import QuantityFormField


def test_it_converts_gigabits_per_second_to_bytes_per_second():
    assert QuantityFormField(dimension="bandwidth").clean("10 Gb/s") == pytest.approx(1.25e9)


def test_it_distinguishes_mebibytes_from_megabytes():
    field = QuantityFormField(dimension="bytes")
    assert field.clean("1 MiB") == 1048576
    assert field.clean("1 MB") == 1_000_000


def test_it_refuses_a_negative_bandwidth():
    with pytest.raises(ValidationError, match="must not be negative"):
        QuantityFormField(dimension="bandwidth").clean("-5 MB/s")


def test_it_refuses_an_unknown_unit():
    with pytest.raises(ValidationError, match="unknown unit 'furlongs'"):
        QuantityFormField(dimension="bandwidth").clean("5 furlongs")


def test_it_refuses_a_unit_of_the_wrong_dimension():
    with pytest.raises(ValidationError, match="is a bytes unit, expected a bandwidth unit"):
        QuantityFormField(dimension="bandwidth").clean("5 GB")


def test_it_refuses_zero_cores():
    with pytest.raises(ValidationError, match="greater than zero"):
        QuantityFormField(dimension="scalar", strictly_positive=True).clean("0")


def test_it_shows_a_stored_value_in_a_readable_unit():
    assert QuantityFormField(dimension="bandwidth").prepare_value(1.25e8) == "125 MB/s"
