"""The edit page of a workspace's copy of a platform: each fact of the platform, its node types and its storage
tiers with its value in units and its source beside it.  A changed value needs a new source (a paper, a web page, a
measurement, an assumption or a fit: :mod:`apps.core.provenance`); a value left as shown keeps its own."""

from __future__ import annotations

from django import forms

from apps.core.editing import Editor
from apps.core.fields import QuantityFormField
from apps.core.provenance import SOURCE_LABELS, clean_source, source_errors
from apps.core.templatetags.skyplan import column_label
from apps.platforms.models import Platform
from apps.platforms.services import FactChange, InvalidEdit, edit_platform, key_of

__all__ = ["FactsForm", "IdentityForm", "PlatformEditor", "SOURCE_CHOICES", "SOURCE_PARTS", "add_source_fields",
           "source_from"]

SOURCE_CHOICES = [("", "— choose when you change the value —"), *SOURCE_LABELS.items()]
#: the inputs of a new source: key, short label, which kinds use it
SOURCE_PARTS = (
    ("title", "title of the paper", "paper"),
    ("where", "table, figure or section", "paper"),
    ("url", "web address", "url"),
    ("host", "host", "measurement"),
    ("date", "date", "measurement"),
    ("reason", "reason", "assumption"),
    ("method", "fitted to what, and how", "fitted"),
)
#: the full label of each input, naming the value it is the source of
_PART_LABELS = {"title": "title of the paper giving {}", "where": "table, figure or section giving {}",
                "url": "web address giving {}", "host": "host that measured {}", "date": "date {} was measured",
                "reason": "reason for {}", "method": "what {} was fitted to"}
NEEDS_SOURCE = ("changed: give its new source — a paper (title and table), a web page, a measurement (host and date), "
                "an assumption (its reason) or a fit (what it was fitted to)")


def add_source_fields(form: forms.Form, name: str, plain: str) -> None:
    """The inputs of a new source for the value ``name`` of ``form``: ``<name>-kind`` and one per source key."""
    form.fields[f"{name}-kind"] = forms.ChoiceField(choices=SOURCE_CHOICES, required=False,
                                                    label=f"new source of {plain}")
    for key, _, _ in SOURCE_PARTS:
        if key == "date":
            form.fields[f"{name}-{key}"] = forms.DateField(required=False, label=_PART_LABELS[key].format(plain),
                                                           widget=forms.DateInput(attrs={"type": "date"}))
        else:
            form.fields[f"{name}-{key}"] = forms.CharField(required=False, max_length=500,
                                                           label=_PART_LABELS[key].format(plain))


def source_from(data: dict, name: str) -> dict | None:
    """The new source typed in for ``name`` (None when no kind was chosen)."""
    kind = data.get(f"{name}-kind")
    if not kind:
        return None
    return clean_source(kind, {key: data.get(f"{name}-{key}") for key, _, _ in SOURCE_PARTS})


class FactsForm(forms.Form):
    """The facts of one catalogue row (the platform, a node type or a storage tier), each with the fields of a new
    source: ``<fact>``, ``<fact>-kind`` and ``<fact>-<key>`` per source key (:data:`SOURCE_PARTS`)."""

    def __init__(self, data=None, *, obj, prefix: str):
        super().__init__(data, prefix=prefix)
        self.obj = obj
        for name in self.fact_names():
            field, plain = self.make_field(name)
            self.fields[name] = field
            self.initial[name] = self.current(name)
            add_source_fields(self, name, plain)
        self._changed: dict[str, FactChange] = {}

    def fact_names(self) -> tuple[str, ...]:
        """The facts the form edits, in page order."""
        return type(self.obj).FACT_FIELDS

    def current(self, name: str):
        """The fact's stored value."""
        return getattr(self.obj, name)

    def make_field(self, name: str) -> tuple[forms.Field, str]:
        """The input of fact ``name`` and the plain words naming it (for its source's labels)."""
        obj = self.obj
        label = column_label(type(obj), name)
        plain = str(obj._meta.get_field(name).verbose_name)
        field = obj._meta.get_field(name).formfield(label=label, required=False)
        if isinstance(field, forms.JSONField) or (
                isinstance(field, forms.CharField) and not isinstance(field, QuantityFormField)
                and name.endswith("note")):
            field.widget = forms.Textarea(attrs={"rows": 2})
        return field, plain

    @property
    def title(self) -> str:
        if isinstance(self.obj, Platform):
            return str(self.obj)
        return f"{self.obj._meta.verbose_name.capitalize()} {self.obj.name}"

    def _unchanged(self, name: str, value) -> bool:
        """The fact still reads as the page showed it (a quantity shown rounded, such as "3.3 GB/s", keeps its exact
        stored value)."""
        current = self.current(name)
        field = self.fields[name]
        if isinstance(field, QuantityFormField):
            raw = str(self.data.get(self.add_prefix(name), "") or "").strip()
            shown = "" if current is None else str(field.prepare_value(current)).strip()
            if raw == shown:
                return True
        return (value in (None, "", []) and current in (None, "", [])) or value == current

    def clean(self):
        data = super().clean()
        self._changed = {}
        for name in self.fact_names():
            parts = [name, f"{name}-kind"] + [f"{name}-{key}" for key, _, _ in SOURCE_PARTS]
            if any(p in self.errors for p in parts) or self._unchanged(name, data.get(name)):
                continue
            value = data.get(name)
            if value in (None, "", []):
                self._changed[name] = FactChange(self.obj, name, value, None)  # cleared: its source goes with it
                continue
            source = source_from(data, name)
            if source is None:
                self.add_error(name, NEEDS_SOURCE)
                continue
            problems = source_errors(source)
            if problems:
                self.add_error(name, "changed: its new source is incomplete: " + "; ".join(problems))
                continue
            conversion = getattr(self.fields[name], "conversion", None)
            if conversion:
                source["converted_from"] = conversion
            self._changed[name] = FactChange(self.obj, name, value, source)
        return data

    def changes(self) -> list[FactChange]:
        return list(self._changed.values())

    def rows(self, names=None) -> list[dict]:
        """What the page shows per fact: the label, the value's input, its current source and the new source's
        inputs (open when the fact is in error or has a new source typed in)."""
        out = []
        for name in names or self.fact_names():
            value = self[name]
            kind = self[f"{name}-kind"]
            parts = [(self[f"{name}-{key}"], label, used_by) for key, label, used_by in SOURCE_PARTS]
            source = [kind, *(p[0] for p in parts)]
            out.append({
                "name": name, "value": value, "kind": kind, "parts": parts,
                "source_errors": [e for f in source for e in f.errors],
                "source_short": self.obj.source_short(name) if self.current(name) not in (None, "", []) else "",
                "source_text": self.obj.source_text(name),
                "open": any(f.errors for f in [value, *source]) or bool(
                    self.is_bound and self.data.get(self.add_prefix(f"{name}-kind"))),
            })
        return out


class IdentityForm(forms.Form):
    """The copy's own name and description (not facts: no source needed)."""

    name = forms.CharField(label="Name", max_length=120)
    description = forms.CharField(label="Description", required=False, widget=forms.Textarea(attrs={"rows": 3}))


class PlatformEditor(Editor):
    """The edit page's forms together: the copy's name, its facts, one form per node type and storage tier.
    ``save`` hands every change to :func:`apps.platforms.services.edit_platform` (one transaction) and puts any
    refusal next to the field it names."""

    def __init__(self, platform: Platform, data=None, *, sections=()):
        self.platform = platform
        self.identity = IdentityForm(data, prefix="copy", initial={"name": platform.name,
                                                                   "description": platform.description})
        self.facts = FactsForm(data, obj=platform, prefix="platform")
        self.node_types = [FactsForm(data, obj=n, prefix=f"node-{n.pk}") for n in platform.node_types.all()]
        self.storage_tiers = [FactsForm(data, obj=t, prefix=f"tier-{t.pk}") for t in platform.storage_tiers.all()]
        shown = {n for _, names in sections for n in names}
        rest = tuple(n for n in Platform.FACT_FIELDS if n not in shown)
        self._sections = [*sections, *([("Other facts", rest)] if rest else [])]
        self.errors: list[str] = []

    @property
    def sections(self) -> list[tuple[str, list[dict]]]:
        """The platform's fact rows grouped as its page groups them (read when the page renders, errors included)."""
        return [(title, self.facts.rows(names)) for title, names in self._sections]

    def forms(self) -> list[FactsForm]:
        return [self.facts, *self.node_types, *self.storage_tiers]

    def is_valid(self) -> bool:
        return bool(self.identity.is_valid() & super().is_valid())

    def save(self, user) -> list[str] | None:
        """What changed, or None with the reasons beside the fields (nothing saved)."""
        if not self.is_valid():
            return None
        changes = [c for form in self.forms() for c in form.changes()]
        try:
            return edit_platform(self.platform, changes, name=self.identity.cleaned_data["name"],
                                 description=self.identity.cleaned_data["description"], user=user)
        except InvalidEdit as exc:
            by_key = {key_of(form.obj): form for form in self.forms()}
            for key, field, message in exc.errors:
                if field in self.identity.fields and key == key_of(self.platform):
                    self.identity.add_error(field, message)
                    continue
                form = by_key.get(key)
                if form is None:
                    self.errors.append(message)
                else:
                    form.add_error(field if field in form.fields else None, message)
        return None

    def error_summary(self) -> list[str]:
        """Every problem, naming the object and the field, for the top of the page."""
        out = list(self.errors)
        for name, errors in self.identity.errors.items():
            out += [f"{self.identity.fields[name].label or name}: {e}" for e in errors]
        for form in self.forms():
            for name, errors in form.errors.items():
                label = form.fields[name].label if name in form.fields else ""
                where = f"{form.title} · {label[:1].upper()}{label[1:]}" if label else form.title
                out += [f"{where}: {e}" for e in errors]
        return out
