"""Reports become jobs like the others (apps.core.models.TaskJob): they record the worker node running them."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("reports", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="report", name="worker",
            field=models.CharField(blank=True, help_text="the Celery node (name@host) running it", max_length=255),
        ),
    ]
