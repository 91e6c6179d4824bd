"""Forms for starting a simulation run and for building a scenario."""

from __future__ import annotations

import re

from django import forms
from django.forms.utils import ErrorDict

from apps.core.labels import readable
from apps.core.models import exchange_rates
from apps.platforms.models import Platform
from apps.platforms.services import visible_platforms
from apps.scenarios.adapters import apply_platform_overrides, default_stage_placements, platform_dict, workload_dict
from apps.workloads.models import Workload
from apps.workloads.schemas import TEMPLATES
from apps.workloads.services import visible_workloads
from simulator.contract import LIMITS, ContractError, FieldError, RunOptions
from simulator.errors import join_path
from simulator.model.specs import POLICIES, PRICING_MODELS
from simulator.units import CURRENCY, UnitError, format_quantity, parse_quantity

#: the run options a user sets by choosing (a blank choice keeps the simulator's default for the platform)
TRI_STATE = [("", "simulator default"), ("yes", "yes"), ("no", "no")]
#: RunOptions field -> the form field that sets it
RUN_OPTION_FIELDS = {"include_copy": "include_copy", "spot_interruptions": "spot_interruptions",
                     "single_allocation": "single_allocation", "retention_after_run_s": "retention_after_run"}


class RunForm(forms.Form):
    """One workload on one platform.  Its options are labelled fields that translate to the scenario contract's
    ``RunOptions`` (which holds the rules); per-stage placements are set in the scenario builder's table."""

    workload = forms.ModelChoiceField(queryset=Workload.objects.all(), to_field_name="slug", empty_label=None)
    platform = forms.ModelChoiceField(queryset=Platform.objects.none(), to_field_name="slug", empty_label=None)
    replications = forms.IntegerField(min_value=LIMITS.min_replications, max_value=LIMITS.max_replications, initial=1,
                                      help_text="Monte Carlo replications (queue waits, WAN and storage variability, spot interruptions when on)")
    seed = forms.IntegerField(min_value=0, max_value=LIMITS.max_seed, initial=0)
    include_copy = forms.ChoiceField(choices=TRI_STATE, required=False, label="Include the copy-in stage",
                                     help_text="copying the input data onto the platform before the first stage")
    spot_interruptions = forms.ChoiceField(choices=TRI_STATE, required=False, label="Spot instances can be reclaimed",
                                           help_text="cloud stages priced as spot")
    single_allocation = forms.ChoiceField(choices=TRI_STATE, required=False, label="One batch allocation for all stages",
                                          help_text="batch platforms: one queue wait for the whole run")
    retention_after_run = forms.CharField(
        required=False, max_length=60, label="Keep the data after the run",
        widget=forms.TextInput(attrs={"placeholder": "e.g. 30 day"}),
        help_text="billed as storage; blank: not kept. Units such as 12 h or 30 day")

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["platform"].queryset = visible_platforms(user)
        self.fields["workload"].queryset = visible_workloads(user)

    def clean_retention_after_run(self):
        text = (self.cleaned_data.get("retention_after_run") or "").strip()
        if not text:
            return None
        try:
            return parse_quantity(text, "time")
        except UnitError as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean(self):
        data = super().clean()
        options = {}
        for option, name in RUN_OPTION_FIELDS.items():
            value = data.get(name)
            if value in ("yes", "no"):
                options[option] = value == "yes"
            elif value not in (None, ""):
                options[option] = value
        try:
            data["options"] = RunOptions.from_json(options).to_data()
        except ContractError as exc:
            for error in exc.errors:
                name = RUN_OPTION_FIELDS.get(error.path.split(".")[0].split("[")[0])
                if name in self.fields and name not in self.errors:
                    self.add_error(name, f"{join_path('options', error.path)}: {error.message}")
                elif name is None:
                    self.add_error(None, str(ContractError([error]).under("options")))
        return data


# --- the scenario builder --------------------------------------------------------------------------

PLACEMENT_FIELDS = ("node_type", "nodes", "storage_in", "storage_out", "pricing", "policy", "launch_interval_s",
                    "queue_wait_h")
HOUR = 3600.0


class ScenarioForm(forms.Form):
    """The scenario as a whole: name, workload, Monte Carlo settings and the TCO horizon."""

    name = forms.CharField(max_length=LIMITS.max_name_chars, help_text="Shown in lists and on the results page")
    workload = forms.ModelChoiceField(queryset=Workload.objects.all(), to_field_name="slug", empty_label=None,
                                      widget=forms.HiddenInput)
    replications = forms.IntegerField(min_value=LIMITS.min_replications, max_value=LIMITS.max_replications, initial=5,
                                      help_text="Monte Carlo replications per platform (queue waits, WAN, spot interruptions when on)")
    seed = forms.IntegerField(min_value=0, max_value=LIMITS.max_seed, initial=0, help_text="Same seed, same results")
    tco_years = forms.FloatField(label="TCO horizon (years)", min_value=LIMITS.min_tco_years,
                                 max_value=LIMITS.max_tco_years, initial=5,
                                 help_text="For the total cost of ownership comparison")
    epochs_per_year = forms.FloatField(min_value=LIMITS.min_epochs_per_year, max_value=LIMITS.max_epochs_per_year,
                                       initial=1, help_text="How often the workload runs per year, for TCO")
    currency = forms.ChoiceField(initial=CURRENCY, required=False, help_text="Results and reports show money in it (computed in AUD, "
                                                             "converted at the catalogue's exchange rate)")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        rates = exchange_rates()
        self.fields["currency"].choices = [(CURRENCY, CURRENCY)] + [
            (code, f"{code} ({rate.describe()})") for code, rate in sorted(rates.items())]


class WorkloadParametersForm(forms.Form):
    """One optional field per workload parameter; blank keeps the catalogue value.  Accepts units."""

    def __init__(self, *args, workload: Workload, **kwargs):
        super().__init__(*args, prefix="param", **kwargs)
        self.rows = {row["name"]: row for row in workload.parameter_rows()}
        self.schema = {p.name: p for p in TEMPLATES.get(workload.template, ())}
        for name, row in self.rows.items():
            self.fields[name] = forms.CharField(
                required=False, label=row["label"], max_length=60,
                widget=forms.TextInput(attrs={"placeholder": format_quantity(row["value"], row["dimension"])}),
                help_text=f"catalogue: {format_quantity(row['value'], row['dimension'])}",
            )

    def clean(self):
        data = super().clean()
        overrides = {}
        for name, text in list(data.items()):
            text = (text or "").strip()
            if not text:
                continue
            try:
                value = parse_quantity(text, self.rows[name]["dimension"])
            except UnitError as exc:
                self.add_error(name, str(exc))
                continue
            if name in self.schema and (why := self.schema[name].check(value)):
                self.add_error(name, why)
                continue
            if value != self.rows[name]["value"]:
                overrides[name] = value
        self.overrides = overrides
        return data


class PlatformOptionsForm(forms.Form):
    """One platform of the builder: include it or not, its placement per stage, and catalogue what-ifs.

    Every field starts at the value the simulator uses by default (the paper's placement
    for CHILES); only stages whose values differ become ``options.placements``."""

    include = forms.BooleanField(required=False, label="Include this platform")
    spot_interruptions = forms.BooleanField(required=False, label="Spot instances can be reclaimed")

    def __init__(self, *args, platform: Platform, workload: Workload, **kwargs):
        super().__init__(*args, prefix=f"p-{platform.slug}", **kwargs)
        self.platform = platform
        pdict, wdict = platform_dict(platform), workload_dict(workload)
        self.defaults = default_stage_placements(pdict, wdict)
        self.stages = list(self.defaults)
        nodes = [("", "default")] + [(n["name"], readable(n["name"])) for n in pdict["node_types"]]
        tiers = [("", "none")] + [(t["name"], readable(t["name"])) for t in pdict["storage_tiers"]]
        for stage, default in self.defaults.items():
            wait = default.get("queue_wait_s")
            self.fields[f"{stage}-node_type"] = forms.ChoiceField(choices=nodes, required=False, label="node type",
                                                                  initial=default.get("node_type") or "")
            self.fields[f"{stage}-nodes"] = forms.IntegerField(min_value=1, max_value=LIMITS.max_nodes,
                                                               initial=default["nodes"], label="nodes / instances")
            self.fields[f"{stage}-storage_in"] = forms.ChoiceField(choices=tiers, required=False, label="reads from",
                                                                   initial=default.get("storage_in") or "")
            self.fields[f"{stage}-storage_out"] = forms.ChoiceField(choices=tiers, required=False, label="writes to",
                                                                    initial=default.get("storage_out") or "")
            self.fields[f"{stage}-pricing"] = forms.ChoiceField(choices=[(p, p.replace("_", " ")) for p in PRICING_MODELS],
                                                                initial=default["pricing"], label="pricing")
            self.fields[f"{stage}-policy"] = forms.ChoiceField(choices=[(p, p) for p in POLICIES],
                                                               initial=default["policy"], label="allocation policy")
            self.fields[f"{stage}-launch_interval_s"] = forms.FloatField(
                min_value=0, max_value=LIMITS.max_launch_interval_s, initial=default["launch_interval_s"],
                label="launch every (s)")
            self.fields[f"{stage}-queue_wait_h"] = forms.FloatField(
                required=False, min_value=0, max_value=LIMITS.max_queue_wait_s / HOUR, label="fixed queue wait (h)",
                initial=None if wait is None else wait / HOUR)
        facts = pdict["facts"]
        if facts.get("queue_wait_median"):
            self.fields["queue_wait_median_h"] = forms.FloatField(
                min_value=0.001, max_value=LIMITS.max_override_value / HOUR, initial=facts["queue_wait_median"] / HOUR,
                label="Median queue wait (h)", help_text="of the platform's sampled queue-wait model")
        self.iops_tiers = {}
        for i, tier in enumerate(pdict["storage_tiers"]):
            if tier["facts"].get("iops"):
                self.iops_tiers[f"tier{i}-iops"] = tier
                self.fields[f"tier{i}-iops"] = forms.FloatField(
                    min_value=1, max_value=LIMITS.max_override_value, initial=tier["facts"]["iops"],
                    label=f"IOPS of {tier['name']}")

    def full_clean(self):
        """A platform left out is not validated: its options are ignored."""
        if self.is_bound and not self["include"].value():
            self._errors = ErrorDict()
            self.cleaned_data, self.options, self.overrides = {"include": False}, {}, {}
            return
        super().full_clean()

    def stage_rows(self):
        """(stage, [bound fields]) in stage order, for the placement table."""
        return [(stage, [self[f"{stage}-{f}"] for f in PLACEMENT_FIELDS]) for stage in self.stages]

    def catalogue_fields(self):
        names = (["queue_wait_median_h"] if "queue_wait_median_h" in self.fields else []) + list(self.iops_tiers)
        return [self[n] for n in names]

    def clean(self):
        data = super().clean()
        placements = []
        for stage, default in self.defaults.items():
            values = dict(default)
            for f in PLACEMENT_FIELDS:
                value = data.get(f"{stage}-{f}")
                if f == "queue_wait_h":
                    values["queue_wait_s"] = None if value is None else value * HOUR
                elif f in ("node_type", "storage_in", "storage_out"):
                    values[f] = value or None
                elif value is not None:
                    values[f] = value
            if values != default:
                placements.append({k: v for k, v in values.items() if v is not None})
        options = {"placements": placements} if placements else {}
        if data.get("spot_interruptions"):
            options["spot_interruptions"] = True
        self.options = options
        overrides: dict = {}
        facts = platform_dict(self.platform)["facts"]
        median_h = data.get("queue_wait_median_h")
        if median_h is not None and abs(median_h * HOUR - facts["queue_wait_median"]) > 1e-6:
            overrides.setdefault("facts", {})["queue_wait_median"] = median_h * HOUR
        for name, tier in self.iops_tiers.items():
            iops = data.get(name)
            old = tier["facts"]["iops"]
            if iops is not None and iops != old:
                ratio = iops / old
                overrides.setdefault("storage_tiers", {})[tier["name"]] = {
                    k: tier["facts"][k] * ratio for k in ("iops", "iops_per_client", "provisioned_iops")
                    if tier["facts"].get(k)
                }
        self.overrides = overrides
        return data


def initial_from_entry(form: PlatformOptionsForm, options: dict, overrides: dict) -> dict:
    """The builder's initial values for a platform of an existing scenario (the inverse of ``clean``)."""
    initial = {"include": True, "spot_interruptions": bool(options.get("spot_interruptions"))}
    for placement in options.get("placements", []):
        stage = placement.get("stage")
        for f in PLACEMENT_FIELDS:
            if f == "queue_wait_h":
                wait = placement.get("queue_wait_s")
                initial[f"{stage}-{f}"] = None if wait is None else wait / HOUR
            elif f in placement:
                initial[f"{stage}-{f}"] = placement[f]
            elif f in ("node_type", "storage_in", "storage_out"):
                initial[f"{stage}-{f}"] = ""
    facts = (overrides or {}).get("facts", {})
    if "queue_wait_median" in facts:
        initial["queue_wait_median_h"] = facts["queue_wait_median"] / HOUR
    tiers = (overrides or {}).get("storage_tiers", {})
    for name, tier in form.iops_tiers.items():
        if tier["name"] in tiers and "iops" in tiers[tier["name"]]:
            initial[name] = tiers[tier["name"]]["iops"]
    return initial


class ScenarioBuilder:
    """The builder page's forms together: the scenario, the workload parameters and one form per platform.

    ``save`` creates the scenario through the service and puts any refusal next to the field
    (or the platform) it names, so no input ends in a server error."""

    def __init__(self, data=None, *, workload: Workload, user, source=None):
        initial, param_initial, platform_initial = self._initial(workload, source)
        self.workload = workload
        self.form = ScenarioForm(data, initial=initial)
        self.form.fields["workload"].queryset = visible_workloads(user)
        self.parameters = WorkloadParametersForm(data, workload=workload, initial=param_initial)
        self.platforms = []
        for platform in visible_platforms(user).prefetch_related("node_types", "storage_tiers").order_by("name"):
            form = PlatformOptionsForm(data, platform=platform, workload=workload)
            if platform.slug in platform_initial:
                options, overrides = platform_initial[platform.slug]
                form.initial = initial_from_entry(form, options, overrides)
            self.platforms.append(form)
        self.errors: list[str] = []

    @staticmethod
    def _initial(workload, source):
        if source is None:
            return {"workload": workload.slug, "name": f"{workload.name} compared"}, {}, {}
        initial = {"workload": workload.slug, "name": f"{source.name} (edited)"[:200],
                   "replications": source.replications, "seed": source.seed, "tco_years": source.tco_years,
                   "epochs_per_year": source.epochs_per_year, "currency": source.currency}
        platforms = {e.platform.slug: (e.options, e.platform_overrides)
                     for e in source.entries.select_related("platform")}
        return initial, dict(source.workload_overrides or {}), platforms

    def is_valid(self) -> bool:
        valid = self.form.is_valid() & self.parameters.is_valid()
        for form in self.platforms:
            valid &= form.is_valid()
        return bool(valid)

    def included(self):
        return [f for f in self.platforms if f.cleaned_data.get("include")]

    def save(self, user=None, parent=None, workspace=None):
        """The saved scenario, or None with the reasons attached to the forms."""
        from apps.scenarios.services import InvalidScenario, create_scenario

        if not self.is_valid():
            return None
        data = self.form.cleaned_data
        chosen = self.included()
        try:
            return create_scenario(
                name=data["name"], workload=data["workload"], workload_overrides=self.parameters.overrides,
                entries=[(f.platform, f.options, f.overrides) for f in chosen], replications=data["replications"],
                seed=data["seed"], tco_years=data["tco_years"], epochs_per_year=data["epochs_per_year"], user=user,
                currency=data.get("currency") or CURRENCY,
                parent=parent, change="edited in the builder" if parent else "", workspace=workspace,
            )
        except InvalidScenario as exc:
            for error in exc.errors:
                self._place(error, chosen)
        return None

    def _place(self, error: FieldError, chosen: list[PlatformOptionsForm]) -> None:
        """Put a refusal of the scenario contract next to the field its path names."""
        path = error.path
        if path.startswith("workload_overrides."):
            name = path.split(".", 1)[1]
            if name in self.parameters.fields:
                self.parameters.add_error(name, error.message)
                return
        if path in self.form.fields:
            self.form.add_error(path, error.message)
            return
        match = PLATFORM_PATH.match(path)
        if match and int(match["index"]) < len(chosen):
            form = chosen[int(match["index"])]
            field = _placement_field(form, match["rest"])
            if field in form.fields:
                form.add_error(field, error.message)
            else:
                form.add_error(None, f"{match['rest'] or 'platform'}: {error.message}")
            return
        self.errors.append(str(error))


PLATFORM_PATH = re.compile(r"^platforms\[(?P<index>\d+)\]\.?(?P<rest>.*)$")
PLACEMENT_PATH = re.compile(r"^options\.placements\[(?P<index>\d+)\]\.(?P<field>\w+)$")


def _placement_field(form: PlatformOptionsForm, rest: str) -> str:
    """The builder field of a path under one platform (``options.placements[0].nodes`` -> ``invert-nodes``)."""
    match = PLACEMENT_PATH.match(rest)
    if match:
        placements = form.options.get("placements", [])
        index = int(match["index"])
        if index < len(placements):
            field = "queue_wait_h" if match["field"] == "queue_wait_s" else match["field"]
            return f"{placements[index]['stage']}-{field}"
    return ""


class WhatIfForm(forms.Form):
    """One edit of a scenario: scale a platform's median queue wait or a storage tier's IOPS."""

    KINDS = [("queue", "Scale the median queue wait of"), ("iops", "Scale the IOPS of")]
    kind = forms.ChoiceField(choices=KINDS, label="Edit")
    target = forms.ChoiceField(label="on", help_text="platform (queue wait) or platform / storage tier (IOPS)")
    factor = forms.FloatField(min_value=LIMITS.min_what_if_factor, max_value=LIMITS.max_what_if_factor, initial=0.5,
                              label="by a factor of",
                              help_text="e.g. 0.5 halves it, 2 doubles it")

    def __init__(self, *args, scenario, **kwargs):
        super().__init__(*args, **kwargs)
        self.scenario = scenario
        self.entries = {e.platform.slug: e for e in scenario.entries.select_related("platform")}
        self.current = {}  # target -> (kind, slug, tier or None, current facts)
        choices = []
        for slug, e in self.entries.items():
            pdict = apply_platform_overrides(platform_dict(e.platform), e.platform_overrides)
            if pdict["facts"].get("queue_wait_median"):
                choices.append((slug, f"{e.platform.name} (queue wait)"))
                self.current[slug] = ("queue", slug, None, pdict["facts"])
            for tier in pdict["storage_tiers"]:
                if tier["facts"].get("iops"):
                    key = f"{slug}|{tier['name']}"
                    choices.append((key, f"{e.platform.name} / {tier['name']} (IOPS)"))
                    self.current[key] = ("iops", slug, tier["name"], tier["facts"])
        self.fields["target"].choices = choices

    def clean(self):
        data = super().clean()
        target, kind = data.get("target"), data.get("kind")
        if target and kind and self.current[target][0] != kind:
            self.add_error("target", "the queue wait is scaled on a platform, IOPS on a storage tier")
        return data

    def suggestions(self) -> list[dict]:
        """Ready-made edits for the results page: halve each queue wait, double each IOPS figure."""
        out = []
        for target, (kind, slug, tier, _) in self.current.items():
            name = self.entries[slug].platform.name
            if kind == "queue":
                out.append({"kind": kind, "target": target, "factor": 0.5, "label": f"Halve the queue wait on {name}"})
            else:
                out.append({"kind": kind, "target": target, "factor": 2, "label": f"Double the IOPS of {tier} on {name}"})
        return out

    def edit(self) -> dict:
        """Keyword arguments of :func:`services.what_if` for the chosen edit."""
        data = self.cleaned_data
        kind, slug, tier, facts = self.current[data["target"]]
        factor = data["factor"]
        entry = self.entries[slug]
        overrides = {k: dict(v) for k, v in (entry.platform_overrides or {}).items()}
        if kind == "queue":
            overrides.setdefault("facts", {})["queue_wait_median"] = facts["queue_wait_median"] * factor
            change = f"queue wait on {entry.platform.name} x{factor:g}"
        else:
            overrides.setdefault("storage_tiers", {})[tier] = {
                k: facts[k] * factor for k in ("iops", "iops_per_client", "provisioned_iops") if facts.get(k)
            }
            change = f"IOPS of {tier} on {entry.platform.name} x{factor:g}"
        return {"change": change, "entry_changes": {slug: {"platform_overrides": overrides}}}
