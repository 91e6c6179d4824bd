"""Reports: request a scenario's ranked platform report in a format; follow it; download the file."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.reverse import reverse

from apps.accounts.workspaces import visible
from apps.api.serializers.scenarios import StrictSerializer
from apps.reports.models import Report
from apps.scenarios.models import Scenario

__all__ = ["ReportRequestSerializer", "ReportSerializer"]


class ReportRequestSerializer(StrictSerializer):
    scenario = serializers.PrimaryKeyRelatedField(queryset=Scenario.objects.all(), pk_field=serializers.UUIDField(),
                                                  help_text="a scenario whose runs have finished")
    format = serializers.ChoiceField(choices=Report.Format.choices)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        if request is not None:  # another workspace's scenario does not exist, as far as this user can tell
            self.fields["scenario"].queryset = visible(Scenario.objects.all(), request.user)


class ReportSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:report-detail", lookup_url_kwarg="report_id")
    scenario = serializers.PrimaryKeyRelatedField(read_only=True, pk_field=serializers.UUIDField())
    progress = serializers.SerializerMethodField()
    finished = serializers.BooleanField(source="is_finished", read_only=True)
    download = serializers.SerializerMethodField(help_text="where to fetch the file once succeeded ('' before)")

    class Meta:
        model = Report
        fields = ["id", "url", "scenario", "format", "status", "progress", "stage", "error", "finished", "size_bytes",
                  "download", "created_at", "started_at", "finished_at"]

    def get_progress(self, report) -> float:
        return round(1.0 if report.status == Report.Status.SUCCEEDED else report.progress, 4)

    def get_download(self, report) -> str:
        if report.status != Report.Status.SUCCEEDED:
            return ""
        return reverse("api:report-download", args=[report.pk], request=self.context.get("request"))
