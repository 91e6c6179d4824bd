"""Load the reference catalogue (``fixtures/catalogue/*.json``) into the database.

The format is described in ``docs/catalogue-format.md``: every value is an object
with ``value``, ``unit`` and ``source``.  Loading is all or nothing: any error names
the file and the JSON path, and nothing is saved.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.text import slugify

from apps.core.fields import QuantityField
from apps.core.models import ExchangeRate, exchange_rates
from apps.core.provenance import source_errors
from apps.platforms.models import Platform
from apps.workloads.models import ReferenceObservation, Workload, WorkloadStage
from apps.workloads.schemas import TEMPLATES
from simulator.model.catalogue import workload_from_dict
from simulator.model.stages import check_workload
from simulator.units import UnitError, converted_from, dimension_of, to_base

__all__ = ["CatalogueError", "InvalidEntry", "LoadSummary", "check_general_model", "load_catalogue", "load_platform",
           "load_workload", "merge_changes", "wanted_slug", "SLUG_BASE_CHARS", "RESERVED_SLUGS"]

#: slugs the site's own pages take under /workloads/ and /platforms/ (a workload or platform named so gets another)
RESERVED_SLUGS = ("new", "import", "reference-observations")
#: the longest slug made from an entry's name, leaving room in the slug fields for "-copy-999"
SLUG_BASE_CHARS = 40


class CatalogueError(ValueError):
    """A catalogue file is malformed; ``file`` and ``path`` say where."""

    def __init__(self, file: str, path: str, message: str):
        self.file, self.path, self.message = file, path, message
        super().__init__(f"{file}: {path}: {message}")


class InvalidEntry(ValueError):
    """One entry (a workload, a platform) was refused and nothing was saved; ``path`` names the value within it
    (``stages[1].facts.cpu_seconds``; ``""`` for the entry as a whole)."""

    what = "entry"

    def __init__(self, path: str, message: str):
        self.path, self.message = path, message
        super().__init__(f"{path or self.what}: {message}")

    @classmethod
    def of(cls, exc: CatalogueError) -> InvalidEntry:
        """The loader's refusal of a single entry (read as ``$``), its path made relative to the entry."""
        return cls(exc.path.removeprefix("$").removeprefix("."), exc.message)


@dataclass
class LoadSummary:
    platforms: int = 0
    node_types: int = 0
    storage_tiers: int = 0
    workloads: int = 0
    stages: int = 0
    observations: int = 0
    exchange_rates: int = 0

    def __str__(self) -> str:
        return (
            f"{self.exchange_rates} exchange rates, {self.platforms} platforms ({self.node_types} node types, {self.storage_tiers} storage tiers), "
            f"{self.workloads} workloads ({self.stages} stages), {self.observations} reference observations"
        )


class _Reader:
    """Reads one file, remembering its name to build error messages."""

    def __init__(self, path: Path, *, optional: bool = False):
        self.file = path.name
        #: the exchange-rate facts prices in other currencies convert through (set once the rates are loaded)
        self.rates: dict = {}
        if optional and not path.exists():
            self.data = {}
            return
        try:
            self.data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CatalogueError(self.file, "$", "file not found") from None
        except json.JSONDecodeError as exc:
            raise CatalogueError(self.file, f"line {exc.lineno} column {exc.colno}", exc.msg) from None

    @classmethod
    def from_data(cls, name: str, data: object) -> _Reader:
        """A reader of data already parsed (a workload file, a request's body), named ``name`` in its errors."""
        reader = cls.__new__(cls)
        reader.file, reader.data, reader.rates = name, data, exchange_rates()
        return reader

    def fail(self, path: str, message: str):
        raise CatalogueError(self.file, path, message)

    def items(self, key: str) -> list:
        value = self.data.get(key) if isinstance(self.data, dict) else None
        if not isinstance(value, list):
            self.fail(f"$.{key}", "expected a list")
        return value

    def text(self, obj: dict, key: str, path: str, required: bool = True) -> str:
        value = obj.get(key, "")
        if isinstance(value, dict) and "value" in value:
            value = value["value"]
        if required and (not isinstance(value, str) or not value.strip()):
            self.fail(f"{path}.{key}", "expected a non-empty string")
        return value if isinstance(value, str) else ""

    def apply_facts(self, instance: models.Model, facts: object, path: str) -> None:
        """Set each fact on ``instance`` converted to base units, and record its source."""
        if not isinstance(facts, dict):
            self.fail(path, "expected an object of facts")
        provenance = {}
        for name, item in facts.items():
            here = f"{path}.{name}"
            if name not in type(instance).FACT_FIELDS:
                self.fail(here, f"unknown fact {str(name)[:60]!r} for {instance._meta.verbose_name}; "
                                f"one of {', '.join(type(instance).FACT_FIELDS)}")
            field = instance._meta.get_field(name)
            value, source = self._value(item, here, field)
            setattr(instance, name, value)
            provenance[name] = source
        instance.provenance = {**(instance.provenance or {}), **provenance}

    def _value(self, item: object, path: str, field: models.Field | None, dimension: str | None = None):
        if not isinstance(item, dict) or "value" not in item or "source" not in item:
            self.fail(path, "expected an object with 'value', 'unit' and 'source'")
        errors = source_errors(item["source"])
        if errors:
            self.fail(f"{path}.source", "; ".join(errors))
        raw, unit = item["value"], item.get("unit", "")
        if not isinstance(unit, str):
            self.fail(f"{path}.unit", "expected a unit string")
        try:
            dimension_of(unit)
        except UnitError as exc:
            self.fail(f"{path}.unit", str(exc))
        if raw is None:
            return None, item["source"]
        if isinstance(field, QuantityField):
            dimension = field.dimension
        if dimension is not None:
            number = self._number(raw, unit, dimension, path)
            given = converted_from(raw, unit, self.rates)
            return number, ({**item["source"], "converted_from": given} if given else item["source"])
        if isinstance(field, models.BooleanField):
            if not isinstance(raw, bool):
                self.fail(f"{path}.value", "expected true or false")
            return raw, item["source"]
        if isinstance(field, models.DateField):
            try:
                return dt.date.fromisoformat(str(raw)), item["source"]
            except ValueError:
                self.fail(f"{path}.value", f"expected an ISO date (YYYY-MM-DD), got {raw!r}")
        if isinstance(field, models.JSONField):
            if isinstance(raw, list) and all(isinstance(v, str) for v in raw):
                return raw, item["source"]
            if isinstance(raw, list):
                dim = dimension_of(unit) if unit else "scalar"
                return [self._number(v, unit, dim, f"{path}.value[{i}]") for i, v in enumerate(raw)], item["source"]
            return raw, item["source"]
        if isinstance(field, models.CharField):
            if not isinstance(raw, str):
                self.fail(f"{path}.value", f"expected text, got {raw!r}")
            return raw, item["source"]
        return raw, item["source"]

    def _number(self, raw, unit: str, dimension: str, path: str) -> float:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            self.fail(f"{path}", f"expected a number, got {raw!r}")
        if unit == "" and dimension != "scalar":
            self.fail(f"{path}", f"a {dimension} value needs a unit")
        try:
            return to_base(raw, unit, dimension, self.rates)
        except UnitError as exc:
            self.fail(f"{path}", str(exc))

    def validate(self, instance: models.Model, path: str, exclude: list[str] | None = None) -> None:
        try:
            instance.full_clean(exclude=exclude, validate_unique=False)
        except ValidationError as exc:
            details = "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in exc.message_dict.items())
            self.fail(path, details)


def _load_platforms(reader: _Reader, summary: LoadSummary) -> None:
    for i, entry in enumerate(reader.items("platforms")):
        path = f"$.platforms[{i}]"
        slug = reader.text(entry, "slug", path)
        platform = Platform.objects.filter(slug=slug).first() or Platform(slug=slug)
        if platform.workspace_id is not None:
            reader.fail(f"{path}.slug", f"{slug!r} is the slug of a workspace's copy ({platform.name}); "
                                        "give the reference platform another slug")
        nodes, tiers = _load_platform(reader, entry, path, platform)
        summary.platforms += 1
        summary.node_types += nodes
        summary.storage_tiers += tiers


def _reset_facts(obj) -> None:
    """Clear every fact of ``obj``: a fact the entry no longer gives is gone, not kept from before."""
    for fact in type(obj).FACT_FIELDS:
        field = obj._meta.get_field(fact)
        setattr(obj, fact, None if field.null else field.get_default())
    obj.provenance = {}


def _load_rows(reader: _Reader, entry: dict, key: str, path: str, rows, owner: str, finish=None) -> int:
    """Save the rows listed under ``entry[key]`` (node types, storage tiers, stages: each ``{"name", "facts", …}``)
    into ``rows``, their owner's related manager: a row of the same name is updated, one the entry no longer names
    is deleted, and every fact the entry no longer gives is cleared.  ``finish(obj, item, path, index)`` sets what
    is not a fact before the row is checked; returns how many rows there are."""
    items = entry.get(key, [])
    if not isinstance(items, list):
        reader.fail(f"{path}.{key}", "expected a list")
    names = []
    for j, item in enumerate(items):
        here = f"{path}.{key}[{j}]"
        if not isinstance(item, dict):
            reader.fail(here, "expected an object with 'name' and 'facts'")
        name = reader.text(item, "name", here)
        if name in names:
            reader.fail(f"{here}.name", f"a second one called {name!r}; names are unique in a {owner}")
        names.append(name)
        obj = rows.filter(name=name).first() or rows.model(**{rows.field.name: rows.instance}, name=name)
        _reset_facts(obj)
        reader.apply_facts(obj, item.get("facts", {}), f"{here}.facts")
        if finish is not None:
            finish(obj, item, here, j)
        reader.validate(obj, here)
        obj.save()
    rows.exclude(name__in=names).delete()
    return len(names)


def _load_platform(reader: _Reader, entry: object, path: str, platform: Platform) -> tuple[int, int]:
    """Set ``platform`` from its catalogue ``entry`` (name, kind, facts, node types, storage tiers; the caller sets
    the slug and the workspace), check every value and save it with its node types and tiers (those the entry no
    longer names are removed); returns how many node types and tiers it has."""
    if not isinstance(entry, dict):
        reader.fail(path, "expected an object")
    platform.name = reader.text(entry, "name", path)
    platform.kind = reader.text(entry, "kind", path)
    platform.description = reader.text(entry, "description", path, required=False)
    _reset_facts(platform)
    for key in ("location", "region"):
        if key in entry:
            reader.apply_facts(platform, {key: entry[key]}, path)
    reader.apply_facts(platform, entry.get("facts", {}), f"{path}.facts")
    reader.validate(platform, path)
    platform.save()
    nodes = _load_rows(reader, entry, "node_types", path, platform.node_types, "platform")
    tiers = _load_rows(reader, entry, "storage_tiers", path, platform.storage_tiers, "platform",
                       lambda tier, item, here, _: setattr(tier, "kind", reader.text(item, "kind", here)))
    return nodes, tiers


def load_platform(entry: object, platform: Platform) -> Platform:
    """Check one platform given in the catalogue format (no slug: the caller sets it and the workspace) and save it
    into ``platform`` with its node types and storage tiers: all or nothing.  The API uses this, so a user's
    platform passes the checks the reference catalogue does; a refusal is a :class:`CatalogueError` whose ``path``
    (``$.node_types[0].facts.nic_bandwidth``) names the value."""
    return _load_entry("platform", _load_platform, entry, platform)


def _load_entry(name: str, load, entry: object, obj: models.Model) -> models.Model:
    """``load(reader, entry, "$", obj)`` for a single entry given as data (not a file): all or nothing."""
    with transaction.atomic():
        load(_Reader.from_data(name, entry), entry, "$", obj)
    return obj


def nul_at(data: object, path: str = "") -> str | None:
    """The path (``stages[0].name``) of the first key or string in ``data`` holding a NUL character (PostgreSQL's text and JSON
    columns cannot store one, nor can a query compare with one), else ``None``."""
    if isinstance(data, str):
        return (path or "non_field_errors") if "\x00" in data else None
    if isinstance(data, dict):
        for key, value in data.items():
            here = (f"{path}.{key}" if path else str(key)).replace("\x00", "\\x00")
            if isinstance(key, str) and "\x00" in key:
                return here
            found = nul_at(value, here)
            if found:
                return found
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found = nul_at(value, f"{path}[{i}]")
            if found:
                return found
    return None


NUL_MESSAGE = "contains a NUL character (\\x00), which no text here can hold; remove it"


def wanted_slug(entry: dict, default: str) -> str:
    """The slug a new entry asks for: its ``slug``, else its name, made a slug of at most :data:`SLUG_BASE_CHARS`
    characters; ``default`` when neither gives one."""
    wanted = entry.get("slug") or entry.get("name")
    slug = slugify(wanted if isinstance(wanted, str) else "")[:SLUG_BASE_CHARS].strip("-") or default
    return f"{slug}-{default}" if slug in RESERVED_SLUGS else slug


def merge_changes(entry: dict, changes: dict, by_name: str) -> dict:
    """``entry`` (catalogue format) with ``changes`` applied, as a partial update does: the object under ``by_name``
    (a workload's parameters, a platform's facts) merges by name, ``null`` removing one; any other key replaces."""
    out = dict(entry)
    for key, value in changes.items():
        if key == by_name and isinstance(value, dict):
            items = dict(out.get(key) or {})
            for name, item in value.items():
                if item is None:
                    items.pop(name, None)
                else:
                    items[name] = item
            out[key] = items
        else:
            out[key] = value
    return out


def _load_workloads(reader: _Reader, summary: LoadSummary) -> None:
    for i, entry in enumerate(reader.items("workloads")):
        path = f"$.workloads[{i}]"
        slug = reader.text(entry, "slug", path)
        workload = Workload.objects.filter(slug=slug).first() or Workload(slug=slug)
        if not workload.is_reference:
            reader.fail(f"{path}.slug", f"{slug!r} is the slug of a workspace's workload; choose another")
        summary.stages += _load_workload(reader, entry, path, workload)
        summary.workloads += 1


def _load_workload(reader: _Reader, entry: object, path: str, workload: Workload) -> int:
    """Set ``workload`` from its catalogue ``entry`` (name, template, parameters, stages; the caller sets the slug
    and the workspace), check every value and save it with its stages; returns how many stages it has."""
    if not isinstance(entry, dict):
        reader.fail(path, "expected an object")
    workload.name = reader.text(entry, "name", path)
    workload.template = reader.text(entry, "template", path)
    if workload.template not in TEMPLATES:
        reader.fail(f"{path}.template", f"unknown template {workload.template!r}; one of {', '.join(TEMPLATES)}")
    workload.description = reader.text(entry, "description", path, required=False)
    schema = {p.name: p for p in TEMPLATES[workload.template]}
    params, provenance, dimensions = {}, {}, {}
    raw_params = entry.get("parameters", {})
    if not isinstance(raw_params, dict):
        reader.fail(f"{path}.parameters", "expected an object")
    for name, item in raw_params.items():
        ppath = f"{path}.parameters.{name}"
        unit = item.get("unit", "") if isinstance(item, dict) else ""
        try:
            dimension = schema[name].dimension if name in schema else dimension_of(unit)
        except (UnitError, TypeError) as exc:
            reader.fail(f"{ppath}.unit", str(exc))
        value, source = reader._value(item, ppath, None, dimension=dimension)
        if value is not None:
            params[name] = value
            if name not in schema:
                dimensions[name] = dimension
        provenance[name] = source
    workload.parameters = params
    workload.parameter_dimensions = dimensions
    workload.provenance = {k: v for k, v in provenance.items() if k in params}
    reader.validate(workload, path)
    workload.save()
    stages = _load_rows(reader, entry, "stages", path, workload.stages, "workload", _stage_order)
    check_general_model(reader, entry, path)
    return stages


def _stage_order(stage: WorkloadStage, item: dict, path: str, index: int) -> None:
    stage.order = index
    if stage.depends_on is None:  # given as null: no upstream stage
        stage.depends_on = []


def load_workload(entry: object, workload: Workload) -> Workload:
    """Check one workload given in the catalogue format (no slug: the caller sets it and the workspace) and save it
    into ``workload`` with its stages: all or nothing.  The API uses this, so a user's workload passes the very
    checks the reference catalogue and workload files do; a refusal is a :class:`CatalogueError` whose ``path``
    (``$.stages[1].facts.cpu_seconds``) names the value."""
    return _load_entry("workload", _load_workload, entry, workload)


def check_general_model(reader: _Reader, entry: dict, path: str) -> None:
    """Refuse a workload of the general model its simulation could not build (a dependency its task counts cannot
    honour, a list of sizes of the wrong length ...): :func:`simulator.model.stages.check_workload`, the one check
    of the model's rules, naming the field under ``path``."""
    problems = check_workload(workload_from_dict({**entry, "slug": entry.get("slug") or "workload"}))
    if problems:
        where, message = problems[0]
        reader.fail(f"{path}.{where}", message)


def _load_observations(reader: _Reader, summary: LoadSummary) -> None:
    keys = []
    for i, entry in enumerate(reader.items("observations")):
        path = f"$.observations[{i}]"
        key = reader.text(entry, "key", path)
        keys.append(key)
        obs = ReferenceObservation.objects.filter(key=key).first() or ReferenceObservation(key=key)
        obs.quantity = reader.text(entry, "quantity", path)
        obs.platform = _by_slug(reader, Platform, entry.get("platform"), f"{path}.platform")
        obs.workload = _by_slug(reader, Workload, entry.get("workload"), f"{path}.workload")
        obs.value = entry.get("value")
        obs.unit = entry.get("unit", "") or ""
        obs.scatter = entry.get("scatter")
        obs.scatter_kind = entry.get("scatter_kind", "") or ""
        obs.source = entry.get("source")
        obs.note = entry.get("note", "") or ""
        obs.fit = entry.get("fit", "") or ""
        obs.base_value = None
        if isinstance(obs.value, (int, float)) and not isinstance(obs.value, bool):
            try:
                obs.base_value = to_base(obs.value, obs.unit)
            except UnitError as exc:
                reader.fail(f"{path}.unit", str(exc))
        reader.validate(obs, path, exclude=["platform", "workload"])
        obs.save()
        summary.observations += 1
    ReferenceObservation.objects.exclude(key__in=keys).delete()


def _by_slug(reader: _Reader, model, slug, path: str):
    if slug in (None, ""):
        return None
    obj = model.objects.filter(slug=slug).first()
    if obj is None:
        reader.fail(path, f"no {model._meta.verbose_name} with slug {slug!r} in the catalogue")
    return obj


def _load_exchange_rates(reader: _Reader, summary: LoadSummary) -> None:
    """``exchange_rates.json``: each currency's rate to AUD with its date and source (optional file)."""
    if not reader.data:
        return
    for i, entry in enumerate(reader.items("exchange_rates")):
        path = f"$.exchange_rates[{i}]"
        if not isinstance(entry, dict):
            reader.fail(path, "expected an object with 'currency', 'rate' and 'date'")
        currency = reader.text(entry, "currency", path).strip()
        rate = entry.get("rate")
        if not isinstance(rate, dict) or "value" not in rate or "source" not in rate:
            reader.fail(f"{path}.rate", "expected an object with 'value', 'unit' and 'source'")
        value = rate["value"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            reader.fail(f"{path}.rate.value", f"expected a positive number of AUD per {currency}, got {value!r}")
        expected = f"AUD/{currency}"
        if rate.get("unit", expected) != expected:
            reader.fail(f"{path}.rate.unit", f"expected {expected!r} (AUD per one {currency})")
        errors = source_errors(rate["source"])
        if errors:
            reader.fail(f"{path}.rate.source", "; ".join(errors))
        try:
            date = dt.date.fromisoformat(str(entry.get("date")))
        except ValueError:
            reader.fail(f"{path}.date", f"expected an ISO date (YYYY-MM-DD), got {entry.get('date')!r}")
        obj = ExchangeRate.objects.filter(currency=currency, date=date).first() or ExchangeRate(
            currency=currency, date=date)
        obj.base_per_unit, obj.provenance = float(value), rate["source"]
        reader.validate(obj, path)
        obj.save()
        summary.exchange_rates += 1


def load_catalogue(directory: Path) -> LoadSummary:
    """Load exchange rates, platforms, workloads and reference observations from ``directory``; all or nothing.

    Prices given in another currency convert to AUD through the rates loaded first."""
    directory = Path(directory)
    rates = _Reader(directory / "exchange_rates.json", optional=True)
    readers = [_Reader(directory / name) for name in ("platforms.json", "workloads.json", "reference_observations.json")]
    summary = LoadSummary()
    with transaction.atomic():
        _load_exchange_rates(rates, summary)
        for reader in readers:
            reader.rates = exchange_rates()
        _load_platforms(readers[0], summary)
        _load_workloads(readers[1], summary)
        _load_observations(readers[2], summary)
    return summary
