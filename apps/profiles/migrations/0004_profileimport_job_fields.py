"""Profile imports become jobs like the others (apps.core.models.TaskJob): status indexed, worker help text."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("profiles", "0003_alter_profile_kind")]

    operations = [
        migrations.AlterField(
            model_name="profileimport", name="status",
            field=models.CharField(choices=[("queued", "queued"), ("running", "running"), ("succeeded", "succeeded"),
                                            ("failed", "failed"), ("cancelled", "cancelled")],
                                   db_index=True, default="queued", max_length=12),
        ),
        migrations.AlterField(
            model_name="profileimport", name="worker",
            field=models.CharField(blank=True, help_text="the Celery node (name@host) running it", max_length=255),
        ),
    ]
