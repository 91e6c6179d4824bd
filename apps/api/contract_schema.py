"""The OpenAPI schema of the scenario contract's pydantic models, as OpenAPI 3.0 reads it.

drf-spectacular's own pydantic extension emits pydantic's JSON Schema 2020-12 (``const``, ``anyOf`` with
``null``, numeric ``exclusiveMinimum``, ``propertyNames``, ``patternProperties``), which an OpenAPI 3.0 document may not hold; this one
rewrites those few keywords into their 3.0 forms and describes the request (validation) side of each model.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.contrib.pydantic import PydanticExtension
from drf_spectacular.plumbing import ResolvedComponent
from pydantic.json_schema import model_json_schema

__all__ = ["ContractSchemaExtension", "openapi30"]


def openapi30(node: Any) -> Any:
    """A JSON Schema 2020-12 fragment from pydantic rewritten for OpenAPI 3.0."""
    if isinstance(node, list):
        return [openapi30(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: openapi30(v) for k, v in node.items()}
    if "const" in node:
        node["enum"] = [node.pop("const")]
    for key, flag in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(node.get(key), (int, float)) and not isinstance(node.get(key), bool):
            node[flag] = node.pop(key)
            node[key] = True
    patterns = node.pop("patternProperties", None)
    if patterns:  # a mapping whose keys have a pattern: OpenAPI 3.0 can only say what the values are
        node.setdefault("additionalProperties", next(iter(patterns.values())))
    names = node.pop("propertyNames", None)
    if names and names.get("enum"):
        node["description"] = (node.get("description", "") + f" (keys: {', '.join(map(str, names['enum']))})").strip()
    options = node.get("anyOf")
    if options and {"type": "null"} in options:
        rest = [o for o in options if o != {"type": "null"}]
        del node["anyOf"]
        if len(rest) == 1:
            only = rest[0]
            node.update({"allOf": [only]} if "$ref" in only else only)
        else:
            node["anyOf"] = rest
        node["nullable"] = True
    return node


class ContractSchemaExtension(PydanticExtension):
    """The scenario contract's models (and the API's subclasses of them) in the OpenAPI schema."""

    target_class = "simulator.contract._Contract"
    match_subclasses = True
    priority = 1

    def map_serializer(self, auto_schema, direction):
        mode = "validation" if direction == "request" else "serialization"
        schema = model_json_schema(self.target, ref_template="#/components/schemas/{model}", mode=mode)
        for name, sub in schema.pop("$defs", {}).items():
            auto_schema.registry.register_on_missing(
                ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, object=name, schema=openapi30(sub)))
        return openapi30(schema)
