"""An instructor's preview of a quiz (grading/services/previews.py, grading/views/previews.py):
who may start one, that it is unlimited and starts whether the quiz is open or not, that it
neither uses up, blocks nor renumbers the attempts its user made as a learner, that the learner's
pages show it with the banner, and that no learner can make one. Whoever teaches the course
starts nothing but previews, wherever they start (tests/grading/test_teacher_starts.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from courses.models import Quiz
from grading import scores, selectors
from grading.deletions import attempt_delete
from grading.models import Attempt
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.errors import AttemptLimitReached, QuizNotOpen
from grading.services.practice import practice_refusal
from grading.services.previews import PreviewNotAllowed, may_preview, preview_start
from teaching.models import CourseRole
from tests.factories import InstructorFactory, UserFactory
from tests.grading.exam_records import exam_build, instructor_of, sit, sit_preview

pytestmark = pytest.mark.django_db

BANNER = "Preview — not counted."


@pytest.fixture
def exam():
    return exam_build()


@pytest.fixture
def instructor(exam):
    return instructor_of(exam, first_name="Ines")


def role_in(course, kind):
    user = UserFactory()
    CourseRole.objects.create(course=course, user=user, role=kind)
    return user


def preview_url(quiz: Quiz) -> str:
    return reverse("quiz-preview", args=[quiz.slug])


# --- who may preview ---------------------------------------------------------------------------


def test_the_course_s_instructors_assistants_and_superusers_may_preview(exam, instructor):
    assistant = role_in(exam.quiz.lesson.course, CourseRole.Role.TEACHING_ASSISTANT)
    for user in (instructor, assistant, InstructorFactory()):
        assert may_preview(user=user, quiz=exam.quiz)
        assert preview_start(user=user, quiz=exam.quiz).preview


def test_a_learner_or_another_course_s_assistant_is_refused_and_nothing_is_written(exam):
    from tests.factories import CourseFactory

    other = role_in(CourseFactory(), CourseRole.Role.TEACHING_ASSISTANT)
    inactive = instructor_of(exam, is_active=False)
    for user in (UserFactory(), other, inactive, UserFactory(is_staff=True)):
        with pytest.raises(PreviewNotAllowed):
            preview_start(user=user, quiz=exam.quiz)
    assert not Attempt.objects.exists()


def test_without_a_rule_only_superusers_may_preview(settings, exam, instructor):
    settings.SOFTGRADE_PREVIEW_RULE = None
    assert not may_preview(user=instructor, quiz=exam.quiz)
    assert may_preview(user=InstructorFactory(), quiz=exam.quiz)


# --- unlimited, apart from the instructor's own attempts ---------------------------------------


def test_previews_are_unlimited_and_numbered_apart(exam, instructor):
    exam.quiz.attempts_allowed = 1
    exam.quiz.save()
    first = preview_start(user=instructor, quiz=exam.quiz)
    assert preview_start(user=instructor, quiz=exam.quiz) == first  # resumed, not a second
    made = [first] + [preview_start(user=instructor, quiz=exam.quiz, fresh=True) for _ in range(3)]
    assert [attempt.number for attempt in made] == [1, 2, 3, 4]
    for earlier in made[:-1]:
        earlier.refresh_from_db()
        assert earlier.status == Attempt.Status.SUBMITTED  # a fresh preview closes the last
    assert not Attempt.objects.counted().filter(user=instructor).exists()


def test_a_learner_s_attempts_neither_stop_nor_number_their_previews_once_they_teach(exam, learner):
    """A learner who used the quiz's one attempt, then became its instructor, still previews;
    and the previews, once they are a learner again, use up none of their attempts."""
    exam.quiz.attempts_allowed = 1
    exam.quiz.save()
    own = sit(exam, learner, choice="A", factor=1.0)
    role = CourseRole.objects.create(
        course=exam.quiz.lesson.course, user=learner, role=CourseRole.Role.INSTRUCTOR
    )
    previews = [preview_start(user=learner, quiz=exam.quiz, fresh=True) for _ in range(2)]
    assert [(p.number, p.preview) for p in previews] == [(1, True), (2, True)]
    role.delete()
    with pytest.raises(AttemptLimitReached):
        attempt_start(user=learner, quiz=exam.quiz)
    assert list(Attempt.objects.counted().filter(user=learner)) == [own]


def test_an_attempt_in_progress_is_never_resumed_as_a_preview_nor_the_reverse(exam, learner):
    own = attempt_start(user=learner, quiz=exam.quiz)
    role = CourseRole.objects.create(
        course=exam.quiz.lesson.course, user=learner, role=CourseRole.Role.INSTRUCTOR
    )
    preview = preview_start(user=learner, quiz=exam.quiz)
    assert preview != own
    assert preview.preview
    # While they teach, every start is the preview's; their learner's attempt waits for them.
    assert attempt_start(user=learner, quiz=exam.quiz) == preview
    role.delete()
    assert attempt_start(user=learner, quiz=exam.quiz) == own


def test_the_database_refuses_a_second_preview_in_progress(exam, instructor):
    preview_start(user=instructor, quiz=exam.quiz)
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(user=instructor, quiz=exam.quiz, number=2, preview=True)


def test_a_preview_starts_before_the_quiz_opens_and_after_it_closes(exam, instructor, learner):
    """An instructor checks a quiz before it opens more than at any other time; a learner is
    refused then. After the close the preview keeps the time limit, not the past close."""
    now = timezone.now()
    exam.quiz.opens_at = now + timedelta(days=1)
    exam.quiz.closes_at = now + timedelta(days=2)
    exam.quiz.time_limit_minutes = 30
    exam.quiz.save()
    with pytest.raises(QuizNotOpen):
        attempt_start(user=learner, quiz=exam.quiz, now=now)
    before = preview_start(user=instructor, quiz=exam.quiz, now=now)
    assert before.deadline == now + timedelta(minutes=30)
    later = now + timedelta(days=3)
    exam.quiz.opens_at, exam.quiz.closes_at = now - timedelta(days=2), now - timedelta(days=1)
    exam.quiz.save()
    after = preview_start(user=instructor, quiz=exam.quiz, fresh=True, now=later)
    assert after.status == Attempt.Status.IN_PROGRESS
    assert after.deadline == later + timedelta(minutes=30)
    # While the close is still ahead and sooner than the time limit, it ends the preview there,
    # as it would a learner's attempt.
    exam.quiz.closes_at = now + timedelta(minutes=10)
    exam.quiz.save()
    soon = preview_start(user=instructor, quiz=exam.quiz, fresh=True, now=now)
    assert soon.deadline == exam.quiz.closes_at


# --- what counts: the learner's own surfaces, best scores, practice -----------------------------


def test_previews_are_in_no_count_of_the_instructor_s_own(exam, instructor):
    preview = sit_preview(exam, instructor)
    assert preview.score == 5.0
    assert selectors.learner_quiz_attempts(user=instructor, quiz=exam.quiz) == []
    assert selectors.learner_attempts(user=instructor) == []
    progress = selectors.lesson_progress(
        user=instructor, lessons=[exam.quiz.lesson], now=timezone.now()
    )
    quiz_row = progress[exam.quiz.lesson_id].quizzes[0]
    assert (quiz_row.attempts, quiz_row.submitted, quiz_row.best_score) == (0, 0, None)
    assert scores.best_attempt(user=instructor, quiz=exam.quiz) is None
    mine = Attempt.objects.filter(user=instructor, quiz=exam.quiz)
    assert mine.aggregate(best=scores.best_score())["best"] is None
    # Once they are a learner of the course, their attempt counts, below the preview's 5.
    CourseRole.objects.filter(user=instructor).delete()
    own = sit(exam, instructor, choice="B", factor=1.05)
    assert scores.best_attempt(user=instructor, quiz=exam.quiz) == own
    assert [a.pk for a in selectors.learner_quiz_attempts(user=instructor, quiz=exam.quiz)] == [
        own.pk
    ]


def test_a_previewed_exam_does_not_pause_the_instructor_s_practice(exam, instructor, learner):
    preview_start(user=instructor, quiz=exam.quiz)
    assert practice_refusal(user=instructor, problem=exam.problem) is None
    attempt_start(user=instructor, quiz=exam.quiz)  # a preview too
    assert practice_refusal(user=instructor, problem=exam.problem) is None
    attempt_start(user=learner, quiz=exam.quiz)
    assert practice_refusal(user=learner, problem=exam.problem) is not None


def test_deleting_an_attempt_tells_the_lms_of_the_best_counted_one(
    exam, hook_calls, django_capture_on_commit_callbacks
):
    """The hook is told of a remaining attempt that counts, never of a preview."""
    instructor = UserFactory()
    first = sit(exam, instructor, choice="A", factor=1.0)
    second = sit(exam, instructor, choice="B", factor=1.05)
    # Their learner's attempts stay theirs once they teach the course, and preview it.
    CourseRole.objects.create(
        course=exam.quiz.lesson.course, user=instructor, role=CourseRole.Role.INSTRUCTOR
    )
    sit_preview(exam, instructor)  # the newest attempt, submitted
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        attempt_delete(attempt=first, by=InstructorFactory(), reason="Sat it twice by mistake.")
    assert hook_calls == [second.pk]


# --- the action and the learner's pages --------------------------------------------------------


def test_the_action_starts_a_preview_on_the_learner_s_page_with_the_banner(
    client, exam, instructor
):
    client.force_login(instructor)
    response = client.post(preview_url(exam.quiz))
    preview = Attempt.objects.get(user=instructor)
    assert preview.preview
    assert response.status_code == 302
    assert response["Location"] == reverse("attempt-take", args=[preview.pk])
    page = client.get(response["Location"]).content.decode()
    assert BANNER in page
    assert "Preview 1" in page
    # Again: the same preview, resumed; with fresh=1 a new one.
    assert client.post(preview_url(exam.quiz))["Location"] == response["Location"]
    client.post(preview_url(exam.quiz), {"fresh": "1"})
    assert list(Attempt.objects.filter(user=instructor).values_list("number", flat=True)) == [
        2,
        1,
    ]
    newest = Attempt.objects.filter(user=instructor).first()
    client.post(reverse("attempt-submit", args=[newest.pk]))
    results = client.get(reverse("attempt-results", args=[newest.pk])).content.decode()
    assert BANNER in results


def test_a_learner_s_own_pages_show_no_banner(client, exam, learner):
    client.force_login(learner)
    client.post(reverse("attempt-start", args=[exam.quiz.slug]))
    attempt = Attempt.objects.get(user=learner)
    page = client.get(reverse("attempt-take", args=[attempt.pk])).content.decode()
    assert BANNER not in page
    assert "Attempt 1" in page


@pytest.mark.parametrize("who", ["learner", "other_assistant", "staff"])
def test_the_action_is_a_404_for_whoever_does_not_teach_the_course(client, exam, who):
    from tests.factories import CourseFactory

    users = {
        "learner": UserFactory(),
        "other_assistant": role_in(CourseFactory(), CourseRole.Role.TEACHING_ASSISTANT),
        "staff": UserFactory(is_staff=True),
    }
    client.force_login(users[who])
    assert client.post(preview_url(exam.quiz)).status_code == 404
    assert client.post(preview_url(exam.quiz), {"fresh": "1"}).status_code == 404
    assert not Attempt.objects.exists()


def test_the_action_sends_an_anonymous_visitor_to_sign_in_and_writes_nothing(client, exam):
    response = client.post(preview_url(exam.quiz))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert not Attempt.objects.exists()


def test_the_action_takes_only_a_post(client, exam, instructor):
    client.force_login(instructor)
    assert client.get(preview_url(exam.quiz)).status_code == 405
    assert not Attempt.objects.exists()


def test_a_learner_cannot_make_a_preview_with_a_form_field(client, exam, learner):
    exam.quiz.attempts_allowed = 1
    exam.quiz.save()
    client.force_login(learner)
    client.post(reverse("attempt-start", args=[exam.quiz.slug]), {"preview": "1", "fresh": "1"})
    attempt = Attempt.objects.get(user=learner)
    assert not attempt.preview
    attempt_submit(attempt=attempt)
    client.post(reverse("attempt-start", args=[exam.quiz.slug]), {"preview": "true"})
    assert Attempt.objects.filter(user=learner).count() == 1  # the limit holds


def test_the_quiz_page_of_an_instructor_lists_no_preview(client, exam, instructor):
    sit_preview(exam, instructor)
    client.force_login(instructor)
    page = client.get(reverse("quiz-detail", args=[exam.quiz.slug])).content.decode()
    assert "0 used" in page
    history = client.get(reverse("history")).content.decode()
    assert exam.quiz.title not in history


# --- where the action is offered ----------------------------------------------------------------


def test_the_quiz_s_instructor_page_offers_the_preview_to_whoever_teaches_it(client, exam):
    assistant = role_in(exam.quiz.lesson.course, CourseRole.Role.TEACHING_ASSISTANT)
    client.force_login(assistant)
    page = client.get(reverse("teaching:quiz-results", args=[exam.quiz.slug])).content.decode()
    assert f'action="{preview_url(exam.quiz)}"' in page
    assert "Preview as a learner" in page
    client.post(preview_url(exam.quiz))
    assert Attempt.objects.get(user=assistant).preview


def test_the_admin_s_quiz_page_links_to_the_preview(client, exam):
    client.force_login(InstructorFactory())
    page = client.get(reverse("admin:courses_quiz_change", args=[exam.quiz.pk])).content.decode()
    teaching_page = reverse("teaching:quiz-results", args=[exam.quiz.slug])
    assert f'href="{teaching_page}#preview">Preview as a learner</a>' in page
    new = client.get(reverse("admin:courses_quiz_add")).content.decode()
    assert "Save the quiz first, then preview it as a learner." in new
