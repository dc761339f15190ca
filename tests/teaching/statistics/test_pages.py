"""The statistics page and the response analysis pages: docs/statistics.md's worked example as
they show it (figures to three places, each checked against the hand-computed one), undefined
figures with their reason, the histogram and its table, and the learners behind each count."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from courses.models import Misconception
from teaching.models import CourseRole
from teaching.statistics.figures import SHARES
from teaching.templatetags.statistics_display import figure
from tests.factories import InstructorFactory, UserFactory
from tests.grading.exam_records import sit
from tests.teaching.statistics.test_figures import HAND_ITEMS, HAND_QUIZ
from tests.teaching.statistics_example import example_build

pytestmark = pytest.mark.django_db


@pytest.fixture
def worked(db):
    return example_build(by=InstructorFactory())


@pytest.fixture
def assistant(worked):
    user = UserFactory(first_name="Tao")
    CourseRole.objects.create(
        course=worked.quiz.lesson.course, user=user, role=CourseRole.Role.TEACHING_ASSISTANT
    )
    return user


@pytest.fixture
def page(client, assistant):
    client.force_login(assistant)

    def get(url: str, status: int = 200) -> str:
        response = client.get(url)
        assert response.status_code == status, url
        return response.content.decode()

    return get


def statistics_url(worked, query: str = "") -> str:
    return reverse("teaching:quiz-statistics", args=[worked.quiz.slug]) + query


def responses_url(worked, index: int, query: str = "") -> str:
    item = worked.items[index]
    return reverse("teaching:item-responses", args=[worked.quiz.slug, item.pk]) + query


def shown(value: float, name: str = "") -> str:
    """A figure as the page shows it: a share of the maximum as a percentage to one decimal
    (teaching/numbers.py), a coefficient to three decimals."""
    if name in SHARES:
        return f"{100 * value:.1f}".rstrip("0").rstrip(".").replace("-", "−") + " %"
    return f"{value:.3f}".replace("-", "−")


def cells(html: str, name: str, level: str = "figure") -> list[str]:
    """The text of every cell marked data-figure=name (an item's), or data-quiz=name, in
    order."""
    return re.findall(rf'data-{level}="{name}">([^<]*)<', html)


def test_the_quiz_level_shows_the_hand_computed_figures(worked, page):
    html = page(statistics_url(worked))
    assert cells(html, "n", "quiz") == ["5"]
    for name, value in HAND_QUIZ.items():
        assert cells(html, name, "quiz") == [shown(value, name)], name
    assert "1.18 / 5" in html  # the standard error in points, as docs/statistics.md says
    assert "Mean (% of the maximum)" in html
    assert "In points (of 5)" in html


def test_the_items_show_the_hand_computed_figures_in_quiz_order(worked, page):
    html = page(statistics_url(worked))
    rows = re.findall(r'<tr data-item="(\d+)">', html)
    assert rows == [str(item.pk) for item in worked.items]
    for name in HAND_ITEMS[0]:
        assert cells(html, name) == [shown(item[name], name) for item in HAND_ITEMS], name
    assert '<th scope="col">Facility (%)</th>' in html
    assert cells(html, "discrimination_index")[1] == "−0.049"
    assert "4 of 5" in html  # Eve left the problem unanswered


def test_the_histogram_counts_the_totals_and_says_so_in_words(worked, page):
    html = page(statistics_url(worked))
    # Totals 5, 4, 2, 2, 2 of 5: 1.0, 0.8 and three times 0.4.
    table = html[html.index('class="data-table chart-table"') :]
    counts = [int(n) for n in re.findall(r"<td data-count>(\d+)</td>", table)]
    assert counts == [0, 0, 0, 0, 3, 0, 0, 0, 1, 1]
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert 'role="img"' in svg
    assert "0.4–0.5: 3; " in svg  # the description
    assert "0.9–1: 1." in svg
    assert svg.count('<rect class="bar"') == 10
    assert "<script" not in svg  # drawn: no script, no inline style
    assert "style=" not in svg


def test_every_attempt_on_request(worked, page):
    html = page(statistics_url(worked, "?attempts=all"))
    assert cells(html, "n", "quiz") == ["6"]
    assert cells(html, "mean", "quiz") == [shown(15 / 6 / 5, "mean")]
    assert '<option value="all" selected>' in html


def test_an_undefined_figure_is_a_dash_with_its_reason(client, exam):
    """One attempt: a mean and a facility, and nothing that needs a spread."""
    sit(exam, UserFactory(), choice="A", factor=1.0)
    client.force_login(InstructorFactory())
    url = reverse("teaching:quiz-statistics", args=[exam.quiz.slug])
    html = client.get(url).content.decode()
    assert cells(html, "mean", "quiz") == ["100 %"]
    assert cells(html, "facility") == ["100 %", "100 %"]
    undefined = re.findall(
        r'<span class="undefined" title="([^"]+)"><span aria-hidden="true">—</span>'
        r'<span class="visually-hidden">undefined: ([^<]+)</span>',
        html,
    )
    # All but the mean and median at quiz level; all but facility, random guess score and
    # intended weight for each item.
    assert len(undefined) == 6 + 2 * 4
    assert all(title == words == "fewer than two attempts" for title, words in undefined)


def test_a_quiz_without_items_says_so(client, course_b, people):
    quiz = course_b.lessons.get().quizzes.get()
    client.force_login(people.other_assistant)
    html = client.get(reverse("teaching:quiz-statistics", args=[quiz.slug])).content.decode()
    assert "This quiz has no items yet." in html
    assert cells(html, "n", "quiz") == ["0"]
    assert html.count("undefined: the quiz has no items yet") == 8
    assert "<svg" not in html


@pytest.mark.parametrize("query", ["?attempts=best", "?attempts=last", "?attempts="])
def test_statistics_count_first_or_all_attempts_only(worked, page, query):
    page(statistics_url(worked, query), status=400)
    page(responses_url(worked, 0, query), status=400)


def test_the_results_grid_links_to_the_statistics(worked, page):
    html = page(reverse("teaching:quiz-results", args=[worked.quiz.slug]))
    assert f'href="{statistics_url(worked)}"' in html


def tally_rows(html: str, kind: str) -> dict[str, tuple[int, str]]:
    """A tally table's rows: key -> (count, share)."""
    table = html[html.index(f'data-tally="{kind}"') :]
    table = table[: table.index("</table>")]
    return {
        key: (int(count), share)
        for key, count, share in re.findall(
            r'<tr data-key="([^"]+)">.*?<td data-count>(\d+)</td>\s*<td>([^<]+)</td>',
            table,
            re.S,
        )
    }


def test_a_question_s_choices_with_their_counts_shares_and_learners(worked, page):
    html = page(responses_url(worked, 1))
    choices = worked.choices
    assert tally_rows(html, "choice") == {
        str(choices["A"].pk): (3, "60%"),
        str(choices["B"].pk): (1, "20%"),
        str(choices["C"].pk): (1, "20%"),
        str(choices["D"].pk): (0, "0%"),
    }
    assert tally_rows(html, "misconception") == {
        "picked-b": (1, "20%"),
        "picked-c-or-d": (1, "20%"),
    }
    assert "Confuses variance and standard deviation" in html
    # The learners who picked A, by name, each linked to their attempt at this item.
    row = html[html.index(f'<tr data-key="{choices["A"].pk}">') :]
    row = row[: row.index("</tr>")]
    links = re.findall(r'<a href="/teach/attempts/(\d+)/#item-(\d+)">([^<]+)</a>', row)
    item = str(worked.items[1].pk)
    assert links == [
        (str(worked.first[name].pk), item, f"{name} Learner") for name in ("Ann", "Ben", "Eve")
    ]


def test_a_problem_s_outcomes_misconceptions_and_diagnoses(worked, page):
    html = page(responses_url(worked, 2))
    assert tally_rows(html, "outcome") == {
        "correct": (1, "20%"),
        "incorrect": (3, "60%"),
        "unexplained": (1, "20%"),
        "invalid": (1, "20%"),
    }
    assert tally_rows(html, "misconception") == {"width-ignored": (1, "20%")}
    assert Misconception.objects.get(code="width-ignored").title in html
    assert tally_rows(html, "diagnosis") == {"sign-flipped": (1, "20%")}
    # Under its kind's heading, by the rule's title as well as its code.
    found = html[html.index('id="diagnoses-heading"') :]
    assert found.index("<h3>Near misses</h3>") < found.index('<tr data-key="sign-flipped">')
    assert "sign flipped <code>sign-flipped</code>" in found
    assert "<h3>Structural findings</h3>" not in found
    assert 'data-tally="choice"' not in html
    invalid = html[html.index('<tr data-key="invalid">') :]
    invalid = invalid[: invalid.index("</tr>")]
    assert f"/teach/attempts/{worked.first['Cai'].pk}/#item-{worked.items[2].pk}" in invalid
    assert "Dan Learner" not in invalid


def test_every_attempt_adds_a_learner_s_later_attempt(worked, page):
    html = page(responses_url(worked, 2, "?attempts=all"))
    assert tally_rows(html, "outcome")["unexplained"] == (2, "33%")
    assert f"/teach/attempts/{worked.ann_second.pk}/#item-" in html


def test_an_item_of_another_quiz_is_a_404(worked, page, exam):
    other = reverse("teaching:item-responses", args=[worked.quiz.slug, exam.question_item.pk])
    page(other, status=404)


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [(0.6, 3, "0.600"), (-0.04903, 3, "−0.049"), (-0.0001, 3, "0.000"), (1 / 3, 2, "0.33")],
)
def test_a_figure_has_a_true_minus_and_no_signed_zero(value, digits, text):
    assert figure(value, digits=digits) == text


def test_an_undefined_figure_s_reason_is_escaped():
    html = figure(None, "totals < 2")
    assert html.count("totals &lt; 2") == 2  # the tooltip and the words for screen readers
    assert '<span aria-hidden="true">—</span>' in html
