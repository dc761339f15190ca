"""manage.py import_moodle_xml: hand-written files in Moodle's documented format, into a lesson."""

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from courses.models import Choice, Misconception, Problem, Question
from courses.moodle_xml.importer import UNNAMED_EXPLANATION
from courses.publishing import content_publish
from grading.services.attempts import attempt_start
from grading.services.responses import response_submit
from tests.factories import (
    LessonFactory,
    QuestionFactory,
    QuizFactory,
    QuizItemFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Question, Choice, Problem, Misconception))


def run(name: str, lesson, capsys, *extra) -> tuple[str, str]:
    call_command("import_moodle_xml", str(FILES / name), "--lesson", lesson.slug, *extra)
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_single_choice_keeps_html_math_feedback_and_general_feedback(capsys):
    lesson = LessonFactory()
    run("questions.xml", lesson, capsys)
    question = Question.objects.get(slug="variance-of-a-dot-product")
    assert question.lesson == lesson
    assert question.kind == Question.Kind.SINGLE
    assert question.prompt == (
        "Each component of $q$ and $k$ has variance 1. What is **the variance** of $q \\cdot k$?"
    )
    assert question.explanation.startswith("The $d_k$ products each have variance 1")
    choices = list(question.choices.order_by("order"))
    assert [c.text for c in choices] == ["$d_k$", "$\\sqrt{d_k}$", "1"]
    assert [c.is_correct for c in choices] == [True, False, False]
    assert choices[0].feedback == "Right: *variances add*."
    assert choices[1].feedback == "That is the standard deviation."
    # Every wrong choice names the question's misconception, whose explanation says nothing of
    # the right answer (the general feedback, which does, is the question's explanation).
    assert choices[1].misconception == choices[2].misconception
    assert choices[1].misconception.code == "variance-of-a-dot-product-wrong"
    assert choices[1].misconception.explanation == UNNAMED_EXPLANATION


def test_a_wrong_pick_with_tries_left_shows_no_general_feedback(capsys, client):
    """In a practice quiz with feedback at once, a learner who picks a wrong imported choice
    sees its verdict, its own feedback and the misconception, not the general feedback, which
    states the answer while they may still try again."""
    lesson = LessonFactory()
    run("questions.xml", lesson, capsys)
    # Imported questions start unpublished; the instructor publishes this one.
    content_publish(rows=Question.objects.filter(slug="variance-of-a-dot-product"), published=True)
    question = Question.objects.get(slug="variance-of-a-dot-product")
    quiz = QuizFactory(lesson=lesson, mode="practice", show_feedback="immediately")
    item = QuizItemFactory(quiz=quiz, question=question)
    learner = UserFactory()
    attempt = attempt_start(user=learner, quiz=quiz)
    wrong = question.choices.get(text="$\\sqrt{d_k}$")
    response_submit(attempt=attempt, item=item, choice_ids=[wrong.pk])
    client.force_login(learner)
    page = client.get(reverse("attempt-take", kwargs={"pk": attempt.pk})).content.decode()
    assert "Not correct" in page
    assert "That is the standard deviation." in page
    assert "A wrong answer to Variance of a dot product" in page
    assert "variances of independent terms add" not in page


def test_several_answers_become_a_multiple_choice_question_reported_as_all_or_nothing(capsys):
    lesson = LessonFactory()
    out, _ = run("questions.xml", lesson, capsys)
    question = Question.objects.get(slug="softmax-properties")
    assert question.kind == Question.Kind.MULTIPLE
    assert [c.is_correct for c in question.choices.order_by("order")] == [True, True, False]
    assert "softmax-properties" in out
    assert "scored all or nothing" in out
    assert "<correctfeedback> is not kept" in out


def test_true_false_shows_true_then_false_with_its_feedback(capsys):
    lesson = LessonFactory()
    run("questions.xml", lesson, capsys)
    question = Question.objects.get(slug="zero-mean-means-small")
    assert question.kind == Question.Kind.TRUE_FALSE
    choices = list(question.choices.order_by("order"))
    assert [(c.text, c.is_correct) for c in choices] == [("True", False), ("False", True)]
    assert choices[0].feedback == "A zero mean does not make the values small."
    # $$…$$ is display math, on its own line.
    assert "\n\n$$\\mathbb{E}[q \\cdot k] = 0$$\n\n" in question.prompt


def test_numerical_becomes_a_fixed_answer_formula_problem_with_its_tolerance(capsys):
    lesson = LessonFactory()
    out, _ = run("questions.xml", lesson, capsys)
    problem = Problem.objects.get(slug="scaled-score")
    assert problem.family == "formula"
    assert (problem.atol, problem.rtol) == (0.05, 0.0)
    assert problem.params["variables"] == {}
    assert float(problem.params["answer"]) == 2.0
    assert problem.params["solution"] == ["Divide by $\\sqrt{64} = 8$."]
    [(code, formula)] = problem.params["mistakes"].items()
    assert float(formula) == 0.25
    misconception = Misconception.objects.get(code=code)
    assert misconception.explanation == "You divided by $d_k$, not by its square root."
    assert "the feedback for any other answer ('*') is not kept" in out


def test_what_does_not_map_is_reported_by_name_type_and_line(capsys):
    lesson = LessonFactory()
    out, _ = run("questions.xml", lesson, capsys)
    assert "question 'Explain the scaling' (essay, line 113): not imported" in out
    assert "question 'Match the terms' (matching, line 119): not imported" in out
    assert "question 'Read the heat map' (multichoice, line 126): not imported" in out
    assert "heatmap.png" in out
    assert "category '$course$/Attention/Scaling'" in out
    assert not Question.objects.filter(slug__in=["read-the-heat-map", "explain-the-scaling"])
    assert lesson.questions.count() == 3
    assert lesson.problems.count() == 1


def test_partial_credit_and_units_are_reported_not_changed(capsys):
    lesson = LessonFactory()
    out, _ = run("partial_credit.xml", lesson, capsys)
    assert "question 'Half right' (multichoice, line 3): not imported" in out
    assert "50%" in out
    assert "question 'With units' (numerical, line 11): not imported: units (tokens)" in out
    assert counts() == (0, 0, 0, 0)


def test_a_taken_slug_gets_a_suffix_and_never_overwrites(capsys):
    other = QuestionFactory(slug="zero-mean-means-small", prompt="Someone else's question.")
    lesson = LessonFactory()
    _out, _ = run("questions.xml", lesson, capsys)
    other.refresh_from_db()
    assert other.prompt == "Someone else's question."
    assert Question.objects.get(slug="zero-mean-means-small-2").lesson == lesson
    # Importing the file again adds a second copy beside the first, as Moodle's import does.
    run("questions.xml", lesson, capsys)
    assert Question.objects.filter(slug="variance-of-a-dot-product-2", lesson=lesson).exists()
    assert lesson.questions.count() == 6


def test_malformed_xml_is_located_exits_1_and_changes_nothing(capsys):
    lesson = LessonFactory()
    before = counts()
    with pytest.raises(CommandError, match="nothing was changed"):
        run("malformed.xml", lesson, capsys)
    err = capsys.readouterr().err
    assert "malformed.xml › line 8" in err
    assert "mismatched tag" in err
    assert counts() == before


def test_one_bad_question_stops_the_whole_file(capsys):
    lesson = LessonFactory()
    before = counts()
    with pytest.raises(CommandError, match="1 error"):
        run("one_bad_question.xml", lesson, capsys)
    err = capsys.readouterr().err
    assert "question 'A broken one' (numerical, line 9) › answer › line 12" in err
    assert "'twelve' is not a number" in err
    assert counts() == before


def test_a_formula_that_cannot_render_is_a_located_error(tmp_path, capsys):
    lesson = LessonFactory()
    bad = (FILES / "one_bad_question.xml").read_text().replace("twelve", "12")
    (tmp_path / "bad.xml").write_text(bad)
    with pytest.raises(CommandError):
        call_command("import_moodle_xml", str(tmp_path / "bad.xml"), "--lesson", lesson.slug)
    err = capsys.readouterr().err
    assert "question 'A broken one' (numerical, line 9) › question text" in err
    assert counts() == (0, 0, 0, 0)


def test_a_dtd_is_refused_so_no_entity_expands(capsys):
    lesson = LessonFactory()
    with pytest.raises(CommandError):
        run("entity_expansion.xml", lesson, capsys)
    err = capsys.readouterr().err
    assert "entity_expansion.xml › line 2: a DOCTYPE is not accepted" in err
    assert counts() == (0, 0, 0, 0)


def test_dry_run_reports_and_writes_nothing(capsys):
    lesson = LessonFactory()
    out, _ = run("questions.xml", lesson, capsys, "--dry-run")
    assert "to import into lesson" in out
    assert "Would import 4 items" in out
    assert counts() == (0, 0, 0, 0)


def test_an_unknown_lesson_is_an_error_naming_the_known_ones():
    lesson = LessonFactory()
    with pytest.raises(CommandError, match=rf"No lesson 'nope' \(known: {lesson.slug}\)"):
        call_command("import_moodle_xml", str(FILES / "questions.xml"), "--lesson", "nope")
    with pytest.raises(CommandError, match=rf"No lesson 'nope' \(known: {lesson.slug}\)"):
        call_command("export_moodle_xml", "nope")


NUMERICAL = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="numerical">
    <name><text>{name}</text></name>
    <questiontext format="plain_text"><text>What is it?</text></questiontext>
    <answer fraction="100"><text>{answer}</text><tolerance>{tolerance}</tolerance></answer>
    <answer fraction="0"><text>{wrong}</text>
      <feedback><text>Close, but no.</text></feedback></answer>
  </question>
</quiz>
"""


def test_an_answer_that_would_accept_0_is_reported_not_refused(tmp_path, capsys):
    lesson = LessonFactory()
    path = tmp_path / "zero.xml"
    path.write_text(NUMERICAL.format(name="Centred mean", answer=0, tolerance=0.1, wrong=1))
    call_command("import_moodle_xml", str(path), "--lesson", lesson.slug)
    out = capsys.readouterr().out
    assert "question 'Centred mean' (numerical, line 3): not imported" in out
    assert "would accept 0" in out
    assert counts() == (0, 0, 0, 0)


def test_a_wrong_answer_inside_the_tolerance_is_noted_and_not_kept(tmp_path, capsys):
    lesson = LessonFactory()
    path = tmp_path / "close.xml"
    path.write_text(NUMERICAL.format(name="Close call", answer=10, tolerance=0.5, wrong=10.2))
    call_command("import_moodle_xml", str(path), "--lesson", lesson.slug)
    out = capsys.readouterr().out
    assert "the wrong answer 10.2 is within the right one's tolerance: not kept" in out
    problem = Problem.objects.get(slug="close-call")
    assert problem.params["mistakes"] == {}
    assert Misconception.objects.count() == 0


def test_two_right_answers_in_a_single_choice_question_are_reported(tmp_path, capsys):
    lesson = LessonFactory()
    path = tmp_path / "two.xml"
    path.write_text(
        (FILES / "partial_credit.xml").read_text().replace('fraction="50"', 'fraction="100"')
    )
    call_command("import_moodle_xml", str(path), "--lesson", lesson.slug)
    out = capsys.readouterr().out
    assert (
        "question 'Half right' (multichoice, line 3): not imported: 2 answers are worth 100%" in out
    )
    assert counts() == (0, 0, 0, 0)


def test_imported_questions_and_problems_start_unpublished_and_the_report_says_so(capsys):
    lesson = LessonFactory()
    out, _ = run("questions.xml", lesson, capsys)
    assert lesson.questions.count() == 3
    assert lesson.problems.count() == 1
    assert not lesson.questions.filter(published=True).exists()
    assert not lesson.problems.filter(published=True).exists()
    assert "Imported questions and problems start unpublished" in out
    assert not Problem.objects.for_practice().exists()
