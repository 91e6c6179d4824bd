"""Replication outcome as columns (makespan, cost, queue wait) and whether its result holds the full detail; existing
replications get their columns from their stored results (which all hold the full detail)."""

from django.db import migrations, models


def fill_columns(apps, schema_editor):
    Replication = apps.get_model("scenarios", "Replication")
    batch = []
    for rep in Replication.objects.exclude(result=None).only("pk", "result").iterator(chunk_size=500):
        r = rep.result or {}
        rep.makespan_s, rep.cost_aud, rep.queue_wait_s = r.get("makespan_s"), r.get("total_cost_aud"), r.get(
            "queue_wait_s")
        rep.detailed = "tasks" in r
        batch.append(rep)
        if len(batch) >= 500:
            Replication.objects.bulk_update(batch, ["makespan_s", "cost_aud", "queue_wait_s", "detailed"])
            batch = []
    if batch:
        Replication.objects.bulk_update(batch, ["makespan_s", "cost_aud", "queue_wait_s", "detailed"])


class Migration(migrations.Migration):

    dependencies = [
        ("scenarios", "0003_scenario_workspace_simulationrun_workspace"),
    ]

    operations = [
        migrations.AddField(
            model_name="replication",
            name="makespan_s",
            field=models.FloatField(blank=True, help_text="submission to the last task, queue wait included",
                                    null=True),
        ),
        migrations.AddField(
            model_name="replication",
            name="cost_aud",
            field=models.FloatField(blank=True, help_text="total cost of the replication", null=True),
        ),
        migrations.AddField(
            model_name="replication",
            name="queue_wait_s",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="replication",
            name="detailed",
            field=models.BooleanField(default=False, help_text="result holds every task and the utilisation series"),
        ),
        migrations.RunPython(fill_columns, migrations.RunPython.noop),
    ]
