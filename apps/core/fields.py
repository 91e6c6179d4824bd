"""Model and form fields for quantities stored in base units and entered with units.

A :class:`QuantityField` stores a float in the base unit of its dimension (bytes,
bytes/s, seconds, AUD ...).  Its form field accepts text such as ``"10 Gb/s"`` or
``"3.5 GiB"``, converts it through :mod:`simulator.units` and shows the stored value
in a readable unit, so the admin and the forms speak units, not raw floats.  The API's serializers use
:class:`QuantitySerializerField` (a model serializer gets it for every quantity through
:class:`QuantitySerializerMixin`), with the same rules: a bare number is refused where the dimension has units,
an error lists only the units of the field's dimension and is keyed by the field's name.
"""

from __future__ import annotations

import math

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from rest_framework import serializers

from apps.core.models import exchange_rates
from simulator.units import (
    DIMENSIONS,
    EXAMPLES,
    UnitError,
    converted_from,
    format_quantity,
    parse_quantity,
    split_quantity,
)

__all__ = ["QuantityField", "QuantityFormField", "QuantitySerializerField", "QuantitySerializerMixin",
           "clean_quantity", "conversion_of"]


def _rates(text, dimension: str):
    """The catalogue's exchange rates, read only when ``text`` is money in another currency."""
    if not dimension.startswith("money") or not isinstance(text, str) or "AUD" in text:
        return None
    return exchange_rates()


def conversion_of(text, dimension: str) -> dict | None:
    """For money typed in another currency ("3.06 USD/h"): the original amount, unit and the rate used, to keep in
    the value's source; ``None`` otherwise."""
    rates = _rates(text, dimension)
    parts = split_quantity(str(text)) if rates else None
    return converted_from(parts[0], parts[1], rates) if parts else None


def clean_quantity(text, *, dimension: str, minimum: float | None = 0.0, strictly_positive: bool = False) -> float:
    """``text`` (such as "600 GB", or "3.06 USD/h" through the catalogue's USD rate) in base units of ``dimension``;
    raises :class:`ValueError` with the reason."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise ValueError(f"expected text such as '{EXAMPLES.get(dimension, '12')}'")
    try:
        number = parse_quantity(str(text), dimension, _rates(text, dimension))
    except UnitError as exc:
        raise ValueError(str(exc)) from None
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number (got {text})")
    if minimum is not None and number < minimum:
        raise ValueError(f"must not be negative (got {text})")
    if strictly_positive and number <= 0:
        raise ValueError("must be greater than zero")
    return number


class QuantityFormField(forms.CharField):
    """Text input of a number with a unit of one dimension, cleaned to base units."""

    def __init__(self, *, dimension: str, minimum: float | None = 0.0, strictly_positive: bool = False, **kwargs):
        self.dimension = dimension
        self.minimum = minimum
        self.strictly_positive = strictly_positive
        kwargs.pop("max_length", None)
        super().__init__(**kwargs)
        example = EXAMPLES.get(dimension)
        self.help_text = self.help_text or (f"Number with a unit, e.g. '{example}'" if example else "A number")

    def prepare_value(self, value):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.dimension in ("bytes", "bandwidth", "time", "frequency"):
                return format_quantity(value, self.dimension, digits=6)
            unit = DIMENSIONS.get(self.dimension, "")
            # whole numbers in full ("411510000000", not "4.1151e+11"); others to 10 significant digits
            text = str(int(value)) if float(value).is_integer() and abs(value) < 1e16 else f"{value:.10g}"
            return f"{text} {unit}".strip()
        return value

    def to_python(self, value):
        text = super().to_python(value)
        #: the original amount, unit and rate when the value was typed in another currency (for its source)
        self.conversion = None
        if text in self.empty_values:
            return None
        self.conversion = conversion_of(text, self.dimension)
        try:
            return clean_quantity(text, dimension=self.dimension, minimum=self.minimum,
                                  strictly_positive=self.strictly_positive)
        except ValueError as exc:
            raise ValidationError(str(exc), code="invalid") from None


class QuantitySerializerField(serializers.Field):
    """The API's side of :class:`QuantityFormField`: text such as "600 GB" in, a float in base units out.

    A JSON number is taken only where the dimension has no unit (counts, ratios, exponents)."""

    def __init__(self, *, dimension: str, minimum: float | None = 0.0, strictly_positive: bool = False, **kwargs):
        self.dimension = dimension
        self.minimum = minimum
        self.strictly_positive = strictly_positive
        example = EXAMPLES.get(dimension)
        kwargs.setdefault("help_text", f"a number with a unit, e.g. '{example}'" if example else "a number")
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        try:
            return clean_quantity(data, dimension=self.dimension, minimum=self.minimum,
                                  strictly_positive=self.strictly_positive)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc), code="invalid") from None

    def to_representation(self, value):
        return None if value is None else float(value)


class QuantitySerializerMixin:
    """For a ``ModelSerializer``: every :class:`QuantityField` of the model becomes a
    :class:`QuantitySerializerField` of its dimension and bounds."""

    def build_standard_field(self, field_name, model_field):
        if isinstance(model_field, QuantityField):
            return QuantitySerializerField, {
                "dimension": model_field.dimension, "minimum": model_field.minimum,
                "strictly_positive": model_field.strictly_positive, "required": not model_field.blank,
                "allow_null": model_field.null, "label": str(model_field.verbose_name)}
        return super().build_standard_field(field_name, model_field)


class QuantityField(models.FloatField):
    """A float in the base unit of ``dimension``; non-negative unless ``minimum`` says otherwise."""

    def __init__(self, *args, dimension: str = "scalar", minimum: float | None = 0.0, strictly_positive=False, **kwargs):
        if dimension not in DIMENSIONS:
            raise ValueError(f"unknown dimension {dimension!r}")
        self.dimension = dimension
        self.minimum = minimum
        self.strictly_positive = strictly_positive
        kwargs.setdefault("null", True)
        kwargs.setdefault("blank", True)
        super().__init__(*args, **kwargs)
        if minimum is not None:
            self.validators.append(MinValueValidator(minimum))
        if strictly_positive:
            self.validators.append(_positive)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        kwargs["dimension"] = self.dimension
        if self.minimum != 0.0:
            kwargs["minimum"] = self.minimum
        if self.strictly_positive:
            kwargs["strictly_positive"] = True
        return name, path, args, kwargs

    def formfield(self, **kwargs):
        defaults = {
            "form_class": QuantityFormField,
            "dimension": self.dimension,
            "minimum": self.minimum,
            "strictly_positive": self.strictly_positive,
        }
        defaults.update(kwargs)
        defaults.pop("widget", None) if defaults.get("form_class") is QuantityFormField else None
        return models.Field.formfield(self, **defaults)


def _positive(value):
    if value is not None and value <= 0:
        raise ValidationError("must be greater than zero", code="min_value")
