"""A workload's parameters are entered with units of their own dimension, also those its template does not declare
(the catalogue's unit says their dimension): "600 GB" for a data size, a bare number only for counts."""

from __future__ import annotations

from apps.scenarios.forms import WorkloadParametersForm
from apps.workloads.models import Workload


def test_a_parameter_the_template_does_not_declare_keeps_the_dimension_of_its_catalogue_unit(catalogue):
    workload = Workload.objects.get(slug="sdp-predict-p3")
    rows = {row["name"]: row["dimension"] for row in workload.parameter_rows()}
    assert (rows["image_data"], rows["snapshot_time"], rows["n_baselines"], rows["n_jobs"]) == (
        "bytes", "time", "scalar", "scalar")


def test_600_gigabytes_is_taken_and_a_bare_size_is_refused_naming_the_unit_to_add(catalogue):
    workload = Workload.objects.get(slug="sdp-predict-p3")
    form = WorkloadParametersForm({"param-image_data": "600 GB", "param-n_jobs": "24"}, workload=workload)
    assert form.is_valid(), form.errors
    assert form.overrides == {"image_data": 600e9, "n_jobs": 24}

    form = WorkloadParametersForm({"param-image_data": "600", "param-snapshot_time": "5 GB"}, workload=workload)
    assert not form.is_valid()
    assert form.errors == {"image_data": ["add a unit, e.g. 600 GB"],
                           "snapshot_time": ["unit 'GB' is a bytes unit; expected a time unit: day, h, min, ms, s, us"]}
