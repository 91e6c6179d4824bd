"""Replications become jobs like the others (apps.core.models.TaskJob): a request time (an existing replication's is
its run's), status indexed, room for any worker node name."""

import django.utils.timezone
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def copy_created_at(apps, schema_editor):
    Replication = apps.get_model("scenarios", "Replication")
    SimulationRun = apps.get_model("scenarios", "SimulationRun")
    Replication.objects.update(created_at=Subquery(SimulationRun.objects.filter(pk=OuterRef("run_id"))
                                                   .values("created_at")[:1]))


class Migration(migrations.Migration):
    dependencies = [("scenarios", "0004_replication_outcome_columns")]

    operations = [
        migrations.AddField(
            model_name="replication", name="created_at",
            field=models.DateTimeField(auto_now_add=True, default=django.utils.timezone.now),
            preserve_default=False,
        ),
        migrations.RunPython(copy_created_at, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="replication", name="status",
            field=models.CharField(choices=[("queued", "queued"), ("running", "running"), ("succeeded", "succeeded"),
                                            ("failed", "failed"), ("cancelled", "cancelled")],
                                   db_index=True, default="queued", max_length=12),
        ),
        migrations.AlterField(
            model_name="replication", name="worker",
            field=models.CharField(blank=True, help_text="the Celery node (name@host) running it", max_length=255),
        ),
    ]
