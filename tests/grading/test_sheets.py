"""The exam sheet stored per attempt (grading/sheets.py): rendered once, filled per request, and
rendered again when what it was rendered from changes."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe

from courses.content_versions import content_changed
from courses.models import Question, Quiz
from grading import policy, selectors, sheets
from grading.models import Attempt, AttemptSheet, Variant
from grading.regrade_fixes import ToleranceFix
from grading.regrades import quiz_item_regrade
from grading.services.attempts import attempt_start
from grading.services.closing import attempt_submit
from grading.services.responses import SheetAnswer, attempt_answers_save
from teaching.models import CourseRole
from tests.factories import (
    ChoiceFactory,
    MisconceptionFactory,
    ProblemFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def flat(html: str) -> str:
    return " ".join(html.split())


@pytest.fixture
def exam_attempt(shipped_bank, learner) -> Attempt:
    return attempt_start(user=learner, quiz=Quiz.objects.get(slug="attention-exam"))


def take(client, attempt: Attempt) -> str:
    response = client.get(reverse("attempt-take", kwargs={"pk": attempt.pk}))
    assert response.status_code == 200
    return response.content.decode()


def answered(attempt: Attempt, answers: dict[int, SheetAnswer], key: str) -> None:
    attempt_answers_save(
        attempt=Attempt.objects.get(pk=attempt.pk), answers=answers, idempotency_key=key
    )


# --- the fill ------------------------------------------------------------------------------------


def test_parts_alternate_literal_text_and_slot_names():
    parts = sheets.sheet_parts('<p a="<!--slot:x-1-->">b</p><!--slot:y-2-->')
    assert parts == ['<p a="', "x-1", '">b</p>', "y-2", ""]
    assert sheets.sheet_parts("<p>none</p>") == ["<p>none</p>"]


def test_the_fill_escapes_every_value_but_markup_made_safe():
    parts = sheets.sheet_parts("<i><!--slot:a-1--></i><!--slot:b-1-->")
    filled = sheets.sheet_fill(parts, {"a-1": '<script>"x"</script>', "b-1": mark_safe("<b>y</b>")})
    assert filled == "<i>&lt;script&gt;&quot;x&quot;&lt;/script&gt;</i><b>y</b>"


def test_a_slot_without_a_value_is_an_error_not_an_empty_place():
    with pytest.raises(KeyError):
        sheets.sheet_fill(sheets.sheet_parts("<!--slot:a-1-->"), {})


def test_an_unknown_slot_kind_is_refused_by_name():
    answers = sheets.ItemAnswers({}, {}, {})
    with pytest.raises(ValueError, match="unknown slot 'colour-3'"):
        sheets.slot_values(["colour-3"], answers)


def test_authored_text_cannot_forge_a_slot(learner_client, learner, db):
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION)
    question = QuestionFactory(lesson=quiz.lesson, prompt="Is <!--slot:state-1--> here?")
    ChoiceFactory(question=question, text="yes <!--slot:value-1-->", is_correct=True)
    ChoiceFactory(
        question=question,
        text="no",
        is_correct=False,
        misconception=MisconceptionFactory(lesson=quiz.lesson),
    )
    item = QuizItemFactory(quiz=quiz, question=question)
    attempt = attempt_start(user=learner, quiz=quiz)
    sheets.sheet_store(attempt=attempt)
    slots = AttemptSheet.objects.get(attempt=attempt).parts[1::2]
    choice_ids = sorted(question.choices.values_list("pk", flat=True))
    assert sorted(slots) == sorted(
        [f"state-{item.pk}", *(f"checked-{item.pk}-{pk}" for pk in choice_ids)]
    )
    assert "Is &lt;!--slot:state-1--&gt; here?" in take(learner_client, attempt)


# --- the page stays the same -------------------------------------------------------------------


def test_the_filled_sheet_shows_what_the_templates_show_for_every_answer_state(
    learner_client, exam_attempt
):
    rows = selectors.attempt_sheet(attempt=exam_attempt)
    problems = [row for row in rows if row.variant]
    questions = [row for row in rows if row.item.question_id]
    saved, unreadable, saved_then_unreadable = problems[:3]
    choice = questions[0].choices[1]
    answered(
        exam_attempt,
        {
            saved.item.pk: SheetAnswer(text="1/3 <b>"),
            saved_then_unreadable.item.pk: SheetAnswer(text="12"),
            unreadable.item.pk: SheetAnswer(text="9^9^9"),
            questions[0].item.pk: SheetAnswer(choice_ids=(choice.pk,)),
        },
        "first",
    )
    answered(exam_attempt, {saved_then_unreadable.item.pk: SheetAnswer(text="9^9^9")}, "second")
    page = flat(take(learner_client, exam_attempt))
    for row in selectors.attempt_sheet(attempt=exam_attempt):
        today = render_to_string("grading/_item_inputs.html", {"row": row, "sheet": True})
        prompt = render_to_string("grading/_item_prompt.html", {"row": row})
        assert flat(today) in page
        assert flat(prompt) in page
        state = "saved" if row.latest_counted else "not answered yet"
        assert f'id="item-{row.item.pk}-heading"' in page
        assert re.search(
            rf'id="item-{row.item.pk}-heading".*?<span data-item-state>{state}</span>', page
        )
    # Unreadable ones: "1/3 <b>" (escaped), "9^9^9" alone, and "9^9^9" after a saved "12".
    assert 'value="1/3 &lt;b&gt;"' in page
    assert page.count('aria-invalid="true"') == 3
    assert "It was not saved and cost no try." in page
    assert "your earlier answer <code>12</code> still counts" in page
    assert (
        f'value="{choice.pk}" id="item-{questions[0].item.pk}-choice-{choice.pk}" checked' in page
    )


def test_a_second_page_reads_the_stored_sheet_and_renders_nothing(
    learner_client, exam_attempt, markup_memo, markup_conversions
):
    first = take(learner_client, exam_attempt)
    assert AttemptSheet.objects.filter(attempt=exam_attempt).exists()
    converted = len(markup_conversions)
    markup_memo.clear()
    again = take(learner_client, exam_attempt)
    assert len(markup_conversions) == converted  # nothing rendered: the memo was empty
    strip = re.compile(r'name="(csrfmiddlewaretoken|token)" value="[^"]*"')
    assert strip.sub("", again) == strip.sub("", first)


def test_storing_twice_renders_once_and_costs_one_query(
    exam_attempt, django_assert_num_queries, markup_memo, markup_conversions
):
    sheets.sheet_store(attempt=exam_attempt)
    stored = AttemptSheet.objects.get(attempt=exam_attempt)
    markup_memo.clear()
    converted = len(markup_conversions)
    with django_assert_num_queries(1):
        sheets.sheet_store(attempt=exam_attempt)
    assert len(markup_conversions) == converted
    assert AttemptSheet.objects.get(attempt=exam_attempt).parts == stored.parts


def test_an_exam_attempt_has_its_sheet_stored_when_it_is_made(exam_attempt):
    stored = AttemptSheet.objects.get(attempt=exam_attempt)
    assert stored.key == sheets.sheet_key(exam_attempt.quiz)


def test_a_practice_attempt_stores_no_sheet(shipped_bank, learner):
    # Feedback at once: its page is rendered per request, so nothing is rendered ahead.
    quiz = next(q for q in Quiz.objects.all() if policy.immediate_feedback(q))
    attempt = attempt_start(user=learner, quiz=quiz)
    assert not AttemptSheet.objects.filter(attempt=attempt).exists()


def test_an_attempt_without_a_stored_sheet_gets_one_on_its_first_page(learner_client, exam_attempt):
    # As an attempt started before sheets were stored has none.
    AttemptSheet.objects.filter(attempt=exam_attempt).delete()
    html = take(learner_client, exam_attempt)
    stored = AttemptSheet.objects.get(attempt=exam_attempt)
    assert stored.key == sheets.sheet_key(exam_attempt.quiz)
    assert html.count('class="card item"') == exam_attempt.quiz.items.count()


def test_a_sheet_from_an_older_renderer_or_format_is_rendered_again(learner_client, exam_attempt):
    sheets.sheet_store(attempt=exam_attempt)
    AttemptSheet.objects.filter(attempt=exam_attempt).update(key="0.0.0", parts=["<p>old</p>"])
    html = take(learner_client, exam_attempt)
    assert "<p>old</p>" not in html
    assert AttemptSheet.objects.get(attempt=exam_attempt).key == sheets.sheet_key(exam_attempt.quiz)


def test_a_sheet_is_stored_per_language_so_a_switch_mid_exam_renders_it_again(
    exam_attempt, monkeypatch
):
    # The sheet's headings and hints are translated: a sheet rendered in one language is never
    # served in another, and a learner who switches language mid-exam gets it in the new one.
    rendered_in = []
    render = sheets.render_to_string

    def recording(*args, **kwargs):
        rendered_in.append(translation.get_language())
        return render(*args, **kwargs)

    monkeypatch.setattr(sheets, "render_to_string", recording)
    first_key = AttemptSheet.objects.get(attempt=exam_attempt).key
    with translation.override("de"):
        german_key = sheets.sheet_key(exam_attempt.quiz)
        sheets.sheet_page(attempt=Attempt.objects.get(pk=exam_attempt.pk))
    assert german_key != first_key
    assert german_key.endswith(".de")
    assert AttemptSheet.objects.get(attempt=exam_attempt).key == german_key
    assert rendered_in == ["de"]
    # Back to the first language: rendered again in it, not the German one served.
    sheets.sheet_page(attempt=Attempt.objects.get(pk=exam_attempt.pk))
    assert AttemptSheet.objects.get(attempt=exam_attempt).key == first_key
    assert rendered_in == ["de", translation.get_language()]


def test_a_practice_page_with_feedback_at_once_stores_no_sheet(
    learner_client, learner, shipped_bank
):
    practice = Quiz.objects.filter(show_feedback=Quiz.Feedback.IMMEDIATELY).first()
    attempt = attempt_start(user=learner, quiz=practice)
    assert "Check answer" in take(learner_client, attempt)
    assert not AttemptSheet.objects.filter(attempt=attempt).exists()


# --- invalidation ------------------------------------------------------------------------------


def test_a_content_change_renders_the_sheet_again_and_an_edit_past_it_does_not(
    learner_client, exam_attempt
):
    take(learner_client, exam_attempt)
    item = exam_attempt.quiz.items.filter(question__isnull=False).order_by("order").first()
    Question.objects.filter(pk=item.question_id).update(prompt="Edited prompt")
    # Not through an authoring path: the stored sheet is still current by its key.
    assert "Edited prompt" not in take(learner_client, exam_attempt)
    content_changed(question_ids=[item.question_id])
    assert "Edited prompt" in take(learner_client, exam_attempt)


def test_a_regrade_that_changes_a_tolerance_renders_the_sheet_again(learner_client, exam_attempt):
    instructor = UserFactory()
    CourseRole.objects.create(
        course=exam_attempt.quiz.lesson.course, user=instructor, role=CourseRole.Role.INSTRUCTOR
    )
    take(learner_client, exam_attempt)
    item = exam_attempt.quiz.items.filter(problem__isnull=False).order_by("order").first()
    fix = ToleranceFix(atol=0.5, rtol=0.0)
    quiz_item_regrade(item=item, by=instructor, apply=True, fix=fix)
    row = next(r for r in selectors.attempt_sheet(attempt=exam_attempt) if r.item.pk == item.pk)
    hint = render_to_string("grading/_item_inputs.html", {"row": row, "sheet": True})
    assert Variant.objects.get(attempt=exam_attempt, quiz_item=item).atol == 0.5
    assert flat(hint) in flat(take(learner_client, exam_attempt))


def test_an_override_is_of_a_submitted_attempt_whose_page_is_not_the_sheet(
    learner_client, exam_attempt
):
    # An override acts on a submitted attempt only (grading/overrides.py), and a submitted
    # attempt's page is its results, never rendered from the stored sheet.
    take(learner_client, exam_attempt)
    attempt_submit(attempt=exam_attempt)
    response = learner_client.get(reverse("attempt-take", kwargs={"pk": exam_attempt.pk}))
    assert response.url == reverse("attempt-results", kwargs={"pk": exam_attempt.pk})


def test_an_unreadable_answer_s_message_names_its_box_whatever_the_number_format(
    learner_client, learner, settings, db
):
    settings.USE_THOUSAND_SEPARATOR = True
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, show_feedback=Quiz.Feedback.AFTER_SUBMISSION)
    problem = ProblemFactory(lesson=quiz.lesson)
    item = QuizItemFactory(quiz=quiz, question=None, problem=problem, pk=1500)
    attempt = attempt_start(user=learner, quiz=quiz)
    answered(attempt, {item.pk: SheetAnswer(text="9^9^9")}, "unreadable")
    html = take(learner_client, attempt)
    assert 'id="item-1500-error"' in html
    assert 'aria-describedby="item-1500-hint item-1500-error"' in html
