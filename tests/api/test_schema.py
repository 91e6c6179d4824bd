"""The OpenAPI schema: valid OpenAPI 3 (drf-spectacular's validation against the OpenAPI 3 JSON Schema, with
warnings as errors), and it documents every operation's outcomes."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command
from drf_spectacular.validation import validate_schema


def test_spectacular_validates_the_schema_with_no_warning(db, tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    validate_schema(yaml.safe_load(out.read_text()))


def test_the_served_schema_is_valid_openapi_3(anonymous, db):
    response = anonymous.get("/api/schema/?format=json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    validate_schema(document)


@pytest.mark.parametrize("method", ["get", "post"])
def test_every_operation_documents_its_outcomes(openapi, method):
    for path, item in openapi["paths"].items():
        operation = item.get(method)
        if operation is None:
            continue
        codes = set(operation["responses"])
        success = {"200", "201", "202"} & codes
        assert success, (method, path)
        if path != "/api/v1/auth/token/":
            assert {"401", "403"} <= codes, (method, path)
        if "{" in path:
            assert "404" in codes, (method, path)
        if method == "post" and operation.get("requestBody"):
            assert "400" in codes, (method, path)
