"""The admin reads and shows a quiz's times in the instructor's own zone, and names it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from accounts.models import Profile
from accounts.time_zones import BROWSER_ZONE_COOKIE
from courses.models import Quiz
from tests.courses.test_admin_order import quiz_post
from tests.factories import InstructorFactory, LessonFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def instructor():
    return InstructorFactory()


def test_an_opening_time_typed_in_the_admin_is_that_moment_in_the_instructor_s_zone(
    client, instructor
):
    Profile.objects.create(user=instructor, time_zone="Pacific/Auckland")
    client.force_login(instructor)
    lesson = LessonFactory()
    data = quiz_post(lesson, opens_at_0="2026-12-24", opens_at_1="09:30:00")
    response = client.post(reverse("admin:courses_quiz_add"), data)
    assert response.status_code == 302
    quiz = Quiz.objects.get(slug="final")
    # 09:30 on Christmas Eve in Auckland (NZDT, UTC+13) is 20:30 the day before in UTC.
    assert quiz.opens_at == datetime(2026, 12, 23, 20, 30, tzinfo=UTC)

    page = client.get(reverse("admin:courses_quiz_change", args=[quiz.pk])).content.decode()
    assert 'name="opens_at_0" value="2026-12-24"' in page
    assert 'name="opens_at_1" value="09:30:00"' in page
    assert "Time (Pacific/Auckland):</label>" in page
    assert '<a href="/account/" id="admin-time-zone">Times in Pacific/Auckland</a>' in page


def test_without_a_setting_the_admin_follows_the_browser_s_zone(client, instructor):
    client.force_login(instructor)
    client.cookies[BROWSER_ZONE_COOKIE] = "America/New_York"
    lesson = LessonFactory()
    data = quiz_post(lesson, opens_at_0="2026-12-24", opens_at_1="09:30:00")
    assert client.post(reverse("admin:courses_quiz_add"), data).status_code == 302
    assert Quiz.objects.get(slug="final").opens_at == datetime(2026, 12, 24, 14, 30, tzinfo=UTC)


def test_a_time_that_does_not_exist_in_the_zone_is_refused_with_the_zone_named(client, instructor):
    """Auckland's clocks jump from 02:00 to 03:00 on 27 September 2026: 02:30 never happens."""
    Profile.objects.create(user=instructor, time_zone="Pacific/Auckland")
    client.force_login(instructor)
    data = quiz_post(LessonFactory(), opens_at_0="2026-09-27", opens_at_1="02:30:00")
    response = client.post(reverse("admin:courses_quiz_add"), data)
    assert response.status_code == 200
    assert "couldn’t be interpreted in time zone Pacific/Auckland" in response.content.decode()
    assert not Quiz.objects.exists()
