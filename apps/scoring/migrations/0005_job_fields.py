"""Search chunks and scoring reports become jobs like the others (apps.core.models.TaskJob): request, start and
finish times, progress and the worker node running them (an existing chunk's request time is its search's; its
progress, its share done; a finished report's progress is whole)."""

import django.utils.timezone
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def copy_job_facts(apps, schema_editor):
    SearchChunk = apps.get_model("scoring", "SearchChunk")
    ConfigurationSearch = apps.get_model("scoring", "ConfigurationSearch")
    search = ConfigurationSearch.objects.filter(pk=OuterRef("search_id"))
    SearchChunk.objects.update(created_at=Subquery(search.values("created_at")[:1]))
    SearchChunk.objects.filter(status__in=("succeeded", "failed", "cancelled")).update(
        finished_at=Subquery(search.values("finished_at")[:1]))
    for chunk in SearchChunk.objects.filter(done__gt=0).only("pk", "start", "end", "done"):
        SearchChunk.objects.filter(pk=chunk.pk).update(progress=chunk.done / max(chunk.end - chunk.start, 1))
    apps.get_model("scoring", "ScoreReport").objects.filter(status="succeeded").update(progress=1.0)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0004_score_report")]

    operations = [
        migrations.AddField(
            model_name="searchchunk", name="created_at",
            field=models.DateTimeField(auto_now_add=True, default=django.utils.timezone.now),
            preserve_default=False,
        ),
        migrations.AddField(model_name="searchchunk", name="started_at",
                            field=models.DateTimeField(blank=True, null=True)),
        migrations.AddField(model_name="searchchunk", name="finished_at",
                            field=models.DateTimeField(blank=True, null=True)),
        migrations.AddField(model_name="searchchunk", name="progress", field=models.FloatField(default=0.0)),
        migrations.AddField(
            model_name="searchchunk", name="worker",
            field=models.CharField(blank=True, help_text="the Celery node (name@host) running it", max_length=255),
        ),
        migrations.AddField(model_name="scorereport", name="started_at",
                            field=models.DateTimeField(blank=True, null=True)),
        migrations.AddField(model_name="scorereport", name="progress", field=models.FloatField(default=0.0)),
        migrations.AddField(
            model_name="scorereport", name="worker",
            field=models.CharField(blank=True, help_text="the Celery node (name@host) running it", max_length=255),
        ),
        migrations.AlterField(
            model_name="scorereport", name="status",
            field=models.CharField(choices=[("queued", "queued"), ("running", "running"), ("succeeded", "succeeded"),
                                            ("failed", "failed"), ("cancelled", "cancelled")],
                                   db_index=True, default="queued", max_length=12),
        ),
        migrations.RunPython(copy_job_facts, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="searchchunk", name="status",
            field=models.CharField(choices=[("queued", "queued"), ("running", "running"), ("succeeded", "succeeded"),
                                            ("failed", "failed"), ("cancelled", "cancelled")],
                                   db_index=True, default="queued", max_length=12),
        ),
    ]
