"""Parameters each workload template takes: name, dimension, whether required.

The CHILES template is the paper's copy → split → invert → concat pipeline; the
job array and the custom DAG let a pipeline that is not CHILES be modelled with no
code change.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Param", "TEMPLATES", "STAGE_NAMES"]


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
    "chiles": (
        Param("n_days", "scalar", "observing days"),
        Param("day_size_mean", "bytes", "mean size of a day's data"),
        Param("day_size_min", "bytes", "smallest day", required=False),
        Param("day_size_max", "bytes", "largest day", required=False),
        Param("bandwidth", "frequency", "observed bandwidth"),
        Param("subband_width", "frequency", "sub-band width"),
        Param("channel_width", "frequency", "channel width"),
        Param("n_baselines", "scalar", "baselines"),
        Param("visibilities_per_step", "scalar", "visibilities per time step", required=False),
        Param("image_pixels", "scalar", "image size (pixels per side)"),
        Param("max_concat_subbands", "scalar", "sub-bands per concatenated cube"),
        Param("bytes_per_voxel", "bytes", "bytes per voxel", required=False),
        Param("invert_time_channel_exponent", "scalar", "INVERT time exponent in channels", required=False),
        Param("invert_time_visibility_exponent", "scalar", "INVERT time exponent in visibilities", required=False),
        Param("spw_width", "frequency", "spectral window width (read to regrid one sub-band)", required=False),
        Param("n_spw", "scalar", "spectral windows", required=False),
        Param("n_subbands", "scalar", "sub-bands (overrides bandwidth / sub-band width)", required=False),
        Param("n_channels", "scalar", "channels", required=False),
        Param("observing_time", "time", "observing time", required=False),
        Param("integration_time", "time", "integration time", required=False),
        Param("reference_day_size", "bytes", "day size the SPLIT demands were measured at", required=False),
        Param("invert_reference_days", "scalar", "days the INVERT demands were measured over", required=False,
              minimum=1),
        Param("split_instance_day_size", "bytes", "cloud: day size of the published time of one SPLIT instance",
              required=False),
        Param("split_selection_time", "time", "SPLIT selection phase length", required=False),
        Param("split_flag_time", "time", "SPLIT flag-table phase length", required=False),
        Param("split_read_rate", "bandwidth", "SPLIT (CasaPy) sequential read ceiling", required=False),
        Param("invert_cpu_serial", "time", "INVERT serial CPU per sub-band (fitted)", required=False),
        Param("invert_cpu_parallel", "time", "INVERT parallel CPU per sub-band (fitted)", required=False,
              positive=False, minimum=0),
        Param("cloud_split_instances", "scalar", "cloud: concurrent SPLIT instances", required=False,
              minimum=1, maximum=1000),
        Param("subbands_per_split_instance", "scalar", "cloud: sub-bands per SPLIT instance", required=False,
              minimum=1),
        Param("invert_launch_interval", "time", "cloud: time between INVERT launches", required=False,
              positive=False, minimum=0, maximum=86400),
        Param("spot_price_ceiling_ratio", "scalar", "cloud: INVERT spot price ceiling (x base price)",
              required=False, minimum=1),
        Param("cloud_concat_instances", "scalar", "cloud: concurrent CONCAT instances", required=False,
              minimum=1, maximum=1000),
        Param("cloud_invert_instances", "scalar", "cloud: concurrent INVERT instances without a spot price",
              required=False, minimum=1, maximum=1000),
    ),
    "job_array": (
        Param("n_jobs", "scalar", "jobs"),
        Param("slots", "scalar", "concurrent slots", required=False),
    ),
    "custom_dag": (),
    "stages": (),
}

#: stage names a template expects (custom DAGs name their own)
STAGE_NAMES: dict[str, tuple[str, ...]] = {
    "chiles": ("copy", "split", "invert", "concat"),
    "job_array": ("stage_in", "compute", "stage_out"),
    "custom_dag": (),
    "stages": (),
}
