"""Prepared attempts (grading/services/prepared.py): made when a learner opens the quiz page,
started by one guarded update, discarded when the quiz's items change, cleaned up when never
started, and counted nowhere until then."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from courses.models import Quiz
from grading.models import Attempt, AttemptDraw, QuizAccommodation, Variant
from grading.services.attempts import attempt_start, attempt_start_or_resume
from grading.services.closing import attempt_submit
from grading.services.errors import AttemptLimitReached, QuizNotOpen
from grading.services.prepared import (
    attempt_prepare,
    items_key,
    prepared_attempt,
    prepared_attempts_sweep,
)
from teaching.models import CourseRole
from tests.factories import ProblemFactory, QuizItemFactory, UserFactory
from tests.grading.exam_records import exam_build, instructor_of
from tests.grading.pools import quiz_with_pool, two_choice_question

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    built = exam_build()
    built.quiz.time_limit_minutes = 30
    built.quiz.save()
    return built


def quiz_url(quiz: Quiz) -> str:
    return reverse("quiz-detail", kwargs={"slug": quiz.slug})


def start_url(quiz: Quiz) -> str:
    return reverse("attempt-start", kwargs={"slug": quiz.slug})


def variants_of(attempt: Attempt) -> list[tuple[int, int, int]]:
    return sorted(attempt.variants.values_list("pk", "quiz_item_id", "seed"))


# --- preparing ---------------------------------------------------------------------------------


def test_opening_the_quiz_page_prepares_one_attempt_without_a_clock(learner_client, learner, exam):
    assert learner_client.get(quiz_url(exam.quiz)).status_code == 200
    prepared = Attempt.prepared.get(user=learner, quiz=exam.quiz)
    assert (prepared.number, prepared.deadline, prepared.preview) == (1, None, False)
    assert prepared.max_score == 5.0
    assert (prepared.shuffle_items, prepared.shuffle_choices) == (True, True)  # an exam's
    assert [item for _, item, _ in variants_of(prepared)] == [exam.problem_item.pk]
    # A second load (and a third) finds it: one prepared attempt, the same variants.
    variants = variants_of(prepared)
    learner_client.get(quiz_url(exam.quiz))
    learner_client.get(quiz_url(exam.quiz))
    assert list(Attempt.prepared.filter(user=learner)) == [prepared]
    assert variants_of(prepared) == variants
    assert Variant.objects.filter(attempt__user=learner).count() == 1


def test_preparing_is_idempotent(learner, exam):
    first = attempt_prepare(user=learner, quiz=exam.quiz)
    assert first is not None
    assert attempt_prepare(user=learner, quiz=exam.quiz) == first
    assert Attempt.prepared.count() == 1


def test_the_database_refuses_a_second_prepared_attempt(learner, exam):
    attempt_prepare(user=learner, quiz=exam.quiz)
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(
            user=learner, quiz=exam.quiz, number=2, status=Attempt.Status.PREPARED
        )


def test_the_database_refuses_a_clock_on_a_prepared_attempt(learner, exam):
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(
            user=learner,
            quiz=exam.quiz,
            number=1,
            status=Attempt.Status.PREPARED,
            deadline=timezone.now(),
        )


def test_nothing_is_prepared_with_an_attempt_in_progress_or_none_left(
    learner_client, learner, exam
):
    exam.quiz.attempts_allowed = 1
    exam.quiz.save()
    attempt = attempt_start(user=learner, quiz=exam.quiz)
    learner_client.get(quiz_url(exam.quiz))
    assert attempt_prepare(user=learner, quiz=exam.quiz) is None
    assert not Attempt.prepared.exists()
    attempt_submit(attempt=attempt)
    page = learner_client.get(quiz_url(exam.quiz)).content.decode()
    assert "You have used all 1 attempt" in page
    assert attempt_prepare(user=learner, quiz=exam.quiz) is None
    assert not Attempt.prepared.exists()


def test_nothing_is_prepared_once_the_quiz_has_closed(learner_client, learner, exam):
    exam.quiz.closes_at = timezone.now() - timedelta(minutes=1)
    exam.quiz.save()
    learner_client.get(quiz_url(exam.quiz))
    assert attempt_prepare(user=learner, quiz=exam.quiz) is None
    assert not Attempt.prepared.exists()


def test_a_pool_too_small_prepares_nothing_and_the_start_says_why(learner_client, learner):
    quiz, _ = quiz_with_pool(draw=3, questions=2)
    assert learner_client.get(quiz_url(quiz)).status_code == 200
    assert not Attempt.prepared.exists()
    with pytest.raises(QuizNotOpen, match="has 2 questions or problems for 3 items"):
        attempt_start(user=learner, quiz=quiz)


def test_an_instructor_s_quiz_page_prepares_nothing_and_previews_stay_as_they_are(client, exam):
    instructor = instructor_of(exam)
    client.force_login(instructor)
    client.get(quiz_url(exam.quiz))
    assert not Attempt.prepared.exists()
    preview = attempt_start(user=instructor, quiz=exam.quiz)
    assert (preview.preview, preview.status) == (True, Attempt.Status.IN_PROGRESS)


# --- starting ----------------------------------------------------------------------------------


def test_the_start_starts_the_prepared_attempt_with_its_variants(learner_client, learner, exam):
    learner_client.get(quiz_url(exam.quiz))
    prepared = Attempt.prepared.get(user=learner)
    variants = variants_of(prepared)
    draws_before = list(AttemptDraw.objects.filter(attempt=prepared).values_list("pk"))
    before = timezone.now()
    response = learner_client.post(start_url(exam.quiz))
    assert response.url == reverse("attempt-take", kwargs={"pk": prepared.pk})
    started = Attempt.objects.get(pk=prepared.pk)
    assert started.status == Attempt.Status.IN_PROGRESS
    assert started.started_at >= before
    assert started.deadline == started.started_at + timedelta(minutes=30)
    assert variants_of(started) == variants  # not regenerated
    assert list(AttemptDraw.objects.filter(attempt=started).values_list("pk")) == draws_before
    assert not Attempt.prepared.exists()
    # The attempt page shows it; a second start resumes it.
    assert learner_client.get(response.url).status_code == 200
    assert learner_client.post(start_url(exam.quiz)).url == response.url
    assert Attempt.objects.filter(user=learner).count() == 1


def test_a_start_says_it_started_the_prepared_attempt(learner, exam):
    prepared = attempt_prepare(user=learner, quiz=exam.quiz)
    started = attempt_start_or_resume(user=learner, quiz=exam.quiz)
    assert (started.attempt.pk, started.created) == (prepared.pk, True)
    again = attempt_start_or_resume(user=learner, quiz=exam.quiz)
    assert (again.attempt.pk, again.created) == (prepared.pk, False)


def test_the_start_schedules_the_close_of_the_prepared_attempt(
    learner, exam, django_capture_on_commit_callbacks, monkeypatch
):
    scheduled = []
    monkeypatch.setattr(
        "grading.services.attempts.attempt_close_schedule",
        lambda **kwargs: scheduled.append(kwargs),
    )
    exam.quiz.grace_minutes = 2
    exam.quiz.save()
    prepared = attempt_prepare(user=learner, quiz=exam.quiz)
    with django_capture_on_commit_callbacks(execute=True):
        attempt = attempt_start(user=learner, quiz=exam.quiz)
    assert attempt.pk == prepared.pk
    assert scheduled == [
        {"attempt_id": prepared.pk, "when": attempt.deadline + timedelta(minutes=2)}
    ]


def test_an_accommodation_s_extra_time_applies_at_the_start(learner, exam):
    prepared = attempt_prepare(user=learner, quiz=exam.quiz)
    # Given after the attempt was prepared: the start, not the preparing, sets the clock.
    QuizAccommodation.objects.create(quiz=exam.quiz, learner=learner, extra_minutes=15)
    now = timezone.now()
    attempt = attempt_start(user=learner, quiz=exam.quiz, now=now)
    assert attempt.pk == prepared.pk
    assert attempt.deadline == now + timedelta(minutes=45)
    assert Attempt.objects.get(pk=prepared.pk).deadline == now + timedelta(minutes=45)


def test_an_own_due_date_caps_the_deadline_at_the_start(learner, exam):
    attempt_prepare(user=learner, quiz=exam.quiz)
    now = timezone.now()
    QuizAccommodation.objects.create(
        quiz=exam.quiz, learner=learner, closes_at=now + timedelta(minutes=10)
    )
    assert attempt_start(user=learner, quiz=exam.quiz, now=now).deadline == now + timedelta(
        minutes=10
    )


def test_a_start_before_the_opening_is_refused_and_keeps_the_prepared_attempt(
    learner_client, learner, exam
):
    opens = timezone.now() + timedelta(hours=1)
    exam.quiz.opens_at = opens
    exam.quiz.save()
    learner_client.get(quiz_url(exam.quiz))
    prepared = Attempt.prepared.get(user=learner)
    with pytest.raises(QuizNotOpen, match=f"opens at {opens:%-d %b %Y, %H:%M} UTC"):
        attempt_start(user=learner, quiz=exam.quiz)
    response = learner_client.post(start_url(exam.quiz), follow=True)
    assert f"This quiz opens at {opens:%-d %b %Y, %H:%M} UTC." in response.content.decode()
    assert list(Attempt.prepared.all()) == [prepared]
    assert not Attempt.objects.exists()
    # At the opening instant it starts.
    assert attempt_start(user=learner, quiz=exam.quiz, now=opens).pk == prepared.pk


def test_an_unpublished_quiz_refuses_the_start_of_a_prepared_attempt(learner, exam):
    attempt_prepare(user=learner, quiz=exam.quiz)
    Quiz.objects.filter(pk=exam.quiz.pk).update(published=False)
    exam.quiz.refresh_from_db()
    with pytest.raises(QuizNotOpen, match="not published"):
        attempt_start(user=learner, quiz=exam.quiz)
    assert Attempt.prepared.exists()


def test_the_attempt_limit_holds_with_a_prepared_attempt(learner, exam):
    exam.quiz.attempts_allowed = 2
    exam.quiz.save()
    attempt_submit(attempt=attempt_start(user=learner, quiz=exam.quiz))
    prepared = attempt_prepare(user=learner, quiz=exam.quiz)
    # The prepared one uses up nothing: one attempt used of two.
    assert Attempt.objects.counted().filter(user=learner).count() == 1
    assert prepared.number == 2
    second = attempt_start(user=learner, quiz=exam.quiz)
    assert (second.pk, second.number) == (prepared.pk, 2)
    attempt_submit(attempt=second)
    assert attempt_prepare(user=learner, quiz=exam.quiz) is None
    with pytest.raises(AttemptLimitReached, match="used all 2 attempts"):
        attempt_start(user=learner, quiz=exam.quiz)


def test_a_prepared_attempt_takes_the_next_number_at_its_start(learner, exam):
    """An attempt deleted after the preparing leaves its number free: the start takes the
    number the learner's attempts lead to then."""
    first = attempt_start(user=learner, quiz=exam.quiz)
    attempt_submit(attempt=first)
    prepared = attempt_prepare(user=learner, quiz=exam.quiz)
    assert prepared.number == 2
    Attempt.objects.filter(pk=first.pk).delete()
    assert attempt_start(user=learner, quiz=exam.quiz).number == 1


def test_a_prepared_attempt_of_a_learner_who_now_teaches_is_not_started(learner, exam):
    prepared = attempt_prepare(user=learner, quiz=exam.quiz)
    CourseRole.objects.create(
        course=exam.quiz.lesson.course, user=learner, role=CourseRole.Role.TEACHING_ASSISTANT
    )
    preview = attempt_start(user=learner, quiz=exam.quiz)
    assert preview.preview
    assert preview.pk != prepared.pk
    assert Attempt.prepared.filter(pk=prepared.pk).exists()


def test_without_a_prepared_attempt_the_start_makes_one_as_before(learner, exam):
    attempt = attempt_start(user=learner, quiz=exam.quiz)
    assert attempt.status == Attempt.Status.IN_PROGRESS
    assert attempt.deadline is not None
    assert attempt.variants.count() == 1
    assert not Attempt.prepared.exists()


# --- the quiz's items changed since preparing ------------------------------------------------


def _points_changed(exam, quiz):
    exam.problem_item.points = 4
    exam.problem_item.save()


def _item_added(exam, quiz):
    QuizItemFactory(quiz=quiz, question=None, problem=ProblemFactory(lesson=quiz.lesson), order=3)


def _item_removed(exam, quiz):
    exam.question_item.delete()  # a question: no variant of the prepared attempt names it


def _order_changed(exam, quiz):
    exam.question_item.order = 5
    exam.question_item.save()


def _problem_changed(exam, quiz):
    exam.problem.params = {"d_k_choices": [4, 8]}
    exam.problem.save()


def _shuffle_changed(exam, quiz):
    quiz.shuffle_items = False
    quiz.save()


EDITS = {
    "points": _points_changed,
    "an item added": _item_added,
    "an item removed": _item_removed,
    "order": _order_changed,
    "a problem's parameters": _problem_changed,
    "the shuffle setting": _shuffle_changed,
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_change_to_the_quiz_s_items_discards_the_prepared_attempt(learner, exam, edit):
    prepared = attempt_prepare(user=learner, quiz=exam.quiz)
    EDITS[edit](exam, exam.quiz)
    quiz = Quiz.objects.get(pk=exam.quiz.pk)
    attempt = attempt_start(user=learner, quiz=quiz)
    assert attempt.pk != prepared.pk
    assert not Attempt.prepared.exists()
    assert not Attempt.objects.filter(pk=prepared.pk).exists()
    assert attempt.max_score == float(sum(quiz.items.values_list("points", flat=True)))


def test_a_pool_s_new_member_discards_the_prepared_attempt(learner):
    quiz, pool = quiz_with_pool(draw=2, questions=3)
    prepared = attempt_prepare(user=learner, quiz=quiz)
    assert prepared is not None
    items = list(quiz.items.select_related("problem"))
    key = items_key(quiz=quiz, items=items)
    assert prepared_attempt(user=learner, quiz=quiz, items=items) == prepared
    pool.questions.add(two_choice_question(quiz, "A new member?"))
    assert items_key(quiz=quiz, items=items) != key
    assert attempt_start(user=learner, quiz=quiz).pk != prepared.pk


def test_an_unchanged_quiz_keeps_its_key(exam):
    items = list(exam.quiz.items.select_related("problem"))
    again = list(Quiz.objects.get(pk=exam.quiz.pk).items.select_related("problem"))
    assert items_key(quiz=exam.quiz, items=items) == items_key(quiz=exam.quiz, items=again)


def test_the_page_after_a_change_prepares_afresh(learner_client, learner, exam):
    learner_client.get(quiz_url(exam.quiz))
    stale = Attempt.prepared.get(user=learner)
    _points_changed(exam, exam.quiz)
    learner_client.get(quiz_url(exam.quiz))
    fresh = Attempt.prepared.get(user=learner)
    assert fresh.pk != stale.pk
    assert fresh.max_score == 6.0


# --- clean-up ----------------------------------------------------------------------------------


def _made_days_ago(attempt: Attempt, days: float) -> None:
    Attempt.prepared.filter(pk=attempt.pk).update(started_at=timezone.now() - timedelta(days=days))


def test_the_sweep_deletes_old_prepared_attempts_with_their_variants_and_draws(settings):
    settings.SOFTGRADE_PREPARED_ATTEMPT_DAYS = 7
    quiz, _ = quiz_with_pool(draw=2, questions=3, problems=0)
    QuizItemFactory(quiz=quiz, question=None, problem=ProblemFactory(lesson=quiz.lesson), order=9)
    old, recent = UserFactory(), UserFactory()
    old_attempt = attempt_prepare(user=old, quiz=quiz)
    recent_attempt = attempt_prepare(user=recent, quiz=quiz)
    _made_days_ago(old_attempt, 8)
    _made_days_ago(recent_attempt, 6)
    assert AttemptDraw.objects.filter(attempt=old_attempt).count() == 2
    assert prepared_attempts_sweep() == 1
    assert list(Attempt.prepared.all()) == [recent_attempt]
    assert not Variant.objects.filter(attempt_id=old_attempt.pk).exists()
    assert not AttemptDraw.objects.filter(attempt_id=old_attempt.pk).exists()
    assert Variant.objects.filter(attempt=recent_attempt).count() == 1


def test_the_sweep_deletes_prepared_attempts_of_a_quiz_closed_for_their_learner(exam):
    now = timezone.now()
    closed = exam_build().quiz
    plain, later, past_due, open_ = UserFactory(), UserFactory(), UserFactory(), UserFactory()
    for user in (plain, later):
        attempt_prepare(user=user, quiz=closed)
    for user in (past_due, open_):
        attempt_prepare(user=user, quiz=exam.quiz)
    # One quiz closes, but one learner's own due date there is later; at the other, still open,
    # one learner's own due date has passed.
    Quiz.objects.filter(pk=closed.pk).update(closes_at=now - timedelta(minutes=1))
    QuizAccommodation.objects.create(quiz=closed, learner=later, closes_at=now + timedelta(days=1))
    Quiz.objects.filter(pk=exam.quiz.pk).update(closes_at=now + timedelta(days=1))
    QuizAccommodation.objects.create(
        quiz=exam.quiz, learner=past_due, closes_at=now - timedelta(minutes=5)
    )
    assert prepared_attempts_sweep(now=now) == 2
    assert sorted(Attempt.prepared.values_list("user", flat=True)) == [later.pk, open_.pk]


def test_the_sweep_keeps_started_attempts(learner, exam):
    attempt_prepare(user=learner, quiz=exam.quiz)
    attempt = attempt_start(user=learner, quiz=exam.quiz)
    Attempt.objects.filter(pk=attempt.pk).update(started_at=timezone.now() - timedelta(days=30))
    assert prepared_attempts_sweep() == 0
    assert Attempt.objects.filter(pk=attempt.pk).exists()


def test_the_command_sweeps_and_says_how_many(learner, exam, capsys):
    _made_days_ago(attempt_prepare(user=learner, quiz=exam.quiz), 30)
    call_command("delete_prepared_attempts")
    assert "Deleted 1 prepared attempt never started." in capsys.readouterr().out
    assert not Attempt.prepared.exists()


def test_the_start_of_a_prepared_attempt_is_cheap(
    learner_client, learner, exam, django_assert_max_num_queries
):
    """The start at the opening instant: the session and the user, the quiz, whether the user
    teaches it, the attempt in progress, the items, the prepared attempt with the attempts used,
    the learner's accommodation, and the guarded update (in a savepoint here, as the test runs
    in a transaction; none in production). The close is queued on commit."""
    learner_client.get(quiz_url(exam.quiz))
    with django_assert_max_num_queries(11):
        response = learner_client.post(start_url(exam.quiz))
    assert response.url == reverse("attempt-take", kwargs={"pk": Attempt.objects.get().pk})
