"""Every parameter the CHILES model reads is in the template schema: offered as a what-if with its unit and bounds."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from apps.scenarios.adapters import apply_workload_overrides, workload_dict
from apps.scenarios.forms import WorkloadParametersForm
from apps.workloads.models import Workload
from apps.workloads.schemas import TEMPLATES


def test_it_lists_every_parameter_of_the_catalogue_chiles_workload():
    shipped = json.loads((settings.SKYPLAN_CATALOGUE_DIR / "workloads.json").read_text())["workloads"]
    known = {p.name for p in TEMPLATES["chiles"]}
    for w in shipped:
        if w["template"] == "chiles":
            assert set(w["parameters"]) - {"pixel_size"} <= known, w["slug"]


def test_it_reads_a_what_if_in_the_parameters_unit(catalogue):
    workload = Workload.objects.get(slug="chiles-epoch1")
    form = WorkloadParametersForm({"param-split_read_rate": "50 MB/s", "param-invert_launch_interval": "10 min"},
                                  workload=workload)
    assert form.is_valid(), form.errors
    assert form.overrides == {"split_read_rate": 50e6, "invert_launch_interval": 600.0}


@pytest.mark.parametrize(("name", "text", "message"), [
    ("spot_price_ceiling_ratio", "0.5", "at least 1"),
    ("cloud_split_instances", "5000", "at most 1000"),
])
def test_it_refuses_a_value_outside_the_bounds_naming_the_field(catalogue, name, text, message):
    workload = Workload.objects.get(slug="chiles-epoch1")
    form = WorkloadParametersForm({f"param-{name}": text}, workload=workload)
    assert not form.is_valid()
    assert message in " ".join(form.errors[name])
    with pytest.raises(ValueError, match=f"workload_overrides.{name}: must be {message}"):
        apply_workload_overrides(workload_dict(workload), {name: float(text)})
