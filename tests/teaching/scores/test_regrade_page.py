"""Regrading a quiz item from its page: fix a choice's correctness or a problem's tolerance, see
who gains and who loses, then apply exactly that (a stale preview is refused and changes
nothing).

The exam (tests/grading/exam_records.py): a 2-point single-choice question keyed A, and a
3-point problem with the family's 1 % tolerance. Ann: A and the exact answer, 2 + 3 = 5.
Ben: B and 5 % off, 0. Cal: C and 5 % off, 0. Dee (in progress): B and the exact answer, 3.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse

from courses.models import Choice, Problem
from grading.models import Attempt, Regrade, Response, ScoreChange, Variant
from grading.overrides import item_score_override
from grading.quiz_edits import quiz_item_points_change
from teaching.models import CourseRole
from tests.factories import QuizFactory, QuizItemFactory
from tests.grading.exam_records import cohort_sits, exam_build, sit_preview

pytestmark = pytest.mark.django_db


@pytest.fixture
def cohort(exam, people):
    attempts = cohort_sits(exam)
    assert {name: a.score for name, a in attempts.items()} == {
        "ann": 5.0,
        "ben": 0.0,
        "cal": 0.0,
        "dee": 3.0,
    }
    return attempts


def page_url(item) -> str:
    return reverse("teaching:item-regrade", args=[item.pk])


def b_right_instead_of_a(exam) -> dict[str, str]:
    """The fix as the page's form sends it: B correct, A wrong for the lesson's misconception."""
    mistaken = exam.choices["B"].misconception
    return {
        "fix": "1",
        "correct": str(exam.choices["B"].pk),
        f"misconception_{exam.choices['A'].pk}": str(mistaken.pk),
        f"misconception_{exam.choices['C'].pk}": str(mistaken.pk),
    }


def preview(client, item, fix: dict[str, str] | None = None) -> str:
    url = page_url(item) + (f"?{urlencode(fix)}" if fix else "")
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def apply_form(page: str) -> dict[str, str | list[str]]:
    """The hidden fields of the preview's apply form, as a browser sends them."""
    form = page[page.index('<form method="post" class="apply-form"') :]
    form = form[: form.index("</form>")]
    sent: dict[str, list[str]] = {}
    for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form):
        sent.setdefault(name, []).append(value)
    return {name: values[0] if len(values) == 1 else values for name, values in sent.items()}


def rows(page: str) -> dict[str, tuple[str, str, str]]:
    """The preview's table: learner → (item before → after, score before → after, change)."""
    found = {}
    for row in re.findall(r"<tr data-attempt=.*?</tr>", page, flags=re.S):
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, flags=re.S)
        learner = re.sub(r"<[^>]+>", "", cells[0]).strip()
        found[learner] = tuple(re.sub(r"<[^>]+>", "", c).strip() for c in cells[2:])
    return found


def counts(page: str) -> dict[str, str]:
    return dict(re.findall(r'<dd data-count="(\w+)">(\d+)</dd>', page))


def written():
    """Everything a regrade may write, to prove a refusal wrote none of it."""
    return (
        sorted(Choice.objects.values_list("pk", "is_correct", "misconception")),
        sorted(Problem.objects.values_list("pk", "atol", "rtol")),
        sorted(Response.objects.values_list("pk", "status", "score", "misconception")),
        sorted(Attempt.objects.values_list("pk", "score")),
        sorted(Variant.objects.values_list("pk", "atol", "rtol")),
        ScoreChange.objects.count(),
        Regrade.objects.count(),
    )


def test_the_preview_of_a_choice_fix_says_who_gains_and_loses_and_writes_nothing(
    client, exam, people, cohort
):
    client.force_login(people.instructor)
    before = written()
    page = preview(client, exam.question_item, b_right_instead_of_a(exam))
    assert written() == before
    # Ann loses the question's 2 points (5 → 3); Ben gains them (0 → 2); Dee, in progress,
    # too (3 → 5). Cal picked C, still wrong with the same feedback: not listed.
    assert rows(page) == {
        "ann": ("2 → 0", "5 → 3", "loses 2"),
        "ben": ("0 → 2", "0 → 2", "gains 2"),
        "dee": ("0 → 2", "3 → 5", "gains 2"),
    }
    assert counts(page) == {
        "attempts": "3",
        "responses": "3",
        "gain": "2",
        "lose": "1",
        "same": "0",
    }
    assert "<strong>wrong</strong> (<code>" in page  # A: correct → wrong
    assert "<strong>correct</strong>" in page  # B: wrong → correct
    assert 'class="apply-form"' in page
    assert apply_form(page)["correct"] == str(exam.choices["B"].pk)


def test_an_instructors_preview_is_mentioned_not_listed_among_the_learners(
    client, exam, people, cohort
):
    sit_preview(exam, people.instructor, choice="B", factor=1.05)
    client.force_login(people.instructor)
    page = preview(client, exam.question_item, b_right_instead_of_a(exam))
    assert sorted(rows(page)) == ["ann", "ben", "dee"]
    assert counts(page)["attempts"] == "3"
    assert "Instructors' preview attempts regraded too, so they show the new verdicts: 1." in page


def test_applying_the_previewed_fix_regrades_audits_and_tells_the_lms(
    client, exam, people, cohort, hook_calls, django_capture_on_commit_callbacks
):
    client.force_login(people.instructor)
    page = preview(client, exam.question_item, b_right_instead_of_a(exam))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(page_url(exam.question_item), apply_form(page))
    assert response.status_code == 302
    assert response["Location"] == page_url(exam.question_item)
    scores = {name: Attempt.objects.get(pk=a.pk).score for name, a in cohort.items()}
    assert scores == {"ann": 3.0, "ben": 2.0, "cal": 0.0, "dee": 5.0}
    # The fix is saved: B is the correct choice, A wrong for the misconception.
    a, b = (Choice.objects.get(pk=exam.choices[x].pk) for x in "AB")
    assert (a.is_correct, a.misconception, b.is_correct, b.misconception) == (
        False,
        exam.choices["B"].misconception,
        True,
        None,
    )
    # Audited: one Regrade with the fix, one ScoreChange per changed attempt.
    regrade = Regrade.objects.get()
    assert (regrade.by, regrade.attempts_changed, regrade.responses_changed) == (
        people.instructor,
        3,
        3,
    )
    assert [(c["choice"], c["is_correct"]) for c in regrade.fix] == [
        (a.pk, [True, False]),
        (b.pk, [False, True]),
    ]
    changes = {
        c.learner.username: (c.old_score, c.new_score, c.old_attempt_score, c.new_attempt_score)
        for c in ScoreChange.objects.filter(regrade=regrade, kind=ScoreChange.Kind.REGRADE)
    }
    assert changes == {
        "ann": (2.0, 0.0, 5.0, 3.0),
        "ben": (0.0, 2.0, 0.0, 2.0),
        "dee": (0.0, 2.0, 3.0, 5.0),
    }
    # The LMS hears of the two submitted attempts that moved; Dee has not submitted yet.
    assert sorted(hook_calls) == sorted([cohort["ann"].pk, cohort["ben"].pk])

    page = client.get(response["Location"]).content.decode()
    assert "Regraded: 3 answers in 3 attempts got a new verdict; 2 gained, 1 lost." in page
    assert "New scores of 2 learners go to the LMS gradebook" in page
    assert f'data-regrade="{regrade.pk}"' in page
    assert "Nothing to apply" in page  # the item as it stands now matches every verdict


def test_a_wider_tolerance_is_previewed_and_applied(
    client, exam, people, cohort, hook_calls, django_capture_on_commit_callbacks
):
    client.force_login(people.instructor)
    page = preview(client, exam.problem_item, {"fix": "1", "atol": "0", "rtol": "0.1"})
    # Ben and Cal were 5 % off: right within 10 %, each gains the problem's 3 points. Ann and
    # Dee were right and stay right; their feedback names the new tolerance.
    assert rows(page) == {
        "ann": ("3 → 3", "5 → 5", "no change"),
        "ben": ("0 → 3", "0 → 3", "gains 3"),
        "cal": ("0 → 3", "0 → 3", "gains 3"),
        "dee": ("3 → 3", "3 → 3", "no change"),
    }
    assert counts(page) == {
        "attempts": "4",
        "responses": "4",
        "gain": "2",
        "lose": "0",
        "same": "2",
    }
    with django_capture_on_commit_callbacks(execute=True):
        client.post(page_url(exam.problem_item), apply_form(page))
    scores = {name: Attempt.objects.get(pk=a.pk).score for name, a in cohort.items()}
    assert scores == {"ann": 5.0, "ben": 3.0, "cal": 3.0, "dee": 3.0}
    assert Problem.objects.filter(pk=exam.problem.pk).values_list("atol", "rtol").get() == (0, 0.1)
    assert set(
        Variant.objects.filter(quiz_item=exam.problem_item).values_list("rtol", flat=True)
    ) == {0.1}
    regrade = Regrade.objects.get()
    assert (regrade.atol, regrade.rtol) == (0.0, 0.1)
    assert regrade.fix == [{"atol": [None, 0.0], "rtol": [None, 0.1]}]
    assert sorted(hook_calls) == sorted([cohort["ben"].pk, cohort["cal"].pk])


def test_a_stale_preview_is_refused_changes_nothing_and_shows_the_new_one(
    client, exam, people, cohort, hook_calls, django_capture_on_commit_callbacks
):
    client.force_login(people.instructor)
    fix = b_right_instead_of_a(exam)
    page = preview(client, exam.question_item, fix)
    sent = apply_form(page)
    # Meanwhile someone overrides Ben's question: the regrade no longer gives him 0 → 2.
    item_score_override(
        attempt=cohort["ben"],
        item=exam.question_item,
        score=1,
        reason="Half marks.",
        by=people.superuser,
    )
    before = written()
    hook_calls.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(page_url(exam.question_item), sent)
    assert response.status_code == 302
    assert written() == before
    assert hook_calls == []
    # Back to the preview of the same fix, with the reason and the new numbers.
    assert response["Location"] == page_url(exam.question_item) + "?" + urlencode(fix)
    page = client.get(response["Location"]).content.decode()
    assert "changed since this preview, so it was not applied" in page
    assert rows(page)["ben"] == ("1 → 1 override stands", "1 → 1", "no change")
    assert counts(page) == {
        "attempts": "3",
        "responses": "3",
        "gain": "1",
        "lose": "1",
        "same": "1",
    }
    # The new preview applies.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(page_url(exam.question_item), apply_form(page))
    assert Regrade.objects.count() == 1
    assert Attempt.objects.get(pk=cohort["ben"].pk).score == 1.0
    assert sorted(hook_calls) == [cohort["ann"].pk]


def test_an_apply_that_differs_from_its_preview_is_refused(client, exam, people, cohort):
    """The fix sent with the apply is not the previewed one (a tampered or mixed-up form)."""
    client.force_login(people.instructor)
    page = preview(client, exam.question_item, b_right_instead_of_a(exam))
    sent = apply_form(page)
    sent["correct"] = str(exam.choices["C"].pk)
    sent[f"misconception_{exam.choices['B'].pk}"] = str(exam.choices["B"].misconception.pk)
    before = written()
    response = client.post(page_url(exam.question_item), sent)
    assert response.status_code == 302
    assert written() == before
    assert "changed since this preview, so it was not applied" in (
        client.get(response["Location"]).content.decode()
    )


@pytest.mark.parametrize(
    "sent",
    [
        {},  # nothing at all
        {"fix": "1", "correct": "1"},  # no digest: not from a preview
    ],
)
def test_an_apply_without_a_preview_changes_nothing(client, exam, people, cohort, sent):
    client.force_login(people.instructor)
    before = written()
    response = client.post(page_url(exam.question_item), sent)
    assert response.status_code == 302
    assert written() == before
    page = client.get(response["Location"]).content.decode()
    assert "Nothing was applied: preview the regrade, then apply it." in page


FIX_REFUSED = [
    ("question", {"fix": "1"}, "A single question needs exactly one correct choice."),
    ("question", {"fix": "1", "correct": "B"}, "is wrong in this fix: name the misconception"),
    ("problem", {"fix": "1", "atol": "0"}, "set both atol and rtol, or neither"),
    ("problem", {"fix": "1", "atol": "-1", "rtol": "0.1"}, "That tolerance cannot be used"),
    ("problem", {"fix": "1", "atol": "x", "rtol": "0.1"}, "Enter a number."),
]


@pytest.mark.parametrize(("which", "fix", "message"), FIX_REFUSED)
def test_a_fix_that_breaks_the_item_s_rules_is_refused_with_the_reason(
    client, exam, people, cohort, which, fix, message
):
    client.force_login(people.instructor)
    if fix.get("correct") == "B":
        fix = {"fix": "1", "correct": str(exam.choices["B"].pk)}  # A left without misconception
    item = exam.question_item if which == "question" else exam.problem_item
    before = written()
    page = preview(client, item, fix)
    assert message in page
    assert 'class="errorlist' in page
    assert "apply-form" not in page
    assert written() == before


def test_the_page_as_it_stands_regrades_an_admin_edit(client, exam, people, cohort):
    """An author fixed the choice in the admin: the page without a fix shows its regrade."""
    Choice.objects.filter(pk=exam.choices["C"].pk).update(is_correct=True, misconception=None)
    Choice.objects.filter(pk=exam.choices["A"].pk).update(
        is_correct=False, misconception=exam.choices["B"].misconception
    )
    client.force_login(people.instructor)
    page = preview(client, exam.question_item)
    assert "what a regrade of the item as it stands changes" in page
    assert rows(page) == {
        "ann": ("2 → 0", "5 → 3", "loses 2"),
        "cal": ("0 → 2", "0 → 2", "gains 2"),
    }
    sent = apply_form(page)
    assert set(sent) == {"csrfmiddlewaretoken", "digest"}
    client.post(page_url(exam.question_item), sent)
    assert Regrade.objects.get().fix == []
    assert Attempt.objects.get(pk=cohort["cal"].pk).score == 2.0


def test_a_fix_to_a_question_another_course_uses_is_refused(client, exam, people, cohort):
    """The question is also item of a quiz in a course the instructor does not teach."""
    other = exam_build()
    QuizItemFactory(
        quiz=QuizFactory(lesson=other.quiz.lesson), question=exam.question_item.question
    )
    client.force_login(people.instructor)
    before = written()
    page = preview(client, exam.question_item, b_right_instead_of_a(exam))
    assert "is also used by" in page
    assert "whose scores you may not change" in page
    assert "apply-form" not in page
    assert written() == before
    # An instructor of both courses may.
    CourseRole.objects.create(
        course=other.quiz.lesson.course, user=people.instructor, role=CourseRole.Role.INSTRUCTOR
    )
    assert "apply-form" in preview(client, exam.question_item, b_right_instead_of_a(exam))


def test_an_apply_without_the_csrf_token_is_refused(exam, people, cohort):
    client = Client(enforce_csrf_checks=True)
    client.force_login(people.instructor)
    page = preview(client, exam.question_item, b_right_instead_of_a(exam))
    sent = apply_form(page)
    del sent["csrfmiddlewaretoken"]
    before = written()
    assert client.post(page_url(exam.question_item), sent).status_code == 403
    assert written() == before


def test_a_teaching_assistant_sees_the_item_and_its_regrades_but_no_form(
    client, exam, people, cohort
):
    client.force_login(people.instructor)
    page = preview(client, exam.question_item, b_right_instead_of_a(exam))
    client.post(page_url(exam.question_item), apply_form(page))
    client.force_login(people.assistant)
    page = preview(client, exam.question_item, b_right_instead_of_a(exam))
    assert f'data-regrade="{Regrade.objects.get().pk}"' in page
    assert "<form" not in page[page.index("<main") :].replace('<form method="post" action="/', "")
    assert "Only the course's instructors preview and apply regrades" in page


def test_a_points_change_is_listed_among_the_items_regrades(client, exam, people, cohort):
    quiz_item_points_change(item=exam.question_item, points=4, by=people.instructor)
    client.force_login(people.instructor)
    page = preview(client, exam.question_item)
    history = page[page.index(f'<tr data-regrade="{Regrade.objects.get().pk}">') :]
    history = history[: history.index("</tr>")]
    cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", history)]
    assert cells[1:4] == [people.instructor.username, "points 2 → 4", "1"]
