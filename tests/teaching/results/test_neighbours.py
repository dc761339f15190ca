"""Next and previous learner on the attempt page, in the results grid's order, over the learners
of test_reads.py: under best (the default) the grid lists Ann (#2, 3.5), Ben (#1, 5), Cai (in
progress, nothing to open) and Dan (no attempt); under every attempt Cai's attempt opens too."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def review(client, attempt, query="", status=200) -> str:
    response = client.get(reverse("teaching:attempt", args=[attempt.pk]) + query)
    assert response.status_code == status
    return response.content.decode()


def nav(page: str) -> dict[str, str]:
    """The neighbours' links by rel, and the position."""
    part = page[page.index('<nav class="learner-neighbours"') :]
    part = part[: part.index("</nav>")]
    links = dict(re.findall(r'<a href="([^"]+)" rel="(\w+)"', part))
    found = {rel: href for href, rel in links.items()}
    found["position"] = re.search(r"<span data-position>([^<]+)</span>", part).group(1)
    return found


def url(attempt, query: str) -> str:
    return reverse("teaching:attempt", args=[attempt.pk]) + "?" + query


def test_the_first_learner_has_a_next_and_no_previous(client, exam, people, learners):
    client.force_login(people.assistant)
    ann, ben = learners["attempts"]["ann"][1], learners["attempts"]["ben"][0]
    page = review(client, ann)
    links = nav(page)
    assert links["position"] == "Learner 1 of 2"
    assert "prev" not in links
    assert "First learner" in page
    assert links["next"] == url(ben, "attempts=best").replace("&", "&amp;")


def test_the_last_learner_has_a_previous_and_no_next(client, exam, people, learners):
    client.force_login(people.assistant)
    ann, ben = learners["attempts"]["ann"][1], learners["attempts"]["ben"][0]
    page = review(client, ben)
    links = nav(page)
    assert links["position"] == "Learner 2 of 2"
    assert links["prev"] == url(ann, "attempts=best")
    assert "next" not in links
    assert "Last learner" in page


def test_the_order_and_the_links_follow_the_grid_s_query(client, exam, people, learners):
    client.force_login(people.assistant)
    ann, ben = learners["attempts"]["ann"][1], learners["attempts"]["ben"][0]
    # Highest total first: Ben 5, then Ann 3.5.
    links = nav(review(client, ann, "?sort=-total"))
    assert links["position"] == "Learner 2 of 2"
    assert links["prev"] == url(ben, "attempts=best&amp;sort=-total")
    # Every attempt: Cai's in progress opens too, after Ben; Ben's first is his first row.
    cai = learners["attempts"]["cai"][0]
    links = nav(review(client, ben, "?attempts=all"))
    assert links["position"] == "Learner 2 of 3"
    assert links["next"] == url(cai, "attempts=all")
    assert links["prev"] == url(learners["attempts"]["ann"][0], "attempts=all")


def test_a_learner_the_grid_does_not_list_has_no_neighbours(client, exam, people, learners):
    client.force_login(people.assistant)
    page = review(client, learners["attempts"]["ann"][1], "?q=ben")
    links = nav(page)
    assert links["position"] == "Not among the 1 learner the grid lists with these settings"
    assert "prev" not in links
    assert "next" not in links


def test_the_breadcrumb_goes_back_to_the_grid_as_it_was(client, exam, people, learners):
    client.force_login(people.assistant)
    page = review(client, learners["attempts"]["ann"][1], "?sort=-total&status=submitted")
    grid = reverse("teaching:quiz-results", args=[exam.quiz.slug])
    assert f'href="{grid}?status=submitted&amp;sort=-total"' in page


@pytest.mark.parametrize("query", ["?sort=nope", "?status=done", "?attempts=most"])
def test_a_grid_parameter_it_cannot_follow_is_a_400(client, exam, people, learners, query):
    client.force_login(people.assistant)
    review(client, learners["attempts"]["ann"][1], query, status=400)


def test_an_instructor_of_another_course_gets_a_404(client, exam, people, learners):
    client.force_login(people.other_assistant)
    review(client, learners["attempts"]["ann"][1], "?sort=-total", status=404)
