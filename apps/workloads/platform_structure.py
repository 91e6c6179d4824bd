"""The structure page of a workspace's platform: rename or remove its node types and storage tiers, change a tier's
kind, add a node type or a tier as a copy of another (its values and their sources).

Saving writes the platform's catalogue entry with the changes and hands it to
:func:`apps.workloads.platform_entries.replace_platform` — the API's path — so the page refuses what the API refuses,
beside the row the refusal names, and saves nothing unless everything is valid.  It sits beside that module (next to
the catalogue loader) for the reason that one does; its URL is under the platform's own (``/platforms/<slug>/
structure/``).
"""

from __future__ import annotations

import copy
import re

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from apps.accounts.workspaces import editable_workspace
from apps.core.editing import Editor, edit_page
from apps.platforms.models import Platform, StorageTier
from apps.platforms.services import editable_copy
from apps.workloads.creation import NewPlatformEditor
from apps.workloads.platform_entries import InvalidPlatform, platform_entry, replace_platform

__all__ = ["RowForm", "AddRowForm", "StructureEditor", "platform_structure", "platform_new"]

_ROW_PATH = re.compile(r"^(node_types|storage_tiers)\[(\d+)\](?:\.(name|kind))?")


class RowForm(forms.Form):
    """One node type or storage tier: its name (renamed when changed), its kind (a tier), whether to remove it."""

    name = forms.CharField(max_length=60, label="Name")
    remove = forms.BooleanField(required=False, label="Remove")

    def __init__(self, data=None, *, row, list_name: str):
        super().__init__(data, prefix=f"{list_name}-{row.pk}", initial={"name": row.name})
        self.row, self.list_name = row, list_name
        if isinstance(row, StorageTier):
            self.fields["kind"] = forms.ChoiceField(choices=StorageTier.Kind.choices, label="Kind")
            self.initial["kind"] = row.kind
        self.fields["name"].label = f"Name of {row.name}"
        self.fields["remove"].label = f"Remove {row.name}"
        self.order_fields(["name", "kind", "remove"])


class AddRowForm(forms.Form):
    """A new node type or tier: its name and the row whose values (with their sources) it starts from."""

    name = forms.CharField(required=False, max_length=60)
    like = forms.ChoiceField(required=False)

    def __init__(self, data=None, *, rows, list_name: str, what: str):
        super().__init__(data, prefix=f"add-{list_name}")
        self.list_name, self.what = list_name, what
        self.fields["name"].label = f"Name of the new {what}"
        self.fields["like"].label = "Start from the values of"
        self.fields["like"].choices = [(r.name, r.name) for r in rows]

    def clean(self):
        data = super().clean()
        if (data.get("name") or "").strip() and not data.get("like"):
            self.add_error("like", f"choose the {self.what} whose values the new one starts from")
        return data


class StructureEditor(Editor):
    """The page's forms; ``save`` builds the platform's entry with every change and replaces the platform with it
    (one transaction), putting any refusal beside its row."""

    def __init__(self, platform: Platform, data=None):
        self.platform = platform
        node_types, tiers = list(platform.node_types.all()), list(platform.storage_tiers.all())
        self.node_types = [RowForm(data, row=n, list_name="node_types") for n in node_types]
        self.storage_tiers = [RowForm(data, row=t, list_name="storage_tiers") for t in tiers]
        self.add_node_type = AddRowForm(data, rows=node_types, list_name="node_types", what="node type")
        self.add_storage_tier = AddRowForm(data, rows=tiers, list_name="storage_tiers", what="storage tier")
        self.errors: list[str] = []

    def forms(self) -> list[forms.Form]:
        return [*self.node_types, *self.storage_tiers, self.add_node_type, self.add_storage_tier]

    @property
    def sections(self) -> list[tuple[str, list[RowForm], AddRowForm]]:
        """The page's two parts: the rows of each list and the form adding one."""
        return [("Node types", self.node_types, self.add_node_type),
                ("Storage tiers", self.storage_tiers, self.add_storage_tier)]

    def save(self, user) -> list[str] | None:
        """What changed (in words), or None with the reasons beside the rows (nothing saved)."""
        if not self.is_valid():
            return None
        entry = platform_entry(self.platform)
        changed: list[str] = []
        placed: dict[str, list[forms.Form]] = {}
        for list_name, row_forms, add in (("node_types", self.node_types, self.add_node_type),
                                          ("storage_tiers", self.storage_tiers, self.add_storage_tier)):
            rows, kept = [], []
            for form, item in zip(row_forms, entry[list_name], strict=True):
                data = form.cleaned_data
                if data["remove"]:
                    changed.append(f"{form.row.name} removed")
                    continue
                if data["name"].strip() != form.row.name:
                    changed.append(f"{form.row.name} renamed {data['name'].strip()}")
                    item["name"] = data["name"].strip()
                if "kind" in data and data["kind"] != item["kind"]:
                    changed.append(f"{item['name']}: kind {dict(StorageTier.Kind.choices)[data['kind']]}")
                    item["kind"] = data["kind"]
                rows.append(item)
                kept.append(form)
            new = (add.cleaned_data.get("name") or "").strip()
            if new:
                like = next(i for i in entry[list_name] if i["name"] == add.cleaned_data["like"])
                rows.append({**copy.deepcopy(like), "name": new})
                kept.append(add)
                changed.append(f"{add.what} {new} added")
            entry[list_name] = rows
            placed[list_name] = kept
        if not changed:
            return []
        try:
            replace_platform(self.platform, entry, user=user)
        except InvalidPlatform as exc:
            self._place(exc, placed)
            return None
        return changed

    def _place(self, exc: InvalidPlatform, placed: dict[str, list[forms.Form]]) -> None:
        match = _ROW_PATH.match(exc.path)
        if match:
            forms_ = placed.get(match.group(1), [])
            index = int(match.group(2))
            if index < len(forms_):
                form = forms_[index]
                field = match.group(3)
                form.add_error(field if field in form.fields else None, exc.message)
                return
        self.errors.append(f"{exc.path}: {exc.message}" if exc.path else exc.message)

    def error_summary(self) -> list[str]:
        out = list(self.errors)
        for form in self.forms():
            where = (f"New {form.what}" if isinstance(form, AddRowForm) else form.row.name)
            for name, errors in form.errors.items():
                label = form.fields[name].label if name in form.fields else ""
                out += [f"{where}{' · ' + label if label else ''}: {e}" for e in errors]
        return out


def platform_structure(request, slug):
    """``/platforms/<slug>/structure/``: a workspace's platform's node types and storage tiers (editors only)."""
    platform = editable_copy(request.user, slug, Platform.objects.select_related("workspace").prefetch_related(
        "node_types", "storage_tiers"))
    return edit_page(request, StructureEditor(platform, request.POST or None), "platforms/structure.html",
                     {"platform": platform}, reverse("platforms:detail", args=[slug]))


def platform_new(request):
    """``/platforms/new/``: a platform from scratch in the active workspace (editors) — its name and kind, one node
    type and one storage tier — then its edit and structure pages for the rest."""
    workspace = editable_workspace(request)
    editor = NewPlatformEditor(request.POST or None)
    if request.method == "POST":
        platform = editor.save(workspace, request.user)
        if platform is not None:
            messages.info(request, f"{platform.name} created in {workspace.name}: give it more facts here, more node "
                                   "types and storage tiers on its structure page.")
            return redirect("platforms:edit", platform.slug)
    return render(request, "platforms/new.html", {"editor": editor, "workspace": workspace},
                  status=400 if request.method == "POST" else 200)
