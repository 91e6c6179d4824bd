"""Every workload of the retired ``chiles`` template (the reference record and the copies workspaces made of it)
becomes the same pipeline as data of the general model (template ``stages``), as the catalogue's ``chiles-epoch1``
now is: COPY over the WAN, SPLIT in three phases (select, regrid, flag), INVERT in five (create, serial and parallel
gridding, deconvolve, finalise), CONCAT in groups.  Each value comes from the row's own parameters and stage demands
(so a copy someone edited keeps its edits), with the source it had; what the CHILES builder computed from them
(the INVERT CPU and input over all days, the phase reads from their published lengths) says how in its source.

The conversion is frozen here (it must not follow later code): the CHILES builder's rules as they were when it was
retired.  Only rows of template ``chiles`` are touched; there is no way back (the builder is gone)."""

import math

from django.db import migrations, models

#: the dimensions the chiles template declared for its parameters (a ``stages`` workload keeps them per workload)
DIMENSIONS = {
    "n_days": "scalar", "day_size_mean": "bytes", "day_size_min": "bytes", "day_size_max": "bytes",
    "bandwidth": "frequency", "subband_width": "frequency", "channel_width": "frequency", "n_baselines": "scalar",
    "visibilities_per_step": "scalar", "image_pixels": "scalar", "max_concat_subbands": "scalar",
    "bytes_per_voxel": "bytes", "invert_time_channel_exponent": "scalar", "invert_time_visibility_exponent": "scalar",
    "spw_width": "frequency", "n_spw": "scalar", "n_subbands": "scalar", "n_channels": "scalar",
    "observing_time": "time", "integration_time": "time", "reference_day_size": "bytes",
    "invert_reference_days": "scalar", "split_instance_day_size": "bytes", "split_selection_time": "time",
    "split_flag_time": "time", "split_read_rate": "bandwidth", "spot_price_ceiling_ratio": "scalar",
}
#: parameters the CHILES builder placed its cloud stages with, now placement facts of those stages
MOVED = ("cloud_split_instances", "subbands_per_split_instance", "invert_launch_interval", "cloud_concat_instances",
         "cloud_invert_instances")
#: the INVERT CPU split, now the CPU of the serial and parallel gridding phases
FOLDED = ("invert_cpu_serial", "invert_cpu_parallel")
MIGRATION = "migration workloads.0008 (the CHILES template retired)"


def _assumption(reason):
    return {"kind": "assumption", "reason": f"{reason} ({MIGRATION})"}


def _derived(source, how):
    """``source`` (a value's own) with how the general model's value was worked out from it."""
    if not isinstance(source, dict) or "kind" not in source:
        return _assumption(how)
    out = dict(source)
    key = {"seed": "note", "measurement": "note", "assumption": "reason", "fitted": "method"}.get(out["kind"], "note")
    out[key] = f"{out.get(key, '')} -- {how} ({MIGRATION})".lstrip(" -")
    return out


def convert(params, params_source, stages, stage_sources):
    """The parameters, their sources and dimensions, and the stage rows (name -> (facts, sources)) of the general
    model for one CHILES record: ``params`` and ``stages`` (name -> {field: value}) in base units, as stored."""
    p = dict(params)
    src = dict(params_source)

    def param(name, default=None):
        value = p.get(name)
        return default if value is None else float(value)

    def psrc(name):
        return src.get(name) or _assumption(f"the value of parameter {name}")

    if p.get("n_subbands") is None:
        p["n_subbands"] = max(1, int(round(param("bandwidth") / param("subband_width"))))
        src["n_subbands"] = _assumption("bandwidth / subband_width, as the CHILES model counted the sub-bands")
    subbands, days = int(p["n_subbands"]), param("n_days")
    per_cube = int(param("max_concat_subbands", 12))
    rate = param("split_read_rate")
    mean = param("day_size_mean")
    sizes = {"size_distribution": ("spread", _assumption("the days spread between the smallest and largest with "
                                                         "the mean, as the CHILES model spread them")),
             "size_mean": (mean, psrc("day_size_mean")),
             "size_min": (param("day_size_min", mean), psrc("day_size_min")),
             "size_max": (param("day_size_max", mean), psrc("day_size_max")),
             "size_reference": (param("reference_day_size", mean), psrc("reference_day_size"))}
    per_day = {"tasks_per": ("n_days", _assumption("one work-unit per day of observing"))}
    per_band = {"tasks_per": ("n_subbands", _assumption("one INVERT per sub-band"))}
    items = {"work_items": ("n_subbands", _assumption("SPLIT cuts every sub-band out of each day"))}
    ceiling = {"max_read_rate": (rate, psrc("split_read_rate"))} if rate else {}
    batch = {"batch_policy": ("static", _assumption("one job holding its nodes for the whole run, task i on node "
                                                    "i mod nodes, as the CHILES model placed it"))}

    def cloud(policy, instances=None, pricing="spot"):
        out = {"cloud_policy": (policy, _assumption("the CHILES model's cloud placement")),
               "cloud_pricing": (pricing, _assumption("the CHILES model ran its cloud stages on spot instances"))}
        if instances is not None and p.get(instances) is not None:
            out["cloud_instances"] = (param(instances), psrc(instances))
        return out

    def after(stage, dependency="continues", why="a later phase of the same work-unit"):
        return {"depends_on": ([stage], _assumption(why)), "dependency": (dependency, _assumption(why))}

    def fact(stage, name, fields=None, how=None):
        """A demand of the old stage ``stage`` (its ``name`` field), with its source."""
        value = stages.get(stage, {}).get(name)
        source = stage_sources.get(stage, {}).get(name) or _assumption(f"the {stage} stage's {name}")
        return value, (_derived(source, how) if how else source)

    def phase_read(name, what):
        if p.get(name) is None or not rate:
            return {}
        return {"input_read_bytes": (param(name) * rate, _derived(
            psrc(name), f"read for that long at split_read_rate ({what}, as the CHILES model read it)"))}

    ref_days = param("invert_reference_days", 8.0)
    vis = (days / ref_days) ** param("invert_time_visibility_exponent", 0.5)
    how_cpu = f"x (n_days / invert_reference_days)^invert_time_visibility_exponent = x {vis:.6f} for all the days"
    serial, parallel = p.get("invert_cpu_serial"), p.get("invert_cpu_parallel")
    if serial is None or parallel is None:  # never fitted: the invert stage's CPU, all of it in parallel
        serial_cpu = (0.0, _assumption("no serial INVERT CPU was fitted"))
        parallel_cpu = fact("invert", "cpu_seconds", how=how_cpu)
        parallel_cpu = (None if parallel_cpu[0] is None else parallel_cpu[0] * vis, parallel_cpu[1])
    else:
        serial_cpu = (float(serial) * vis, _derived(psrc("invert_cpu_serial"), how_cpu))
        parallel_cpu = (float(parallel) * vis, _derived(psrc("invert_cpu_parallel"), how_cpu))
    inv_read = fact("invert", "seq_read_bytes", how=f"x n_days / invert_reference_days = x {days / ref_days:g}")
    inv_read = (None if inv_read[0] is None else inv_read[0] * days / ref_days, inv_read[1])

    rows = [
        ("copy", {**per_day, **sizes, "link": ("wan", _assumption("each day comes over the WAN")),
                  "output_write_bytes": (param("reference_day_size", mean), psrc("reference_day_size")),
                  **batch, **cloud("dynamic"), "cloud_instances": (1, _assumption("one copying instance"))}),
        ("split", {**per_day, **items, **sizes, **ceiling, **after("copy", "one_to_one", "day i's SPLIT reads day i"),
                   "usable_threads": fact("split", "usable_threads"), "peak_memory": fact("split", "peak_memory"),
                   **phase_read("split_selection_time", "the selection phase"), **batch,
                   **cloud("elastic", "cloud_split_instances"),
                   **({"cloud_items_per_task": (param("subbands_per_split_instance"),
                                                psrc("subbands_per_split_instance"))}
                      if p.get("subbands_per_split_instance") is not None else {})}),
        ("split_regrid", {**per_day, **items, **sizes, **ceiling, **after("split"),
                          "cpu_seconds": fact("split", "cpu_seconds"),
                          "usable_threads": (1, _assumption("the regrid runs on one thread")),
                          "input_read_bytes": fact("split", "seq_read_bytes"),
                          "output_write_bytes": fact("split", "seq_write_bytes")}),
        ("split_flag", {**per_day, **items, **sizes, **ceiling, **after("split_regrid"),
                        **phase_read("split_flag_time", "the flag-table phase")}),
        ("invert", {**per_band, **after("split", "all", "INVERT reads every day's sub-band"),
                    "overhead": fact("invert", "overhead"), "peak_memory": fact("invert", "peak_memory"), **batch,
                    **cloud("elastic", "cloud_invert_instances"),
                    **({"cloud_launch_interval": (param("invert_launch_interval"), psrc("invert_launch_interval"))}
                       if p.get("invert_launch_interval") is not None else {})}),
        ("invert_grid_serial", {**per_band, **after("invert"), "cpu_seconds": serial_cpu,
                                "usable_threads": (1, _assumption("the serial part of the gridding"))}),
        ("invert_grid_parallel", {**per_band, **after("invert_grid_serial"), "cpu_seconds": parallel_cpu,
                                  "usable_threads": fact("invert", "usable_threads"), "input_read_bytes": inv_read}),
        ("invert_deconvolve", {**per_band, **after("invert_grid_parallel"),
                               "random_read_ops": fact("invert", "random_read_ops"),
                               "random_write_ops": fact("invert", "random_write_ops"),
                               "random_op_bytes": fact("invert", "random_op_bytes")}),
        ("invert_finalise", {**per_band, **after("invert_deconvolve"),
                             "output_write_bytes": fact("invert", "seq_write_bytes")}),
        ("concat", {"n_tasks": (math.ceil(subbands / per_cube), _derived(psrc("max_concat_subbands"),
                                                                         "n_subbands / max_concat_subbands cubes")),
                    **after("invert", "grouped", "a cube joins max_concat_subbands sub-band images"),
                    "group_size": (per_cube, psrc("max_concat_subbands")),
                    "usable_threads": fact("concat", "usable_threads"), "peak_memory": fact("concat", "peak_memory"),
                    "overhead": fact("concat", "overhead"), "input_read_bytes": fact("concat", "seq_read_bytes"),
                    "output_write_bytes": fact("concat", "seq_write_bytes"), **batch,
                    **cloud("elastic", "cloud_concat_instances")}),
    ]
    out_stages = []
    for name, facts in rows:
        facts = {k: v for k, v in facts.items() if v[0] is not None}
        out_stages.append((name, {k: v[0] for k, v in facts.items()}, {k: v[1] for k, v in facts.items()}))
    for name in MOVED + FOLDED:
        p.pop(name, None)
    new_params = {k: v for k, v in p.items() if v is not None}
    return (new_params, {k: src[k] for k in new_params if k in src},
            {k: DIMENSIONS.get(k, "scalar") for k in new_params}, out_stages)


#: the demand fields of a CHILES template's stages the conversion reads
READ = ("seq_read_bytes", "seq_write_bytes", "random_read_ops", "random_write_ops", "random_op_bytes", "cpu_seconds",
        "usable_threads", "peak_memory", "overhead")


def forwards(apps, schema_editor):
    Workload = apps.get_model("workloads", "Workload")
    WorkloadStage = apps.get_model("workloads", "WorkloadStage")
    for w in Workload.objects.filter(template="chiles"):
        old = {st.name: st for st in w.stages.all()}
        stages = {n: {f: getattr(st, f) for f in READ} for n, st in old.items()}
        sources = {n: dict(st.provenance or {}) for n, st in old.items()}
        params, psources, dims, rows = convert(w.parameters or {}, w.provenance or {}, stages, sources)
        w.stages.all().delete()
        w.template = "stages"
        w.parameters, w.provenance = params, psources
        w.parameter_dimensions = {**(w.parameter_dimensions or {}), **dims}
        w.save()
        for order, (name, facts, provenance) in enumerate(rows):
            WorkloadStage.objects.create(workload=w, name=name, order=order, provenance=provenance, **facts)


class Migration(migrations.Migration):

    dependencies = [
        ("workloads", "0007_stage_default_placement_facts"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="workload",
            name="template",
            field=models.CharField(choices=[("job_array", "job array (stage-in / compute / stage-out)"),
                                            ("custom_dag", "custom DAG of stages"),
                                            ("stages", "DAG of stages (the general model)")], max_length=20),
        ),
    ]
