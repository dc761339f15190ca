"""The results grid a page of learners at a time: the order, the page links keeping the
filters, the search, grouping by LMS course across pages, a page out of range, and the course's
roles only (tests/teaching/test_access.py checks every page of the matrix as well)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from teaching.results import pages as results_pages
from teaching.results.pages import results_page
from teaching.results.reads import NOT_FROM_AN_LMS, AttemptRule
from tests.teaching.bulk_learners import learners_bulk

pytestmark = pytest.mark.django_db

# Made in this order, listed by name: Ada, Bea, Cy, Dee, Eve, Flo, Gus.
NAMES = ["Gus", "Cy", "Eve", "Ada", "Flo", "Bea", "Dee"]


@pytest.fixture
def seven(exam, monkeypatch):
    """Seven learners of the exam, three a page."""
    monkeypatch.setattr(results_pages, "LEARNERS_PER_PAGE", 3)
    return learners_bulk(quiz=exam.quiz, names=NAMES)


def grid(client, quiz, query="", status=200) -> str:
    response = client.get(reverse("teaching:quiz-results", args=[quiz.slug]) + query)
    assert response.status_code == status
    return response.content.decode()


def listed(page: str) -> list[str]:
    """The user names of the page's rows, in order."""
    return re.findall(r'<tr data-learner="([^"]+)">', page)


def pager_links(page: str) -> dict[str, str]:
    nav = page[page.index('<nav class="pager"') :]
    nav = nav[: nav.index("</nav>")]
    return {label: href for href, label in re.findall(r'<a href="([^"]+)"[^>]*>(\w+)</a>', nav)}


def test_page_two_lists_the_next_learners_by_name(client, exam, people, seven):
    client.force_login(people.assistant)
    assert listed(grid(client, exam.quiz)) == ["ada", "bea", "cy"]
    second = grid(client, exam.quiz, "?page=2")
    assert listed(second) == ["dee", "eve", "flo"]
    assert "Learners 4–6 of 7" in second
    assert "Page 2 of 3" in second
    assert listed(grid(client, exam.quiz, "?page=3")) == ["gus"]


def test_learners_of_the_same_name_keep_one_order(exam, seven):
    twins = learners_bulk(quiz=exam.quiz, names=["Ada2", "Ada1"])
    for twin in twins:  # both named "Ada Learner": then by user name
        twin.first_name = "Ada"
        twin.save()
    found = results_page(quiz=exam.quiz, rule=AttemptRule.BEST, grouped=False, search="", number=1)
    assert [row.learner.username for row in found.results.rows] == ["ada", "ada1", "ada2"]


def test_the_page_links_keep_the_filters_and_the_search(client, exam, people, seven):
    client.force_login(people.instructor)
    page = grid(client, exam.quiz, "?attempts=first&q=e&page=2")
    # Bea, Dee, Eve, Flo (Learner) and every "Learner": all seven contain an "e".
    links = pager_links(page)
    assert links["Previous"] == "?attempts=first&amp;q=e&amp;page=1"
    assert links["Next"] == "?attempts=first&amp;q=e&amp;page=3"
    assert links["Last"] == "?attempts=first&amp;q=e&amp;page=3"
    grouped = pager_links(grid(client, exam.quiz, "?group=lms&attempts=last"))
    assert grouped["Next"] == "?group=lms&amp;attempts=last&amp;page=2"
    assert "Previous" not in grouped


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ("dee", ["dee"]),  # the user name
        ("FLO LEARNER", ["flo"]),  # the full name, whatever the case
        ("  eve  ", ["eve"]),  # spaces around are dropped
        ("zed", []),
    ],
)
def test_the_search_keeps_learners_by_name_or_user_name(
    client, exam, people, seven, search, expected
):
    client.force_login(people.assistant)
    page = grid(client, exam.quiz, "?" + f"q={search}".replace(" ", "+"))
    assert listed(page) == expected
    if not expected:
        assert "No learner's name or user name contains “zed”." in page


def test_a_search_too_long_is_a_400(client, exam, people):
    client.force_login(people.assistant)
    grid(client, exam.quiz, "?q=" + "a" * 151, status=400)


@pytest.mark.parametrize("page", ["4", "0", "-1", "two", ""])
def test_a_page_that_does_not_exist_is_a_404(client, exam, people, seven, page):
    client.force_login(people.assistant)
    grid(client, exam.quiz, f"?page={page}", status=404)


def test_page_one_of_a_quiz_without_learners_exists(client, exam, people):
    client.force_login(people.assistant)
    assert "No learner has made an attempt yet." in grid(client, exam.quiz, "?page=1")


def test_grouped_pages_go_through_each_lms_course_in_turn(exam, seven, lms_contexts):
    # Ada, Cy and Eve came from "ML 101"; Bea and Dee from "AI 200"; Flo and Gus from no LMS.
    by_name = {user.first_name: user.pk for user in seven}
    lms_contexts.update({by_name[name]: "ML 101" for name in ("Ada", "Cy", "Eve")})
    lms_contexts.update({by_name[name]: "AI 200" for name in ("Bea", "Dee")})

    def groups(number):
        found = results_page(
            quiz=exam.quiz, rule=AttemptRule.BEST, grouped=True, search="", number=number
        )
        return [
            (group.label, group.learners, [row.learner.name for row in group.rows])
            for group in found.groups
        ]

    assert groups(1) == [
        ("AI 200", 2, ["Bea Learner", "Dee Learner"]),
        ("ML 101", 3, ["Ada Learner"]),
    ]
    assert groups(2) == [
        ("ML 101", 3, ["Cy Learner", "Eve Learner"]),
        (NOT_FROM_AN_LMS, 2, ["Flo Learner"]),
    ]
    assert groups(3) == [(NOT_FROM_AN_LMS, 2, ["Gus Learner"])]


def test_a_page_s_rows_are_scored_from_its_learners_answers(exam, seven):
    found = results_page(quiz=exam.quiz, rule=AttemptRule.ALL, grouped=False, search="", number=3)
    (row,) = found.results.rows
    assert row.learner.username == "gus"
    question = row.items[0]
    assert (question.status, question.points, question.tries) == ("correct", 2.0, 1)


def test_a_teaching_assistant_of_another_course_gets_a_404_on_any_page(client, exam, people, seven):
    client.force_login(people.other_assistant)
    for query in ("", "?page=2", "?q=ada", "?group=lms&page=3"):
        grid(client, exam.quiz, query, status=404)


def test_the_search_is_shown_back_as_text(client, exam, people, seven):
    client.force_login(people.assistant)
    page = grid(client, exam.quiz, "?q=%3Cscript%3Ealert(1)%3C/script%3E")
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_gradebook_lists_every_learner_whatever_the_page_size(client, exam, people, seven):
    client.force_login(people.assistant)
    response = client.get(reverse("teaching:quiz-gradebook", args=[exam.quiz.slug]))
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert [line.split(",")[0] for line in lines[1:]] == sorted(name.lower() for name in NAMES)
