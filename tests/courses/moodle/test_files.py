"""Every file a Moodle question embeds, shows or links is found wherever it sits: the question is
left out and named, each file as what it is; a numerical answer's replaced tolerance is reported."""

import pytest

from courses.models import Choice, Misconception, Problem, Question
from courses.moodle_xml.importer import moodle_import
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Question, Choice, Problem, Misconception))


ANSWERS = """
    <answer fraction="100"><text>Yes</text>
      <feedback><text><![CDATA[{right}]]></text></feedback></answer>
    <answer fraction="0"><text>No</text><feedback><text></text></feedback></answer>"""


# The old format's image, carried in the question (the start of a GIF, base64).
OLD_IMAGE_DATA = "<image_base64>R0lGODlh</image_base64>"


def quiz(*questions: str) -> bytes:
    return ('<?xml version="1.0"?>\n<quiz>\n' + "\n".join(questions) + "\n</quiz>\n").encode()


def question(name: str, *, text: str = "Is it?", inside: str = "", right: str = "") -> str:
    return (
        f'  <question type="multichoice">\n    <name><text>{name}</text></name>\n'
        f'    <questiontext format="html"><text><![CDATA[{text}]]></text></questiontext>'
        f"{inside}{ANSWERS.format(right=right)}\n  </question>"
    )


def reported(source: bytes) -> dict[str, str]:
    report = moodle_import(source=source, file_name="files.xml", lesson=LessonFactory())
    return {item.record.name: item.reason for item in report.reported}


def test_files_anywhere_in_a_question_leave_it_out_named_as_what_they_are():
    source = quiz(
        question("Plain", text="<p>Is softmax shift-invariant?</p>"),
        question(
            "Hint file",
            inside='<hint format="html"><text>Listen.</text>'
            '<file name="hint.mp3" path="/" encoding="base64">SUQz</file></hint>',
        ),
        question("Old image", inside="<image>images/heatmap.gif</image>" + OLD_IMAGE_DATA),
        question("Old image, no name", inside="<image></image>" + OLD_IMAGE_DATA),
        question("Notes", right='<a href="@@PLUGINFILE@@/worked%20notes.pdf">the notes</a>'),
        question("Clip", text='<video controls><source src="@@PLUGINFILE@@/demo.mp4"></video>'),
        question(
            "Markdown",
            text="See ![chart](@@PLUGINFILE@@/chart.svg) and @@PLUGINFILE@@/data.csv",
        ).replace('format="html"', 'format="markdown"'),
        question(
            "Raw HTML",
            inside='<generalfeedback format="html"><text><p><img src="@@PLUGINFILE@@/raw.png"/>'
            "</p></text></generalfeedback>",
        ),
        question(
            "Feedback sound",
            inside='<correctfeedback format="html"><text><![CDATA[<audio '
            'src="@@PLUGINFILE@@/cheer"></audio>]]></text></correctfeedback>',
        ),
    )
    reasons = reported(source)
    files = "it refers to files, which are not imported: "
    assert reasons == {
        "Hint file": files + "an audio file (hint.mp3)",
        "Old image": files + "an image (images/heatmap.gif)",
        "Old image, no name": files + "an image (<image_base64>)",
        "Notes": files + "a PDF (worked notes.pdf)",
        "Clip": files + "a video (demo.mp4)",
        "Markdown": files + "an image (chart.svg), a file (data.csv)",
        "Raw HTML": files + "an image (raw.png)",
        # Combined feedback is not converted (it is not kept): its file is found by its address.
        "Feedback sound": files + "a file (cheer)",
    }
    assert [q.prompt for q in Question.objects.all()] == ["Is softmax shift-invariant?"]


def test_a_file_named_by_its_element_and_embedded_is_named_once_by_the_more_telling_kind():
    text = '<audio src="@@PLUGINFILE@@/take"></audio>'
    inside = '<file name="take" path="/" encoding="base64">SUQz</file>'
    reasons = reported(quiz(question("Take", text=text + inside)))
    assert reasons == {"Take": "it refers to files, which are not imported: an audio file (take)"}


def test_a_question_that_is_only_a_figure_is_left_out_not_an_error():
    """Its text is empty once the image is taken away: left out for the image, not refused."""
    source = quiz(question("Figure", text='<img src="@@PLUGINFILE@@/figure.png" alt="">'))
    report = moodle_import(source=source, file_name="figure.xml", lesson=LessonFactory())
    assert [str(item) for item in report.reported] == [
        "question 'Figure' (multichoice, line 3): not imported: it refers to files, which are "
        "not imported: an image (figure.png)"
    ]
    assert counts() == (0, 0, 0, 0)


NUMERICAL = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="numerical">
    <name><text>Scaled score</text></name>
    <questiontext format="plain_text"><text>What is 16/sqrt(64)?</text></questiontext>
    <answer fraction="100"><text>2</text><tolerance>0.05</tolerance></answer>
    <answer fraction="0"><text>0.25</text><tolerance>0.5</tolerance>
      <feedback><text>You divided by d_k.</text></feedback></answer>
    <answer fraction="0"><text>16</text>
      <feedback><text>You did not divide.</text></feedback></answer>
    <answer fraction="0"><text>4</text><tolerance>0.05</tolerance>
      <feedback><text>You divided by the square root twice... or not at all.</text></feedback>
    </answer>
  </question>
</quiz>
"""


def test_a_wrong_answers_own_tolerance_that_is_replaced_is_reported():
    report = moodle_import(source=NUMERICAL.encode(), file_name="n.xml", lesson=LessonFactory())
    [item] = report.imported
    lines = report.lines()[0]
    replaced = "the wrong answer {} is matched within ± 0.05 (the problem's tolerance), not its own"
    assert replaced.format("0.25") + " ± 0.5;" in lines
    # No <tolerance> is Moodle's 0; the same tolerance as the problem's is not a change.
    assert lines.endswith(replaced.format("16") + " ± 0")
    assert "wrong answer 4 " not in lines
    problem = Problem.objects.get(slug=item.slug)
    assert (problem.atol, problem.rtol) == (0.05, 0.0)
    assert sorted(float(value) for value in problem.params["mistakes"].values()) == [0.25, 4, 16]
