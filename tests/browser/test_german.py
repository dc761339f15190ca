"""A German-speaking learner and instructor in Chromium: the browser asks for German, and every
page softgrade writes answers in German (the lesson's own text stays in the language it was
written in), reads decimal commas, writes numbers with them, and stays accessible (axe)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from courses.models import Problem, Quiz
from grading import engine
from grading.models import Attempt, Response, Variant
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.practice import practice_variant_current
from grading.services.responses import response_submit
from teaching.models import CourseRole
from tests.browser.conftest import PASSWORD
from tests.browser.test_accessibility import serious_violations
from tests.factories import UserFactory

pytestmark = pytest.mark.browser

LESSON = "/lessons/scaled-dot-product-attention/"


def log_in_in_german(page, live_server, user) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.get_by_label("Benutzername").fill(user.username)
    page.get_by_label("Passwort").fill(PASSWORD)
    page.get_by_role("button", name="Anmelden").click()
    page.wait_for_url(f"{live_server.url}/")


def _right_answer(user, slug: str) -> tuple[Variant, str]:
    variant = practice_variant_current(user=user, problem=Problem.objects.get(slug=slug))
    answer = engine.get_family(variant.family).solve(variant.givens, variant.grading_key).answer
    return variant, engine.format_answer(answer, decimal=",")


def test_a_german_learner_reads_the_lesson_and_practises_with_decimal_commas(
    german_page, live_server, shipped_bank, learner_account
):
    page = german_page
    page.goto(live_server.url + "/")
    navigation = page.get_by_role("navigation", name="Hauptnavigation")
    expect(navigation.get_by_role("link", name="Kurse")).to_be_visible()
    expect(page.get_by_label("Sprache")).to_have_value("de")
    log_in_in_german(page, live_server, learner_account)

    page.goto(live_server.url + LESSON)
    expect(page.get_by_role("navigation", name="Auf dieser Seite")).to_be_visible()
    # The lesson is authored content: its title stays as its instructor wrote it.
    expect(page.locator("h1")).to_contain_text("Scaled dot-product attention")
    # The explorer writes its numbers as German does.
    expect(page.locator("#explorer-typical")).to_have_text(re.compile(r"^\d,\d+$"))
    assert serious_violations(page) == [], "lesson"

    # A vector in German: decimal commas, entries separated by semicolons, as the hint says.
    page.goto(live_server.url + "/practice/softmax/")
    expect(page.get_by_text("Dezimalkomma; Einträge mit ; trennen").first).to_be_visible()
    _variant, right = _right_answer(learner_account, "softmax")
    assert "," in right
    assert ";" in right
    page.get_by_label("Ihre Antwort").fill(right)
    page.get_by_role("button", name="Antwort prüfen").click()
    expect(page.locator("#verdict")).to_contain_text("Richtig")
    expect(page.locator("#streak")).to_contain_text("1 in Folge")
    assert serious_violations(page) == [], "practice"

    # A scalar: "1.000" could be a thousand or one, so it is refused, saying how to write it,
    # and costs no try; "0.5"-style points are still read.
    page.goto(live_server.url + "/practice/saturation-max-prob/")
    page.get_by_label("Ihre Antwort").fill("1.000")
    page.get_by_role("button", name="Antwort prüfen").click()
    verdict = page.locator("#verdict")
    expect(verdict).to_contain_text("Wir konnten diese Antwort nicht lesen.")
    expect(verdict).to_contain_text("1.000 ist mehrdeutig")
    latest = Variant.objects.filter(user=learner_account, attempt=None).order_by("-pk").first()
    assert not Response.objects.filter(variant=latest, counts_as_try=True).exists()
    _variant, right = _right_answer(learner_account, "saturation-max-prob")
    page.get_by_label("Ihre Antwort").fill(right.replace(",", "."))
    page.get_by_role("button", name="Antwort prüfen").click()
    expect(page.locator("#verdict")).to_contain_text("Richtig")
    assert serious_violations(page) == [], "practice, refused answer"


def test_a_german_learner_takes_the_exam_and_reads_the_results(
    german_page, live_server, shipped_bank, learner_account
):
    page = german_page
    log_in_in_german(page, live_server, learner_account)
    page.goto(live_server.url + "/quizzes/attention-exam/")
    assert serious_violations(page) == [], "quiz"
    page.get_by_role("button", name="Versuch 1 beginnen").click()
    expect(page.get_by_role("timer")).to_contain_text("Verbleibende Zeit")
    attempt = Attempt.objects.get(user=learner_account)
    items = list(attempt.quiz.items.filter(problem__isnull=False).order_by("order"))
    for item in items:
        variant = Variant.objects.get(attempt=attempt, quiz_item=item)
        family = engine.get_family(variant.family)
        answer = family.solve(variant.givens, variant.grading_key).answer
        page.locator(f"#item-{item.pk}-answer").fill(engine.format_answer(answer, decimal=","))
    assert serious_violations(page) == [], "exam"
    page.get_by_role("button", name="Antworten speichern").click()
    saved = "Antworten" if len(items) > 1 else "Antwort"
    expect(page.get_by_role("status")).to_have_text(
        re.compile(rf"{len(items)} {saved} um [\d:]+ gespeichert\.")
    )
    page.get_by_role("button", name="Versuch abgeben").click()
    page.get_by_role("dialog").get_by_role("button", name="Jetzt abgeben").click()
    expect(page.get_by_role("heading", name=re.compile("Ergebnisse"))).to_be_visible()
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.SUBMITTED
    problem_points = sum(item.points for item in items)
    assert attempt.score >= problem_points  # every typed answer, with its commas, was right
    assert serious_violations(page) == [], "results"
    page.goto(live_server.url + "/history/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Mein Fortschritt")
    assert serious_violations(page) == [], "history"


@pytest.fixture
def taught_in_german(shipped_bank, learner_account):
    """The shipped exam with two learners' submitted attempts; the account teaches its course."""
    exam = Quiz.objects.get(slug="attention-exam")
    CourseRole.objects.create(
        course=exam.lesson.course, user=learner_account, role=CourseRole.Role.INSTRUCTOR
    )
    # Grete typed on a German page (a decimal comma), Jonas the same value on an English one.
    for name, text, decimal in (("Grete", "0,25", ","), ("Jonas", "0.25", ".")):
        learner = UserFactory(first_name=name, last_name="Lernend")
        attempt = attempt_start(user=learner, quiz=exam)
        for item in exam.items.all():
            if item.question_id:
                choice = item.question.choices.order_by("order").first()
                response_submit(attempt=attempt, item=item, choice_ids=[choice.pk])
            else:
                response_submit(attempt=attempt, item=item, text=text, decimal=decimal)
        attempt_submit(attempt=attempt)
    return exam


def test_a_german_instructor_follows_the_course_through_teach(
    german_page, live_server, taught_in_german, learner_account
):
    page = german_page
    log_in_in_german(page, live_server, learner_account)
    page.get_by_role("navigation", name="Hauptnavigation").get_by_role("link", name="Lehre").click()
    expect(page).to_have_url(f"{live_server.url}/teach/")
    assert serious_violations(page) == [], "courses"
    page.get_by_role("link", name=taught_in_german.lesson.course.title).click()
    assert serious_violations(page) == [], "course"
    words = taught_in_german.title.split("$")[0]
    page.get_by_role("link", name=words).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Ergebnisse")
    assert serious_violations(page) == [], "results"
    page.goto(f"{live_server.url}/teach/quizzes/{taught_in_german.slug}/statistics/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Statistik")
    # Statistics are written with decimal commas; none with a point.
    table = page.locator("table").first.inner_text()
    assert re.search(r"\d,\d", table), table
    assert not re.search(r"\d\.\d", table), table
    assert serious_violations(page) == [], "statistics"
    item = taught_in_german.items.filter(problem__isnull=False).order_by("order").first()
    page.goto(f"{live_server.url}/teach/quizzes/{taught_in_german.slug}/items/{item.pk}/responses/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Antworten zu Aufgabe")
    # The same value typed with either separator is read alike: both are numbers, none
    # unreadable (one line, or one per outcome where the two learners' numbers make it a
    # different slip for each; a line shows the value as it was typed).
    values = page.get_by_role(
        "table", name="Die eingegebenen Werte, häufigste zuerst, mit ihrer Einordnung"
    )
    expect(values.locator("tbody tr").first).to_be_visible()
    shown = values.locator("tbody tr").evaluate_all(
        "rows => rows.map((row) => [row.cells[0].querySelector('code').innerText,"
        " row.cells[1].innerText, Number(row.cells[2].innerText)])"
    )
    assert {value for value, _outcome, _count in shown} <= {"0,25", "0.25"}, shown
    assert sum(count for _value, _outcome, count in shown) == 2, shown
    assert not any("Ungültig" in outcome for _value, outcome, _count in shown), shown
    assert serious_violations(page) == [], "responses"
