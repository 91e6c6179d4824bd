"""The edit page of a workspace's workload: its name and description, its parameters and each stage's per-task
demands, each value with its unit and its source beside it (as on the platform editor); a stage added as a copy of
another, or removed.

Saving writes the workload's catalogue entry with the changes and hands it to
:func:`apps.workloads.services.update_workload` — the path the API and workload files take — so the page refuses
exactly what they refuse, beside the field the refusal names, and saves nothing unless everything is valid.
"""

from __future__ import annotations

import copy
import re

from django import forms

from apps.core.editing import Editor
from apps.core.fields import QuantityFormField
from apps.platforms.forms import FactsForm, IdentityForm
from apps.workloads.files import fact_entry, workload_entry
from apps.workloads.models import Workload, WorkloadStage
from apps.workloads.services import InvalidWorkload, update_workload

__all__ = ["ParametersForm", "StageForm", "AddStageForm", "WorkloadEditor"]

#: a refusal's path: ``parameters.days...``, ``stages[2].facts.cpu_seconds...``, ``stages[2].name``, ``name``
_PARAMETER_PATH = re.compile(r"^parameters\.([A-Za-z0-9_]+)")
_STAGE_PATH = re.compile(r"^stages\[(\d+)\](?:\.facts\.([A-Za-z0-9_]+)|\.(name))?")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,59}$")


class ParametersForm(FactsForm):
    """The workload's parameters (days, sizes, counts …), each a number with the unit of its dimension."""

    def __init__(self, data=None, *, workload: Workload):
        self.dimensions = {row["name"]: row["dimension"] for row in workload.parameter_rows()}
        self.labels = {row["name"]: row["label"] for row in workload.parameter_rows()}
        super().__init__(data, obj=workload, prefix="parameters")

    @property
    def title(self) -> str:
        return "Parameters"

    def fact_names(self) -> tuple[str, ...]:
        return tuple(self.dimensions)

    def current(self, name: str):
        return (self.obj.parameters or {}).get(name)

    def make_field(self, name: str) -> tuple[forms.Field, str]:
        label = self.labels[name]
        field = QuantityFormField(dimension=self.dimensions[name], minimum=None, required=False,
                                  label=label[:1].upper() + label[1:])
        return field, label


class StageForm(FactsForm):
    """One stage's per-task demands.  Its upstream stages are ticked from the workload's other stages and a list of
    task sizes is typed as numbers separated by commas; ``remove`` takes the stage out."""

    def __init__(self, data=None, *, stage: WorkloadStage, stage_names: list[str]):
        self.stage_names = [n for n in stage_names if n != stage.name]
        super().__init__(data, obj=stage, prefix=f"stage-{stage.pk}")
        self.fields["remove"] = forms.BooleanField(required=False, label=f"Remove stage {stage.label}")

    @property
    def title(self) -> str:
        """The section's heading: the stage's name as words ("Stage in")."""
        label = self.obj.label
        return label[:1].upper() + label[1:]

    @property
    def where(self) -> str:
        """How an error names the stage: "Stage stage in"."""
        return f"Stage {self.obj.label}"

    def make_field(self, name: str) -> tuple[forms.Field, str]:
        field, plain = super().make_field(name)
        if name == "depends_on":
            choices = [(n, WorkloadStage(name=n).label) for n in self.stage_names]
            field = forms.MultipleChoiceField(choices=choices, required=False, label=field.label,
                                              widget=forms.CheckboxSelectMultiple)
        elif name == "size_values":
            field = forms.CharField(required=False, label=field.label, max_length=20_000,
                                    help_text="numbers separated by commas, one per task, e.g. '1, 0.5, 2'")
        return field, plain

    def current(self, name: str):
        value = super().current(name)
        if name == "size_values":
            return ", ".join(f"{v:g}" for v in value or [])
        return value

    def _unchanged(self, name: str, value) -> bool:
        if name == "depends_on":
            return sorted(value or []) == sorted(self.obj.depends_on or [])
        if name == "size_values":
            return (value or []) == list(self.obj.size_values or [])
        return super()._unchanged(name, value)

    def clean_size_values(self):
        text = self.cleaned_data.get("size_values") or ""
        if not text.strip():
            return []
        try:
            return [float(part) for part in text.replace(";", ",").split(",") if part.strip()]
        except ValueError:
            raise forms.ValidationError("expected numbers separated by commas, e.g. '1, 0.5, 2'") from None

    @property
    def removed(self) -> bool:
        return bool(self.is_valid() and self.cleaned_data.get("remove"))


class AddStageForm(forms.Form):
    """A new stage: its name, and the stage whose demands (with their sources) it starts from."""

    name = forms.CharField(required=False, max_length=60, label="Name of the new stage",
                           help_text="lower-case letters, digits and _, e.g. 'stage_out'")
    like = forms.ChoiceField(required=False, label="Start from the demands of")

    def __init__(self, data=None, *, stages: list[WorkloadStage]):
        super().__init__(data, prefix="add")
        self.fields["like"].choices = [(s.name, s.label) for s in stages]
        self.taken = {s.name for s in stages}

    def clean_name(self):
        name = (self.cleaned_data.get("name") or "").strip()
        if name and not _NAME.match(name):
            raise forms.ValidationError("use lower-case letters, digits and _ (starting with a letter), at most 60")
        if name in self.taken:
            raise forms.ValidationError(f"the workload already has a stage {name!r}")
        return name

    def clean(self):
        data = super().clean()
        if data.get("name") and not data.get("like"):
            self.add_error("like", "choose the stage whose demands the new one starts from")
        return data


class WorkloadEditor(Editor):
    """The edit page's forms together; ``save`` builds the workload's entry with every change and stores it through
    :func:`~apps.workloads.services.update_workload` (one transaction), putting any refusal beside its field."""

    def __init__(self, workload: Workload, data=None):
        self.workload = workload
        stages = list(workload.stages.all())
        names = [s.name for s in stages]
        self.identity = IdentityForm(data, prefix="copy", initial={"name": workload.name,
                                                                   "description": workload.description})
        self.parameters = ParametersForm(data, workload=workload)
        self.stages = [StageForm(data, stage=s, stage_names=names) for s in stages]
        self.add = AddStageForm(data, stages=stages)
        self.errors: list[str] = []

    def forms(self) -> list[forms.Form]:
        return [self.identity, self.parameters, *self.stages, self.add]

    def entry(self) -> tuple[dict, list[str], list[StageForm]]:
        """The workload's catalogue entry with the page's changes, what changed (in words), and the stage forms in
        the entry's stage order (a new stage has none)."""
        entry = workload_entry(self.workload)
        entry.pop("slug", None)
        changed: list[str] = []
        name = self.identity.cleaned_data["name"]
        description = self.identity.cleaned_data["description"]
        if name != self.workload.name:
            entry["name"] = name
            changed.append("name")
        if description != (self.workload.description or ""):
            entry["description"] = description
            changed.append("description")
        for change in self.parameters.changes():
            if change.source is None:
                entry["parameters"].pop(change.name, None)
            else:
                entry["parameters"][change.name] = fact_entry(change.value, change.source,
                                                              self.parameters.dimensions[change.name])
            changed.append(f"parameter {self.parameters.labels[change.name]}")
        kept: list[StageForm] = []
        stage_entries = []
        for form, stage_entry in zip(self.stages, entry["stages"], strict=True):
            if form.removed:
                changed.append(f"stage {form.obj.label} removed")
                continue
            for change in form.changes():
                facts = stage_entry["facts"]
                if change.source is None:
                    facts.pop(change.name, None)
                else:
                    field = WorkloadStage._meta.get_field(change.name)
                    facts[change.name] = fact_entry(change.value, change.source, getattr(field, "dimension", None))
                changed.append(f"{form.obj.label}: {form.fields[change.name].label.lower()}")
            kept.append(form)
            stage_entries.append(stage_entry)
        new = self.add.cleaned_data.get("name")
        if new:
            like = next(s for s in entry["stages"] if s["name"] == self.add.cleaned_data["like"])
            stage_entries.append({"name": new, "facts": copy.deepcopy(like["facts"])})
            changed.append(f"stage {WorkloadStage(name=new).label} added")
        entry["stages"] = stage_entries
        return entry, changed, kept

    def save(self, user) -> list[str] | None:
        """What changed (in words), or None with the reasons beside the fields (nothing saved)."""
        if not self.is_valid():
            return None
        entry, changed, kept = self.entry()
        if not changed:
            return []
        try:
            update_workload(self.workload, entry, user=user)
        except InvalidWorkload as exc:
            self._place(exc, kept)
            return None
        return changed

    def _place(self, exc: InvalidWorkload, kept: list[StageForm]) -> None:
        """Put the refusal beside the field its path names (else at the top of the page)."""
        path = exc.path
        if path in ("name", "description"):
            self.identity.add_error(path, exc.message)
            return
        match = _PARAMETER_PATH.match(path)
        if match and match.group(1) in self.parameters.fields:
            self.parameters.add_error(match.group(1), exc.message)
            return
        match = _STAGE_PATH.match(path)
        if match:
            index = int(match.group(1))
            fact = match.group(2)
            if index < len(kept):
                form = kept[index]
                form.add_error(fact if fact in form.fields else None, exc.message)
                return
            self.add.add_error("name", exc.message)  # the new stage is the last one
            return
        self.errors.append(f"{path}: {exc.message}" if path else exc.message)

    def error_summary(self) -> list[str]:
        """Every problem, naming the stage (or parameter) and the field, for the top of the page."""
        out = list(self.errors)
        for form, title in [(self.identity, "Name and description"), (self.parameters, "Parameters"),
                            *((f, f.where) for f in self.stages), (self.add, "New stage")]:
            for name, errors in form.errors.items():
                label = form.fields[name].label if name in form.fields else ""
                where = f"{title} · {label[:1].upper()}{label[1:]}" if label else title
                out += [f"{where}: {e}" for e in errors]
        return out
