"""The "Teaching" link in every page's navigation (templates/base.html): shown to whoever
teaches a course (teaching/access.py decides: a role in any course, or a superuser), absent for
learners, staff without a course role and anonymous visitors; one EXISTS query at most."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from teaching.context_processors import teaching_navigation

pytestmark = pytest.mark.django_db

TEACHING_LINK = f'href="{reverse("teaching:courses")}"'


def role_queries(captured: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in captured if "teaching_courserole" in query["sql"]]


@pytest.mark.parametrize("who", ["instructor", "assistant", "other_assistant", "superuser"])
def test_whoever_teaches_a_course_sees_the_teaching_link_and_it_opens(client, people, who):
    client.force_login(getattr(people, who))
    page = client.get(reverse("home")).content.decode()
    assert TEACHING_LINK in page
    assert ">Teaching</a>" in page
    assert client.get(reverse("teaching:courses")).status_code == 200


@pytest.mark.parametrize("who", ["learner", "staff"])
def test_a_learner_or_staff_without_a_course_role_sees_no_teaching_link(client, people, who):
    client.force_login(getattr(people, who))
    page = client.get(reverse("home")).content.decode()
    assert "Authoring" in page if who == "staff" else "My progress" in page
    assert TEACHING_LINK not in page
    assert ">Teaching</a>" not in page
    assert client.get(reverse("teaching:courses")).status_code == 404


def test_an_inactive_user_s_role_shows_no_link(rf, people):
    # The link follows the decision the pages take: an inactive account teaches nothing.
    request = rf.get("/")
    request.user = people.assistant
    assert teaching_navigation(request)["teaches_a_course"]() is True
    people.assistant.is_active = False
    request = rf.get("/")
    request.user = people.assistant
    assert teaching_navigation(request)["teaches_a_course"]() is False


def test_an_anonymous_visitor_sees_no_link_and_costs_no_role_query(client, people):
    with CaptureQueriesContext(connection) as captured:
        page = client.get(reverse("home")).content.decode()
    assert TEACHING_LINK not in page
    assert role_queries(captured) == []


def test_the_link_costs_one_exists_query_and_a_superuser_none(client, people):
    client.force_login(people.learner)
    with CaptureQueriesContext(connection) as captured:
        client.get(reverse("home"))
    (asked,) = role_queries(captured)
    assert "LIMIT 1" in asked.upper()  # an EXISTS, not a list of the user's courses

    client.force_login(people.superuser)
    with CaptureQueriesContext(connection) as captured:
        assert TEACHING_LINK in client.get(reverse("home")).content.decode()
    assert role_queries(captured) == []


def test_the_link_marks_the_teaching_pages_as_current(client, people):
    client.force_login(people.assistant)
    page = client.get(reverse("teaching:courses")).content.decode()
    assert f'{TEACHING_LINK} aria-current="page"' in page
