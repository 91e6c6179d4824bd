"""Forms for starting a simulation run."""

from __future__ import annotations

import json

from django import forms

from apps.platforms.models import Platform
from apps.workloads.models import Workload


class RunForm(forms.Form):
    workload = forms.ModelChoiceField(queryset=Workload.objects.all(), to_field_name="slug", empty_label=None)
    platform = forms.ModelChoiceField(queryset=Platform.objects.all(), to_field_name="slug", empty_label=None)
    replications = forms.IntegerField(min_value=1, max_value=200, initial=1,
                                      help_text="Monte Carlo replications (queue waits, WAN variability, spot)")
    seed = forms.IntegerField(min_value=0, max_value=2**62, initial=0)
    options = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 4}),
        help_text='Optional scenario options as JSON, e.g. {"include_copy": false} or placements per stage',
    )

    def clean_options(self):
        text = (self.cleaned_data.get("options") or "").strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("must be a JSON object")
        return value
