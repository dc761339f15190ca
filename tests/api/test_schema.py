"""The OpenAPI schema: generated without a warning, served, and its docs page works under the
Content Security Policy with assets served by softgrade itself."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_the_schema_validates_with_no_warning(tmp_path):
    out = tmp_path / "schema.yaml"
    # --fail-on-warn turns any generator warning (an unresolved type, a missing serializer,
    # a colliding name) into a failure; --validate checks it against the OpenAPI 3 spec.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    assert "/api/v1/attempts/{attempt_id}/items/{item_id}/answers/" in text
    assert "Idempotency-Key" in text


def test_every_operation_documents_the_error_shape():
    schema = APIClient().get("/api/v1/schema/?format=json").json()
    assert set(schema["components"]["schemas"]["Error"]["properties"]) == {
        "code",
        "message",
        "field",
    }
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            errors = {code for code in operation["responses"] if code.startswith("4")}
            if path != "/api/v1/":
                assert {"401", "403", "404", "429"} <= errors, (method, path)
            if method in ("post", "patch"):
                assert {"400", "413", "415"} <= errors, (method, path)
            for code in errors:
                content = operation["responses"][code]["content"]["application/json"]
                assert content["schema"]["$ref"] == "#/components/schemas/Error"


def test_the_docs_page_has_no_inline_script_or_style_and_uses_local_assets():
    client = APIClient()
    page = client.get("/api/v1/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<style" not in html
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "an inline script"
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources
    for source in sources:
        assert source.startswith("/"), source  # nothing from another host
    policy = page["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    script = client.get(next(s for s in sources if "script" in s))
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert b"/api/v1/schema/" in script.content
