"""The shipped bank's quizzes: a description that leaves the rules to the quiz's settings, exam
items that read on their own, and the penalty for extra tries through import and export."""

from __future__ import annotations

import re

import pytest
import yaml

from courses.bank.exporter import bank_export
from courses.bank.importer import bank_import
from courses.bank.issues import BankError
from courses.models import Quiz
from tests.courses.test_bank import shipped_document, write_bank

# Words that state a setting (the quiz page states them from the settings themselves).
SETTINGS_WORDS = re.compile(
    r"\b(tr(y|ies)|minutes?|attempts?|twice|once you submit|feedback)\b", re.IGNORECASE
)
# Openings that lean on another item: in an exam the items come in each attempt's own order.
LEANING = re.compile(
    r"^\s*(now|then|next|also|again)\b|same assumptions|above|previous|as before", re.IGNORECASE
)


def test_quiz_descriptions_leave_the_rules_to_the_settings():
    for quiz in shipped_document()["quizzes"]:
        assert not SETTINGS_WORDS.search(quiz["description"]), quiz["slug"]


def test_every_quiz_item_reads_on_its_own():
    document = shipped_document()
    prompts = {q["slug"]: q["prompt"] for q in document["questions"]}
    prompts |= {p["slug"]: p.get("prompt", "") for p in document["problems"]}
    for quiz in document["quizzes"]:
        for item in quiz["items"]:
            slug = item.get("question") or item["problem"]
            assert not LEANING.search(prompts[slug]), (quiz["slug"], slug)


def test_the_checks_catch_what_they_look_for():
    """Positive control: the old texts fail them."""
    assert SETTINGS_WORDS.search("20 minutes, one try per item, and feedback once you submit")
    assert LEANING.search("Now the query components have standard deviation σ_q")
    assert LEANING.search("Under the same assumptions, what is E[q·k]?")


@pytest.mark.parametrize(("written", "stored"), [("1/3", 1 / 3), (0.5, 0.5), (0, 0.0)])
def test_a_penalty_is_imported_as_a_share_and_exported_only_when_set(written, stored, tmp_path, db):
    document = shipped_document()
    practice = document["quizzes"][0]
    practice["extra_try_penalty"] = written
    bank_import(paths=[write_bank(tmp_path, document)])
    quiz = Quiz.objects.get(slug=practice["slug"])
    assert quiz.extra_try_penalty == pytest.approx(stored)
    exported = yaml.safe_load(bank_export(lesson=quiz.lesson))
    again = {q["slug"]: q.get("extra_try_penalty") for q in exported["quizzes"]}
    assert again[practice["slug"]] == (pytest.approx(stored) if stored else None)


@pytest.mark.parametrize(
    ("quiz_index", "written", "message"),
    [
        (0, 1.5, "extra_try_penalty: must be a number from 0 to 1 or a fraction such as 1/3"),
        (0, "a third", "extra_try_penalty: must be a number from 0 to 1"),
        (0, "1/0", "extra_try_penalty: must be a number from 0 to 1"),
        (1, "1/3", "a penalty per extra try needs feedback per item"),
    ],
)
def test_a_bad_penalty_is_refused_with_its_place(quiz_index, written, message, tmp_path, db):
    document = shipped_document()
    document["quizzes"][quiz_index]["extra_try_penalty"] = written
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    assert message in str(caught.value)
    assert not Quiz.objects.exists()


def test_what_happens_when_time_runs_out_is_imported_and_exported_when_set(tmp_path, db):
    document = shipped_document()
    exam, practice = document["quizzes"][1], document["quizzes"][0]
    exam.update(overdue_handling="no_score", grace_minutes=5)
    bank_import(paths=[write_bank(tmp_path, document)])
    quiz = Quiz.objects.get(slug=exam["slug"])
    assert (quiz.overdue_handling, quiz.grace_minutes) == (Quiz.OverdueHandling.NO_SCORE, 5)
    other = Quiz.objects.get(slug=practice["slug"])
    assert (other.overdue_handling, other.grace_minutes) == (Quiz.OverdueHandling.SUBMIT, 0)
    exported = {q["slug"]: q for q in yaml.safe_load(bank_export(lesson=quiz.lesson))["quizzes"]}
    assert (
        exported[exam["slug"]]["overdue_handling"],
        exported[exam["slug"]]["grace_minutes"],
    ) == (
        "no_score",
        5,
    )
    assert "overdue_handling" not in exported[practice["slug"]]
    assert "grace_minutes" not in exported[practice["slug"]]


@pytest.mark.parametrize(
    ("field", "written", "message"),
    [
        ("overdue_handling", "abandon", "overdue_handling: "),
        ("grace_minutes", -1, "grace_minutes: must be at least 0, got -1"),
        ("grace_minutes", "five", "grace_minutes: must be a whole number, got 'five'"),
    ],
)
def test_a_bad_overdue_setting_is_refused_with_its_place(field, written, message, tmp_path, db):
    document = shipped_document()
    document["quizzes"][1][field] = written
    with pytest.raises(BankError) as caught:
        bank_import(paths=[write_bank(tmp_path, document)])
    assert message in str(caught.value)
    assert not Quiz.objects.exists()
