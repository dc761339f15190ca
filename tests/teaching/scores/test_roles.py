"""Who may change a learner's score (teaching.access.may_change_scores, the one rule the pages
and grading's services ask): the course's instructors and superusers. A teaching assistant sees
the scores and their history but gets no form, and a score change they send is a 403; anyone
outside the course gets the 404 of a missing page; anonymous visitors are sent to sign in. No
refused POST changes anything."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from grading.models import Attempt, Regrade, ScoreChange
from teaching import access
from teaching.models import CourseRole
from tests.factories import UserFactory
from tests.grading.exam_records import sit

pytestmark = pytest.mark.django_db

CHANGES = 302  # applied, redirected to the page (POST/redirect/GET)
REFUSED = 403
HIDDEN = 404
LOGIN = 302


@pytest.fixture
def other_instructor(course_b):
    user = UserFactory()
    CourseRole.objects.create(course=course_b, user=user, role=CourseRole.Role.INSTRUCTOR)
    return user


def who_is(name, people, other_instructor):
    if name == "other_instructor":
        return other_instructor
    if name == "anonymous":
        return AnonymousUser()
    return getattr(people, name)


ROLES = [
    ("instructor", True),
    ("superuser", True),
    ("assistant", False),
    ("other_instructor", False),
    ("other_assistant", False),
    ("learner", False),
    ("staff", False),
    ("anonymous", False),
]


@pytest.mark.parametrize(("name", "may"), ROLES)
def test_only_the_course_s_instructors_and_superusers_may_change_scores(
    exam, people, other_instructor, name, may
):
    user = who_is(name, people, other_instructor)
    assert access.may_change_scores(user=user, quiz=exam.quiz) is may


def test_an_inactive_instructor_may_not(exam, people):
    people.instructor.is_active = False
    assert not access.may_change_scores(user=people.instructor, quiz=exam.quiz)


@pytest.fixture
def attempt(exam, people):
    return sit(exam, people.learner, choice="B", factor=1.05)  # 0 of 5


def unchanged(attempt) -> bool:
    return (
        Attempt.objects.get(pk=attempt.pk).score == 0.0
        and not ScoreChange.objects.exists()
        and not Regrade.objects.exists()
    )


POSTS = [
    ("instructor", CHANGES),
    ("superuser", CHANGES),
    ("assistant", REFUSED),
    ("other_instructor", HIDDEN),
    ("other_assistant", HIDDEN),
    ("learner", HIDDEN),  # the attempt is their own: still not theirs to score
    ("staff", HIDDEN),
    ("anonymous", LOGIN),
]


MAY = {name for name, may in ROLES if may}


@pytest.mark.parametrize(("name", "expected"), POSTS)
def test_an_override_is_for_instructors_only(
    client, exam, people, other_instructor, attempt, name, expected
):
    user = who_is(name, people, other_instructor)
    if user.is_authenticated:
        client.force_login(user)
    url = reverse("teaching:item-override", args=[attempt.pk, exam.question_item.pk])
    response = client.post(url, {"score": "2", "reason": "B is defensible."})
    assert response.status_code == expected
    if name == "anonymous":
        assert response["Location"].startswith(reverse("login") + "?next=/teach/")
    if name in MAY:
        assert Attempt.objects.get(pk=attempt.pk).score == 2.0
        assert ScoreChange.objects.get().by == user
    else:
        assert unchanged(attempt)


@pytest.mark.parametrize(("name", "expected"), POSTS)
def test_grading_by_item_is_for_instructors_only(
    client, exam, people, other_instructor, attempt, name, expected
):
    user = who_is(name, people, other_instructor)
    if user.is_authenticated:
        client.force_login(user)
    url = reverse("teaching:item-grading", args=[exam.quiz.slug, exam.question_item.pk])
    response = client.post(url, {"attempt": attempt.pk, "score": "2", "reason": "Fair."})
    assert response.status_code == expected
    if name == "anonymous":
        assert response["Location"].startswith(reverse("login") + "?next=/teach/")
    if name in MAY:
        assert response["Location"] == f"{url}#grade-{attempt.pk}"
        assert Attempt.objects.get(pk=attempt.pk).score == 2.0
        assert ScoreChange.objects.get().by == user
    else:
        assert unchanged(attempt)


@pytest.mark.parametrize(("name", "expected"), POSTS)
def test_a_regrade_is_for_instructors_only(
    client, exam, people, other_instructor, attempt, name, expected
):
    """B made right instead of A: applied, the learner's B gains the question's 2 points."""
    mistaken = exam.choices["B"].misconception
    sent = {
        "fix": "1",
        "correct": str(exam.choices["B"].pk),
        f"misconception_{exam.choices['A'].pk}": str(mistaken.pk),
        f"misconception_{exam.choices['C'].pk}": str(mistaken.pk),
    }
    url = reverse("teaching:item-regrade", args=[exam.question_item.pk])
    # The digest of the preview an instructor would see.
    client.force_login(people.instructor)
    page = client.get(url, sent).content.decode()
    marker = 'name="digest" value="'
    sent["digest"] = page[page.index(marker) + len(marker) :].split('"', 1)[0]
    client.logout()

    user = who_is(name, people, other_instructor)
    if user.is_authenticated:
        client.force_login(user)
    response = client.post(url, sent)
    assert response.status_code == expected
    if name == "anonymous":
        assert response["Location"].startswith(reverse("login") + "?next=/teach/")
    if name in MAY:
        assert response["Location"] == url
        assert Attempt.objects.get(pk=attempt.pk).score == 2.0
        assert Regrade.objects.get().by == user
    else:
        assert unchanged(attempt)
        assert exam.question_item.question.choices.get(is_correct=True) == exam.choices["A"]


@pytest.mark.parametrize(("name", "forms"), [("instructor", True), ("assistant", False)])
def test_the_forms_are_shown_only_to_those_who_may_use_them(
    client, exam, people, attempt, name, forms
):
    client.force_login(getattr(people, name))
    pages = {
        "attempt": reverse("teaching:attempt", args=[attempt.pk]),
        "override": reverse("teaching:item-override", args=[attempt.pk, exam.question_item.pk]),
        "regrade": reverse("teaching:item-regrade", args=[exam.question_item.pk]),
    }
    for page, url in pages.items():
        body = client.get(url).content.decode()
        main = body[body.index("<main") : body.index("</main>")]
        # The only form of a page without score forms is the sign-out button outside <main>.
        assert ("<form" in main) is forms, page
