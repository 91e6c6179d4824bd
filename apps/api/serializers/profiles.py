"""Profiles: the upload (one file, multipart), the import job's status, and a profile with its analysis summary."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.serializers.catalogue import PlatformSlugField
from apps.profiles.models import Profile, ProfileImport
from apps.profiles.parsers import FORMAT_LABELS
from apps.workloads.models import WorkloadStage

__all__ = ["UploadSerializer", "ImportSerializer", "ProfileSerializer", "ProfileDetailSerializer"]


@extend_schema_field({"type": "string", "pattern": f"^({'|'.join(FORMAT_LABELS)})$", "default": "auto",
                      "description": "; ".join(f"{k}: {v}" for k, v in FORMAT_LABELS.items())})
class ProfileFormatField(serializers.ChoiceField):
    """The profile's format: one of the choices, described by a pattern ("format" names the report formats' enum,
    and one property name can name one enum in the schema)."""


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="the profile: per-second samples CSV, pidstat text, strace text or fio JSON")
    format = ProfileFormatField(choices=list(FORMAT_LABELS.items()), default="auto")
    platform = PlatformSlugField(required=False, allow_null=True, help_text="where the profiled run ran")
    stage = serializers.PrimaryKeyRelatedField(queryset=WorkloadStage.objects.all(), required=False,
                                               allow_null=True, help_text="id of the workload stage it profiles")


class ImportSerializer(serializers.ModelSerializer):
    workspace = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True,
                                             help_text="the workspace it belongs to (null: shared)")
    url = serializers.HyperlinkedIdentityField(view_name="api:profile-import-detail", lookup_url_kwarg="job_id")
    platform = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    progress = serializers.SerializerMethodField()
    finished = serializers.BooleanField(source="is_finished", read_only=True)

    class Meta:
        model = ProfileImport
        fields = ["id", "url", "workspace", "filename", "format", "size_bytes", "platform", "stage", "status", "progress",
                  "finished", "error", "error_line", "profile", "created_at", "started_at", "finished_at"]

    def get_progress(self, job) -> float:
        return round(1.0 if job.status == "succeeded" else job.progress, 4)


class ProfileSerializer(serializers.ModelSerializer):
    workspace = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True,
                                             help_text="the workspace it belongs to (null: shared)")
    url = serializers.HyperlinkedIdentityField(view_name="api:profile-detail", lookup_url_kwarg="profile_id")
    kind = serializers.CharField(help_text=", ".join(Profile.Kind.values))
    platform = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    file_url = serializers.SerializerMethodField(help_text="download of the profile's file (null: none kept)")

    class Meta:
        model = Profile
        fields = ["id", "url", "workspace", "name", "format", "kind", "size_bytes", "host", "duration_s", "platform", "stage",
                  "file_url", "created_at"]

    def get_file_url(self, profile) -> str | None:
        if not profile.file:
            return None
        url = reverse("api:profile-file", args=[profile.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url


class ProfileDetailSerializer(ProfileSerializer):
    summary = serializers.JSONField(help_text="the Table-4-style summary: CPU, memory, I/O volumes and classes "
                                              "(null where the file does not record a figure)")
    phases = serializers.JSONField(help_text="phases of the run, each labelled by what bounded it")
    warnings = serializers.SerializerMethodField(help_text="what the import left out or could not trust "
                                                           "(e.g. a last line cut short)")

    class Meta(ProfileSerializer.Meta):
        fields = [*ProfileSerializer.Meta.fields, "summary", "phases", "warnings"]

    def get_warnings(self, profile) -> list[str]:
        return list((profile.analysis.get("meta") or {}).get("warnings") or [])
