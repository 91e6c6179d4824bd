"""Workload files (JSON or YAML, docs/workloads-format.md): the schema, import and export through the catalogue's
one loader, and refusals that name file, path and field and save nothing."""

import json

import jsonschema
import pytest
import yaml
from django.core.management import CommandError, call_command

from apps.core.provenance import SOURCE_KINDS
from apps.platforms.models import Platform
from apps.scenarios.adapters import platform_spec, workload_spec
from apps.workloads.catalogue import CatalogueError
from apps.workloads.files import SCHEMA_PATH, import_workloads, workload_entry
from apps.workloads.models import Workload, WorkloadStage
from simulator.model.catalogue import workload_from_dict
from simulator.model.simulate import simulate
from simulator.model.specs import ScenarioSpec, StagePlacement
from simulator.model.stages import size_factors

pytestmark = pytest.mark.django_db

ASSUMED = {"kind": "assumption", "reason": "an example"}


def _schema():
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))


def test_the_schema_names_every_stage_fact_and_source_kind_the_loader_takes(settings):
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert set(schema["$defs"]["stage"]["properties"]["facts"]["properties"]) == set(WorkloadStage.FACT_FIELDS)
    assert {s["properties"]["kind"]["const"] for s in schema["$defs"]["source"]["oneOf"]} == set(SOURCE_KINDS)
    shipped = json.loads((settings.SKYPLAN_CATALOGUE_DIR / "workloads.json").read_text())
    assert list(_schema().iter_errors(shipped)) == []


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_an_exported_workload_imports_back_to_the_same_model(catalogue, tmp_path, suffix):
    out = tmp_path / f"sdp.{suffix}"
    call_command("export_workload", "sdp-predict-p3", "-o", str(out))
    data = yaml.safe_load(out.read_text()) if suffix == "yaml" else json.loads(out.read_text())
    assert list(_schema().iter_errors(data)) == []
    data["slug"] = "sdp-again"
    out.write_text(yaml.safe_dump(data) if suffix == "yaml" else json.dumps(data))
    call_command("import_workload", str(out))
    original = workload_spec(Workload.objects.get(slug="sdp-predict-p3"))
    again = workload_spec(Workload.objects.get(slug="sdp-again"))
    assert again.stages == original.stages and again.parameters == original.parameters
    assert workload_entry(Workload.objects.get(slug="sdp-again"))["stages"] == data["stages"]


PIPELINE = """
slug: campus-job-array
name: One job per input file
template: stages
parameters:
  n_files: {value: 394, unit: "", source: {kind: assumption, reason: one job per input file}}
stages:
  - name: stage_in
    facts:
      tasks_per: {value: n_files, unit: "", source: {kind: assumption, reason: one job per file}}
      input_read_bytes: {value: 0.6, unit: GB, source: {kind: assumption, reason: ~0.6 GB in per job}}
      scratch_write_bytes: {value: 0.6, unit: GB, source: {kind: assumption, reason: copied to local disk}}
  - name: compute
    facts:
      tasks_per: {value: n_files, unit: "", source: {kind: assumption, reason: one job per file}}
      depends_on: {value: [stage_in], unit: "", source: {kind: assumption, reason: needs its file}}
      dependency: {value: one_to_one, unit: "", source: {kind: assumption, reason: job i reads file i}}
      cpu_seconds: {value: 2, unit: min, source: {kind: assumption, reason: an example}}
      scratch_read_bytes: {value: 0.6, unit: GB, source: {kind: assumption, reason: reads its copy}}
      scratch_pattern: {value: random, unit: "", source: {kind: assumption, reason: an example}}
      scratch_request_bytes: {value: 64, unit: KiB, source: {kind: assumption, reason: an example}}
      size_distribution: {value: lognormal, unit: "", source: {kind: assumption, reason: files differ}}
      size_sigma: {value: 0.3, unit: "", source: {kind: assumption, reason: an example}}
  - name: summary
    facts:
      depends_on: {value: [compute], unit: "", source: {kind: assumption, reason: after every job}}
      cpu_seconds: {value: 30, unit: s, source: {kind: assumption, reason: an example}}
      output_write_bytes: {value: 0.15, unit: GB, source: {kind: assumption, reason: ~0.15 GB out}}
"""


def test_a_pipeline_written_in_yaml_imports_and_runs_every_stage(catalogue, tmp_path):
    path = tmp_path / "pipeline.yaml"
    path.write_text(PIPELINE)
    summary = import_workloads(path)
    assert (summary.workloads, summary.stages) == (1, 3)
    spec = workload_spec(Workload.objects.get(slug="campus-job-array"))
    fornax = platform_spec(Platform.objects.get(slug="fornax"))  # Lustre with an IOPS figure
    result = simulate(ScenarioSpec(platform=fornax, workload=spec, seed=1), record_utilisation=False)
    assert {s.stage: s.tasks for s in result.stages} == {"stage_in": 394, "compute": 394, "summary": 1}
    # the compute stage's random reads cost the Lustre's IOPS: bytes / request size per job, times its size
    compute = spec.stages[1]
    lustre = fornax.storage_tier()
    expected_ops = sum(size_factors(compute, 394, 1)) * 0.6e9 / (64 * 1024)
    assert result.bytes_moved[f"{lustre.name}:iops"] == pytest.approx(expected_ops)


PHASES = """
slug: select-then-regrid
name: Select, then regrid on the same node
template: stages
stages:
  - name: select
    facts:
      n_tasks: {value: 3, unit: "", source: {kind: assumption, reason: three days}}
      input_read_bytes: {value: 10, unit: GB, source: {kind: assumption, reason: an example}}
      max_read_rate: {value: 100, unit: MB/s, source: {kind: assumption, reason: the application's read ceiling}}
      size_distribution: {value: spread, unit: "", source: {kind: assumption, reason: days of one size here}}
      size_mean: {value: 10, unit: GB, source: {kind: assumption, reason: an example}}
      size_min: {value: 10, unit: GB, source: {kind: assumption, reason: an example}}
      size_max: {value: 10, unit: GB, source: {kind: assumption, reason: an example}}
  - name: regrid
    facts:
      n_tasks: {value: 3, unit: "", source: {kind: assumption, reason: one per day}}
      depends_on: {value: [select], unit: "", source: {kind: assumption, reason: the same work-unit}}
      dependency: {value: continues, unit: "", source: {kind: assumption, reason: a later phase of it}}
      cpu_seconds: {value: 5, unit: min, source: {kind: assumption, reason: an example}}
"""


def test_a_stage_continuing_another_with_a_read_ceiling_imports_exports_and_runs(catalogue, tmp_path):
    path = tmp_path / "phases.yaml"
    path.write_text(PHASES)
    import_workloads(path)
    workload = Workload.objects.get(slug="select-then-regrid")
    spec = workload_spec(workload)
    assert spec.stages[0].max_read_bytes_per_s == 100e6 and spec.stages[1].dependency == "continues"
    assert (spec.stages[0].size_distribution, spec.stages[0].size_mean) == ("spread", 10e9)
    assert list(_schema().iter_errors(workload_entry(workload))) == []
    fornax = platform_spec(Platform.objects.get(slug="fornax"))  # no per-client cap of its own
    placement = StagePlacement("select", nodes=3, policy="dynamic", queue_wait_s=0.0)
    result = simulate(ScenarioSpec(platform=fornax, workload=spec, placements=(placement,)),
                      record_utilisation=False)
    # one task per day: 10 GB at the 100 MB/s ceiling, then 300 core-s
    assert {s.stage: s.tasks for s in result.stages} == {"select": 3}
    assert [t.end_s - t.start_s for t in result.tasks if t.pool] == pytest.approx([100 + 300] * 3)


def _refused(tmp_path, text, name="bad.yaml"):
    path = tmp_path / name
    path.write_text(text)
    before = Workload.objects.count()
    with pytest.raises(CatalogueError) as err:
        import_workloads(path)
    assert Workload.objects.count() == before  # nothing half-saved
    assert err.value.file == name
    return err.value


def test_an_unknown_fact_is_refused_by_the_schema_naming_its_path(catalogue, tmp_path):
    err = _refused(tmp_path, PIPELINE.replace("cpu_seconds: {value: 2", "cpu_secs: {value: 2"))
    assert err.path == "$.stages[1].facts"
    assert "'cpu_secs' was unexpected" in err.message


def test_a_unit_of_the_wrong_dimension_is_refused_naming_the_field(catalogue, tmp_path):
    err = _refused(tmp_path, PIPELINE.replace("output_write_bytes: {value: 0.15, unit: GB",
                                              "output_write_bytes: {value: 0.15, unit: s"))
    assert err.path == "$.workloads[0].stages[2].facts.output_write_bytes"
    assert "time unit" in err.message and "bytes" in err.message


def test_a_dependency_the_task_counts_cannot_honour_is_refused_and_nothing_is_saved(catalogue, tmp_path):
    text = PIPELINE.replace("dependency: {value: one_to_one", "group_size: {value: 4, unit: '', source: "
                                                              "{kind: assumption, reason: x}}\n      dependency: "
                                                              "{value: grouped")
    err = _refused(tmp_path, text)
    assert err.path == "$.workloads[0].stages[1].facts.dependency"
    assert "groups 'stage_in''s 394 tasks by 4, which makes 99 groups, but the stage has 394 tasks" in err.message
    assert not Workload.objects.filter(slug="campus-job-array").exists()


def test_yaml_syntax_errors_and_aliases_are_refused_with_their_line(catalogue, tmp_path):
    err = _refused(tmp_path, "slug: x\nname: [unclosed\n")
    assert err.path.startswith("line ")
    err = _refused(tmp_path, "a: &big [1, 2]\nb: *big\n")
    assert err.path == "line 2 column 4" and "aliases" in err.message


def test_the_commands_report_errors_and_unknown_slugs(catalogue, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"slug": "x", "name": "x", "template": "stages", "stages": [{"name": "a", "facts": '
                    '{"cpu_seconds": {"value": 1, "unit": "s"}}}]}')
    with pytest.raises(CommandError, match=r"bad\.json: \$\.stages\[0\]\.facts\.cpu_seconds: 'source' is a "
                                           r"required property"):
        call_command("import_workload", str(path))
    with pytest.raises(CommandError, match="no workload 'nope'; known: "):
        call_command("export_workload", "nope")


def test_a_file_imports_into_a_workspace_for_its_editor_and_is_refused_for_a_viewer(catalogue, tmp_path, user,
                                                                                     django_user_model):
    from apps.accounts.workspaces import Role, add_member, personal_workspace

    path = tmp_path / "pipeline.yaml"
    path.write_text(PIPELINE)
    space = personal_workspace(user)
    viewer = django_user_model.objects.create_user(username="vic", password="another horse battery")
    add_member(space, viewer.username, Role.VIEWER)
    assert space.role_of(viewer) == Role.VIEWER
    with pytest.raises(CommandError, match="vic may not edit workspace"):
        call_command("import_workload", str(path), "--workspace", space.slug, "--user", "vic")
    assert not Workload.objects.filter(workspace=space).exists()

    call_command("import_workload", str(path), "--workspace", str(space.pk), "--user", user.username)
    mine = Workload.objects.get(workspace=space)
    assert mine.slug == "campus-job-array" and mine.stages.count() == 3
    # the one exporter writes what the workspace import reads back: a second import replaces, never duplicates
    data = workload_entry(mine)
    data["stages"][2]["facts"]["cpu_seconds"]["value"] = 45
    path.write_text(yaml.safe_dump(data))
    call_command("import_workload", str(path), "--workspace", space.slug)
    assert Workload.objects.filter(workspace=space).count() == 1
    assert mine.stages.get(name="summary").cpu_seconds == 45
    # a refusal names the file and the path within it, and leaves the workload as it was
    path.write_text(PIPELINE.replace("output_write_bytes: {value: 0.15, unit: GB",
                                     "output_write_bytes: {value: 0.15, unit: s"))
    with pytest.raises(CommandError, match=r"pipeline\.yaml: \$\.stages\[2\]\.facts\.output_write_bytes"):
        call_command("import_workload", str(path), "--workspace", space.slug)
    assert mine.stages.get(name="summary").cpu_seconds == 45


def test_the_chiles_record_is_a_workload_file_that_validates_and_imports_unchanged(catalogue, settings, tmp_path):
    """The catalogue's CHILES epoch is data of the general model: its entry is a workload file as any user may
    write (the schema, the import), and the catalogue stores it as the file gives it."""
    shipped = json.loads((settings.BASE_DIR / "fixtures" / "catalogue" / "workloads.json").read_text())["workloads"]
    entry = next(w for w in shipped if w["slug"] == "chiles-epoch1")
    assert entry["template"] == "stages"
    data = {**entry, "slug": "chiles-epoch1-file"}
    assert list(_schema().iter_errors(data)) == []
    path = tmp_path / "chiles.json"
    path.write_text(json.dumps(data))
    import_workloads(path)
    stored = workload_spec(Workload.objects.get(slug="chiles-epoch1-file"))
    assert stored.stages == workload_from_dict(data).stages
    assert workload_spec(Workload.objects.get(slug="chiles-epoch1")).stages == stored.stages
