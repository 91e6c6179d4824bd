"""Parameters each workload template takes: name, dimension, whether required.

Every template is the general model of stages (``stages``; ``job_array`` and ``custom_dag`` are its older
forms): a pipeline, the CHILES case study included, is modelled as data with no code change.  A parameter no
template declares keeps its dimension in the workload's ``parameter_dimensions``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Param", "TEMPLATES", "STAGE_NAMES", "MODEL_PARAMETERS"]


@dataclass(frozen=True)
class Param:
    name: str
    dimension: str
    label: str
    required: bool = True
    positive: bool = True
    #: inclusive bounds in base units (None = only the sign rule above); refused outside them
    minimum: float | None = None
    maximum: float | None = None

    def check(self, value: float) -> str | None:
        """Why ``value`` (base units) is not acceptable for this parameter, or None."""
        if self.positive and value <= 0:
            return "must be greater than zero"
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {self.minimum:g}"
        if self.maximum is not None and value > self.maximum:
            return f"must be at most {self.maximum:g}"
        return None


TEMPLATES: dict[str, tuple[Param, ...]] = {
    "job_array": (
        Param("n_jobs", "scalar", "jobs"),
        Param("slots", "scalar", "concurrent slots", required=False),
    ),
    "custom_dag": (),
    "stages": (),
}
#: parameters the general model itself reads by name when a workload has them (stage defaults on the cloud, the
#: single work-units validation and the INVERT CPU fit run): their dimension and bounds, for any template
MODEL_PARAMETERS = (
    Param("n_days", "scalar", "days of observing (the days a CHILES-like stage's tasks are per)", required=False),
    Param("spot_price_ceiling_ratio", "scalar", "cloud: spot price ceiling of an instance type whose price rises "
                                                "with our own instances (x base price)", required=False, minimum=1),
    Param("reference_day_size", "bytes", "data size a split work-unit's demands are given for", required=False),
    Param("invert_reference_days", "scalar", "days the single INVERT work-unit images", required=False, minimum=1),
    Param("split_instance_day_size", "bytes", "cloud: day size of the published time of one SPLIT instance",
          required=False),
    Param("invert_time_channel_exponent", "scalar", "INVERT time exponent in channels", required=False),
    Param("invert_time_visibility_exponent", "scalar", "INVERT time exponent in visibilities", required=False),
)
TEMPLATES = {name: params + MODEL_PARAMETERS for name, params in TEMPLATES.items()}

#: stage names a template expects (custom DAGs name their own)
STAGE_NAMES: dict[str, tuple[str, ...]] = {
    "job_array": ("stage_in", "compute", "stage_out"),
    "custom_dag": (),
    "stages": (),
}
