"""The results grid page's sort links (with aria-sort), status filter, mean row and the 400s for
parameters it cannot show, over the learners of test_reads.py (Ann 3.5 and Ben 5 under best;
Cai in progress; Dan without an attempt)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from teaching.results import pages as results_pages

pytestmark = pytest.mark.django_db


def grid(client, quiz, query="", status=200) -> str:
    response = client.get(reverse("teaching:quiz-results", args=[quiz.slug]) + query)
    assert response.status_code == status, response.content[:300]
    return response.content.decode()


def listed(page: str) -> list[str]:
    return re.findall(r'<tr data-learner="([^"]+)">', page)


def header(page: str, css_class: str) -> str:
    return re.search(rf'<th scope="col" class="{css_class}"[^>]*>.*?</th>', page).group(0)


def test_a_header_links_to_the_grid_sorted_by_it_and_says_how_it_is_sorted(
    client, exam, people, learners
):
    client.force_login(people.assistant)
    page = grid(client, exam.quiz, "?attempts=best")
    total = header(page, "grid-total")
    assert 'aria-sort="none"' in total
    assert 'href="?attempts=best&amp;sort=total"' in total
    assert "Total (points of 5)" in total
    assert 'aria-sort="ascending"' in header(page, "grid-learner")
    assert 'href="?attempts=best&amp;sort=-learner"' in header(page, "grid-learner")

    ascending = grid(client, exam.quiz, "?attempts=best&sort=total")
    total = header(ascending, "grid-total")
    assert 'aria-sort="ascending"' in total
    assert 'href="?attempts=best&amp;sort=-total"' in total  # the other way next
    assert 'aria-sort="none"' in header(ascending, "grid-learner")
    descending = grid(client, exam.quiz, "?attempts=best&sort=-total")
    assert 'aria-sort="descending"' in header(descending, "grid-total")
    assert listed(descending)[:2] == [learners["ben"].username, learners["ann"].username]


def test_an_item_header_is_compact_with_its_title_on_focus(client, exam, people, learners):
    client.force_login(people.assistant)
    page = grid(client, exam.quiz, f"?sort=-item-{exam.problem_item.pk}")
    problem = re.findall(r'<th scope="col" class="item-column"[^>]*>.*?</th>', page)[1]
    assert 'aria-sort="descending"' in problem
    assert f'href="?sort=item-{exam.problem_item.pk}"' in problem
    # Seen: "2/3"; heard: the item, its points and the sort; described by its short title.
    assert '<span aria-hidden="true">2<span class="item-points">/3</span></span>' in problem
    assert "Item 2, 3 points, sort ascending" in problem
    tip = re.search(r'aria-describedby="([^"]+)"', problem).group(1)
    assert re.search(rf'role="tooltip" id="{tip}">[^<]+</span>', problem)
    assert listed(page)[:2] == [learners["ben"].username, learners["ann"].username]


def test_the_links_keep_the_search_the_filter_and_the_grouping(client, exam, people, learners):
    client.force_login(people.assistant)
    page = grid(client, exam.quiz, "?attempts=all&group=lms&q=a&status=submitted&sort=time")
    assert 'href="?attempts=all&amp;group=lms&amp;q=a&amp;status=submitted&amp;sort=-time"' in (
        page
    )
    # The form keeps the sort when the filter changes.
    assert '<input type="hidden" name="sort" value="time">' in page
    assert '<option value="submitted" selected>' in page


def test_the_status_filter_keeps_the_learners_of_that_status(client, exam, people, learners):
    client.force_login(people.assistant)
    assert listed(grid(client, exam.quiz, "?status=in_progress")) == [learners["cai"].username]
    assert listed(grid(client, exam.quiz, "?status=overridden")) == [learners["ann"].username]
    none = grid(client, exam.quiz, "?status=overdue&q=ann")
    assert listed(none) == []
    assert "No learner whose name or user name contains “ann” has an attempt of status" in none


def test_the_mean_row_shows_every_page_s_means_and_counts(
    client, exam, people, learners, monkeypatch
):
    monkeypatch.setattr(results_pages, "LEARNERS_PER_PAGE", 1)
    client.force_login(people.assistant)
    page = grid(client, exam.quiz, "?attempts=best&page=2")
    assert listed(page) == [learners["ben"].username]
    mean = page[page.index('<tr class="grid-average"') :]
    mean = mean[: mean.index("</tr>")]
    assert "of 4 learners, every page" in mean
    assert '<td class="grid-total" data-mean="total">4.25 / 5 <span class="meta">2 scored' in mean
    items = re.findall(r'data-mean="item">([^<]+)<span class="meta">(\d+) answered', mean)
    assert items == [("2 / 2 ", "2"), ("2.25 / 3 ", "2")]


@pytest.mark.parametrize(
    "query",
    [
        "?sort=score",
        "?sort=--total",
        "?sort=item-x",
        "?sort=item-999999",  # no item of this quiz
        "?status=late",
        "?status=IN_PROGRESS",
        "?attempts=most",
        "?group=course",
    ],
)
def test_a_parameter_the_grid_cannot_show_is_a_400(client, exam, people, learners, query):
    client.force_login(people.assistant)
    grid(client, exam.quiz, query, status=400)


def test_an_item_of_another_quiz_is_no_sort(client, exam, course_b, people, learners):
    other = course_b.lessons.first().quizzes.first()
    from tests.factories import QuizItemFactory

    item = QuizItemFactory(quiz=other)
    client.force_login(people.assistant)
    grid(client, exam.quiz, f"?sort=item-{item.pk}", status=400)


def test_an_attempt_link_carries_the_grid_s_query(client, exam, people, learners):
    client.force_login(people.assistant)
    page = grid(client, exam.quiz, "?sort=-total&status=submitted")
    ben = learners["attempts"]["ben"][0]
    url = reverse("teaching:attempt", args=[ben.pk])
    assert f'href="{url}?attempts=best&amp;status=submitted&amp;sort=-total"' in page
