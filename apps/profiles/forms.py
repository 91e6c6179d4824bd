"""Forms of the profile pages: upload, calibrate a stage, measure a tier."""

from __future__ import annotations

from django import forms

from apps.accounts.workspaces import visible
from apps.platforms.models import Platform, StorageTier
from apps.platforms.services import visible_platforms, visible_storage_tiers
from apps.profiles.models import Profile
from apps.profiles.parsers import FORMAT_LABELS
from apps.workloads.models import WorkloadStage


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"id": "profile-files"}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(d, initial) for d in data]
        return [single(data, initial)]


def _stage_choices():
    return WorkloadStage.objects.select_related("workload").order_by("workload__name", "order")


class UploadForm(forms.Form):
    files = MultipleFileField(label="Profile files", help_text="one or more files; drag them here or choose them")
    format = forms.ChoiceField(choices=list(FORMAT_LABELS.items()), initial="auto")
    platform = forms.ModelChoiceField(Platform.objects.none(), required=False, to_field_name="slug",
                                      help_text="where the profiled run ran (optional)")
    stage = forms.ModelChoiceField(_stage_choices(), required=False, help_text="the workload stage it profiles (optional)")

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["platform"].queryset = visible_platforms(user)


class CalibrateForm(forms.Form):
    stage = forms.ModelChoiceField(_stage_choices(), help_text="the workload stage this run is one task of")
    platform = forms.ModelChoiceField(Platform.objects.none(), to_field_name="slug", help_text="where it ran")
    node_type = forms.CharField(required=False, help_text="node type name (default: the platform's first)")
    storage_tier = forms.CharField(required=False, help_text="storage tier name (default: the platform's first)")
    companion = forms.ModelChoiceField(Profile.objects.none(), required=False,
                                       help_text="another profile of the same run (a strace with a samples file)")

    def __init__(self, *args, user, profile: Profile | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["platform"].queryset = visible_platforms(user)
        # companions: the user's workspaces' profiles (and shared ones) only — never another workspace's names
        companions = visible(Profile.objects.exclude(kind=Profile.Kind.FIO), user)
        self.fields["companion"].queryset = companions
        if profile is not None:
            self.fields["companion"].queryset = companions.exclude(kind=profile.kind).exclude(pk=profile.pk)
            if profile.stage_id:
                self.fields["stage"].initial = profile.stage_id
            if profile.platform_id:
                self.fields["platform"].initial = profile.platform.slug


class TierForm(forms.Form):
    tier = forms.ModelChoiceField(StorageTier.objects.none(), help_text="the storage tier fio measured")
    host = forms.CharField(max_length=255, help_text="the host fio ran on")

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tier"].queryset = visible_storage_tiers(user).select_related("platform").order_by(
            "platform__name", "name")
