"""Misconception profiles on hand-built answers: which named misconceptions each learner showed and
whether they later answered the same family right on new numbers; the course's summary; the links
from the results grid; and who is a learner of the course."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.factories import ProblemFactory, UserFactory
from tests.grading.exam_records import sit
from tests.teaching.problem_records import dot_givens, exam_of, practise_with, sit_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def profiled(exam, course_a):
    """In course A:

    - Ann picks wrong choice B of the exam's question (its misconception) in attempt 1 and the
      right one in attempt 2; on a dot-variance exam she types √(d_k) for d_k = 64
      (std-for-variance), then answers another variant right.
    - Ben picks B in the exam (and answers its dot-variance problem right), then types 8 for
      d_k = 64 in practice, then 64 on the same variant (the feedback's retry: not later right).
    - Cai answers everything right.
    """
    problem = ProblemFactory(lesson=exam.quiz.lesson, family="dot-variance", slug="dot-profile")
    quiz, item = exam_of(problem)
    ann = UserFactory(username="ann", first_name="Ann", last_name="Archer")
    ben = UserFactory(username="ben", first_name="Ben")
    cai = UserFactory(username="cai", first_name="Cai")
    first = sit(exam, ann, choice="B", factor=1.0)
    sit(exam, ann, choice="A", factor=1.0)
    shown = sit_with(quiz, item, ann, dot_givens(64), "8")
    sit_with(quiz, item, ann, dot_givens(16), "16")
    sit(exam, ben, choice="B", factor=1.0)
    practise_with(problem, ben, dot_givens(64), "8", "64")
    sit(exam, cai, choice="A", factor=1.0)
    code = exam.choices["B"].misconception.code
    return {"ann": ann, "ben": ben, "cai": cai, "code": code, "first": first, "shown": shown}


def _table_rows(html: str) -> dict[str, dict[str, str]]:
    found = {}
    for code, row in re.findall(r'<tr data-misconception="([^"]+)">(.*?)</tr>', html, re.S):
        found[code] = dict(re.findall(r'data-count="([a-z-]+)">(\d+)', row))
    return found


def test_the_course_profile_counts_learners_and_those_later_right(
    client, people, course_a, profiled
):
    client.force_login(people.assistant)
    url = reverse("teaching:course-misconceptions", args=[course_a.slug])
    html = client.get(url).content.decode()
    rows = _table_rows(html)
    # The question's misconception: Ann (later right in attempt 2) and Ben (not yet).
    assert rows[profiled["code"]] == {
        "learners": "2",
        "later-right": "1",
        "not-yet": "1",
        "tries": "2",
    }
    # std-for-variance: Ann (later right on new numbers), Ben (retried the same variant only).
    assert rows["std-for-variance"] == {
        "learners": "2",
        "later-right": "1",
        "not-yet": "1",
        "tries": "2",
    }
    assert "3 learners answered." in html
    assert html.count('role="img"') == 1
    profile = reverse("teaching:learner-profile", args=[course_a.slug, profiled["ann"].pk])
    assert f'<a href="{profile}">Ann Archer</a>' in html


def test_a_learner_s_profile_says_what_they_showed_and_where(
    client, people, course_a, exam, profiled
):
    client.force_login(people.instructor)
    ann = reverse("teaching:learner-profile", args=[course_a.slug, profiled["ann"].pk])
    html = client.get(ann).content.decode()
    assert "Ann Archer" in html
    assert html.count('data-later-right="yes"') == 2
    assert 'data-later-right="no"' not in html
    assert reverse("teaching:attempt", args=[profiled["shown"].pk]) in html
    assert reverse("teaching:attempt", args=[profiled["first"].pk]) in html
    ben = reverse("teaching:learner-profile", args=[course_a.slug, profiled["ben"].pk])
    html = client.get(ben).content.decode()
    rows = re.findall(r'data-misconception="([^"]+)" data-family="([^"]+)"', html)
    assert sorted(rows) == sorted(
        [
            (profiled["code"], f"question:{exam.question_item.question_id}"),
            ("std-for-variance", "dot-variance"),
        ]
    )
    assert html.count('data-later-right="no"') == 2
    assert "in practice" in html
    cai = reverse("teaching:learner-profile", args=[course_a.slug, profiled["cai"].pk])
    assert "0 misconceptions shown" in client.get(cai).content.decode()


def test_the_results_grid_links_each_learner_to_their_profile(
    client, people, course_a, exam, profiled
):
    client.force_login(people.assistant)
    html = client.get(reverse("teaching:quiz-results", args=[exam.quiz.slug])).content.decode()
    for name in ("ann", "ben", "cai"):
        profile = reverse("teaching:learner-profile", args=[course_a.slug, profiled[name].pk])
        assert f'href="{profile}"' in html


def test_only_learners_of_the_course_have_a_profile_there(
    client, people, course_a, course_b, profiled
):
    client.force_login(people.instructor)
    for user in (people.learner, people.assistant):
        url = reverse("teaching:learner-profile", args=[course_a.slug, user.pk])
        assert client.get(url).status_code == 404
    missing = reverse("teaching:learner-profile", args=[course_a.slug, 10**6])
    assert client.get(missing).status_code == 404
    client.force_login(people.other_assistant)
    ann_in_b = reverse("teaching:learner-profile", args=[course_b.slug, profiled["ann"].pk])
    assert client.get(ann_in_b).status_code == 404
    ann_in_a = reverse("teaching:learner-profile", args=[course_a.slug, profiled["ann"].pk])
    assert client.get(ann_in_a).status_code == 404
