"""New misconceptions of a problem on hand-built answers: the WrongAnswer rows built from what
grading stored, the groups on the page with their learners linked to the attempts, the choice of
answers (generic diagnoses in or out), and the cache keyed by the answers' newest id."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from grading.models import Regrade
from teaching.discovery.data import problem_discovery, wrong_answers
from tests.factories import PoolFactory, ProblemFactory, QuizItemFactory, UserFactory
from tests.teaching.problem_records import (
    NOISE,
    SCALED,
    VARIANTS,
    Discovered,
    discovered_build,
    exam_of,
    formula_givens,
    sit_with,
)
from tests.teaching.test_queries import PAGES, navigation_queries

pytestmark = pytest.mark.django_db


@pytest.fixture
def discovered(exam, course_a) -> Discovered:
    return discovered_build(exam.quiz.lesson)


def test_the_wrong_answers_are_what_grading_stored(course_a, discovered):
    problem, _, _, attempts = discovered
    answers, sources = wrong_answers(course=course_a, problem=problem, with_diagnosis=True)
    assert len(answers) == len(SCALED) + len(NOISE)
    first = next(a for a in answers if a.value == 1152.0)
    assert (first.answer, dict(first.givens)) == (144.0, {"d_k": 64.0, "s": 1.5})
    source = sources[first.response]
    assert (source.attempt, source.number) == (attempts["scaled2"].pk, 1)
    assert {sources[a.response].diagnosis for a in answers if a.value == 16.0} == {"squared"}
    assert {sources[a.response].diagnosis for a in answers if a.value == 1000.0} == {
        "rounded-too-coarsely"
    }
    without, _ = wrong_answers(course=course_a, problem=problem, with_diagnosis=False)
    assert len(without) == len(answers) - 3


def test_the_group_is_shown_with_its_formula_examples_and_learners(
    client, people, course_a, discovered
):
    problem, _, _, attempts = discovered
    client.force_login(people.assistant)
    url = reverse("teaching:problem-misconceptions", args=[course_a.slug, problem.slug])
    html = client.get(url).content.decode()
    assert html.count('class="card discovered-group"') == 1
    group = html[html.index('data-group="times-sqrt-d-k"') :]
    group = group[: group.index("</section>")]
    assert "The answer × √d_k" in group
    assert "<code>answer * sqrt(d_k)</code>" in group
    assert "<code>(d_k * s^2) * sqrt(d_k)</code>" in group
    assert '<dd data-count="answers">6</dd>' in group
    assert '<dd data-count="learners">6</dd>' in group
    assert '<dd data-count="diagnosed">2</dd>' in group
    assert "<td>9051</td><td>800</td>" in group
    for number in range(1, 7):
        attempt = attempts[f"scaled{number}"]
        assert reverse("teaching:attempt", args=[attempt.pk]) in group
    assert reverse("teaching:attempt", args=[attempts["noise1"].pk]) not in html
    # The 12 wrong answers above name no misconception (the 13th, 12, is std-for-variance).
    assert "12 wrong answers, 12 of them numbers, from 12 learners." in html
    # A teaching assistant reads; the forms are the instructors'.
    naming = reverse("teaching:problem-misconception-name", args=[course_a.slug, problem.slug])
    assert naming not in html
    assert "Only the course's instructors name mistakes" in html


def test_leaving_out_generic_diagnoses_leaves_out_those_answers(
    client, people, course_a, discovered
):
    problem = discovered[0]
    client.force_login(people.assistant)
    url = reverse("teaching:problem-misconceptions", args=[course_a.slug, problem.slug])
    html = client.get(url + "?diagnosed=exclude").content.decode()
    assert "9 wrong answers" in html
    group = html[html.index('data-group="times-sqrt-d-k"') :]
    assert '<dd data-count="answers">4</dd>' in group
    assert client.get(url + "?diagnosed=maybe").status_code == 400


def test_discovery_is_cached_until_a_new_answer_comes(course_a, discovered):
    problem, quiz, item, _ = discovered
    with CaptureQueriesContext(connection) as first:
        found = problem_discovery(course=course_a, problem=problem, with_diagnosis=True)
    with CaptureQueriesContext(connection) as again:
        cached = problem_discovery(course=course_a, problem=problem, with_diagnosis=True)
    assert cached == found
    assert (len(first), len(again)) == (4, 2)
    # A new answer × √d_k: the fingerprint changes, the group grows.
    (d_k, s), _ = VARIANTS[3]
    sit_with(quiz, item, UserFactory(), formula_givens(d_k, s), "16384")
    fresh = problem_discovery(course=course_a, problem=problem, with_diagnosis=True)
    assert [g.count for g in fresh.groups] == [7]
    assert fresh.available == found.available + 1


def test_a_regrade_of_a_pool_item_that_can_draw_the_problem_computes_afresh(
    course_a, discovered, people
):
    problem, quiz, _, _ = discovered
    found = problem_discovery(course=course_a, problem=problem, with_diagnosis=True)
    pool = PoolFactory(lesson=quiz.lesson)
    pool.problems.add(problem)
    pool_item = QuizItemFactory(quiz=quiz, question=None, pool=pool, order=9)
    Regrade.objects.create(
        quiz_item=pool_item,
        by=people.instructor,
        by_username=people.instructor.username,
        responses_changed=0,
        attempts_changed=0,
    )
    with CaptureQueriesContext(connection) as after:
        again = problem_discovery(course=course_a, problem=problem, with_diagnosis=True)
    assert again == found
    assert len(after) == 4  # not read from the cache (2 queries): computed again


def test_a_problem_whose_answer_is_a_list_is_said_so(client, people, course_a, exam):
    from tests.factories import ProblemFactory

    problem = ProblemFactory(lesson=exam.quiz.lesson, family="softmax", slug="soft")
    quiz, item = exam_of(problem)
    sit_with(quiz, item, UserFactory(), {"z": [1.0, 2.0, 3.0]}, "[0.3, 0.3, 0.4]")
    client.force_login(people.assistant)
    url = reverse("teaching:problem-misconceptions", args=[course_a.slug, problem.slug])
    html = client.get(url).content.decode()
    assert "None of these answers is a single number" in html
    assert "No group stands out" in html


def test_the_page_with_groups_and_forms_costs_the_same_queries_with_more_learners(
    client, people, course_a, discovered, django_assert_max_num_queries
):
    """The instructor's page, groups and forms included, whatever the number of answers: the
    bound of tests/teaching/test_queries.py."""
    problem, quiz, item, _ = discovered
    url = reverse("teaching:problem-misconceptions", args=[course_a.slug, problem.slug])
    client.force_login(people.instructor)
    for more in range(2):
        if more:
            for variant, text in SCALED * 2:
                (d_k, s), _ = VARIANTS[variant]
                sit_with(quiz, item, UserFactory(), formula_givens(d_k, s), text)
        bound = PAGES["new misconceptions"] + navigation_queries("instructor", "new misconceptions")
        with django_assert_max_num_queries(bound):
            html = client.get(url).content.decode()
        assert html.count('name="form" value="group-0-mistake"') == 1
        assert f'<dd data-count="answers">{6 + 12 * more}</dd>' in html


def test_what_grading_found_is_counted_beside_the_named_mistakes(
    client, people, course_a, discovered
):
    """The 13 wrong answers: one named std-for-variance, two 16s on variant 1 taken for a
    squared value, one 1000 for 1024 rounded to too few figures; the rest nothing."""
    problem, *_ = discovered
    client.force_login(people.assistant)
    url = reverse("teaching:problem-misconceptions", args=[course_a.slug, problem.slug])
    html = client.get(url).content.decode()
    found = html[html.index("data-findings") :]
    found = found[: found.index("</section>")]
    assert "in the 13 wrong answers" in found
    tables = re.findall(r'data-finding-kind="([^"]+)"', found)
    assert tables == ["Named mistakes", "Near misses"]

    def counts(code: str) -> tuple[str, str]:
        row = found[found.index(f'<tr data-code="{code}">') :]
        row = row[: row.index("</tr>")]
        answers = re.search(r'data-count="answers">(\d+)<', row).group(1)
        learners = re.search(r'data-count="learners">(\d+)<', row).group(1)
        return answers, learners

    assert counts("std-for-variance") == ("1", "1")
    assert counts("squared") == ("2", "2")
    assert counts("rounded-too-coarsely") == ("1", "1")
    assert "too few significant figures <code>rounded-too-coarsely</code>" in found
    # Each group says what grading found among its answers, by kind.
    group = html[html.index('data-group="times-sqrt-d-k"') :]
    group = group[: group.index("</section>")]
    assert "<dt>Near misses</dt>" in group


def test_without_wrong_answers_the_page_says_so(client, people, course_a, exam):
    problem = ProblemFactory(lesson=exam.quiz.lesson, family="dot-variance", slug="unanswered")
    exam_of(problem)
    client.force_login(people.assistant)
    url = reverse("teaching:problem-misconceptions", args=[course_a.slug, problem.slug])
    html = client.get(url).content.decode()
    assert "No wrong answer yet." in html
    assert "data-finding-kind" not in html
