"""The benchmark request form: a kind and its few bounded parameters (never a command)."""

from __future__ import annotations

from django import forms

from apps.benchmarks.models import BenchmarkRun
from apps.platforms.models import Platform
from apps.platforms.services import visible_platforms


class BenchmarkForm(forms.Form):
    platform = forms.ModelChoiceField(queryset=Platform.objects.none(), to_field_name="slug", empty_label=None,
                                      help_text="runs on a worker consuming the queue bench.<platform>")
    kind = forms.ChoiceField(choices=BenchmarkRun.Kind.choices)
    directory = forms.CharField(required=False, max_length=500,
                                help_text="absolute path on the worker host to measure (empty: its temp folder)")
    size_mb = forms.IntegerField(required=False, min_value=16, max_value=65536, label="Size (MiB)",
                                 help_text="storage: file per job; mini-pipeline: visibility data")
    runtime_s = forms.IntegerField(required=False, min_value=1, max_value=600, label="Seconds per storage test")
    max_jobs = forms.IntegerField(required=False, min_value=1, max_value=64, label="Up to concurrent streams")
    n_days = forms.IntegerField(required=False, min_value=1, max_value=64, label="Mini-pipeline days")
    n_subbands = forms.IntegerField(required=False, min_value=1, max_value=64, label="Mini-pipeline sub-bands")
    strace = forms.BooleanField(required=False, label="Also trace the mini-pipeline with strace",
                                help_text="a second, untimed run under strace -f -tt -T, imported as a profile")
    seconds = forms.IntegerField(required=False, min_value=1, max_value=60, label="CPU seconds per kernel")

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["platform"].queryset = visible_platforms(user)

    def parameters(self) -> dict:
        from apps.benchmarks.services import DEFAULTS

        kind = self.cleaned_data["kind"]
        return {k: self.cleaned_data[k] for k in DEFAULTS[kind] if self.cleaned_data.get(k) not in (None, "")}


class ApplyForm(forms.Form):
    tier = forms.ModelChoiceField(queryset=None, empty_label=None, label="Storage tier")

    def __init__(self, *args, platform=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tier"].queryset = platform.storage_tiers.all() if platform else None
