"""Existing scenarios, runs, searches, profiles, imports, calibrations and benchmark runs move to their creator's personal
workspace (created here); those without a creator stay shared."""

from django.db import migrations
from django.utils.text import slugify


def _personal(Workspace, Membership, user, cache):
    if user.pk in cache:
        return cache[user.pk]
    workspace = Workspace.objects.filter(personal_of=user).first()
    if workspace is None:
        base = slugify(user.username)[:40] or f"user-{user.pk}"
        slug, n = base, 0
        while Workspace.objects.filter(slug=slug).exists():
            n += 1
            slug = f"{base}-{n}"
        workspace = Workspace.objects.create(name=f"{user.username}'s workspace", slug=slug, personal_of=user)
        Membership.objects.create(workspace=workspace, user=user, role="admin")
    cache[user.pk] = workspace
    return workspace


def assign(apps, schema_editor):
    Workspace = apps.get_model("accounts", "Workspace")
    Membership = apps.get_model("accounts", "Membership")
    cache = {}
    for app_label, model_name in (("scenarios", "Scenario"), ("scenarios", "SimulationRun"),
                                  ("scoring", "ConfigurationSearch"), ("profiles", "Profile"),
                                  ("profiles", "ProfileImport"), ("profiles", "Calibration"),
                                  ("benchmarks", "BenchmarkRun")):
        model = apps.get_model(app_label, model_name)
        for obj in model.objects.filter(workspace__isnull=True, created_by__isnull=False).select_related("created_by"):
            obj.workspace = _personal(Workspace, Membership, obj.created_by, cache)
            obj.save(update_fields=["workspace"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("scenarios", "0003_scenario_workspace_simulationrun_workspace"),
        ("scoring", "0003_configurationsearch_workspace"),
        ("profiles", "0002_calibration_workspace_profile_workspace_and_more"),
        ("benchmarks", "0002_benchmarkrun_workspace"),
    ]

    operations = [migrations.RunPython(assign, migrations.RunPython.noop)]
