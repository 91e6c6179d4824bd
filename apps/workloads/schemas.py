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
    ),
    "job_array": (
        Param("n_jobs", "scalar", "jobs"),
        Param("slots", "scalar", "concurrent slots", required=False),
    ),
    "custom_dag": (),
}

#: stage names a template expects (custom DAGs name their own)
STAGE_NAMES: dict[str, tuple[str, ...]] = {
    "chiles": ("copy", "split", "invert", "concat"),
    "job_array": ("stage_in", "compute", "stage_out"),
    "custom_dag": (),
}
