"""One path from the catalogue records into the simulator: the demo scenario, validate_model and /validation/ give
the same numbers for one seed, and the command line runs a workspace's own platform."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.template.defaultfilters import floatformat

from apps.accounts.models import Role
from apps.accounts.workspaces import personal_workspace
from apps.platforms.models import Platform
from apps.platforms.services import copy_platform
from apps.scenarios.models import SimulationRun
from apps.scenarios.services import create_demo_scenario, execute_replication, run_scenario

HOUR = 3600.0


def test_the_demo_validate_model_and_the_validation_page_give_the_same_simulated_numbers(logged_in, catalogue, user,
                                                                                          capsys):
    scenario = run_scenario(create_demo_scenario(user), user, dispatch=False)
    call_command("validate_model", "--format", "json", "--seed", str(scenario.seed))
    report = json.loads(capsys.readouterr().out)
    rows = {(r["quantity"], r["platform"]): r for r in report}
    page = logged_in.get("/validation/").content.decode()
    runs = {e.platform.slug: e.run for e in scenario.entries.select_related("platform", "run")}
    for slug in ("magnus", "aws-sydney"):
        assert execute_replication(str(runs[slug].id), 0) == "succeeded"  # replication 0 runs with the seed itself
        demo = runs[slug].replication_set.get(index=0).result
        row = rows[("epoch_run_time", slug)]
        assert row["simulated"] == pytest.approx(demo["run_time_s"] / HOUR, rel=1e-12)
        assert f"<td>{floatformat(row['simulated'], '-3g')}</td>" in page
    aws = runs["aws-sydney"].replication_set.get(index=0).result
    assert rows[("compute_hours", "aws-sydney")]["simulated"] == pytest.approx(aws["compute_hours_billed"], rel=1e-12)
    assert rows[("compute_cost", "aws-sydney")]["simulated"] == pytest.approx(
        sum(line["aud"] for line in aws["cost_lines"] if line["category"] == "compute"), rel=1e-12)


def test_the_command_line_runs_a_workspaces_copy_and_refuses_a_workspace_the_user_cannot_see(
        catalogue, user, django_user_model, capsys):
    mine = personal_workspace(user)
    copy = copy_platform(Platform.objects.get(slug="magnus"), mine)
    call_command("simulate", "chiles-epoch1", "--platform", copy.slug, "--workspace", str(mine.pk),
                 "--user", user.username, "--format", "json")
    out = json.loads(capsys.readouterr().out)
    run = SimulationRun.objects.get(pk=out["run"])
    assert (run.platform, run.workspace, run.created_by) == (copy, mine, user)
    assert out["replications"][0]["platform"] == copy.slug
    # the same run of the original gives the same numbers (the copy is not edited)
    call_command("simulate", "chiles-epoch1", "--platform", "magnus", "--format", "json")
    original = json.loads(capsys.readouterr().out)["replications"][0]
    assert out["replications"][0]["makespan_s"] == original["makespan_s"]

    stranger = django_user_model.objects.create_user(username="eve", password="correct horse battery")
    with pytest.raises(CommandError, match=f"no workspace '{mine.slug}' that eve can see"):
        call_command("simulate", "chiles-epoch1", "--platform", copy.slug, "--workspace", mine.slug, "--user", "eve")
    with pytest.raises(CommandError, match="belongs to a workspace: pass --workspace"):
        call_command("simulate", "chiles-epoch1", "--platform", copy.slug)
    with pytest.raises(CommandError, match="belongs to another workspace"):
        call_command("simulate", "chiles-epoch1", "--platform", copy.slug,
                     "--workspace", personal_workspace(stranger).slug, "--user", "eve")
    assert not SimulationRun.objects.filter(created_by=stranger).exists()
    assert Role.EDITOR  # the role a run needs in the workspace
