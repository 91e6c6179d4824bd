"""The models and their migrations agree (no change is left for makemigrations), and the data migrations convert
what was stored before them."""

import dataclasses
import json
import math

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


# --- workloads.0008: the chiles template retired -----------------------------------------------------------------

BEFORE = ("workloads", "0007_stage_default_placement_facts")
AFTER = ("workloads", "0008_chiles_template_as_stages")
GB, MB = 1e9, 1e6
SEED = {"kind": "seed", "file": "000_a6c81710fa62f1c4.txt", "where": "§1.1"}
FIT = {"kind": "fitted", "method": "fitted to two single INVERT times", "observations": ["a", "b"]}
#: the catalogue's chiles-epoch1 as the chiles template held it (base units): the paper's values
CHILES = {"n_days": 42, "day_size_mean": 330 * GB, "day_size_min": 45 * GB, "day_size_max": 803 * GB,
          "bandwidth": 480e6, "subband_width": 4e6, "channel_width": 15.625e3, "n_baselines": 351,
          "image_pixels": 2048, "max_concat_subbands": 12, "bytes_per_voxel": 4, "invert_time_channel_exponent": 1.0,
          "invert_time_visibility_exponent": 0.5, "spw_width": 32e6, "reference_day_size": 400 * GB,
          "invert_reference_days": 8, "split_selection_time": 100, "split_flag_time": 100,
          "split_read_rate": 100 * MB, "invert_cpu_serial": 1974.5047376678235, "invert_cpu_parallel": 800.3355239641767,
          "spot_price_ceiling_ratio": 1.5, "cloud_split_instances": 40, "subbands_per_split_instance": 4,
          "invert_launch_interval": 300, "cloud_concat_instances": 10, "cloud_invert_instances": 5}
STAGES = {
    "copy": {"seq_read_bytes": 400 * GB, "seq_write_bytes": 400 * GB, "cpu_seconds": 400, "usable_threads": 2,
             "peak_memory": 1600 * MB, "overhead": 0},
    "split": {"seq_read_bytes": 26.67 * GB, "seq_write_bytes": 3.333 * GB, "random_read_ops": 1335,
              "random_write_ops": 1335, "random_op_bytes": 65536, "cpu_seconds": 267, "usable_threads": 1,
              "peak_memory": 545 * MB, "overhead": 200},
    "invert": {"seq_read_bytes": 22 * GB, "seq_write_bytes": 2 ** 32, "random_read_ops": 163840,
               "random_write_ops": 163840, "random_op_bytes": 65536, "cpu_seconds": 6086, "usable_threads": 4,
               "peak_memory": 60 * GB, "overhead": 70},
    "concat": {"seq_read_bytes": 48 * 2 ** 30, "seq_write_bytes": 48 * 2 ** 30, "cpu_seconds": 515,
               "usable_threads": 1, "peak_memory": 48 * 2 ** 30, "overhead": 0},
}


def _flat(value, at=""):
    """``value`` (nested dicts, lists and tuples) as one dict of path -> leaf, which pytest.approx can compare."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _flat(item, f"{at}.{key}").items()}
    if isinstance(value, (list, tuple)):
        return {k: v for i, item in enumerate(value) for k, v in _flat(item, f"{at}[{i}]").items()} or {at: "()"}
    return {at: value}


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


def _old_chiles(apps, slug, workspace=None, copied_from=None, **changes):
    Workload = apps.get_model("workloads", "Workload")
    Stage = apps.get_model("workloads", "WorkloadStage")
    params = {**CHILES, **changes}
    w = Workload.objects.create(slug=slug, name=slug, template="chiles", parameters=params, workspace=workspace,
                                copied_from=copied_from, provenance={k: FIT if k.startswith("invert_cpu") else SEED
                                                                     for k in params})
    for i, (name, facts) in enumerate(STAGES.items()):
        Stage.objects.create(workload=w, name=name, order=i, **facts, provenance={k: SEED for k in facts})
    return w


@pytest.mark.django_db(transaction=True)
def test_the_chiles_template_rows_become_the_stages_form_the_catalogue_now_ships(settings):
    """The reference record and a workspace's edited copy of it, stored on the retired template, are the general
    model's stages afterwards: the reference exactly the catalogue's new entry, the copy with its edits carried
    through (fewer days: less INVERT CPU and input, by the builder's rules), every value with a source."""
    from apps.scenarios.adapters import workload_spec
    from apps.workloads.models import Workload
    from simulator.model.catalogue import workload_from_dict

    old = _migrate(BEFORE)
    space = old.get_model("accounts", "Workspace").objects.create(name="Team", slug="team")
    ref = _old_chiles(old, "chiles-epoch1")
    _old_chiles(old, "my-chiles", workspace=space, copied_from=ref, n_days=10)
    _migrate(AFTER)

    assert not Workload.objects.filter(template="chiles").exists()
    shipped = json.loads((settings.SKYPLAN_CATALOGUE_DIR / "workloads.json").read_text())["workloads"]
    expected = workload_from_dict(next(w for w in shipped if w["slug"] == "chiles-epoch1"))
    migrated = workload_spec(Workload.objects.get(slug="chiles-epoch1"))
    assert migrated.template == "stages"
    assert [s.name for s in migrated.stages] == [s.name for s in expected.stages]
    for got, want in zip(migrated.stages, expected.stages, strict=True):
        a, b = _flat(dataclasses.asdict(got)), _flat(dataclasses.asdict(want))
        number = {k for k, v in b.items() if isinstance(v, float)}
        assert {k: v for k, v in a.items() if k not in number} == {k: v for k, v in b.items() if k not in number}
        assert {k: a[k] for k in number} == pytest.approx({k: b[k] for k in number}, rel=1e-9), got.name
    # the parameters given above, less those now facts of the stages (the cloud placement, the INVERT CPU split)
    assert set(migrated.parameters) == set(CHILES) - {"cloud_split_instances", "subbands_per_split_instance",
                                                      "invert_launch_interval", "cloud_concat_instances",
                                                      "cloud_invert_instances", "invert_cpu_serial",
                                                      "invert_cpu_parallel"} | {"n_subbands"}
    assert migrated.parameters == pytest.approx({k: expected.parameters[k] for k in migrated.parameters}, rel=1e-12)

    mine = Workload.objects.get(slug="my-chiles")
    assert mine.template == "stages" and mine.workspace.slug == "team" and mine.copied_from.slug == "chiles-epoch1"
    stages = {st.name: st for st in mine.stages.all()}
    assert float(stages["invert_grid_serial"].cpu_seconds) == pytest.approx(1974.5047376678235 * math.sqrt(10 / 8))
    assert float(stages["invert_grid_parallel"].input_read_bytes) == pytest.approx(22 * GB * 10 / 8)
    assert float(stages["split"].input_read_bytes) == pytest.approx(100 * 100 * MB)  # the selection's 100 s read
    assert mine.parameters["n_days"] == 10 and "invert_cpu_serial" not in mine.parameters
    for row in (mine, *stages.values()):
        assert row.provenance_problems() == {}, row
