"""Quantities are entered with units, converted once, and bad values are refused with a clear message."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from rest_framework import serializers

from apps.core.fields import QuantityFormField, QuantitySerializerMixin
from apps.core.models import ExchangeRate
from apps.platforms.models import StorageTier


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
    with pytest.raises(ValidationError, match="is a bytes unit; expected a bandwidth unit: B/s, "):
        QuantityFormField(dimension="bandwidth").clean("5 GB")


def test_it_refuses_zero_cores():
    with pytest.raises(ValidationError, match="greater than zero"):
        QuantityFormField(dimension="scalar", strictly_positive=True).clean("0")


def test_it_shows_a_stored_value_in_a_readable_unit():
    assert QuantityFormField(dimension="bandwidth").prepare_value(1.25e8) == "125 MB/s"


def test_it_refuses_a_bare_number_in_a_field_with_units():
    with pytest.raises(ValidationError, match=r"^\['add a unit, e\.g\. 12 MB/s'\]$"):
        QuantityFormField(dimension="bandwidth").clean("12")


def test_it_takes_a_bare_number_in_a_dimensionless_field():
    assert QuantityFormField(dimension="scalar").clean("24") == 24


# --- the API's serializers: the same rules through the same model field ----------------------------------------

class TierSerializer(QuantitySerializerMixin, serializers.ModelSerializer):
    class Meta:
        model = StorageTier
        fields = ["name", "capacity", "read_bw", "price_per_gb_month", "degrade_exponent"]


def test_the_api_takes_600_gigabytes_and_a_price_in_the_catalogues_currency():
    s = TierSerializer(data={"name": "ssd", "capacity": "600 GB", "read_bw": "2 GB/s",
                             "price_per_gb_month": "0.12 AUD/GB-month", "degrade_exponent": 0.5})
    assert s.is_valid(), s.errors
    assert s.validated_data["capacity"] == 600e9
    assert (s.validated_data["read_bw"], s.validated_data["price_per_gb_month"]) == (2e9, 0.12)
    assert s.validated_data["degrade_exponent"] == 0.5  # dimensionless: a JSON number


@pytest.mark.django_db
def test_the_api_refuses_bare_numbers_and_foreign_units_keyed_by_the_field():
    s = TierSerializer(data={"name": "ssd", "capacity": 600, "read_bw": "2 GB",
                             "price_per_gb_month": "0.12 USD/GB-month", "degrade_exponent": "2 s"})
    assert not s.is_valid()
    assert {k: [str(e) for e in v] for k, v in s.errors.items()} == {
        "capacity": ["add a unit, e.g. 600 GB"],
        "read_bw": ["unit 'GB' is a bytes unit; expected a bandwidth unit: B/s, GB/s, Gb/s, Gbps, GiB/s, KiB/s, MB/s, "
                    "Mb/s, Mbps, MiB/s, PB/s, Pb/s, Pbps, PiB/s, TB/s, Tb/s, Tbps, TiB/s, b/s, bps, kB/s, kb/s, kbps"],
        "price_per_gb_month": ["no USD exchange rate in the catalogue: give the amount in AUD/GB-month, or add a "
                               "rate for USD (rate, date, source) to the catalogue"],
        "degrade_exponent": ["unit 's' is a time unit; expected a plain number, with no unit"],
    }


def test_the_api_refuses_a_list_and_a_negative_capacity():
    s = TierSerializer(data={"name": "ssd", "capacity": ["600 GB"], "read_bw": "-2 GB/s"})
    assert not s.is_valid()
    assert [str(e) for e in s.errors["capacity"]] == ["expected text such as '600 GB'"]
    assert [str(e) for e in s.errors["read_bw"]] == ["must not be negative (got -2 GB/s)"]


@pytest.mark.django_db
def test_a_price_in_another_currency_converts_through_the_catalogues_rate_and_keeps_the_original():
    ExchangeRate.objects.create(currency="GBP", base_per_unit=2.0, date=dt.date(2026, 1, 5),
                                provenance={"kind": "assumption", "reason": "test rate"})
    ExchangeRate.objects.create(currency="GBP", base_per_unit=1.5, date=dt.date(2025, 1, 5),
                                provenance={"kind": "assumption", "reason": "an older rate"})
    field = QuantityFormField(dimension="money_per_hour")
    assert field.clean("3 GBP/h") == pytest.approx(6.0)  # the latest rate
    assert field.conversion["value"] == 3.0 and field.conversion["unit"] == "GBP/h"
    assert field.conversion["exchange_rate"]["date"] == "2026-01-05"
    assert field.clean("3 AUD/h") == 3.0 and field.conversion is None
    s = TierSerializer(data={"name": "ssd", "price_per_gb_month": "0.05 GBP/GB-month"})
    assert s.is_valid(), s.errors
    assert s.validated_data["price_per_gb_month"] == pytest.approx(0.1)
