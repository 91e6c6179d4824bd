"""Seed the paper's eight criteria (§9, Table 3) with their default rubrics."""

from dataclasses import asdict

from django.db import migrations


def seed(apps, schema_editor):
    from apps.scoring.logic.criteria import DEFAULT_CRITERIA

    Criterion = apps.get_model("scoring", "Criterion")
    for i, c in enumerate(DEFAULT_CRITERIA):
        values = asdict(c)
        key = values.pop("key")
        Criterion.objects.get_or_create(key=key, defaults={**values, "position": i})


def unseed(apps, schema_editor):
    from apps.scoring.logic.criteria import DEFAULT_CRITERIA

    apps.get_model("scoring", "Criterion").objects.filter(key__in=[c.key for c in DEFAULT_CRITERIA]).delete()


class Migration(migrations.Migration):
    dependencies = [("scoring", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
