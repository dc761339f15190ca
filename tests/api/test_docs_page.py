"""The API docs page in real headless Chromium: Swagger UI renders the schema from softgrade's own
assets, under the site's Content Security Policy, with no violation, console error or request to
another host (the browser tests' watched page fails the test on any of those)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import browser, page, watch  # noqa: F401 - fixtures

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_docs_page_renders_every_operation_under_the_policy(page, live_server):  # noqa: F811
    page.goto(f"{live_server.url}/api/v1/docs/")
    page.locator(".opblock").first.wait_for()
    assert page.locator(".opblock").count() >= 25
    page.get_by_text("Answer one item").first.click()
    page.get_by_text("Idempotency-Key").first.wait_for()
    assert "softgrade API" in page.title()
