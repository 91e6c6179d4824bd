"""Model and form fields for quantities stored in base units and entered with units.

A :class:`QuantityField` stores a float in the base unit of its dimension (bytes,
bytes/s, seconds, AUD ...).  Its form field accepts text such as ``"10 Gb/s"`` or
``"3.5 GiB"``, converts it through :mod:`simulator.units` and shows the stored value
in a readable unit, so the admin and the forms speak units, not raw floats.
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models

from simulator.units import DIMENSIONS, UnitError, format_quantity, parse_quantity

__all__ = ["QuantityField", "QuantityFormField"]


class QuantityFormField(forms.CharField):
    """Text input of a number with a unit of one dimension, cleaned to base units."""

    def __init__(self, *, dimension: str, minimum: float | None = 0.0, strictly_positive: bool = False, **kwargs):
        self.dimension = dimension
        self.minimum = minimum
        self.strictly_positive = strictly_positive
        kwargs.pop("max_length", None)
        super().__init__(**kwargs)
        unit = DIMENSIONS.get(dimension, "")
        self.help_text = self.help_text or (f"Number with a unit, e.g. '100 {unit}'" if unit else "A number")

    def prepare_value(self, value):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.dimension in ("bytes", "bandwidth", "time", "frequency"):
                return format_quantity(value, self.dimension, digits=6)
            unit = DIMENSIONS.get(self.dimension, "")
            return f"{value:g} {unit}".strip()
        return value

    def to_python(self, value):
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        try:
            number = parse_quantity(text, self.dimension)
        except UnitError as exc:
            raise ValidationError(str(exc), code="unit") from None
        if self.minimum is not None and number < self.minimum:
            raise ValidationError(f"must not be negative (got {text})", code="min_value")
        if self.strictly_positive and number <= 0:
            raise ValidationError("must be greater than zero", code="min_value")
        return number


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
