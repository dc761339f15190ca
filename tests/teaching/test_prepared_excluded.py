"""Prepared attempts (grading/services/prepared.py) count and show nowhere: every instructor
report reads the same before and after learners open the exam's page (which prepares their next
attempt, its variants made), and no learner page, API answer or admin list shows one.

The reports are those an instructor's previews must not change either
(tests/teaching/test_previews_excluded.py); here the one place that decides is the default
manager (grading.models.started_attempt).
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from grading.models import Attempt, Variant
from grading.services.prepared import attempt_prepare
from tests.api.conftest import session_client
from tests.factories import UserFactory
from tests.teaching.test_grades_api import campus, registration  # noqa: F401 (fixtures)
from tests.teaching.test_previews_excluded import REPORTS, Setting

pytestmark = pytest.mark.django_db


@pytest.fixture
def setting(exam, people, learners, client, campus):  # noqa: F811 (imported fixture)
    client.force_login(people.instructor)
    return Setting(exam, people, learners, client, campus, timezone.now())


def prepared_made(setting: Setting) -> list[Attempt]:
    """The prepared attempts of Ann (three submitted), Dan (none yet, an LMS member) and Zoltan
    (nobody the course knows yet): those with an attempt in progress have none."""
    quiz = setting.exam.quiz
    learners = [setting.learners["ann"], setting.learners["dan"], UserFactory(first_name="Zoltan")]
    made = [attempt_prepare(user=user, quiz=quiz) for user in learners]
    assert all(attempt is not None for attempt in made)
    assert Variant.objects.filter(attempt__in=made).count() == 3
    return made


@pytest.mark.parametrize("report", list(REPORTS))
def test_prepared_attempts_change_no_report(setting, report):
    read = REPORTS[report]
    before = read(setting)
    prepared_made(setting)
    assert read(setting) == before


def test_the_results_page_names_no_learner_of_a_prepared_attempt_alone(setting):
    results = reverse("teaching:quiz-results", args=[setting.exam.quiz.slug])
    assert "Zoltan" not in setting.client.get(results).content.decode()
    prepared_made(setting)
    page = setting.client.get(results)
    assert page.status_code == 200
    assert "Zoltan" not in page.content.decode()


def test_a_learner_s_pages_show_no_prepared_attempt(client, setting):
    dan = setting.learners["dan"]
    client.force_login(dan)
    quiz = setting.exam.quiz
    page = client.get(reverse("quiz-detail", args=[quiz.slug])).content.decode()
    prepared = Attempt.prepared.get(user=dan)  # the page made it
    assert "Your attempts" not in page
    assert "Attempt 1" not in page
    assert "Start attempt 1" in page
    history = client.get(reverse("history")).content.decode()
    assert quiz.title not in history
    # Its own pages are not found: nothing of it is shown before it starts.
    for name in ("attempt-take", "attempt-results", "attempt-submit"):
        assert client.get(reverse(name, args=[prepared.pk])).status_code == 404
    item = setting.exam.problem_item
    answered = client.post(reverse("attempt-answer", args=[prepared.pk, item.pk]), {"answer": "1"})
    assert answered.status_code == 404
    assert not prepared.responses.exists()


def test_the_api_shows_a_learner_no_prepared_attempt(setting):
    dan = setting.learners["dan"]
    prepared = attempt_prepare(user=dan, quiz=setting.exam.quiz)
    api = session_client(dan)
    assert api.get("/api/v1/attempts/").json()["results"] == []
    for path in ("", "items/"):
        assert api.get(f"/api/v1/attempts/{prepared.pk}/{path}").status_code == 404
    item = setting.exam.problem_item
    answer = api.post(
        f"/api/v1/attempts/{prepared.pk}/items/{item.pk}/answers/", {"text": "1"}, format="json"
    )
    assert answer.status_code == 404
    submit = api.post(f"/api/v1/attempts/{prepared.pk}/submit/")
    assert submit.status_code == 404
    # Nor are its numbers, before the exam opens.
    variant = prepared.variants.get()
    assert api.get(f"/api/v1/variants/{variant.pk}/").status_code == 404
    assert Attempt.prepared.get(pk=prepared.pk).status == Attempt.Status.PREPARED


def test_the_admin_lists_no_prepared_attempt(client, setting):
    made = prepared_made(setting)
    client.force_login(setting.people.superuser)
    listing = client.get(reverse("admin:grading_attempt_changelist"))
    assert listing.status_code == 200
    shown = listing.context["cl"].result_count
    assert shown == Attempt.objects.count()
    assert shown == len(setting.learners["attempts"]["ann"]) + 3  # Ben's two, Cai's one
    page = client.get(reverse("admin:grading_attempt_change", args=[made[0].pk]))
    assert page.status_code == 302  # the admin's "doesn't exist" redirect
    # Nor is a status offered that no listed attempt can have.
    offered = listing.content.decode()
    assert "status__exact=submitted" in offered
    assert "status__exact=prepared" not in offered
    assert "Prepared (not started)" not in offered


def test_the_reverse_relations_hold_no_prepared_attempt(setting):
    made = prepared_made(setting)
    ann = setting.learners["ann"]
    assert made[0] not in ann.attempts.all()
    assert made[0] not in setting.exam.quiz.attempts.all()
    assert ann.attempts.count() == 3
