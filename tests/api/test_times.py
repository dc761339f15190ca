"""The API writes every moment in UTC, ISO 8601, whatever zone its caller's pages are in, and
its schema says so on every date-time field (api/times.py)."""

from __future__ import annotations

import importlib
import inspect
import re
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from rest_framework import serializers
from rest_framework.test import APIClient

from accounts.models import Profile
from accounts.time_zones import BROWSER_ZONE_COOKIE
from api.times import UTC_NOTE, UtcDateTimeField
from courses.api.serializers import QuizSerializer
from courses.models import Quiz
from tests.api.conftest import session_client

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
UTC_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def test_a_learner_whose_pages_are_in_auckland_reads_the_api_in_utc(learner_a, exam):
    Profile.objects.create(user=learner_a, time_zone="Pacific/Auckland")
    Quiz.objects.filter(pk=exam.pk).update(closes_at=datetime(2027, 1, 20, 12, 0, tzinfo=UTC))
    client = session_client(learner_a)
    client.cookies[BROWSER_ZONE_COOKIE] = "Asia/Kolkata"
    quiz = client.get(f"/api/v1/quizzes/{exam.slug}/").json()
    assert quiz["closes_at"] == "2027-01-20T12:00:00Z"
    attempt = client.post("/api/v1/attempts/", {"quiz": exam.slug}, format="json").json()
    for field in ("started_at", "deadline", "updated_at"):
        assert UTC_ISO.match(attempt[field]), (field, attempt[field])
    rules = client.get(f"/api/v1/quizzes/{exam.slug}/rules/")
    assert rules.status_code == 200
    assert rules.json()["closes_at"] == "2027-01-20T12:00:00Z"


def test_a_serializer_writes_utc_under_any_active_zone_and_reads_a_bare_time_as_utc(exam):
    Quiz.objects.filter(pk=exam.pk).update(opens_at=datetime(2027, 1, 20, 12, 0, tzinfo=UTC))
    exam.refresh_from_db()
    with timezone.override(ZoneInfo("Pacific/Auckland")):
        assert QuizSerializer(exam).data["opens_at"] == "2027-01-20T12:00:00Z"
        field = UtcDateTimeField()
        assert field.to_internal_value("2027-01-20T12:00:00") == datetime(
            2027, 1, 20, 12, 0, tzinfo=UTC
        )
        assert field.to_internal_value("2027-01-21T01:00:00+13:00") == datetime(
            2027, 1, 20, 12, 0, tzinfo=UTC
        )


def api_serializers() -> list[type[serializers.Serializer]]:
    """Every serializer class defined in the apps' api packages."""
    found = []
    for path in sorted(ROOT.glob("*/api/**/*.py")):
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        found += [
            cls
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, serializers.BaseSerializer) and cls.__module__ == module.__name__
        ]
    return found


def test_every_date_time_field_of_the_api_is_utc():
    seen = 0
    for serializer in api_serializers():
        try:
            fields = serializer().fields
        except TypeError:  # needs arguments of its own: its fields are checked where it is used
            continue
        for name, field in fields.items():
            if isinstance(field, serializers.DateTimeField):
                seen += 1
                assert isinstance(field, UtcDateTimeField), f"{serializer.__name__}.{name}"
                assert field.timezone == UTC
    assert seen >= 15


def test_the_schema_says_every_date_time_is_utc():
    schema = APIClient().get("/api/v1/schema/?format=json").json()
    described = 0

    def walk(node):
        nonlocal described
        if isinstance(node, dict):
            if node.get("schema", {}).get("format") == "date-time" and "in" in node:  # a parameter
                assert UTC_NOTE in node["description"], node
                described += 1
                return
            if node.get("format") == "date-time":
                assert UTC_NOTE in node.get("description", ""), node
                described += 1
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert described >= 15
