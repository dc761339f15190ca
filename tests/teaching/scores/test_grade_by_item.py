"""Grade by item: one item of a quiz across every learner's attempts, each row with the answer as
given, the score now, its history and an override form that posts back to the same page and
place; the same rules as the single override (grading/overrides.py), the same people
(teaching.access.may_change_scores).

The exam (tests/grading/exam_records.py): a 2-point question (A right) and a 3-point problem.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from grading.models import Attempt, ScoreChange
from teaching.models import CourseRole
from teaching.scores import by_item
from tests.factories import UserFactory
from tests.grading.exam_records import exam_build, sit

pytestmark = pytest.mark.django_db


def grading_url(exam, item, query: str = "") -> str:
    url = reverse("teaching:item-grading", args=[exam.quiz.slug, item.pk])
    return f"{url}?{query}" if query else url


@pytest.fixture
def sat(exam):
    """Ann picked B and typed 5 % off (0 of 5); Ben picked A and typed the answer (5 of 5); Cai
    is still answering."""
    ann = UserFactory(first_name="Ann", username="ann")
    ben = UserFactory(first_name="Ben", username="ben")
    cai = UserFactory(first_name="Cai", username="cai")
    return {
        "ann": sit(exam, ann, choice="B", factor=1.05),
        "ben": sit(exam, ben, choice="A", factor=1.0),
        "cai": sit(exam, cai, choice="A", factor=1.0, submit=False),
    }


def row_of(page: str, attempt: Attempt) -> str:
    """The page's section of one attempt."""
    found = re.search(
        rf'<section class="card grade-row" id="grade-{attempt.pk}".*?</section>', page, re.S
    )
    assert found, f"no row for attempt {attempt.pk}"
    return found.group(0)


def test_every_learner_s_answer_score_and_form_on_one_page(client, exam, people, sat):
    client.force_login(people.instructor)
    response = client.get(grading_url(exam, exam.question_item))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Grade item 1:" in page
    ann, ben, cai = (row_of(page, sat[name]) for name in ("ann", "ben", "cai"))
    # The answer as the attempt review shows it: the choices, the learner's marked.
    assert ann.count("Learner&#x27;s choice") == 1 or ann.count("Learner's choice") == 1
    assert "0 of 2 points" in ann
    assert "2 of 2 points" in ben
    # A form per submitted attempt, none for the one in progress.
    assert 'class="stacked-form override-form grade-form"' in ann
    assert f'name="attempt" value="{sat["ann"].pk}"' in ann
    assert f'id="grade-{sat["ann"].pk}-score"' in ann
    assert "grade-form" not in cai
    assert "An attempt in progress cannot be overridden" in cai


def test_a_problem_item_shows_the_answer_typed_and_the_learner_s_numbers(client, exam, people, sat):
    client.force_login(people.instructor)
    page = client.get(grading_url(exam, exam.problem_item)).content.decode()
    ann = row_of(page, sat["ann"])
    typed = sat["ann"].responses.get(quiz_item=exam.problem_item).text
    assert f"<code>{typed}</code>" in ann
    assert "Incorrect" in ann
    assert "Correct answer:" in ann
    assert "Ann&#x27;s numbers" in ann or "Ann's numbers" in ann
    assert "3 of 3 points" in row_of(page, sat["ben"])


def test_saving_one_row_overrides_with_the_reason_and_returns_to_the_same_place(
    client, exam, people, sat, hook_calls, django_capture_on_commit_callbacks
):
    client.force_login(people.instructor)
    url = grading_url(exam, exam.question_item, "attempts=all&page=1")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url, {"attempt": sat["ann"].pk, "score": "1.5", "reason": "B is defensible."}
        )
    assert response.status_code == 302
    assert response["Location"] == f"{url}#grade-{sat['ann'].pk}"
    change = ScoreChange.objects.get()
    assert (change.kind, change.attempt, change.quiz_item, change.by) == (
        ScoreChange.Kind.OVERRIDE,
        sat["ann"],
        exam.question_item,
        people.instructor,
    )
    assert (change.old_score, change.new_score, change.reason) == (0.0, 1.5, "B is defensible.")
    assert Attempt.objects.get(pk=sat["ann"].pk).score == 1.5
    assert hook_calls == [sat["ann"].pk]
    page = client.get(response["Location"]).content.decode()
    assert "Ann: Score set: 1.50 of 2 points (was 0); the attempt now has 1.50 of 5." in page
    ann = row_of(page, sat["ann"])
    assert "1.50 of 2 points" in ann
    assert 'badge badge-warn">override' in ann
    assert f'data-score-change="{change.pk}"' in ann
    assert 'role="region" aria-label="Score changes of Ann, attempt 1"' in ann
    assert "B is defensible." in ann
    assert 'value="1.5"' in ann  # the form starts from the new score
    # Ben's row is untouched.
    assert "B is defensible." not in row_of(page, sat["ben"])


def test_a_second_override_keeps_both_in_the_row_s_history(client, exam, people, sat):
    client.force_login(people.instructor)
    url = grading_url(exam, exam.problem_item)
    client.post(url, {"attempt": sat["ann"].pk, "score": "3", "reason": "Rounding was fine."})
    client.post(url, {"attempt": sat["ann"].pk, "score": "2", "reason": "On appeal."})
    ann = row_of(client.get(url).content.decode(), sat["ann"])
    assert "2 of 3 points" in ann
    assert ann.index("Rounding was fine.") < ann.index("On appeal.")
    assert Attempt.objects.get(pk=sat["ann"].pk).score == 2.0


BAD = [
    ({"score": "-1", "reason": "Penalty."}, "-1", "The score must be a number from 0 to 2"),
    ({"score": "2.5", "reason": "Bonus."}, "2.5", "The score must be a number from 0 to 2"),
    ({"score": "two", "reason": "Odd."}, "two", "Enter a number."),
    ({"score": "1", "reason": "  "}, "1", "This field is required."),
]


@pytest.mark.parametrize(("sent", "kept", "message"), BAD)
def test_bad_points_say_why_in_the_row_and_lose_nothing(
    client, exam, people, sat, sent, kept, message
):
    client.force_login(people.instructor)
    response = client.post(
        grading_url(exam, exam.question_item), {"attempt": sat["ann"].pk, **sent}
    )
    assert response.status_code == 400
    page = response.content.decode()
    ann = row_of(page, sat["ann"])
    assert message in ann
    assert f'value="{kept}"' in ann  # the typed value is kept
    if sent["reason"].strip():
        assert sent["reason"] in ann
    # The other rows are as they were: Ben's form starts from his score.
    ben = row_of(page, sat["ben"])
    assert message not in ben
    assert 'value="2.0"' in ben
    assert not ScoreChange.objects.exists()
    assert Attempt.objects.get(pk=sat["ann"].pk).score == 0.0


def test_an_attempt_in_progress_is_refused_in_its_row(client, exam, people, sat):
    client.force_login(people.instructor)
    response = client.post(
        grading_url(exam, exam.question_item),
        {"attempt": sat["cai"].pk, "score": "1", "reason": "Too early."},
    )
    assert response.status_code == 400
    assert "Only a submitted attempt" in response.content.decode()
    assert not ScoreChange.objects.exists()


def test_an_attempt_of_another_quiz_or_no_attempt_is_a_404(client, exam, people, sat):
    other = sit(exam_build(), UserFactory(), choice="B", factor=1.05)
    client.force_login(people.instructor)
    url = grading_url(exam, exam.question_item)
    for attempt in ("", "abc", "999999", str(other.pk)):
        response = client.post(url, {"attempt": attempt, "score": "1", "reason": "x"})
        assert response.status_code == 404
    assert not ScoreChange.objects.exists()


def test_a_teaching_assistant_sees_scores_and_history_but_no_form_and_is_refused(
    client, exam, people, sat
):
    client.force_login(people.instructor)
    url = grading_url(exam, exam.question_item)
    client.post(url, {"attempt": sat["ben"].pk, "score": "1", "reason": "Half marks."})
    client.force_login(people.assistant)
    page = client.get(url).content.decode()
    assert "Half marks." in row_of(page, sat["ben"])
    assert "grade-form" not in page
    assert "Only the course&#x27;s instructors change scores" in page or (
        "Only the course's instructors change scores" in page
    )
    response = client.post(url, {"attempt": sat["ann"].pk, "score": "2", "reason": "Mine."})
    assert response.status_code == 403
    assert ScoreChange.objects.count() == 1


@pytest.mark.parametrize("who", ["other_instructor", "other_assistant", "learner", "staff"])
def test_anyone_outside_the_course_gets_a_404(client, exam, people, sat, course_b, who):
    if who == "other_instructor":
        user = UserFactory()
        CourseRole.objects.create(course=course_b, user=user, role=CourseRole.Role.INSTRUCTOR)
    else:
        user = getattr(people, who)
    client.force_login(user)
    url = grading_url(exam, exam.question_item)
    assert client.get(url).status_code == 404
    response = client.post(url, {"attempt": sat["ann"].pk, "score": "2", "reason": "x"})
    assert response.status_code == 404
    assert not ScoreChange.objects.exists()


def test_an_item_of_another_quiz_is_a_404(client, exam, people, course_b):
    from tests.factories import QuizItemFactory

    item = QuizItemFactory(quiz=course_b.lessons.get().quizzes.get())
    client.force_login(people.instructor)
    url = reverse("teaching:item-grading", args=[exam.quiz.slug, item.pk])
    assert client.get(url).status_code == 404


def test_a_post_without_the_csrf_token_is_refused(exam, people, sat):
    client = Client(enforce_csrf_checks=True)
    client.force_login(people.instructor)
    response = client.post(
        grading_url(exam, exam.question_item),
        {"attempt": sat["ann"].pk, "score": "2", "reason": "Forged."},
    )
    assert response.status_code == 403
    assert not ScoreChange.objects.exists()


def test_search_and_pages_as_in_the_results_grid(
    client, exam, people, sat, monkeypatch, django_assert_max_num_queries
):
    monkeypatch.setattr(by_item, "LEARNERS_PER_PAGE", 2)
    client.force_login(people.instructor)
    page = client.get(grading_url(exam, exam.question_item, "q=BE")).content.decode()
    assert 'data-learner="ben"' in page
    assert 'data-learner="ann"' not in page
    page = client.get(grading_url(exam, exam.question_item)).content.decode()
    assert 'data-learner="ann"' in page
    assert 'data-learner="cai"' not in page
    assert "Page 1 of 2" in page
    page = client.get(grading_url(exam, exam.question_item, "page=2")).content.decode()
    assert 'data-learner="cai"' in page
    assert 'data-learner="ann"' not in page
    assert client.get(grading_url(exam, exam.question_item, "page=9")).status_code == 404
    assert client.get(grading_url(exam, exam.question_item, "attempts=most")).status_code == 400
    # A page's queries do not grow with its learners.
    for number in range(6):
        sit(exam, UserFactory(username=f"z{number}"), choice="C", factor=1.05)
    monkeypatch.setattr(by_item, "LEARNERS_PER_PAGE", 50)
    with django_assert_max_num_queries(30):
        page = client.get(grading_url(exam, exam.question_item)).content.decode()
    assert page.count('class="card grade-row"') == 9


def test_linked_from_the_results_grid_and_the_statistics(client, exam, people, sat):
    client.force_login(people.instructor)
    url = grading_url(exam, exam.problem_item)
    grid = client.get(reverse("teaching:quiz-results", args=[exam.quiz.slug])).content.decode()
    assert f'href="{url}"' in grid
    stats = client.get(reverse("teaching:quiz-statistics", args=[exam.quiz.slug])).content.decode()
    assert f'href="{url}"' in stats


def test_a_pool_item_shows_what_each_attempt_drew_and_overrides_it(client):
    from courses.models import Question
    from grading import selectors
    from grading.models import AttemptDraw
    from grading.services.attempts import attempt_start
    from grading.services.closing import attempt_submit
    from grading.services.responses import SheetAnswer, attempt_answers_save
    from tests.grading.pools import quiz_with_pool

    quiz, _ = quiz_with_pool(draw=2, questions=4, mode="exam")
    instructor = UserFactory()
    CourseRole.objects.create(
        course=quiz.lesson.course, user=instructor, role=CourseRole.Role.INSTRUCTOR
    )
    pool_item = quiz.items.filter(pool__isnull=False).order_by("order", "pk").first()
    attempts = []
    for name in ("ann", "ben"):
        attempt = attempt_start(user=UserFactory(username=name), quiz=quiz)
        answers = {}
        for row in selectors.attempt_sheet(attempt=attempt):
            wrong = next(c for c in row.choices if not c.is_correct)
            answers[row.item.pk] = SheetAnswer(choice_ids=(wrong.pk,))
        attempt_answers_save(attempt=attempt, answers=answers)
        attempt_submit(attempt=attempt)
        attempts.append(attempt)
    client.force_login(instructor)
    url = reverse("teaching:item-grading", args=[quiz.slug, pool_item.pk])
    page = client.get(url).content.decode()
    for attempt in attempts:
        drawn = Question.objects.get(
            pk=AttemptDraw.objects.get(attempt=attempt, quiz_item=pool_item).question_id
        )
        row = row_of(page, attempt)
        # The question the attempt drew, its choices, the learner's wrong one marked.
        assert drawn.prompt.split("$")[0].strip()[:20] in row
        picked = attempt.responses.get(quiz_item=pool_item).choices.get()
        assert f'data-choice="{picked.pk}"' in row
        assert "0 of " in row
    response = client.post(
        url, {"attempt": attempts[1].pk, "score": "1", "reason": "Its draw was unfair."}
    )
    assert response.status_code == 302
    page = client.get(url).content.decode()
    assert "Its draw was unfair." in row_of(page, attempts[1])
    assert "Its draw was unfair." not in row_of(page, attempts[0])
    assert Attempt.objects.get(pk=attempts[1].pk).score == 1.0


def test_a_refusal_for_an_attempt_not_on_the_page_is_said_at_the_top(client, exam, people, sat):
    second = sit(exam, sat["ann"].user, choice="A", factor=1.0)
    client.force_login(people.instructor)
    # First attempts only: Ann's second is not on the page, so its refusal cannot be in a row.
    url = grading_url(exam, exam.question_item, "attempts=first")
    response = client.post(url, {"attempt": second.pk, "score": "9", "reason": "Bonus."})
    assert response.status_code == 400
    page = response.content.decode()
    alert = page[page.index('<div class="form-errors" role="alert"><p>Nothing was saved') :]
    assert "The score must be a number from 0 to 2" in alert[: alert.index("</div>")]
    assert f'id="grade-{second.pk}"' not in page
    assert not ScoreChange.objects.exists()
