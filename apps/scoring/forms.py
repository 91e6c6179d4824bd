"""Forms of the scoring pages; every bad value gets a message next to its field."""

from __future__ import annotations

import json

from django import forms

from apps.core import jsonbounds
from apps.platforms.models import Platform
from apps.platforms.services import visible_platforms
from apps.scoring.logic.aggregate import METHODS, method_label
from apps.scoring.models import Criterion
from apps.workloads.models import Workload
from simulator.contract import LIMITS


class _PlatformsOfUser:
    """Mixin: the ``platform`` field offers the platforms the user sees (the reference catalogue and their
    workspaces' copies)."""

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["platform"].queryset = visible_platforms(user)


class ScoreForm(_PlatformsOfUser, forms.Form):
    platform = forms.ModelMultipleChoiceField(queryset=Platform.objects.none(), to_field_name="slug", required=False,
                                              help_text="none selected: Pleiades, Magnus and AWS (the paper's three)")
    method = forms.ChoiceField(choices=[(m, method_label(m)) for m in METHODS], initial="weighted_sum",
                               required=False,
                               help_text="aggregation used for the robustness analysis")
    seed = forms.IntegerField(min_value=0, max_value=LIMITS.max_seed, initial=0, required=False)


class TcoForm(ScoreForm):
    years = forms.IntegerField(min_value=1, max_value=50, initial=5, required=False)
    epochs_per_year = forms.IntegerField(min_value=1, max_value=365, initial=1, required=False)
    growth_per_epoch = forms.FloatField(min_value=-0.99, max_value=10, initial=0.0, required=False,
                                        help_text="fraction, e.g. 0.2 for 20% more data each epoch")
    egress_gb_per_epoch = forms.FloatField(min_value=0, initial=0.0, required=False,
                                           help_text="GB delivered out of the platform per epoch")


class CriterionForm(forms.ModelForm):
    rubric = forms.CharField(widget=forms.Textarea(attrs={"rows": 6, "cols": 80}),
                             help_text='JSON, e.g. {"kind": "thresholds", "bands": [{"at": 336, "score": 5}]}')

    class Meta:
        model = Criterion
        fields = ["key", "label", "metric", "direction", "rubric", "weight", "position", "enabled"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk and isinstance(self.instance.rubric, (dict, list)):
            self.initial["rubric"] = json.dumps(self.instance.rubric, indent=1)

    def clean_rubric(self):
        try:
            return jsonbounds.loads(self.cleaned_data["rubric"])
        except jsonbounds.TooDeep as exc:
            raise forms.ValidationError(str(exc)) from None
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc}") from None

    def clean_key(self):
        """One key once per set (the reference set, or one workspace's); the view sets the instance's workspace."""
        key = self.cleaned_data["key"]
        clash = Criterion.objects.filter(workspace=self.instance.workspace, key=key).exclude(pk=self.instance.pk)
        if clash.exists():
            raise forms.ValidationError(f"a criterion {key!r} already exists in this set")
        return key


class SearchForm(_PlatformsOfUser, forms.Form):
    workload = forms.ModelChoiceField(queryset=Workload.objects.all(), to_field_name="slug", empty_label=None)
    platform = forms.ModelChoiceField(queryset=Platform.objects.none(), to_field_name="slug", empty_label=None)
    space = forms.CharField(widget=forms.Textarea(attrs={"rows": 8, "cols": 80}),
                            help_text="JSON: stages -> dimension -> list of values (see docs/scoring.md)")
    deadline_h = forms.FloatField(required=False, min_value=0.001, label="deadline (hours)")
    budget_aud = forms.FloatField(required=False, min_value=0.01, label="budget (AUD)")
    seed = forms.IntegerField(min_value=0, max_value=LIMITS.max_seed, initial=0)

    def clean_space(self):
        try:
            return jsonbounds.loads(self.cleaned_data["space"])
        except jsonbounds.TooDeep as exc:
            raise forms.ValidationError(str(exc)) from None
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc}") from None


DEMO_SPACE = {"stages": {
    "split": {"nodes": [20, 40], "pricing": ["spot", "on_demand"]},
    "invert": {"node_type": ["r3.4xlarge", "r3.2xlarge"], "nodes": [10, 20], "launch_interval_s": [0, 300]},
}}
