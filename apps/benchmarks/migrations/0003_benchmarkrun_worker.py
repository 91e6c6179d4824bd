"""Benchmark runs become jobs like the others (apps.core.models.TaskJob): the worker node gets a field of its own,
copied from the host facts where it was kept until now."""

from django.db import migrations, models


def copy_worker(apps, schema_editor):
    BenchmarkRun = apps.get_model("benchmarks", "BenchmarkRun")
    for run in BenchmarkRun.objects.exclude(host=None).only("pk", "host"):
        worker = (run.host or {}).get("worker") or ""
        if worker:
            BenchmarkRun.objects.filter(pk=run.pk).update(worker=worker[:255])


class Migration(migrations.Migration):
    dependencies = [("benchmarks", "0002_benchmarkrun_workspace")]

    operations = [
        migrations.AddField(
            model_name="benchmarkrun", name="worker",
            field=models.CharField(blank=True, help_text="the Celery node (name@host) running it", max_length=255),
        ),
        migrations.RunPython(copy_worker, migrations.RunPython.noop),
    ]
