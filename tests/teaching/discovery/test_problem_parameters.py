"""Facility by generated parameter on hand-built answers: which variants count (submitted quiz
attempts with their item's score, practice with its first try), the bins and their numbers on the
page, the source filter, and the problems' index."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from teaching.discovery.parameters import parameter_facilities
from teaching.discovery.problems import Source, variant_scores
from tests.factories import ProblemFactory, UserFactory
from tests.teaching.problem_records import dot_givens, exam_of, practise_with, sit_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(course_a, exam):
    """A dot-variance problem (answer d_k σq² σk²) in an exam of course A, answered by six
    learners on d_k = 16, 64 and 256 (σ = 1 throughout), and practised by two more.

    d_k = 16: right, right. d_k = 64: right, wrong. d_k = 256: wrong, wrong (one learner saved a
    right answer first: the last saved answer counts), and one attempt in progress (left out).
    Practice: d_k = 256 right at the first try; d_k = 64 wrong, then right (the first try counts;
    48 is no near miss of 64, whose try would be given back).
    """
    problem = ProblemFactory(lesson=exam.quiz.lesson, family="dot-variance", slug="dot-by-width")
    quiz, item = exam_of(problem)
    people = {}
    for name, d_k, texts in [
        ("u16a", 16, ["16"]),
        ("u16b", 16, ["16.05"]),
        ("u64a", 64, ["64"]),
        ("u64b", 64, ["8"]),
        ("u256a", 256, ["16"]),
        ("u256b", 256, ["256", "250"]),
    ]:
        people[name] = UserFactory(username=name)
        sit_with(quiz, item, people[name], dot_givens(d_k), *texts)
    sit_with(quiz, item, UserFactory(), dot_givens(16), "1", submit=False)
    practise_with(problem, UserFactory(username="p256"), dot_givens(256), "256")
    practise_with(problem, UserFactory(username="p64"), dot_givens(64), "48", "64")
    return problem


def _rows(html: str, name: str) -> list[tuple[str, ...]]:
    """The rows of the table for parameter `name`: label, variants, learners, full marks,
    facility."""
    section = html[html.index(f'data-parameter="{name}"') :]
    section = section[: section.index("</section>")]
    return [
        tuple(re.sub(r"<[^>]+>", "", cell).strip() for cell in row)
        for row in re.findall(
            r'<tr><th scope="row">(.*?)</th><td data-count="variants">(.*?)</td>'
            r'<td data-count="learners">(.*?)</td><td data-count="full-marks">(.*?)</td>'
            r"<td data-facility>(.*?)</td></tr>",
            section,
        )
    ]


def test_facility_by_d_k_counts_each_answered_variant_once(client, people, course_a, answered):
    client.force_login(people.assistant)
    url = reverse("teaching:problem-parameters", args=[course_a.slug, answered.slug])
    html = client.get(url).content.decode()
    # Quizzes and practice: 16 → 2 of 2; 64 → quiz 1 of 2, practice first try wrong: 1 of 3;
    # 256 → quiz 0 of 2, practice right: 1 of 3.
    assert _rows(html, "d_k") == [
        ("d_k = 16", "2", "2", "2", "1.00"),
        ("d_k = 64", "3", "3", "1", "0.33"),
        ("d_k = 256", "3", "3", "1", "0.33"),
    ]
    assert "8 variants answered by 8 learners: facility 0.50, 4 with full marks." in html
    # σ is the same everywhere: no chart, a sentence.
    assert "sigma_q is 1 on every variant" in html
    assert html.count('role="img"') == 1
    assert "Lowest facility: <strong>d_k = 64</strong>" in html

    quizzes = client.get(url + "?source=quizzes").content.decode()
    assert _rows(quizzes, "d_k") == [
        ("d_k = 16", "2", "2", "2", "1.00"),
        ("d_k = 64", "2", "2", "1", "0.50"),
        ("d_k = 256", "2", "2", "0", "0.00"),
    ]
    assert "Lowest facility: <strong>d_k = 256</strong>" in quizzes
    practice = client.get(url + "?source=practice").content.decode()
    assert _rows(practice, "d_k") == [
        ("d_k = 64", "1", "1", "0", "0.00"),
        ("d_k = 256", "1", "1", "1", "1.00"),
    ]


def test_an_unknown_source_is_a_400(client, people, course_a, answered):
    client.force_login(people.assistant)
    url = reverse("teaching:problem-parameters", args=[course_a.slug, answered.slug])
    assert client.get(url + "?source=everything").status_code == 400


def test_the_chart_is_an_image_with_a_name_and_the_table_beside_it(
    client, people, course_a, answered
):
    client.force_login(people.assistant)
    url = reverse("teaching:problem-parameters", args=[course_a.slug, answered.slug])
    html = client.get(url).content.decode()
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert 'aria-labelledby="parameter-1-title parameter-1-desc"' in svg
    assert '<title id="parameter-1-title">Facility by d_k</title>' in svg
    # One bar per row, as long as its facility (the plot is 320 wide).
    assert re.findall(r'class="bar" x="0" y="[\d.]+" width="([\d.]+)"', svg) == [
        "320.0",
        "106.67",
        "106.67",
    ]


def test_the_scores_follow_the_quiz_s_rule_and_practice_s_first_try(course_a, answered):
    rows = variant_scores(course=course_a, problem=answered, source=Source.ALL)
    by_learner = {row.learner: row.score for row in rows}
    assert sorted(by_learner.values()) == [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    (d_k,) = [p for p in parameter_facilities(rows) if p.name == "d_k"]
    assert d_k.distinct


def test_another_course_s_answers_do_not_count(client, people, course_a, course_b, answered):
    """The same problem in a quiz of course B: its answers stay out of course A's page."""
    quiz_b, item_b = exam_of(answered, lesson=course_b.lessons.get())
    sit_with(quiz_b, item_b, UserFactory(), dot_givens(16), "1")
    rows = variant_scores(course=course_a, problem=answered, source=Source.ALL)
    assert len(rows) == 8
    assert len(variant_scores(course=course_b, problem=answered, source=Source.ALL)) == 1


def test_the_index_lists_the_course_s_problems_with_their_answers(
    client, people, course_a, answered
):
    client.force_login(people.instructor)
    html = client.get(reverse("teaching:course-problems", args=[course_a.slug])).content.decode()
    row = html[html.index('data-problem="dot-by-width"') :]
    row = row[: row.index("</tr>")]
    # Counted tries: 7 in submitted attempts, 1 in progress, 3 in practice. Correct: 16, 16.05,
    # 64, 256 (quizzes), 256, 64 (practice). Wrong: 8 and 16 are √(d_k σ²), the named mistake
    # std-for-variance, 1 is σq²σk² (width-ignored); 250 and 60 name none.
    counts = dict(re.findall(r'data-count="([a-z-]+)">(\d+)', row))
    assert counts == {"learners": "9", "answers": "11", "correct": "6", "unnamed": "2"}
    assert reverse("teaching:problem-misconceptions", args=[course_a.slug, "dot-by-width"]) in row
