"""Every time a page shows is written by the server in its reader's zone, the zone named
(accounts/moments.py, the `{% local_time %}` tag); the pages need no script to be right."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template, TemplateSyntaxError
from django.urls import reverse
from django.utils import timezone as django_timezone

from accounts.moments import moment_text, zone_abbreviation
from accounts.time_zones import BROWSER_ZONE_COOKIE
from courses.models import Quiz
from grading.services.attempts import attempt_start
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db

CLOSE = datetime(2027, 1, 20, 12, 0, tzinfo=UTC)
AUCKLAND = ZoneInfo("Pacific/Auckland")


def render(text: str, **context) -> str:
    return Template("{% load local_times %}" + text).render(Context(context))


def test_a_moment_is_written_in_the_active_zone_the_zone_named_whatever_zone_it_came_in():
    india = timezone(timedelta(hours=5, minutes=30))
    moment = datetime(2027, 1, 20, 17, 30, tzinfo=india)  # 12:00 UTC, 01:00 next day in Auckland
    with django_timezone.override(AUCKLAND):
        assert render("{% local_time moment %}", moment=moment) == (
            '<time datetime="2027-01-20T12:00:00Z" title="Pacific/Auckland">'
            "21 Jan 2027, 01:00 NZDT</time>"
        )
        assert render('{% local_time moment "time" %}', moment=moment) == (
            '<time datetime="2027-01-20T12:00:00Z" title="Pacific/Auckland">01:00 NZDT</time>'
        )
        assert "21 Jan 2027, 01:00:07 NZDT" in render(
            '{% local_time moment "seconds" %}', moment=moment + timedelta(seconds=7)
        )
    with django_timezone.override(ZoneInfo("UTC")):
        assert render("{% local_time moment %}", moment=moment) == (
            '<time datetime="2027-01-20T12:00:00Z" title="UTC">20 Jan 2027, 12:00 UTC</time>'
        )
    assert render("{% local_time moment %}", moment=None) == ""
    with pytest.raises(TemplateSyntaxError, match="no style 'year'"):
        render('{% local_time moment "year" %}', moment=moment)


def test_the_zone_is_named_by_its_letters_or_by_its_offset_where_it_has_none():
    winter = datetime(2027, 7, 1, 12, 0, tzinfo=UTC)
    assert moment_text(winter.astimezone(AUCKLAND)) == moment_text(winter)  # whatever zone given
    for zone, text in [
        ("Pacific/Auckland", "2 Jul 2027, 00:00 NZST"),  # winter, not NZDT
        ("America/New_York", "1 Jul 2027, 08:00 EDT"),
        ("Asia/Kolkata", "1 Jul 2027, 17:30 IST"),
        ("Asia/Kathmandu", "1 Jul 2027, 17:45 UTC+5:45"),  # the tz database says "+0545"
        ("America/Sao_Paulo", "1 Jul 2027, 09:00 UTC-3"),  # and "-03"
    ]:
        with django_timezone.override(ZoneInfo(zone)):
            assert moment_text(winter) == text, zone
    assert zone_abbreviation(datetime(2027, 1, 1, tzinfo=ZoneInfo("Asia/Tehran"))) == "UTC+3:30"
    with pytest.raises(ValueError, match="no time style 'week'"):
        moment_text(winter, "week")


def test_quiz_and_attempt_pages_give_times_in_the_browser_s_zone_without_a_script(
    learner_client, learner
):
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM,
        show_feedback=Quiz.Feedback.AFTER_SUBMISSION,
        time_limit_minutes=30,
        closes_at=CLOSE,
    )
    attempt = attempt_start(user=learner, quiz=quiz)
    learner_client.cookies[BROWSER_ZONE_COOKIE] = "Pacific/Auckland"
    detail = learner_client.get(reverse("quiz-detail", kwargs={"slug": quiz.slug}))
    html = detail.content.decode()
    assert (
        '<dd><time datetime="2027-01-20T12:00:00Z" title="Pacific/Auckland">'
        "21 Jan 2027, 01:00 NZDT</time></dd>" in html
    )
    started = attempt.started_at.astimezone(AUCKLAND)
    assert f"{started:%H:%M} NZDT</time>" in html  # the attempts table
    assert "local-time.js" not in html
    assert '<script src="/static/js/time-zone.js" defer></script>' in html

    take = learner_client.get(reverse("attempt-take", kwargs={"pk": attempt.pk}))
    deadline = attempt.deadline.astimezone(AUCKLAND)
    assert "The attempt closes at <time datetime=" in take.content.decode()
    assert f'title="Pacific/Auckland">{deadline:%H:%M} NZDT</time>' in take.content.decode()


def test_until_the_browser_has_said_its_zone_times_are_in_utc_named_so(learner_client):
    QuizFactory(slug="closing", closes_at=CLOSE)
    html = learner_client.get(reverse("quiz-detail", kwargs={"slug": "closing"})).content.decode()
    assert '<time datetime="2027-01-20T12:00:00Z" title="UTC">20 Jan 2027, 12:00 UTC</time>' in html


def test_names_the_admin_lists_show_give_their_times_in_the_reader_s_zone():
    from django.contrib import admin

    from integrations.models import ApiKey
    from lti.models import RegistrationInvite

    made = datetime(2027, 1, 20, 12, 0, tzinfo=UTC)
    invite = RegistrationInvite(created_at=made, expires_at=made + timedelta(days=1))
    key = ApiKey(revoked_at=made)
    with django_timezone.override(AUCKLAND):
        assert str(invite) == (
            "registration link of 21 Jan 2027, 01:00 NZDT (open until 22 Jan 2027, 01:00 NZDT)"
        )
        assert admin.site.get_model_admin(ApiKey).state(key) == "revoked 21 Jan 2027, 01:00 NZDT"


def test_the_admin_learns_the_browser_s_zone_too(admin_client):
    """An instructor whose first page is the admin's gets its times in their zone from the next
    page on, as on the site's own pages: the admin loads the same script."""
    html = admin_client.get(reverse("admin:index")).content.decode()
    assert '<script src="/static/js/time-zone.js" defer></script>' in html
    assert 'id="admin-time-zone">Times in UTC</a>' in html
