"""Workload files: one workload (or ``{"workloads": [...]}``) in JSON or YAML, every value with its unit and source.

The format is ``docs/workloads-format.md`` with the schema ``fixtures/schemas/workload.schema.json``.  Reading
checks the file against the schema, then loads it through the reference catalogue's loader
(:mod:`apps.workloads.catalogue`): the same rules (units of the right dimension, sources, what the model can
build), all or nothing, each refusal a :class:`~apps.workloads.catalogue.CatalogueError` naming the file, the
JSON path and the field.  Writing gives what reading takes back: values in base units with their sources.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from django.db import transaction

from apps.core.fields import QuantityField
from apps.workloads.catalogue import CatalogueError, LoadSummary, _load_workloads, _Reader
from apps.workloads.models import Workload
from apps.workloads.schemas import TEMPLATES
from simulator.units import DIMENSIONS

__all__ = ["SCHEMA_PATH", "MAX_FILE_BYTES", "read_file", "check_schema", "import_workloads", "file_entries", "fact_entry",
           "fact_entries", "workload_entry", "dump"]

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "fixtures" / "schemas" / "workload.schema.json"
#: largest workload file read (the reference catalogue's three workloads take 90 kB)
MAX_FILE_BYTES = 5_000_000


class _NoAliasLoader(yaml.SafeLoader):
    """YAML without anchors and aliases: a workload needs none, and aliases can make a small file a huge tree."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError(problem="aliases (*name) are not accepted in a workload file",
                                       problem_mark=event.start_mark)
        return super().compose_node(parent, index)


def read_file(path: Path) -> Any:
    """The parsed content of a ``.json``, ``.yaml`` or ``.yml`` workload file."""
    path = Path(path)
    name = path.name
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CatalogueError(name, "$", exc.strerror or "cannot be read") from None
    if size > MAX_FILE_BYTES:
        raise CatalogueError(name, "$", f"the file is {size:,} bytes; at most {MAX_FILE_BYTES:,} are read")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CatalogueError(name, "$", "not UTF-8 text") from None
    if path.suffix.lower() in (".yaml", ".yml"):
        try:
            return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader that also refuses aliases
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark
            where = f"line {mark.line + 1} column {mark.column + 1}" if mark else "$"
            raise CatalogueError(name, where, str(exc.problem or exc)) from None
        except yaml.YAMLError as exc:
            raise CatalogueError(name, "$", str(exc)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(name, f"line {exc.lineno} column {exc.colno}", exc.msg) from None


def _json_path(parts) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _schema_check(name: str, data: Any) -> None:
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    errors = list(validator.iter_errors(data))
    if not errors:
        return
    # the deepest error of the best match says the most precise thing (oneOf errors nest their causes)
    error = jsonschema.exceptions.best_match(errors)
    while error.context:
        error = jsonschema.exceptions.best_match(error.context)
    message = error.message if len(error.message) <= 300 else error.message[:300] + "…"
    raise CatalogueError(name, _json_path(error.absolute_path), message)


def check_schema(name: str, data: Any) -> None:
    """Check ``data`` against the workload file's schema (a request's body too): a CatalogueError naming the
    deepest JSON path in error."""
    _schema_check(name, data)


def import_workloads(path: Path) -> LoadSummary:
    """Check the workload file at ``path`` and load its workloads into the reference catalogue (a workload with
    the same slug is replaced): all or nothing."""
    path = Path(path)
    data = {"workloads": [entry for _, entry in file_entries(path)]}
    reader = _Reader.from_data(path.name, data)
    summary = LoadSummary()
    with transaction.atomic():
        _load_workloads(reader, summary)
    return summary


def file_entries(path: Path) -> list[tuple[str, Any]]:
    """The workloads of the workload file at ``path``, checked against the schema, each with its JSON path in the
    file (``$`` for a file of one workload, ``$.workloads[1]`` in a list)."""
    path = Path(path)
    data = read_file(path)
    _schema_check(path.name, data)
    if isinstance(data, dict) and "workloads" in data:
        return [(f"$.workloads[{i}]", entry) for i, entry in enumerate(data["workloads"])]
    return [("$", data)]


def fact_entry(value: Any, source: dict | None, dimension: str | None) -> dict:
    """One value in the file format: in base units (the unit of its dimension) with its source."""
    unit = DIMENSIONS.get(dimension, "") if dimension else ""
    if isinstance(value, tuple):
        value = list(value)
    return {"value": value, "unit": unit, "source": source}


def fact_entries(obj, keep_empty: tuple[str, ...] = ()) -> dict:
    """``obj``'s facts (its ``FACT_FIELDS``: a stage's demands, a platform's, node type's or tier's values) in the
    file format, each in base units with its source; unset ones are left out, except an empty list named in
    ``keep_empty`` that has a source (a stage that depends on none on purpose)."""
    out = {}
    for name in type(obj).FACT_FIELDS:
        value = getattr(obj, name)
        if value is None or value == "" or (value == [] and not (name in keep_empty and obj.source_of(name))):
            continue
        field = obj._meta.get_field(name)
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        out[name] = fact_entry(value, obj.source_of(name), field.dimension if isinstance(field, QuantityField) else None)
    return out


def workload_entry(workload: Workload) -> dict:
    """``workload`` in the file format: values in base units, each with its source."""
    declared = {p.name: p.dimension for p in TEMPLATES.get(workload.template, ())}
    dims = {**(workload.parameter_dimensions or {}), **declared}
    entry: dict[str, Any] = {"slug": workload.slug, "name": workload.name, "template": workload.template}
    if workload.description:
        entry["description"] = workload.description
    entry["parameters"] = {name: fact_entry(value, workload.source_of(name), dims.get(name, "scalar"))
                           for name, value in (workload.parameters or {}).items()}
    entry["stages"] = [{"name": stage.name, "facts": fact_entries(stage, keep_empty=("depends_on",))}
                       for stage in workload.stages.all()]
    return entry


def dump(entry: dict, fmt: str) -> str:
    """``entry`` as JSON or YAML text."""
    if fmt == "yaml":
        return yaml.safe_dump(entry, sort_keys=False, allow_unicode=True, width=120)
    return json.dumps(entry, indent=1, ensure_ascii=False) + "\n"
