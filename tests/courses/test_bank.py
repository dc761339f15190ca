"""The lesson bank: the shipped content, the import/export round trip, and every bad-bank case."""

from __future__ import annotations

import copy
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from courses.bank.exporter import bank_export
from courses.bank.importer import bank_import
from courses.bank.issues import BankError
from courses.models import (
    Choice,
    Course,
    KeyTerm,
    Lesson,
    Misconception,
    Problem,
    Question,
    Quiz,
    QuizItem,
)
from tests.conftest import SHIPPED_BANK

pytestmark = pytest.mark.django_db

MODELS = [Course, Lesson, KeyTerm, Misconception, Question, Choice, Problem, Quiz, QuizItem]
ENGINE_FAMILIES = {
    "dot-variance",
    "dot-std",
    "scaled-variance",
    "scale-for-unit-variance",
    "width-for-std",
    "scaled-dot",
    "softmax",
    "softmax-slope",
    "softmax-jacobian",
    "saturation-max-prob",
    "saturated-slope",
}


def snapshot() -> dict[str, list]:
    """Every row of every authoring table, to prove a failed import changed nothing."""
    return {model.__name__: list(model.objects.order_by("pk").values()) for model in MODELS}


def shipped_document() -> dict:
    return yaml.safe_load(SHIPPED_BANK.read_text(encoding="utf-8"))


def write_bank(tmp_path: Path, document: dict, name: str = "broken.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), "utf-8")
    return path


# --- the shipped bank -------------------------------------------------------------------------


def test_shipped_bank_holds_the_whole_lesson(shipped_bank):
    lesson = Lesson.objects.get(slug="scaled-dot-product-attention")
    assert r"$\sqrt{d_k}$" in lesson.title
    assert [t.slug for t in lesson.key_terms.all()] == [
        "variance",
        "standard-deviation",
        "saturation",
        "vanishing-gradient",
        "scaled-dot-product-attention",
        "softmax-jacobian",
    ]
    assert lesson.misconceptions.count() >= 8
    assert lesson.questions.count() >= 12
    assert {p.family for p in lesson.problems.all()} == ENGINE_FAMILIES
    assert all(p.slug == p.family for p in lesson.problems.all())
    modes = set(lesson.quizzes.values_list("mode", flat=True))
    assert modes == {Quiz.Mode.PRACTICE, Quiz.Mode.EXAM}
    exam = lesson.quizzes.get(mode=Quiz.Mode.EXAM)
    kinds = {("question" if i.question_id else "problem") for i in exam.items.all()}
    assert kinds == {"question", "problem"}


def test_every_wrong_shipped_choice_is_explained(shipped_bank):
    wrong = Choice.objects.filter(is_correct=False)
    assert wrong.exists()
    assert not wrong.filter(misconception__isnull=True).exists()
    assert not wrong.filter(feedback="").exists()


def test_shipped_body_covers_the_derivation(shipped_bank):
    body = Lesson.objects.get(slug="scaled-dot-product-attention").body
    for needle in ["\\sqrt{d_k}", "\\operatorname{softmax}", "\\delta_{ij}", "d_k"]:
        assert needle in body


def test_reimport_is_idempotent(shipped_bank):
    before = snapshot()
    summaries = bank_import(paths=[SHIPPED_BANK])
    assert summaries[0].created == {}
    after = snapshot()
    # An import raises the content version of the quizzes it wrote (courses.content_versions):
    # their sheets are rendered again, the same.
    kept = {"updated_at", "content_version"}
    for name, rows in before.items():
        strip = [{k: v for k, v in r.items() if k not in kept} for r in rows]
        assert strip == [{k: v for k, v in r.items() if k not in kept} for r in after[name]]


def test_export_then_import_is_a_round_trip(shipped_bank, tmp_path):
    lesson = Lesson.objects.get(slug="scaled-dot-product-attention")
    exported = bank_export(lesson=lesson)
    assert yaml.safe_load(exported)["lesson"]["body"] == lesson.body
    path = tmp_path / "exported.yaml"
    path.write_text(exported, encoding="utf-8")
    before = snapshot()
    bank_import(paths=[path])
    assert bank_export(lesson=lesson) == exported
    after = snapshot()
    assert [len(rows) for rows in before.values()] == [len(rows) for rows in after.values()]


def test_exam_only_is_imported_exported_and_round_trips(tmp_path, db):
    document = shipped_document()
    document["problems"][1]["exam_only"] = True
    document["problems"][2]["exam_only"] = False
    bank_import(paths=[write_bank(tmp_path, document)])
    marked = Problem.objects.get(slug=document["problems"][1]["slug"])
    assert marked.exam_only
    assert Problem.objects.filter(exam_only=True).count() == 1
    exported = yaml.safe_load(bank_export(lesson=marked.lesson))
    flags = {p["slug"]: p.get("exam_only") for p in exported["problems"]}
    # Written only where it is set, so a bank without it exports as it was.
    assert flags == {
        p["slug"]: (True if p is document["problems"][1] else None) for p in document["problems"]
    }
    # Unmarking it in the file unmarks it in the database.
    del document["problems"][1]["exam_only"]
    bank_import(paths=[write_bank(tmp_path, document)])
    marked.refresh_from_db()
    assert not marked.exam_only


def test_solution_settings_are_imported_exported_and_round_trip(tmp_path, db):
    document = shipped_document()
    document["problems"][0]["solution_after_tries"] = 5
    document["problems"].append(
        {
            "slug": "variance-by-formula",
            "title": "Variance, by formula",
            "family": "formula",
            "params": {
                "variables": {"d_k": {"choices": [16, 64]}, "s": {"choices": [0.5, 2]}},
                "answer": "d_k * s^2",
                "prompt": "Spread {@s@}, width {@d_k@}: the variance of $q \\cdot k$?",
                "solution": ["Each product has variance {@s@}^2.", "{@d_k@} of them add up."],
            },
            "solution_after_tries": 1,
        }
    )
    bank_import(paths=[write_bank(tmp_path, document)])
    first = Problem.objects.get(slug=document["problems"][0]["slug"])
    formula = Problem.objects.get(slug="variance-by-formula")
    assert (first.solution_after_tries, formula.solution_after_tries) == (5, 1)
    assert formula.params["solution"] == [
        "Each product has variance {@s@}^2.",
        "{@d_k@} of them add up.",
    ]
    assert Problem.objects.filter(solution_after_tries=3).count() == len(document["problems"]) - 2
    exported = bank_export(lesson=first.lesson)
    rows = {p["slug"]: p for p in yaml.safe_load(exported)["problems"]}
    # Written only where it differs from the default of 3, so a bank without it exports as it was.
    assert {slug: row.get("solution_after_tries") for slug, row in rows.items()} == {
        p["slug"]: p.get("solution_after_tries") for p in document["problems"]
    }
    assert rows["variance-by-formula"]["params"]["solution"] == formula.params["solution"]
    again = tmp_path / "again.yaml"
    again.write_text(exported, encoding="utf-8")
    bank_import(paths=[again])
    assert bank_export(lesson=first.lesson) == exported


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("solution_after_tries", 0, "solution_after_tries: must be at least 1, got 0"),
        ("solution_after_tries", "3", "solution_after_tries: must be a whole number"),
    ],
)
def test_a_bad_solution_setting_is_refused_with_its_place(tmp_path, db, field, value, message):
    document = shipped_document()
    document["problems"][0][field] = value
    with pytest.raises(BankError) as raised:
        bank_import(paths=[write_bank(tmp_path, document)])
    assert message in str(raised.value)
    assert not Problem.objects.exists()


def test_a_bad_solution_template_is_refused_with_its_place(tmp_path, db):
    document = shipped_document()
    document["problems"].append(
        {
            "slug": "variance-by-formula",
            "title": "Variance, by formula",
            "family": "formula",
            "params": {
                "variables": {"d_k": {"choices": [16, 64]}},
                "answer": "d_k",
                "prompt": "Width {@d_k@}?",
                "solution": "not a list",
            },
        }
    )
    with pytest.raises(BankError) as raised:
        bank_import(paths=[write_bank(tmp_path, document)])
    assert "params.solution" in str(raised.value)
    assert not Problem.objects.exists()


def test_export_keeps_what_the_source_file_says(shipped_bank):
    lesson = Lesson.objects.get(slug="scaled-dot-product-attention")
    exported = yaml.safe_load(bank_export(lesson=lesson))
    source = shipped_document()
    assert exported["key_terms"] == source["key_terms"]
    assert [q["slug"] for q in exported["questions"]] == [q["slug"] for q in source["questions"]]
    for ours, theirs in zip(exported["quizzes"], source["quizzes"], strict=True):
        assert [dict(i, points=i.get("points", 1)) for i in ours["items"]] == [
            dict(i, points=i.get("points", 1)) for i in theirs["items"]
        ]


def test_import_into_an_existing_lesson_edits_it_in_place(shipped_bank, tmp_path):
    document = shipped_document()
    document["questions"][0]["prompt"] = "A changed prompt about $d_k$."
    choices = document["questions"][0]["choices"]
    document["questions"][0]["choices"] = [
        next(c for c in choices if c["correct"]),
        next(c for c in choices if not c["correct"]),
    ]
    document["quizzes"][0]["items"] = document["quizzes"][0]["items"][:1]
    ids_before = set(Question.objects.values_list("id", flat=True))
    bank_import(paths=[write_bank(tmp_path, document, "edited.yaml")])
    question = Question.objects.get(slug=document["questions"][0]["slug"])
    assert question.prompt == "A changed prompt about $d_k$."
    assert question.choices.count() == 2
    assert Quiz.objects.get(slug=document["quizzes"][0]["slug"]).items.count() == 1
    assert set(Question.objects.values_list("id", flat=True)) == ids_before


# --- the order of choices, and the shuffle settings --------------------------------------------


def test_shipped_single_choice_answers_are_spread_over_positions():
    """Picking the same letter everywhere must not pay: no position is right more than half
    the time, and the right answer is not always in the same place."""
    singles = [q for q in shipped_document()["questions"] if q["kind"] == "single"]
    positions = [next(i for i, c in enumerate(q["choices"]) if c["correct"]) for q in singles]
    assert len(singles) >= 8
    for position in set(positions):
        assert positions.count(position) <= len(singles) / 2, (position, positions)
    assert positions.count(0) < len(singles) / 3


def test_shipped_select_all_answers_are_not_always_the_first_choices():
    selects = [q for q in shipped_document()["questions"] if q["kind"] == "multiple"]
    correct_sets = [tuple(i for i, c in enumerate(q["choices"]) if c["correct"]) for q in selects]
    assert len(selects) >= 2
    assert len(set(correct_sets)) == len(correct_sets)
    firsts = [tuple(range(len(found))) for found in correct_sets]
    assert all(found != first for found, first in zip(correct_sets, firsts, strict=True))


def test_a_pinned_choice_and_the_shuffle_settings_round_trip(shipped_bank, tmp_path):
    lesson = Lesson.objects.get(slug="scaled-dot-product-attention")
    question = lesson.questions.get(slug="q-variance-of-dot")
    pinned = question.choices.order_by("order").last()
    Choice.objects.filter(pk=pinned.pk).update(pinned=True)
    lesson.quizzes.filter(mode=Quiz.Mode.EXAM).update(shuffle_items=False, shuffle_choices=True)
    exported = bank_export(lesson=lesson)
    document = yaml.safe_load(exported)
    exam = next(q for q in document["quizzes"] if q["mode"] == "exam")
    practice = next(q for q in document["quizzes"] if q["mode"] == "practice")
    assert (exam["shuffle_items"], exam["shuffle_choices"]) == (False, True)
    assert "shuffle_items" not in practice
    assert "shuffle_choices" not in practice
    (exported_question,) = [q for q in document["questions"] if q["slug"] == question.slug]
    assert [c.get("pinned", False) for c in exported_question["choices"]] == [
        False,
        False,
        False,
        True,
    ]

    Choice.objects.update(pinned=False)
    Quiz.objects.update(shuffle_items=None, shuffle_choices=None)
    path = tmp_path / "exported.yaml"
    path.write_text(exported, encoding="utf-8")
    bank_import(paths=[path])
    assert list(Choice.objects.filter(pinned=True)) == [pinned]
    exam_row = lesson.quizzes.get(mode=Quiz.Mode.EXAM)
    assert (exam_row.shuffle_items, exam_row.shuffle_choices) == (False, True)
    practice_row = lesson.quizzes.get(mode=Quiz.Mode.PRACTICE)
    assert (practice_row.shuffle_items, practice_row.shuffle_choices) == (None, None)
    assert bank_export(lesson=lesson) == exported


def test_shuffling_is_on_for_exams_and_off_for_practice_unless_the_bank_says(shipped_bank):
    exam = Quiz.objects.get(slug="attention-exam")
    practice = Quiz.objects.get(slug="attention-practice")
    assert (exam.shuffles_items, exam.shuffles_choices) == (True, True)
    assert (practice.shuffles_items, practice.shuffles_choices) == (False, False)
    practice.shuffle_choices = True
    exam.shuffle_items = False
    assert practice.shuffles_choices
    assert not practice.shuffles_items
    assert exam.shuffles_choices
    assert not exam.shuffles_items


def test_reimport_keeps_each_choice_row_with_its_text_when_choices_move(shipped_bank, tmp_path):
    """Answers point at choice rows: moving a choice in the file must not hand its row, and the
    answers that picked it, to other words."""
    ids_by_text = dict(Choice.objects.values_list("text", "id"))
    question = Question.objects.get(slug="q-variance-of-dot")
    picked = question.choices.get(is_correct=True)
    document = shipped_document()
    (moved,) = [q for q in document["questions"] if q["slug"] == question.slug]
    moved["choices"].reverse()
    bank_import(paths=[write_bank(tmp_path, document, "moved.yaml")])
    assert dict(Choice.objects.values_list("text", "id")) == ids_by_text
    picked.refresh_from_db()
    assert picked.is_correct
    assert [c.text for c in question.choices.order_by("order")] == [
        c["text"] for c in moved["choices"]
    ]


def test_reimport_edits_a_choice_whose_text_changed_in_place(shipped_bank, tmp_path):
    question = Question.objects.get(slug="q-variance-of-dot")
    before = list(question.choices.order_by("order").values_list("id", flat=True))
    document = shipped_document()
    (edited,) = [q for q in document["questions"] if q["slug"] == question.slug]
    edited["choices"][1]["text"] = "$d_k / 2$"
    bank_import(paths=[write_bank(tmp_path, document, "edited.yaml")])
    after = list(question.choices.order_by("order").values_list("id", "text"))
    assert [pk for pk, _ in after] == before
    assert after[1][1] == "$d_k / 2$"


# --- bad banks: a clear message with its location, and nothing changed ----------------------


def break_missing_field(doc):
    del doc["questions"][2]["prompt"]
    return f"questions[3] ({doc['questions'][2]['slug']}).prompt: is required"


def break_unknown_misconception(doc):
    question = doc["questions"][0]
    wrong = next(i for i, c in enumerate(question["choices"]) if not c["correct"])
    question["choices"][wrong]["misconception"] = "no-such-code"
    return f"choice {wrong + 1}.misconception: unknown misconception code 'no-such-code'"


def break_wrong_choice_without_misconception(doc):
    question = doc["questions"][1]
    wrong = next(i for i, c in enumerate(question["choices"]) if not c["correct"])
    del question["choices"][wrong]["misconception"]
    return f"choice {wrong + 1} is wrong but names no misconception"


def break_duplicate_slug(doc):
    doc["questions"][1]["slug"] = doc["questions"][0]["slug"]
    return f"duplicate question slug '{doc['questions'][0]['slug']}'"


def break_item_with_both(doc):
    doc["quizzes"][0]["items"][0] = {"question": doc["questions"][0]["slug"], "problem": "softmax"}
    return "item 1: an item names exactly one of question, problem or pool"


def break_item_with_neither(doc):
    doc["quizzes"][1]["items"][0] = {"points": 2}
    return "item 1: an item names exactly one of question, problem or pool"


def break_latex(doc):
    doc["lesson"]["body"] += "\n\nA broken formula: $\\frac{1}$.\n"
    return "lesson.body: missing argument in $\\frac{1}$"


def break_unbalanced_latex(doc):
    doc["misconceptions"][0]["explanation"] = "Braces $\\sqrt{d_k$ left open."
    return "explanation: unbalanced braces"


def break_exam_feedback(doc):
    exam = next(q for q in doc["quizzes"] if q["mode"] == "exam")
    exam["show_feedback"] = "immediately"
    return "an exam cannot give feedback per item before submission"


def break_single_with_two_correct(doc):
    question = next(q for q in doc["questions"] if q["kind"] == "single")
    for choice in question["choices"]:
        choice["correct"] = True
    return "a single question needs exactly one correct choice"


def break_unknown_field(doc):
    doc["problems"][0]["tolerence"] = {"atol": 1}
    return "tolerence: unknown field"


def break_missing_item_target(doc):
    doc["quizzes"][0]["items"][0] = {"question": "q-not-in-bank"}
    return "item 1.question: no question 'q-not-in-bank' in this bank"


def break_exam_only_not_a_flag(doc):
    doc["problems"][0]["exam_only"] = "yes"
    return "exam_only: must be true or false, got 'yes'"


def break_unknown_term_link(doc):
    doc["lesson"]["body"] += "\n\nSee [[no-such-term]].\n"
    return "[[no-such-term]] links to no key term of this lesson"


def break_pinned_not_a_flag(doc):
    doc["questions"][0]["choices"][0]["pinned"] = "yes"
    return "choice 1.pinned: must be true or false, got 'yes'"


def break_shuffle_not_a_flag(doc):
    doc["quizzes"][1]["shuffle_choices"] = "on"
    return ".shuffle_choices: must be true or false, got 'on'"


def break_html_in_a_formula_of_choice_feedback(doc):
    question = doc["questions"][1]
    question["choices"][0]["feedback"] = "See $\\text{<img src=x>}$."
    return (
        f"questions[2] ({question['slug']}) › choice 1.feedback: cannot convert "
        "$\\text{<img src=x>}$: '<', '>' and '&' may not appear inside \\text{…}"
    )


def break_tag_in_a_formula_of_a_problem_prompt(doc):
    doc["problems"][0]["prompt"] = "Read $\\text{<b>this</b>}$."
    return (
        f"problems[1] ({doc['problems'][0]['slug']}).prompt: "
        "HTML is not allowed in a formula: <b> in $\\text{<b>this</b>}$"
    )


def break_link_in_a_formula_of_a_definition(doc):
    doc["key_terms"][0]["definition"] = "See $\\href{javascript:alert(1)}{x}$."
    return (
        f"key_terms[1] ({doc['key_terms'][0]['slug']}).definition: "
        "links are not allowed in a formula"
    )


def break_latex_in_a_quiz_description(doc):
    doc["quizzes"][0]["description"] = "Broken $\\frac{1}$."
    return (
        f"quizzes[1] ({doc['quizzes'][0]['slug']}).description: missing argument in $\\frac{{1}}$"
    )


BREAKS = [
    break_pinned_not_a_flag,
    break_shuffle_not_a_flag,
    break_missing_field,
    break_unknown_misconception,
    break_wrong_choice_without_misconception,
    break_duplicate_slug,
    break_item_with_both,
    break_item_with_neither,
    break_latex,
    break_unbalanced_latex,
    break_exam_feedback,
    break_single_with_two_correct,
    break_unknown_field,
    break_missing_item_target,
    break_unknown_term_link,
    break_html_in_a_formula_of_choice_feedback,
    break_tag_in_a_formula_of_a_problem_prompt,
    break_link_in_a_formula_of_a_definition,
    break_latex_in_a_quiz_description,
    break_exam_only_not_a_flag,
]


@pytest.mark.parametrize("breaker", BREAKS, ids=lambda f: f.__name__.removeprefix("break_"))
@pytest.mark.parametrize("already_imported", [False, True], ids=["empty-db", "over-bank"])
def test_a_bad_bank_is_refused_whole(breaker, already_imported, tmp_path):
    if already_imported:
        bank_import(paths=[SHIPPED_BANK])
    document = copy.deepcopy(shipped_document())
    document["lesson"]["title"] = "A title the failed import must not write"
    expected = breaker(document)
    path = write_bank(tmp_path, document)
    before = snapshot()
    with pytest.raises(BankError) as caught:
        bank_import(paths=[path])
    messages = [str(issue) for issue in caught.value.issues]
    assert any(expected in m for m in messages), messages
    assert all(m.startswith("broken.yaml › ") for m in messages)
    assert snapshot() == before


def test_every_error_is_reported_at_once(tmp_path):
    document = shipped_document()
    expected = [
        break_missing_field(document),
        break_latex(document),
        break_duplicate_slug(document),
    ]
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    text = str(caught.value)
    for message in expected:
        assert message in text


def test_one_bad_file_stops_the_good_ones_too(tmp_path):
    good = write_bank(tmp_path, shipped_document(), "good.yaml")
    document = shipped_document()
    break_latex(document)
    document["lesson"]["slug"] = "another-lesson"
    bad = write_bank(tmp_path, document, "bad.yaml")
    with pytest.raises(BankError):
        bank_import(paths=[good, bad])
    assert not Lesson.objects.exists()


def test_invalid_yaml_names_the_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("format: 1\ncourse: [unclosed\n", encoding="utf-8")
    with pytest.raises(BankError, match=r"bad.yaml › line \d+, column \d+: not valid YAML"):
        bank_import(paths=[path])


def test_slug_owned_by_another_lesson_is_refused(shipped_bank, tmp_path):
    document = shipped_document()
    document["lesson"]["slug"] = "a-second-lesson"
    document["lesson"]["order"] = 2
    with pytest.raises(BankError, match="slug already belongs to lesson"):
        bank_import(paths=[write_bank(tmp_path, document)])


# --- the commands -----------------------------------------------------------------------------


def test_import_bank_command_reports_and_refuses(tmp_path):
    document = shipped_document()
    break_unknown_misconception(document)
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_bank", str(write_bank(tmp_path, document)), stderr=err)
    assert "unknown misconception code 'no-such-code'" in err.getvalue()
    assert not Lesson.objects.exists()


def test_import_bank_command_defaults_to_the_shipped_banks():
    out = StringIO()
    call_command("import_bank", stdout=out)
    assert "Imported lesson scaled-dot-product-attention" in out.getvalue()
    call_command("import_bank", stdout=out)
    assert "created nothing" in out.getvalue()


def test_export_bank_command_writes_a_file(shipped_bank, tmp_path):
    target = tmp_path / "out.yaml"
    call_command(
        "export_bank", "scaled-dot-product-attention", "-o", str(target), stdout=StringIO()
    )
    assert yaml.safe_load(target.read_text("utf-8"))["lesson"]["slug"] == (
        "scaled-dot-product-attention"
    )


def test_export_bank_command_names_the_known_lessons(shipped_bank):
    with pytest.raises(CommandError, match="known: scaled-dot-product-attention"):
        call_command("export_bank", "nope")


def test_a_quiz_without_rounding_retries_round_trips(shipped_bank, tmp_path):
    lesson = Lesson.objects.get(slug="scaled-dot-product-attention")
    lesson.quizzes.filter(mode=Quiz.Mode.PRACTICE).update(rounding_retries=False)
    exported = bank_export(lesson=lesson)
    document = yaml.safe_load(exported)
    practice = next(q for q in document["quizzes"] if q["mode"] == "practice")
    exam = next(q for q in document["quizzes"] if q["mode"] == "exam")
    assert practice["rounding_retries"] is False
    assert "rounding_retries" not in exam  # on, the default, is left out

    Quiz.objects.update(rounding_retries=True)
    path = tmp_path / "exported.yaml"
    path.write_text(exported, encoding="utf-8")
    bank_import(paths=[path])
    assert not lesson.quizzes.get(mode=Quiz.Mode.PRACTICE).rounding_retries
    assert lesson.quizzes.get(mode=Quiz.Mode.EXAM).rounding_retries
