"""Every path that changes what an exam sheet shows raises the quiz's content version
(courses/content_versions.py), so the next attempt page renders its sheet again and shows the
change."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
import yaml
from django.urls import reverse

from courses.bank.importer import bank_import
from courses.content_versions import content_changed, quizzes_showing
from courses.models import Pool, Problem, Question, Quiz, QuizItem
from courses.moodle_xml.importer import moodle_import
from courses.pool_draws import quiz_draws_add
from courses.publishing import content_publish
from grading.models import Attempt
from grading.quiz_edits import quiz_points_change
from grading.services.attempts import attempt_start
from teaching.models import CourseRole
from tests.conftest import SHIPPED_BANK
from tests.factories import (
    InstructorFactory,
    PoolFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


class _FormFields(HTMLParser):
    """The fields a browser would send back from a page's form with the given id, unchanged."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id, self.inside, self.fields = form_id, False, []
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
        if not self.inside or ("name" not in attrs and tag != "option"):
            return
        if tag == "input":
            kind = attrs.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            if kind not in ("submit", "button", "file"):
                default = "on" if kind in ("checkbox", "radio") else ""
                self.fields.append((attrs["name"], attrs.get("value", default)))
        elif tag == "textarea":
            self._textarea = attrs["name"]
            self.fields.append((attrs["name"], ""))
        elif tag == "select":
            self._select = attrs["name"]
        elif tag == "option" and self._select and "selected" in attrs:
            self.fields.append((self._select, attrs.get("value", "")))

    def handle_data(self, data):
        if self._textarea:
            name, value = self.fields[-1]
            self.fields[-1] = (name, value + data)

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None
        elif tag == "form":
            self.inside = False


def change_form(client, url: str, form_id: str) -> dict[str, list[str]]:
    parser = _FormFields(form_id)
    parser.feed(client.get(url).content.decode())
    data: dict[str, list[str]] = {}
    for name, value in parser.fields:
        data.setdefault(name, []).append(value.removeprefix("\n"))
    assert data, f"no form {form_id} at {url}"
    return data


def admin_save(client, url: str, form_id: str, **changed: str) -> None:
    data = change_form(client, url, form_id)
    for name, value in changed.items():
        data[name] = [value]
    response = client.post(url, data)
    assert response.status_code == 302, re.findall(
        r"errorlist[^>]*>(.*?)</ul>", response.content.decode(), re.S
    )


@pytest.fixture
def admin_client(client):
    client.force_login(InstructorFactory(is_superuser=True))
    return client


@pytest.fixture
def sitting(shipped_bank):
    """A learner's attempt at the shipped exam, its page shown once (its sheet stored), and
    a client signed in as the learner."""
    from django.test import Client

    learner = UserFactory()
    attempt = attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-exam"))
    client = Client()
    client.force_login(learner)
    page(client, attempt)
    return client, attempt


def page(client, attempt: Attempt) -> str:
    response = client.get(reverse("attempt-take", kwargs={"pk": attempt.pk}))
    assert response.status_code == 200
    return response.content.decode()


def version(quiz: Quiz) -> int:
    return Quiz.objects.values_list("content_version", flat=True).get(pk=quiz.pk)


def first_item(attempt: Attempt, **kind) -> QuizItem:
    return attempt.quiz.items.filter(**kind).order_by("order").first()


# --- the version -------------------------------------------------------------------------------


def test_content_changed_raises_every_quiz_showing_the_content_once(db):
    shown, drawn, other = QuizFactory(), QuizFactory(), QuizFactory()
    question = QuestionFactory(lesson=shown.lesson)
    QuizItemFactory(quiz=shown, question=question)
    QuizItemFactory(quiz=shown, question=QuestionFactory(lesson=shown.lesson))
    pool = PoolFactory(lesson=drawn.lesson)
    pool.questions.add(question)
    QuizItemFactory(quiz=drawn, question=None, pool=pool)
    QuizItemFactory(quiz=other, question=QuestionFactory(lesson=other.lesson))
    assert quizzes_showing(question_ids=[question.pk]) == {shown.pk, drawn.pk}
    assert content_changed(question_ids=[question.pk]) == {shown.pk, drawn.pk}
    assert [version(shown), version(drawn), version(other)] == [1, 1, 0]
    problem = ProblemFactory(lesson=other.lesson)
    QuizItemFactory(quiz=other, question=None, problem=problem)
    assert content_changed(quiz_ids=[shown.pk], problem_ids=[problem.pk], pool_ids=[pool.pk]) == {
        shown.pk,
        drawn.pk,
        other.pk,
    }
    assert [version(shown), version(drawn), version(other)] == [2, 2, 1]
    assert content_changed() == set()


# --- each path, and the page after it ------------------------------------------------------------


def test_the_question_admin_shows_an_edited_prompt_on_the_next_page(admin_client, sitting):
    client, attempt = sitting
    item = first_item(attempt, question__isnull=False)
    url = reverse("admin:courses_question_change", args=[item.question_id])
    admin_save(admin_client, url, "question_form", prompt="Edited in the admin: which one?")
    assert "Edited in the admin: which one?" in page(client, attempt)


def test_the_problem_admin_shows_an_edited_context_on_the_next_page(admin_client, sitting):
    client, attempt = sitting
    item = first_item(attempt, problem__isnull=False)
    url = reverse("admin:courses_problem_change", args=[item.problem_id])
    admin_save(admin_client, url, "problem_form", prompt="Context edited in the admin.")
    assert "Context edited in the admin." in page(client, attempt)


def test_the_quiz_admin_raises_the_quiz_version(admin_client, sitting):
    _client, attempt = sitting
    before = version(attempt.quiz)
    url = reverse("admin:courses_quiz_change", args=[attempt.quiz_id])
    admin_save(admin_client, url, "quiz_form", description="Described again.")
    assert version(attempt.quiz) == before + 1


def test_the_pool_admin_raises_the_version_of_the_quizzes_drawing_from_it(admin_client, db):
    quiz = QuizFactory()
    pool = PoolFactory(lesson=quiz.lesson)
    pool.questions.add(QuestionFactory(lesson=quiz.lesson))
    QuizItemFactory(quiz=quiz, question=None, pool=pool)
    url = reverse("admin:courses_pool_change", args=[pool.pk])
    admin_save(admin_client, url, "pool_form", title="Renamed pool")
    assert version(quiz) == 1


def test_a_points_change_shows_the_new_points_on_the_next_page(sitting):
    client, attempt = sitting
    item = first_item(attempt)
    instructor = UserFactory()
    CourseRole.objects.create(
        course=attempt.quiz.lesson.course, user=instructor, role=CourseRole.Role.INSTRUCTOR
    )
    quiz_points_change(quiz=attempt.quiz, points={item.pk: 7}, by=instructor)
    assert "7 points" in page(client, attempt)


def test_a_bank_import_shows_an_edited_prompt_on_the_next_page(sitting, tmp_path):
    client, attempt = sitting
    item = first_item(attempt, question__isnull=False)
    document = yaml.safe_load(SHIPPED_BANK.read_text(encoding="utf-8"))
    slug = item.question.slug
    entry = next(question for question in document["questions"] if question["slug"] == slug)
    entry["prompt"] = "Imported again, reworded."
    path = tmp_path / "bank.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    bank_import(paths=[path])
    assert "Imported again, reworded." in page(client, attempt)


def test_publishing_raises_the_version_of_the_quizzes_showing_the_content(sitting):
    _, attempt = sitting
    before = version(attempt.quiz)
    content_publish(rows=Quiz.objects.filter(pk=attempt.quiz_id), published=False)
    assert version(attempt.quiz) == before + 1
    question = first_item(attempt, question__isnull=False).question
    content_publish(rows=Question.objects.filter(pk=question.pk), published=False)
    assert version(attempt.quiz) == before + 2


def test_adding_draws_from_a_pool_raises_the_quiz_version(db):
    quiz = QuizFactory()
    pool = PoolFactory(lesson=quiz.lesson)
    pool.questions.add(QuestionFactory(lesson=quiz.lesson))
    quiz_draws_add(quiz=quiz, pool=pool, count=1, points=2)
    assert version(quiz) == 1


def test_a_moodle_import_into_a_pool_raises_the_version_of_the_quizzes_drawing_from_it(db):
    quiz = QuizFactory()
    pool = PoolFactory(lesson=quiz.lesson)
    pool.problems.add(ProblemFactory(lesson=quiz.lesson))
    QuizItemFactory(quiz=quiz, question=None, pool=pool)
    source = b"""<?xml version="1.0"?><quiz><question type="truefalse"><name><text>Scaled</text>
    </name><questiontext format="html"><text>Is the score scaled by sqrt(d_k)?</text>
    </questiontext><answer fraction="100"><text>true</text></answer><answer fraction="0">
    <text>false</text></answer></question></quiz>"""
    moodle_import(source=source, file_name="q.xml", lesson=quiz.lesson, pool=pool)
    assert Pool.objects.get(pk=pool.pk).questions.count() == 1
    assert version(quiz) == 1


def test_a_problem_edit_past_every_path_is_not_seen_until_its_version_rises(sitting):
    client, attempt = sitting
    item = first_item(attempt, problem__isnull=False)
    Problem.objects.filter(pk=item.problem_id).update(prompt="Quietly edited.")
    assert "Quietly edited." not in page(client, attempt)
    content_changed(problem_ids=[item.problem_id])
    assert "Quietly edited." in page(client, attempt)
