"""The learner's pages and the API render authored text once: shown again, a page converts no
text, and an edit shows at once. (Their query counts are pinned in test_views*.py.)"""

from __future__ import annotations

import pytest
from django.urls import reverse

from courses.content_versions import content_changed
from courses.models import Choice, Problem, Question, Quiz
from grading.models import Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import practice_answer_submit
from grading.services.responses import response_submit
from tests.api.conftest import session_client
from tests.factories import UserFactory
from tests.grading.test_services import answer_of, mistake_of
from tests.grading.test_views import variant_with_mistake

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam_answered(shipped_bank, learner):
    """The learner's attempt at the shipped exam, every item answered wrong: a wrong choice
    brings its feedback and misconception to the results page."""
    exam = Quiz.objects.get(slug="attention-exam")
    attempt = attempt_start(user=learner, quiz=exam)
    for item in exam.items.select_related("question"):
        if item.question_id:
            wrong = item.question.choices.filter(is_correct=False).order_by("pk").first()
            response_submit(attempt=attempt, item=item, choice_ids=[wrong.pk])
        else:
            variant = Variant.objects.get(attempt=attempt, quiz_item=item)
            response_submit(attempt=attempt, item=item, text=f"{answer_of(variant)}*3")
    return attempt


def shown_twice(client, url: str, conversions) -> tuple[str, int, int]:
    """The page's HTML, and the texts converted the first and the second time it is shown."""
    first = client.get(url)
    assert first.status_code == 200
    converted_first = len(conversions)
    second = client.get(url)
    assert second.status_code == 200
    return second.content.decode(), converted_first, len(conversions) - converted_first


def test_the_attempt_page_renders_its_texts_once(learner_client, markup_conversions, exam_answered):
    # Counted from before the start: the exam's sheet is rendered when the attempt is made
    # (grading/sheets.py), so the first page may already convert nothing.
    url = reverse("attempt-take", kwargs={"pk": exam_answered.pk})
    html, first, again = shown_twice(learner_client, url, markup_conversions)
    # Every question's prompt and choices, every problem's statement: converted, then kept.
    assert first >= 6 * 3 + 4
    assert again == 0
    assert html.count("<math") > 10


def test_the_results_page_renders_its_texts_once(learner_client, exam_answered, markup_conversions):
    attempt_submit(attempt=exam_answered)
    url = reverse("attempt-results", kwargs={"pk": exam_answered.pk})
    html, first, again = shown_twice(learner_client, url, markup_conversions)
    assert again == 0
    assert "misconception-explanation" in html  # feedback and explanations were rendered too
    assert first > 30


def test_the_practice_page_renders_its_texts_once(
    learner_client, learner, shipped_bank, markup_conversions
):
    problem = Problem.objects.get(slug="dot-variance")
    variant = variant_with_mistake(learner, "std-for-variance")
    practice_answer_submit(
        user=learner, variant=variant, text=mistake_of(variant, "std-for-variance")
    )
    url = reverse("practice", kwargs={"slug": problem.slug})
    html, first, again = shown_twice(learner_client, url, markup_conversions)
    assert first >= 2  # the statement and the misconception's explanation
    assert again == 0
    assert "misconception-explanation" in html


def test_an_edited_prompt_and_choice_show_on_the_next_request(
    learner_client, markup_conversions, exam_answered
):
    url = reverse("attempt-take", kwargs={"pk": exam_answered.pk})
    learner_client.get(url)
    item = exam_answered.quiz.items.filter(question__isnull=False).first()
    choice = item.question.choices.order_by("pk").first()
    # Past save(), as a bulk edit or another worker would: the page sees the new text once the
    # edit raises the quiz's content version, as every authoring path does (the exam sheet is
    # stored per attempt, keyed by it: grading/sheets.py).
    Question.objects.filter(pk=item.question_id).update(prompt="Edited: is $e^{q}$ larger?")
    Choice.objects.filter(pk=choice.pk).update(text="Edited choice $\\sqrt{2}$")
    content_changed(question_ids=[item.question_id])
    before = len(markup_conversions)
    html = learner_client.get(url).content.decode()
    assert "Edited: is" in html
    assert "Edited choice" in html
    assert "<msup><mi>e</mi><mrow><mi>q</mi></mrow></msup>" in html
    assert sorted(text for text, _ in markup_conversions.texts[before:]) == [
        "Edited choice $\\sqrt{2}$",
        "Edited: is $e^{q}$ larger?",
    ]


def test_the_api_items_render_their_html_once(learner, exam_answered, markup_conversions):
    client = session_client(learner)
    url = reverse("api:attempt-items", kwargs={"attempt_id": exam_answered.pk})
    first = client.get(url)
    assert first.status_code == 200
    converted = len(markup_conversions)
    second = client.get(url)
    assert second.json() == first.json()
    assert converted > 0
    assert len(markup_conversions) == converted
    assert all(item["prompt_html"] and "<" in item["prompt_html"] for item in second.json())


def test_the_admin_preview_renders_once(client, shipped_bank, markup_conversions):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    question = Question.objects.order_by("pk").first()
    url = reverse("admin:courses_question_change", args=[question.pk])
    assert client.get(url).status_code == 200
    converted = len(markup_conversions)
    assert client.get(url).status_code == 200
    assert converted > 0
    assert len(markup_conversions) == converted
