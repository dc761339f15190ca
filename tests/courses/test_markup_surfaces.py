"""Every payload of tests/markup_payloads.py, stored in every authored field at once, rendered
everywhere authored text shows: learners' pages, the admin's previews, the API's `*_html` fields.
None may add an element, handler, style or URL that a page of harmless text does not have.

Text goes straight into the database, past the checks: what an older import stored must be safe
too. Each field starts with its own marker word, so a test also proves the field was shown.
"""

from __future__ import annotations

from collections import Counter

import pytest
from django.test import Client
from django.urls import reverse

from courses.models import Quiz
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import practice_variant_new
from grading.services.responses import response_submit
from tests.api.conftest import session_client
from tests.factories import (
    ChoiceFactory,
    InstructorFactory,
    KeyTermFactory,
    LessonFactory,
    MisconceptionFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)
from tests.markup_payloads import PAYLOADS, live_html_findings

pytestmark = pytest.mark.django_db

HARMLESS = "Plain words about $d_k$ and a [link](https://example.org/)."
# The surfaces' own elements (forms, scripts, stylesheets) found on a page of harmless text.
_baseline: dict[str, Counter] = {}


def marker(field: str) -> str:
    return f"zq{field}zq"


def authored_content(text: str) -> dict:
    """A lesson whose every authored field holds `text`, a quiz over it and a learner's attempt:
    a wrong choice answered (its feedback and misconception shown), then the right one."""

    def field(name: str) -> str:
        return f"{marker(name)} {text}"

    lesson = LessonFactory(
        title=field("lessontitle"), summary=field("lessonsummary"), body=field("lessonbody")
    )
    term = KeyTermFactory(lesson=lesson, term=field("term"), definition=field("definition"))
    misconception = MisconceptionFactory(
        lesson=lesson, title=field("mctitle"), explanation=field("mcexplanation")
    )
    question = QuestionFactory(
        lesson=lesson, prompt=field("prompt"), explanation=field("explanation")
    )
    right = ChoiceFactory(
        question=question, order=0, is_correct=True, text=field("righttext"),
        feedback=field("rightfeedback"),
    )  # fmt: skip
    wrong = ChoiceFactory(
        question=question, order=1, is_correct=False, misconception=misconception,
        text=field("wrongtext"), feedback=field("wrongfeedback"),
    )  # fmt: skip
    problem = ProblemFactory(lesson=lesson, title=field("problemtitle"), prompt=field("problem"))
    quiz = QuizFactory(
        lesson=lesson, title=field("quiztitle"), description=field("quizdescription"),
        mode=Quiz.Mode.PRACTICE, show_feedback=Quiz.Feedback.IMMEDIATELY,
        release_answers=Quiz.AnswerRelease.AFTER_SUBMISSION, tries_per_item=3,
    )  # fmt: skip
    question_item = QuizItemFactory(quiz=quiz, question=question, order=0)
    QuizItemFactory(quiz=quiz, question=None, problem=problem, order=1)
    learner = UserFactory()
    attempt = attempt_start(user=learner, quiz=quiz)
    response_submit(attempt=attempt, item=question_item, choice_ids=[wrong.pk])
    return {
        "lesson": lesson, "term": term, "misconception": misconception, "question": question,
        "right": right, "problem": problem, "quiz": quiz, "question_item": question_item,
        "learner": learner, "attempt": attempt,
    }  # fmt: skip


def rendered_surfaces(content: dict) -> dict[str, tuple[str, list[str]]]:
    """surface name -> (what it returned, the markers it must show)."""
    learner = Client()
    learner.force_login(content["learner"])
    attempt, quiz, problem = content["attempt"], content["quiz"], content["problem"]
    surfaces = {}

    def page(name, client, url, markers):
        response = client.get(url)
        assert response.status_code == 200, (name, response.status_code)
        surfaces[name] = (response.content.decode(), markers)

    page("lesson page", learner, content["lesson"].get_absolute_url(),
         ["lessontitle", "lessonsummary", "lessonbody", "term", "definition"])  # fmt: skip
    page("quiz page", learner, reverse("quiz-detail", args=[quiz.slug]),
         ["quiztitle", "quizdescription"])  # fmt: skip
    page("attempt page", learner, reverse("attempt-take", args=[attempt.pk]),
         ["prompt", "righttext", "wrongtext", "wrongfeedback", "mctitle", "mcexplanation",
          "problem"])  # fmt: skip
    page("practice page", learner, reverse("practice", args=[problem.slug]),
         ["problemtitle", "problem"])  # fmt: skip

    api = session_client(content["learner"], csrf=False)  # reads only
    items = api.get(f"/api/v1/attempts/{attempt.pk}/items/").json()
    fragments = [item["prompt_html"] or "" for item in items]
    fragments += [choice["text_html"] or "" for item in items for choice in item["choices"]]
    variant = practice_variant_new(user=content["learner"], problem=problem)
    fragments.append(api.get(f"/api/v1/variants/{variant.pk}/").json()["prompt_html"] or "")
    surfaces["api *_html fields"] = ("\n".join(fragments), [])

    response_submit(
        attempt=attempt, item=content["question_item"], choice_ids=[content["right"].pk]
    )
    attempt_submit(attempt=attempt)
    page("results page", learner, reverse("attempt-results", args=[attempt.pk]),
         ["prompt", "righttext", "wrongtext", "rightfeedback", "explanation"])  # fmt: skip

    admin = Client()
    admin.force_login(InstructorFactory())
    for model, key, markers in (
        ("lesson", "lesson", ["lessonbody", "definition"]),
        ("keyterm", "term", ["definition"]),
        ("misconception", "misconception", ["mcexplanation"]),
        ("question", "question", ["prompt", "righttext", "rightfeedback", "explanation"]),
        ("quiz", "quiz", ["quizdescription"]),
        ("problem", "problem", ["problem"]),
    ):
        url = reverse(f"admin:courses_{model}_change", args=[content[key].pk])
        page(f"admin {model}", admin, url, markers)
    return surfaces


def baseline_findings() -> dict[str, Counter]:
    """What each surface has of its own, measured once on harmless text."""
    if not _baseline:
        for name, (html, _) in rendered_surfaces(authored_content(HARMLESS)).items():
            _baseline[name] = Counter(live_html_findings(html))
    return _baseline


@pytest.mark.parametrize(("name", "payload"), PAYLOADS, ids=[name for name, _ in PAYLOADS])
def test_no_payload_survives_on_any_surface(name, payload):
    baseline = baseline_findings()
    surfaces = rendered_surfaces(authored_content(payload))
    assert set(surfaces) == set(baseline)
    for surface, (html, markers) in surfaces.items():
        added = Counter(live_html_findings(html)) - baseline[surface]
        assert not added, (surface, sorted(added))
        for field in markers:
            assert marker(field) in html, (surface, field)
    # The API's fragments are authored text only: nothing at all may be found in them.
    assert live_html_findings(surfaces["api *_html fields"][0]) == []


def test_harmless_text_renders_math_and_links_on_every_surface():
    surfaces = rendered_surfaces(authored_content(HARMLESS))
    for surface, (html, _) in surfaces.items():
        assert "<math" in html, surface
        assert 'href="https://example.org/" rel="nofollow noopener noreferrer"' in html, surface
    # Choice feedback is Markdown with math too, on the verdict panel.
    attempt_page = surfaces["attempt page"][0]
    feedback = attempt_page.split('class="verdict-feedback"')[1].split("</div>")[0]
    assert "<math" in feedback
