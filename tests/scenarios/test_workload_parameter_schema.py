"""A workload's parameters are offered as what-ifs with their unit; those the model reads by name with their bounds."""

from __future__ import annotations

import pytest

from apps.scenarios.adapters import apply_workload_overrides, workload_dict
from apps.scenarios.forms import WorkloadParametersForm
from apps.workloads.models import Workload
from apps.workloads.schemas import MODEL_PARAMETERS, TEMPLATES


def test_every_parameter_the_general_model_reads_by_name_has_its_bounds_in_every_template():
    names = {p.name for p in MODEL_PARAMETERS}
    assert {"spot_price_ceiling_ratio", "invert_reference_days", "reference_day_size"} <= names
    for template, params in TEMPLATES.items():
        assert names <= {p.name for p in params}, template


def test_it_reads_a_what_if_in_the_parameters_unit(catalogue):
    workload = Workload.objects.get(slug="chiles-epoch1")
    form = WorkloadParametersForm({"param-split_read_rate": "50 MB/s", "param-split_flag_time": "10 min"},
                                  workload=workload)
    assert form.is_valid(), form.errors
    assert form.overrides == {"split_read_rate": 50e6, "split_flag_time": 600.0}


@pytest.mark.parametrize(("name", "text", "message"), [
    ("spot_price_ceiling_ratio", "0.5", "at least 1"),
    ("invert_reference_days", "0.5", "at least 1"),
])
def test_it_refuses_a_value_outside_the_bounds_naming_the_field(catalogue, name, text, message):
    workload = Workload.objects.get(slug="chiles-epoch1")
    form = WorkloadParametersForm({f"param-{name}": text}, workload=workload)
    assert not form.is_valid()
    assert message in " ".join(form.errors[name])
    with pytest.raises(ValueError, match=f"workload_overrides.{name}: must be {message}"):
        apply_workload_overrides(workload_dict(workload), {name: float(text)})
