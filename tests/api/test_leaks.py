"""No API response carries a variant's answer or a mistake value before the policy allows it.

Every response of every endpoint an integration or a learner can call during an exam attempt
and during practice is scanned with the learner pages' scan (tests.grading.test_views_leaks):
each answer and mistake value in several spellings, the givens shown on purpose left out. A
positive control proves the scan sees the answers once they are released.
"""

from __future__ import annotations

import pytest

from courses.models import Problem, Quiz
from grading.api.selectors import variant_answer_text
from grading.engine import FAMILIES
from grading.models import Variant
from tests.api.conftest import session_client
from tests.grading.private_data import body, exam_of_every_family, private_leaks
from tests.grading.test_views_leaks import (
    authored_numbers,
    leaks,
    lesson_with_a_formula_problem,
    shown_numbers,
    significant_digits,
)

pytestmark = pytest.mark.django_db

WRONG = "12345"  # readable, and far from every answer and mistake of the shipped lesson


def scan(responses, variants, authored):
    for label, response in responses:
        text = (
            response.content.decode()
            if not response.streaming
            else b"".join(response.streaming_content).decode()
        )
        for variant in variants:
            found = leaks(text, variant, typed=WRONG, authored=authored)
            assert found == set(), (label, variant.problem.slug, found)
        for word in ("is_correct", "seed"):
            assert f'"{word}"' not in text, (label, word)


def guess_scores(quiz: Quiz) -> set[str]:
    """Each question's random guess score as the statistics endpoint prints it (right choices
    over choices): a fact of the authored question, not of any learner's variant."""
    found = set()
    for item in quiz.items.filter(question__isnull=False).select_related("question"):
        choices = list(item.question.choices.values_list("is_correct", flat=True))
        found.add(str(sum(choices) / len(choices)))
    return found


@pytest.mark.parametrize("slug", ["attention-exam", "attention-practice"])
def test_attempt_endpoints_leak_nothing_before_release(lms, slug):
    client = lms.client()
    quiz = Quiz.objects.get(slug=slug)
    attempt = client.post("/api/v1/attempts/", {"quiz": slug, "learner": "stud-1"}).json()
    base = f"/api/v1/attempts/{attempt['id']}"
    items = client.get(f"{base}/items/").json()
    responses = [("items", client.get(f"{base}/items/"))]
    for item in items:
        body = (
            {"text": WRONG}
            if item["kind"] == "problem"
            else {"choices": [item["choices"][0]["id"]]}
        )
        responses.append(
            (f"answer {item['id']}", client.post(f"{base}/items/{item['id']}/answers/", body))
        )
    for path in ("/", "/items/", "/result/"):
        responses.append((path, client.get(f"{base}{path}")))
    for url in (
        "/api/v1/attempts/",
        "/api/v1/grades/",
        "/api/v1/grades.csv",
        f"/api/v1/quizzes/{slug}/",
        f"/api/v1/quizzes/{slug}/statistics/?attempts=all",
        f"/api/v1/quizzes/{slug}/statistics.csv?attempts=all",
        "/api/v1/problems/",
        "/api/v1/lessons/",
    ):
        responses.append((url, client.get(url)))
    failed = [(label, r.status_code) for label, r in responses if r.status_code >= 300]
    assert failed == []
    variants = list(Variant.objects.filter(attempt_id=attempt["id"]).select_related("problem"))
    assert variants
    # Authored numbers and every variant's givens are public: one problem's d_k may equal
    # another's answer. So are the statistics' random guess scores, a question's share of right
    # choices (1/3 for one of three), which one softmax variant's entry can equal by chance.
    authored = authored_numbers(quiz).union(
        *(shown_numbers(v) for v in variants), guess_scores(quiz)
    )
    if quiz.mode == Quiz.Mode.EXAM:
        # Before submission not even the verdicts show, so the choices' feedback cannot either.
        answers = [r.json() for label, r in responses if label.startswith("answer")]
        assert {a["status"] for a in answers} == {"recorded"}
    scan(responses, variants, authored)


def test_practice_endpoints_never_show_an_answer_or_mistake(lms, course):
    client = lms.client()
    for problem in Problem.objects.all():
        variant = client.post("/api/v1/variants/", {"problem": problem.slug, "learner": "stud-1"})
        base = f"/api/v1/variants/{variant.json()['id']}"
        responses = [
            ("new", variant),
            ("get", client.get(f"{base}/")),
            ("solution before a try", client.post(f"{base}/solution/", {"give_up": True})),
            ("answer", client.post(f"{base}/answers/", {"text": WRONG})),
            # One wrong try of solution_after_tries (3): not without giving up.
            ("solution not given up", client.post(f"{base}/solution/", {})),
            ("solution not revealed", client.get(f"{base}/solution/")),
            ("get after the answer", client.get(f"{base}/")),
            ("streaks", client.get("/api/v1/streaks/")),
        ]
        refused = [label for label, r in responses if label.startswith("solution")]
        assert [r.status_code for label, r in responses if label in refused] == [409] * 3
        scan(responses, [Variant.objects.get(pk=variant.json()["id"])], set())


def test_the_scan_sees_answers_once_released(lms, exam):
    client = lms.client()
    attempt = client.post("/api/v1/attempts/", {"quiz": "attention-exam", "learner": "stud-1"})
    result = client.post(f"/api/v1/attempts/{attempt.json()['id']}/submit/")
    assert result.json()["answers_released"]
    variants = Variant.objects.filter(attempt_id=attempt.json()["id"]).select_related("problem")
    text = result.content.decode()
    # Answers too short to scan for (like 4) are skipped by the scan itself, so not expected.
    scannable = [v for v in variants if significant_digits(variant_answer_text(variant=v)) >= 3]
    assert len(scannable) >= 2
    assert all(leaks(text, variant) for variant in scannable)


def test_no_endpoint_returns_a_variants_private_data_before_or_after_release(lms, learner_a):
    """Every family's grading key (a formula problem's formulas, mistake codes and hidden
    values included) stays out of every response: to the LMS's key and to a learner's own
    browser session, during the exam and once answers are released."""
    lesson = lesson_with_a_formula_problem()
    quiz = exam_of_every_family(lesson)
    lms_client = lms.client()
    browser = session_client(learner_a)
    clients = {"lms": (lms_client, {"learner": "stud-1"}), "session": (browser, {})}
    variants: list[Variant] = []
    attempts = {}
    before: list[tuple[str, object]] = []
    for name, (client, who) in clients.items():
        # Practice first: while the exam runs, practice on its problems is refused.
        for problem in lesson.problems.all():
            made = client.post("/api/v1/variants/", {"problem": problem.slug, **who})
            url = f"/api/v1/variants/{made.json()['id']}"
            before.append((f"{name} new variant {problem.slug}", made))
            before.append((f"{name} variant {problem.slug}", client.get(f"{url}/")))
            answered = client.post(f"{url}/answers/", {"text": WRONG})
            before.append((f"{name} variant answer {problem.slug}", answered))
            variants.append(Variant.objects.get(pk=made.json()["id"]))
        attempt = client.post("/api/v1/attempts/", {"quiz": quiz.slug, **who}).json()
        attempts[name] = attempt
        base = f"/api/v1/attempts/{attempt['id']}"
        items = client.get(f"{base}/items/").json()
        before.append((f"{name} items", client.get(f"{base}/items/")))
        for item in items:
            answer = client.post(f"{base}/items/{item['id']}/answers/", {"text": WRONG})
            before.append((f"{name} answer {item['id']}", answer))
        for path in ("/", "/result/"):
            before.append((f"{name} {path}", client.get(f"{base}{path}")))
        variants += Variant.objects.filter(attempt_id=attempt["id"])
    for url in ("/api/v1/attempts/", "/api/v1/grades/", "/api/v1/grades.csv"):
        before.append((url, lms_client.get(url)))
    for url in (f"/api/v1/quizzes/{quiz.slug}/", "/api/v1/problems/", "/api/v1/lessons/"):
        before.append((url, lms_client.get(url)))
    failed = [(label, r.status_code) for label, r in before if r.status_code >= 300]
    assert failed == []
    variants = list(
        Variant.objects.filter(pk__in=[v.pk for v in variants]).select_related("problem")
    )
    assert {v.family for v in variants} == set(FAMILIES)
    # Authored numbers and every variant's givens are public: one problem's d_k may equal
    # another's answer.
    authored = authored_numbers(quiz).union(*(shown_numbers(v) for v in variants))
    for label, response in before:
        text = body(response)
        assert private_leaks(text, variants) == set(), label
        for variant in variants:
            if variant.family == "formula":
                assert leaks(text, variant, typed=WRONG, authored=authored) == set(), label

    after = []
    for name, (client, _) in clients.items():
        base = f"/api/v1/attempts/{attempts[name]['id']}"
        submitted = client.post(f"{base}/submit/")
        assert submitted.json()["answers_released"]
        # Released: the formula problem's answer value shows; its formulas still never do.
        formula = Variant.objects.get(attempt_id=attempts[name]["id"], family="formula")
        assert leaks(body(submitted), formula), name
        after.append((f"{name} submit", submitted))
        for path in ("/", "/items/", "/result/"):
            after.append((f"{name} {path} after", client.get(f"{base}{path}")))
    after.append(("grades after", lms_client.get("/api/v1/grades/")))
    for label, response in after:
        assert response.status_code < 300, label
        assert private_leaks(body(response), variants) == set(), label
