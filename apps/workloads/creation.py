"""The site's ways to start a workload or a platform from scratch in the active workspace: a short form (name,
template or kind, a first stage — or one node type and one storage tier — each value with its unit and its source)
and, for workloads, the upload of a workload file.

Each form only translates what was typed into the catalogue-format entry the API takes and hands it to the same
service (:func:`apps.workloads.services.create_workload`, :func:`apps.workloads.platform_entries.create_platform`,
:func:`apps.workloads.services.import_into_workspace`), so the site refuses what the API and ``manage.py
import_workload`` refuse, beside the field the refusal names, and saves nothing unless everything is valid.  The
rest (more stages, more facts) is done on the existing edit and structure pages the new object lands on.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from django import forms
from django.utils.safestring import mark_safe

from apps.accounts.models import Workspace
from apps.core.fields import QuantityFormField
from apps.platforms.forms import FactsForm
from apps.platforms.models import NodeType, Platform, StorageTier
from apps.workloads.files import MAX_FILE_BYTES, fact_entry
from apps.workloads.models import Workload, WorkloadStage
from apps.workloads.platform_entries import InvalidPlatform, create_platform
from apps.workloads.schemas import TEMPLATES
from apps.workloads.services import InvalidWorkload, create_workload, import_into_workspace

__all__ = ["PickedFactsForm", "NewWorkloadEditor", "NewPlatformEditor", "ImportWorkloadForm", "import_upload",
           "NEW_TEMPLATES"]

#: templates a workload starts from on the site
NEW_TEMPLATES = tuple(Workload.Template)
#: the first stage's demands asked for on the new-workload page (the edit page has the rest)
STAGE_FACTS = ("n_tasks", "cpu_seconds", "input_read_bytes", "output_write_bytes")
#: what a new platform's page asks for: the platform, its node type and its storage tier
PLATFORM_FACTS = ("max_nodes", "wan_bandwidth")
NODE_FACTS = ("cores", "memory", "nic_bandwidth", "count", "on_demand_price")
TIER_FACTS = ("scope", "read_bw", "write_bw")
_STAGE_PATH = re.compile(r"^stages\[0\](?:\.facts\.([A-Za-z0-9_]+)|\.(name))?")
_ROW_PATH = re.compile(r"^(node_types|storage_tiers)\[0\](?:\.facts\.([A-Za-z0-9_]+)|\.(name|kind))?")
_FACTS_PATH = re.compile(r"^(?:parameters|facts)\.([A-Za-z0-9_]+)")


class PickedFactsForm(FactsForm):
    """Some facts of a new (unsaved) catalogue row, each value with its unit and its source."""

    def __init__(self, data=None, *, obj, prefix: str, names: tuple[str, ...], title: str):
        self.names, self._title = names, title
        super().__init__(data, obj=obj, prefix=prefix)

    def fact_names(self) -> tuple[str, ...]:
        return self.names

    @property
    def title(self) -> str:
        return self._title

    def entry_facts(self) -> dict:
        """The typed-in facts in the catalogue format (base units, each with its source)."""
        out = {}
        for change in self.changes():
            if change.source is not None:
                field = type(self.obj)._meta.get_field(change.name)
                out[change.name] = fact_entry(change.value, change.source, getattr(field, "dimension", None))
        return out


class _ParameterForm(PickedFactsForm):
    """The required parameters of the templates offered (a job array's number of jobs), each labelled with its
    template; only the chosen template's go into the entry."""

    def __init__(self, data=None):
        self.params = {p.name: (t, p) for t in NEW_TEMPLATES for p in TEMPLATES[t] if p.required}
        super().__init__(data, obj=Workload(), prefix="parameters", names=tuple(self.params), title="Parameters")

    def current(self, name: str):
        return None

    def make_field(self, name: str) -> tuple[forms.Field, str]:
        template, param = self.params[name]
        label = f"{param.label[:1].upper()}{param.label[1:]} ({Workload.Template(template).label.split(' (')[0]} only)"
        return QuantityFormField(dimension=param.dimension, minimum=None, required=False, label=label), param.label

    def entry_for(self, template: str) -> dict:
        out = {}
        for change in self.changes():
            owner, param = self.params[change.name]
            if owner == template and change.source is not None:
                out[change.name] = fact_entry(change.value, change.source, param.dimension)
        return out


class NewWorkloadForm(forms.Form):
    """The new workload's name, description, template and first stage's name."""

    name = forms.CharField(label="Name", max_length=140)
    description = forms.CharField(label="Description", required=False, widget=forms.Textarea(attrs={"rows": 3}))
    template = forms.ChoiceField(label="Template", choices=[(t.value, t.label) for t in NEW_TEMPLATES],
                                 initial=Workload.Template.STAGES,
                                 help_text=mark_safe("a DAG of stages with per-task demands; a job array's "  # noqa: S308
                                                     "stages are <code>stage_in</code>, <code>compute</code> and "
                                                     "<code>stage_out</code>"))
    stage = forms.CharField(label="Name of the first stage", max_length=60,
                            help_text="lower-case letters, digits and _, e.g. 'compute'")


class _Creator:
    """Forms saved together into one new catalogue entry; ``errors`` holds refusals no field takes."""

    errors: list[str]

    def forms(self) -> list[forms.Form]:
        raise NotImplementedError

    def is_valid(self) -> bool:
        valid = True
        for form in self.forms():
            valid &= form.is_valid()
        return bool(valid)

    def _titled(self) -> list[tuple[forms.Form, str]]:
        raise NotImplementedError

    def error_summary(self) -> list[str]:
        """Every problem, naming the part of the page and the field, for the top of the page."""
        out = list(self.errors)
        for form, title in self._titled():
            for name, errors in form.errors.items():
                label = form.fields[name].label if name in form.fields else ""
                where = f"{title} · {label[:1].upper()}{label[1:]}" if label else title
                out += [f"{where}: {e}" for e in errors]
        return out


class NewWorkloadEditor(_Creator):
    """The new-workload page: ``save`` builds the catalogue entry and creates the workload through
    :func:`~apps.workloads.services.create_workload`, putting any refusal beside its field."""

    def __init__(self, data=None):
        self.identity = NewWorkloadForm(data, prefix="workload")
        self.parameters = _ParameterForm(data)
        self.stage = PickedFactsForm(data, obj=WorkloadStage(name=""), prefix="stage", names=STAGE_FACTS,
                                     title="First stage: what one task demands")
        self.errors = []

    def forms(self) -> list[forms.Form]:
        return [self.identity, self.parameters, self.stage]

    def _titled(self):
        return [(self.identity, "Workload"), (self.parameters, "Parameters"), (self.stage, "First stage")]

    def entry(self) -> dict:
        data = self.identity.cleaned_data
        return {"name": data["name"], "description": data["description"], "template": data["template"],
                "parameters": self.parameters.entry_for(data["template"]),
                "stages": [{"name": data["stage"].strip(), "facts": self.stage.entry_facts()}]}

    def save(self, workspace: Workspace, user) -> Workload | None:
        """The new workload, or None with the reasons beside the fields (nothing saved)."""
        if not self.is_valid():
            return None
        try:
            return create_workload(self.entry(), workspace, user=user)
        except InvalidWorkload as exc:
            self._place(exc.path, exc.message)
            return None

    def _place(self, path: str, message: str) -> None:
        if path in ("name", "description", "template"):
            self.identity.add_error(path, message)
            return
        match = _FACTS_PATH.match(path)
        if match and match.group(1) in self.parameters.fields:
            self.parameters.add_error(match.group(1), message)
            return
        match = _STAGE_PATH.match(path)
        if match:
            fact = match.group(1)
            if fact in self.stage.fields:
                self.stage.add_error(fact, message)
            elif fact:
                self.errors.append(f"First stage · {fact}: {message}")
            else:  # the stage as a whole (its name): beside the stage's name
                self.identity.add_error("stage", message)
            return
        self.errors.append(f"{path}: {message}" if path else message)


class NewPlatformForm(forms.Form):
    """The new platform's name, kind and description, and the names of its node type and storage tier."""

    name = forms.CharField(label="Name", max_length=120)
    kind = forms.ChoiceField(label="Kind", choices=Platform.Kind.choices)
    description = forms.CharField(label="Description", required=False, widget=forms.Textarea(attrs={"rows": 3}))
    node_type = forms.CharField(label="Name of the node type", max_length=100, help_text="e.g. 'compute' or "
                                                                                         "'c5.9xlarge'")
    tier = forms.CharField(label="Name of the storage tier", max_length=100, help_text="e.g. 'Lustre' or 'S3'")
    tier_kind = forms.ChoiceField(label="Kind of the storage tier", choices=StorageTier.Kind.choices)


class NewPlatformEditor(_Creator):
    """The new-platform page: ``save`` builds the catalogue entry and creates the platform through
    :func:`~apps.workloads.platform_entries.create_platform` (the API's path), putting any refusal beside its
    field."""

    def __init__(self, data=None):
        self.identity = NewPlatformForm(data, prefix="platform-new")
        self.facts = PickedFactsForm(data, obj=Platform(), prefix="platform", names=PLATFORM_FACTS,
                                     title="The platform")
        self.node_type = PickedFactsForm(data, obj=NodeType(name=""), prefix="node", names=NODE_FACTS,
                                         title="Its node type")
        self.tier = PickedFactsForm(data, obj=StorageTier(name=""), prefix="tier", names=TIER_FACTS,
                                    title="Its storage tier")
        self.errors = []

    def forms(self) -> list[forms.Form]:
        return [self.identity, self.facts, self.node_type, self.tier]

    def _titled(self):
        return [(self.identity, "Platform"), (self.facts, "The platform"), (self.node_type, "Node type"),
                (self.tier, "Storage tier")]

    def entry(self) -> dict:
        data = self.identity.cleaned_data
        return {"name": data["name"].strip(), "kind": data["kind"], "description": data["description"],
                "facts": self.facts.entry_facts(),
                "node_types": [{"name": data["node_type"].strip(), "facts": self.node_type.entry_facts()}],
                "storage_tiers": [{"name": data["tier"].strip(), "kind": data["tier_kind"],
                                   "facts": self.tier.entry_facts()}]}

    def save(self, workspace: Workspace, user) -> Platform | None:
        """The new platform, or None with the reasons beside the fields (nothing saved)."""
        if not self.is_valid():
            return None
        try:
            return create_platform(self.entry(), workspace, user=user)
        except InvalidPlatform as exc:
            self._place(exc.path, exc.message)
            return None

    def _place(self, path: str, message: str) -> None:
        if path in ("name", "kind", "description"):
            self.identity.add_error(path, message)
            return
        match = _FACTS_PATH.match(path)
        if match and match.group(1) in self.facts.fields:
            self.facts.add_error(match.group(1), message)
            return
        match = _ROW_PATH.match(path)
        if match:
            rows, fact, field = match.groups()
            form = self.node_type if rows == "node_types" else self.tier
            if field == "name":
                self.identity.add_error("node_type" if rows == "node_types" else "tier", message)
            elif field == "kind":
                self.identity.add_error("tier_kind", message)
            elif fact in form.fields:
                form.add_error(fact, message)
            else:
                self.errors.append(f"{form.title} · {fact or 'row'}: {message}")
            return
        self.errors.append(f"{path}: {message}" if path else message)


class ImportWorkloadForm(forms.Form):
    """A workload file to load into the active workspace (JSON or YAML, ``docs/workloads-format.md``)."""

    file = forms.FileField(label="Workload file (.json, .yaml or .yml)")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if Path(upload.name).suffix.lower() not in (".json", ".yaml", ".yml"):
            raise forms.ValidationError(f"{upload.name}: expected a .json, .yaml or .yml workload file")
        if upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError(f"{upload.name}: the file is {upload.size:,} bytes; at most "
                                        f"{MAX_FILE_BYTES:,} are read")
        return upload


def import_upload(upload, workspace: Workspace, user) -> list[Workload]:
    """Load the uploaded workload file into ``workspace`` through
    :func:`~apps.workloads.services.import_into_workspace` (the command's and the API's loader): all or nothing, a
    refusal a :class:`~apps.workloads.catalogue.CatalogueError` naming the file, its line or JSON path and the
    field."""
    name = Path(upload.name).name or "workload.json"
    with tempfile.TemporaryDirectory(prefix="skyplan-import-") as folder:
        path = Path(folder) / name
        with path.open("wb") as out:
            for chunk in upload.chunks():
                out.write(chunk)
        return import_into_workspace(path, workspace, user=user)
