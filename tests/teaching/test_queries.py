"""Every instructor page and export costs the same few queries whatever the number of learners,
attempts, answers and items: pinned at two sizes of a quiz."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.urls import reverse
from django.utils import timezone

from courses.models import Problem, Question, Quiz
from grading.models import Attempt, QuizAccommodation
from grading.overrides import item_score_override
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import response_submit
from tests.factories import (
    ChoiceFactory,
    MisconceptionFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)
from tests.teaching.bulk_learners import learners_bulk

pytestmark = pytest.mark.django_db

SIZES = {"small": (2, 2), "large": (12, 6)}  # learners, items


@dataclass
class Built:
    quiz: Quiz
    attempt: Attempt  # a submitted attempt with every item answered
    problem: Problem  # one of the quiz's problems


def quiz_of(lesson, *, learners: int, items: int, launched: dict[int, str], by) -> Built:
    """A quiz of `items` items (questions and problems in turn) that `learners` learners each
    submitted once, half of them with a second attempt in progress; one override; half of them
    launched from an LMS course, and as many again launched it without an attempt."""
    quiz = QuizFactory(
        lesson=lesson, mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION
    )
    wrong = MisconceptionFactory(lesson=lesson)
    made = []
    for number in range(items):
        if number % 2:
            made.append(
                QuizItemFactory(
                    quiz=quiz, question=None, problem=ProblemFactory(lesson=lesson), order=number
                )
            )
            continue
        question = QuestionFactory(lesson=lesson, kind=Question.Kind.SINGLE)
        choices = [
            ChoiceFactory(
                question=question, is_correct=i == 0, misconception=None if i == 0 else wrong
            )
            for i in range(3)
        ]
        made.append(QuizItemFactory(quiz=quiz, question=question, order=number, points=2))
        made[-1].test_choices = choices
    attempt = None
    for index in range(learners):
        user = UserFactory(first_name=f"Learner {index}")
        for round_ in range(1 + index % 2):
            current = attempt_start(user=user, quiz=quiz)
            for item in made:
                if item.question_id:
                    pick = item.test_choices[(index + round_ + 1) % 3]
                    response_submit(attempt=current, item=item, choice_ids=[pick.pk])
                else:
                    response_submit(attempt=current, item=item, text="not a number")
                    response_submit(attempt=current, item=item, text=str(index + 1))
            if round_ == 0:
                attempt_submit(attempt=current)
                attempt = attempt or current
        if index % 2:
            launched[user.pk] = f"LMS course {index % 3}"
            launched[UserFactory().pk] = f"LMS course {index % 3}"  # launched, no attempt
    attempt.refresh_from_db()
    item_score_override(attempt=attempt, item=made[0], score=1, reason="Checked.", by=by)
    # Every learner has an own due date, at a quiz that releases answers after it closes.
    due = timezone.now() + timedelta(days=30)
    Quiz.objects.filter(pk=quiz.pk).update(
        closes_at=due - timedelta(days=1), release_answers=Quiz.AnswerRelease.AFTER_CLOSE
    )
    QuizAccommodation.objects.bulk_create(
        QuizAccommodation(quiz=quiz, learner_id=user_id, closes_at=due, set_by=by)
        for user_id in set(quiz.attempts.values_list("user_id", flat=True))
    )
    problem = next(item.problem for item in made if item.problem_id)
    return Built(quiz=quiz, attempt=attempt, problem=problem)


# The most queries each page may take, whatever the size: the session and the user (2), then
# - courses: the courses taught with the role and counts (1), whether any (1);
# - course: the course (1), its overdue attempts closed first (1, grading/services/overdue.py),
#   its lessons (1), their quizzes with item counts (1), attempt counts (1);
# - results: the quiz (1), the quiz's overdue attempts closed first (1), items (1), the
#   learners with an attempt (1), LMS courses (1 with the lti app's provider, pinned in
#   tests/lti/test_course_roles.py; none with this file's stand-in), the course's roles and
#   the LMS learners without an attempt (2), the page's attempts (1), their answers (1),
#   overrides (1) (every learner's attempts and answers, for the sort, the filter and the mean
#   row, in the same queries as one page's), the quiz's LMS links the user may open (1,
#   lti.selectors.quiz_link_views)
#   after the user's own and group permissions (2 but for a superuser: Django's has_perm,
#   which lti.access asks for the permission that opens every link);
# - gradebook: the same for every learner, without answers and overrides;
# - attempt: the attempt (1), grading.selectors.attempt_sheet (items, choices, variants,
#   responses, their choices, overrides: 6), the misconceptions named (1), its score changes (1),
#   whether the user may change scores (1), when answers are released to learners (1, for a
#   quiz that releases them after it closes: the latest own due date, grading.accommodations);
#   the learners either side in the grid's order (teaching.results.neighbours: the grid's
#   read of every learner, as on the results page: items, learners with an attempt, the
#   course's roles and the LMS learners without one, attempts, answers, overrides: 7);
# - override: the attempt (1), the item (1), whether the user may change scores (1), the item's
#   score now (responses, overrides: 2), the attempt's score changes (1);
# - regrade: the item (1), its quiz's overdue attempts closed first (1), whether the user may
#   change scores (1), a question's choices and its lesson's misconceptions (2), the item's
#   place, other uses and regrades (3); for those who may change scores, the preview
#   (grading.regrades): the item and the rule again (2), the question and its choices (2) or
#   the problem (1), the answers (1) and, for a question, their choices (1); with a fix, the
#   misconceptions a choice may name (1, questions only) and the other uses' quizzes (1); for
#   the attempts that change, the attempts, all their answers, the quiz's items and its
#   overrides (4).
# - problems: the course (1), its problems (1), their answers' counts (1);
# - by parameter: the course and the problem (2), the course's overdue attempts closed first
#   (1), the variants and their counted answers (2);
# - new misconceptions: the course and the problem (2), the course's overdue attempts closed
#   first (1), the answers' fingerprint (2), the answers and their variants when not cached
#   (2), the role (1), notes (1), the learners of the groups (1), a formula problem's lesson's
#   misconceptions for the form (1; pinned with groups in test_discovery_pages.py), what grading
#   found in the wrong answers (1) and the titles of the misconceptions named among them (1);
# - misconception profile: the course (1), counted answers (1), misconceptions (1), learners (1);
# - learner profile: the course, the learner, their overdue attempts in the course closed first,
#   their attempts (4), counted answers (1), misconceptions (1);
# - statistics: the quiz (1), its overdue attempts closed first (1),
#   teaching.statistics.data.quiz_data (items, choices, attempts, responses, overrides: 5);
# - responses: the quiz (1), its overdue attempts closed first (1), items (1), choices (1, for
#   a question), attempts (1), the item's responses with the choices they picked (1), the
#   misconceptions named (1); for a problem, the values typed (1);
# - responses CSV: the gradebook's, the items (1), then per 500 learners their answers and the
#   choices picked (2);
# - grade by item: the quiz and the item (2), its overdue attempts closed first (1), whether
#   the user may change scores (1), the learners (as results), the quiz's items and the page's
#   attempts (2), the item's choices (1, a question), its variants, answers and the choices
#   they picked, its score changes (4) and the misconceptions named (1);
# - accommodations: the course (1), whether the user may set them (1), the accommodations with
#   their quiz and learner (1), the latest own due date per quiz that releases answers after
#   it closes (1), the course's quizzes for the form (1).
PAGES = {
    "courses": 4,
    "course": 7,
    "results": 14,
    "results, every attempt grouped": 14,
    "gradebook": 9,
    "responses CSV": 12,
    "grade by item": 16,
    "grade by item, a question": 17,
    "attempt": 20,
    "override": 8,
    "regrade": 16,
    "regrade, a choice fixed": 22,
    "regrade, a tolerance fixed": 18,
    "problems": 5,
    "by parameter": 7,
    "new misconceptions": 15,
    "misconception profile": 6,
    "learner profile": 8,
    "statistics": 9,
    "statistics, every attempt": 9,
    "responses to a question": 9,
    "responses to a problem": 10,
    "accommodations": 7,
}


def navigation_queries(who: str, name: str) -> int:
    """The query the site's navigation asks on an HTML page (does the user teach a course, for
    the "Teaching" link: teaching/context_processors.py): one EXISTS, none for a superuser."""
    return 0 if who == "superuser" or name in ("gradebook", "responses CSV") else 1


def problem_pages(course, problem, learner) -> dict[str, str]:
    """The problem pages and profiles of a course, for one of its problems and learners."""
    args = [course.slug, problem.slug]
    return {
        "problems": reverse("teaching:course-problems", args=[course.slug]),
        "by parameter": reverse("teaching:problem-parameters", args=args),
        "new misconceptions": reverse("teaching:problem-misconceptions", args=args),
        "misconception profile": reverse("teaching:course-misconceptions", args=[course.slug]),
        "learner profile": reverse("teaching:learner-profile", args=[course.slug, learner.pk]),
    }


def urls(built: Built, course) -> dict[str, str]:
    quiz = built.quiz.slug
    question, problem = built.quiz.items.order_by("order")[:2]
    choices = list(question.question.choices.order_by("pk"))
    wrong = choices[1].misconception_id
    return {
        "courses": reverse("teaching:courses"),
        "course": reverse("teaching:course", args=[course.slug]),
        "results": reverse("teaching:quiz-results", args=[quiz]),
        "results, every attempt grouped": reverse("teaching:quiz-results", args=[quiz])
        + "?attempts=all&group=lms",
        "gradebook": reverse("teaching:quiz-gradebook", args=[quiz]) + "?attempts=last",
        "responses CSV": reverse("teaching:quiz-responses", args=[quiz]) + "?attempts=last",
        "grade by item": reverse("teaching:item-grading", args=[quiz, problem.pk]),
        "grade by item, a question": reverse("teaching:item-grading", args=[quiz, question.pk]),
        "attempt": reverse("teaching:attempt", args=[built.attempt.pk]),
        "override": reverse("teaching:item-override", args=[built.attempt.pk, question.pk]),
        "regrade": reverse("teaching:item-regrade", args=[question.pk]),
        "regrade, a choice fixed": reverse("teaching:item-regrade", args=[question.pk])
        + "?"
        + urlencode(
            {
                "fix": "1",
                "correct": choices[1].pk,  # the second choice instead of the first
                **{f"misconception_{choice.pk}": wrong for choice in choices},
            }
        ),
        "regrade, a tolerance fixed": reverse("teaching:item-regrade", args=[problem.pk])
        + "?fix=1&atol=0&rtol=0.5",
        **problem_pages(course, built.problem, built.attempt.user),
        "statistics": reverse("teaching:quiz-statistics", args=[quiz]),
        "statistics, every attempt": reverse("teaching:quiz-statistics", args=[quiz])
        + "?attempts=all",
        "responses to a question": reverse("teaching:item-responses", args=[quiz, question.pk]),
        "responses to a problem": reverse("teaching:item-responses", args=[quiz, problem.pk])
        + "?attempts=all",
        "accommodations": reverse("teaching:accommodations", args=[course.slug]),
    }


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("who", ["assistant", "instructor", "superuser"])
def test_every_page_costs_a_fixed_number_of_queries(
    client, exam, course_a, people, lms_contexts, django_assert_max_num_queries, size, who
):
    learners, items = SIZES[size]
    built = quiz_of(
        exam.quiz.lesson, learners=learners, items=items, launched=lms_contexts, by=people.superuser
    )
    assert built.quiz.attempts.count() == learners + learners // 2
    client.force_login(getattr(people, who))
    for name, url in urls(built, course_a).items():
        with django_assert_max_num_queries(PAGES[name] + navigation_queries(who, name)):
            response = client.get(url)
            assert response.status_code == 200, name
            if response.streaming:
                body = b"".join(response.streaming_content).decode()
            else:
                body = response.content.decode()
        if name in ("gradebook", "responses CSV"):
            # One line per learner: those with an attempt and those the LMS sent without one.
            assert body.count("\n") == 1 + learners + learners // 2
        if name == "results":
            assert body.count("<td data-score>") == learners
        if name == "statistics":
            assert body.count("<tr data-item=") == items
        if name == "responses to a problem":
            # Each learner's submitted attempt: "not a number", then a number.
            invalid = body[body.index('<tr data-key="invalid">') :]
            assert re.search(r"<td data-count>(\d+)</td>", invalid).group(1) == str(learners)


@pytest.mark.parametrize("query", ["", "?page=3", "?attempts=all&group=lms&page=2", "?q=learner"])
def test_a_page_of_the_grid_costs_the_same_at_many_learners(
    client, exam, people, lms_contexts, django_assert_max_num_queries, query
):
    """At 120 learners (three pages of 50), half from LMS courses, a page takes the queries of
    the small quiz above: no query per learner, attempt or answer."""
    users = learners_bulk(quiz=exam.quiz, names=[f"Many{index:03d}" for index in range(120)])
    lms_contexts.update(
        {user.pk: f"LMS course {index % 3}" for index, user in enumerate(users[::2])}
    )
    client.force_login(people.assistant)
    url = reverse("teaching:quiz-results", args=[exam.quiz.slug]) + query
    with django_assert_max_num_queries(PAGES["results"]):
        body = client.get(url).content.decode()
    assert body.count("<td data-score>") == (20 if query == "?page=3" else 50)
