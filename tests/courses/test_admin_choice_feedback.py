"""A choice made wrong while its feedback still says "Right: …" is flagged, not saved: the author
rewrites (or empties) the feedback; a right choice may say so, and other feedback is left alone."""

import pytest
from django.urls import reverse

from courses.admin_questions import right_feedback_problem, says_right
from courses.models import Question
from tests.factories import ChoiceFactory, InstructorFactory, MisconceptionFactory, QuestionFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("feedback", "flagged"),
    [
        ("Right: the variance adds up.", True),
        ("right! it adds up", True),
        ("  Correct.", True),
        ("Correct", True),
        ("Right, because the terms are independent.", True),
        ("Right-angled triangles are not involved.", False),
        ("Rightly so, this is a common slip.", False),
        ("Not right: the variance adds up.", False),
        ("", False),
    ],
)
def test_what_counts_as_feedback_saying_right(feedback, flagged):
    assert says_right(feedback) is flagged


def test_the_problem_says_whether_the_choice_was_made_wrong():
    made_wrong = right_feedback_problem(is_correct=False, was_correct=True, feedback="Right: yes")
    assert made_wrong.startswith("This choice is now marked wrong, but its feedback still tells")
    new = right_feedback_problem(is_correct=False, was_correct=False, feedback="Correct!")
    assert new.startswith("This choice is wrong, but")
    assert right_feedback_problem(is_correct=True, was_correct=True, feedback="Right: yes") == ""


@pytest.fixture
def question():
    question = QuestionFactory(slug="var-q", kind=Question.Kind.SINGLE)
    wrong_idea = MisconceptionFactory(lesson=question.lesson)
    right = ChoiceFactory(
        question=question, text="$d_k$", is_correct=True, feedback="Right: it adds up.", order=0
    )
    wrong = ChoiceFactory(
        question=question,
        text="$1$",
        is_correct=False,
        misconception=wrong_idea,
        feedback="Each term has variance one.",
        order=1,
    )
    return question, right, wrong, wrong_idea


def change_post(question, rows):
    data = {
        "lesson": str(question.lesson_id),
        "title": "",
        "slug": question.slug,
        "kind": question.kind,
        "order": "0",
        "prompt": question.prompt,
        "explanation": "",
        "choices-TOTAL_FORMS": str(len(rows)),
        "choices-INITIAL_FORMS": str(len(rows)),
        "choices-MIN_NUM_FORMS": "0",
        "choices-MAX_NUM_FORMS": "1000",
    }
    for i, row in enumerate(rows):
        for key, value in row.items():
            if value is not None:
                data[f"choices-{i}-{key}"] = value
    return data


def row(choice, **changes):
    values = {
        "id": str(choice.pk),
        "question": str(choice.question_id),
        "order": str(choice.order),
        "text": choice.text,
        "is_correct": "on" if choice.is_correct else None,
        "misconception": str(choice.misconception_id or ""),
        "feedback": choice.feedback,
    }
    values.update(changes)
    return values


def test_making_a_right_choice_wrong_flags_its_right_feedback_and_saves_nothing(client, question):
    q, right, wrong, idea = question
    client.force_login(InstructorFactory())
    url = reverse("admin:courses_question_change", args=[q.pk])
    # The first choice made wrong, the second right: a valid set, but the feedback says "Right".
    data = change_post(
        q,
        [
            row(right, is_correct=None, misconception=str(idea.pk)),
            row(wrong, is_correct="on", misconception="", feedback=""),
        ],
    )
    response = client.post(url, data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "This choice is now marked wrong, but its feedback still tells the learner" in html
    right.refresh_from_db()
    assert right.is_correct
    # Rewritten, it saves.
    data["choices-0-feedback"] = "Each term adds its own variance."
    assert client.post(url, data).status_code == 302
    right.refresh_from_db()
    assert (right.is_correct, right.feedback) == (False, "Each term adds its own variance.")


def test_a_right_choice_keeps_its_right_feedback(client, question):
    q, right, wrong, _ = question
    client.force_login(InstructorFactory())
    url = reverse("admin:courses_question_change", args=[q.pk])
    data = change_post(q, [row(right, text="$d_k$ exactly"), row(wrong)])
    assert client.post(url, data).status_code == 302
