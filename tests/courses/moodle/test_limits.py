"""A file over the element or size limit is refused with the line where the limit is crossed,
before it costs much, and nothing is written; a file just under both limits imports. The limits
are settings, made small here, so no test needs a large file."""

import base64
import xml.etree.ElementTree as ET
import zlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse

from courses.models import Choice, Misconception, Problem, Question
from courses.moodle_xml.importer import moodle_import
from courses.moodle_xml.issues import MoodleXmlError
from courses.moodle_xml.tree import MAX_MARKUP
from tests.factories import InstructorFactory, LessonFactory

pytestmark = pytest.mark.django_db

URL = reverse("admin:courses_lesson_moodle_import")
# One question a line: line 1 is the declaration, line 2 <quiz>, question n is on line n + 2.
QUESTION = (
    '<question type="truefalse"><name><text>Claim {n}</text></name>'
    '<questiontext format="plain_text"><text>Scaling by 1/sqrt(d_k) keeps the variance at 1.'
    '</text></questiontext><answer fraction="100"><text>true</text></answer>'
    '<answer fraction="0"><text>false</text></answer></question>'
)
SOURCE = "\n".join(
    ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>"]
    + [QUESTION.format(n=n) for n in range(1, 5)]
    + ["</quiz>", ""]
).encode()
# Elements and attributes: <quiz>, then per question 9 elements and 4 attributes (type, format,
# two fractions).
PER_QUESTION = 13
TOTAL = 1 + 4 * PER_QUESTION


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Question, Choice, Problem, Misconception))


def refusal(source: bytes) -> str:
    with pytest.raises(MoodleXmlError) as raised:
        moodle_import(source=source, file_name="big.xml", lesson=LessonFactory())
    [issue] = raised.value.issues
    return str(issue)


def test_the_counts_here_are_the_files():
    root = ET.fromstring(SOURCE)
    assert sum(1 + len(element.attrib) for element in root.iter()) == TOTAL


@override_settings(MOODLE_XML_MAX_ELEMENTS=1 + 2 * PER_QUESTION)
def test_too_many_elements_are_refused_at_the_line_that_crosses_the_limit():
    # The limit holds <quiz> and two questions: the third question's first element crosses it.
    assert refusal(SOURCE) == (
        "big.xml › line 5: the file has more than 27 elements and attributes, the limit"
    )
    assert counts() == (0, 0, 0, 0)


@override_settings(MOODLE_XML_MAX_ELEMENTS=TOTAL - 1)
def test_attributes_count_toward_the_limit():
    # The last answer's fraction attribute is one over.
    assert "line 6: the file has more than 52 elements and attributes" in refusal(SOURCE)


@override_settings(MOODLE_XML_MAX_BYTES=len(SOURCE) - 50)
def test_a_file_over_the_size_limit_is_refused_at_the_line_that_crosses_it():
    # The last 50 bytes are the end of the fourth question (line 6) and "</quiz>".
    limit = len(SOURCE) - 50
    message = f"the file is larger than {limit:,} bytes, the limit"
    assert refusal(SOURCE) == f"big.xml › line 6: {message}"
    assert counts() == (0, 0, 0, 0)


@override_settings(MOODLE_XML_MAX_BYTES=len(SOURCE), MOODLE_XML_MAX_ELEMENTS=TOTAL)
def test_a_file_at_both_limits_imports():
    report = moodle_import(source=SOURCE, file_name="ok.xml", lesson=LessonFactory())
    assert len(report.imported) == 4
    assert counts() == (4, 8, 0, 4)


@override_settings(MOODLE_XML_MAX_BYTES=1000)
def test_the_confirm_step_refuses_a_payload_that_decodes_past_the_limit(client):
    """A confirmation carries the file compressed: whatever it inflates to, no more than the
    limit and a byte is decoded, and the import refuses it with the line."""
    client.force_login(InstructorFactory())
    lesson = LessonFactory()
    source = base64.b64encode(zlib.compress(SOURCE * 50)).decode()
    assert len(source) < 1000  # small in the form, large once decoded
    page = client.post(
        URL, {"lesson": lesson.pk, "file_name": "x.xml", "source": source, "confirm": "1"}
    )
    html = page.content.decode()
    line = SOURCE[:1000].count(b"\n") + 1
    assert f"x.xml › line {line}: the file is larger than 1,000 bytes, the limit" in html
    assert counts() == (0, 0, 0, 0)


@override_settings(MOODLE_XML_MAX_BYTES=len(SOURCE) - 1)
def test_an_upload_over_the_size_limit_is_refused_with_its_line(client):
    client.force_login(InstructorFactory())
    file = SimpleUploadedFile("big.xml", SOURCE, content_type="text/xml")
    page = client.post(URL, {"lesson": LessonFactory().pk, "file": file})
    html = page.content.decode()
    assert "big.xml › line 7: the file is larger than" in html
    assert page.context.get("confirm") is None
    assert counts() == (0, 0, 0, 0)


@override_settings(MOODLE_XML_MAX_ELEMENTS=PER_QUESTION)
def test_the_command_refuses_too_many_elements_and_changes_nothing(tmp_path, capsys):
    path = tmp_path / "big.xml"
    path.write_bytes(SOURCE)
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_moodle_xml", str(path), "--lesson", LessonFactory().slug)
    assert "big.xml › line 3: the file has more than 13 elements" in capsys.readouterr().err
    assert counts() == (0, 0, 0, 0)


def test_a_tag_too_long_to_count_is_refused_where_it_crosses_the_limit():
    """Expat reads a whole start tag before it reports it (and its attributes can be counted):
    one of a million attributes is stopped once MAX_MARKUP bytes have gone by unreported."""
    attributes = "".join(f'\n  a{n:07d}=""' for n in range(MAX_MARKUP // 14 + 1000))
    source = SOURCE.replace(b'<question type="truefalse">', f"<question{attributes}>".encode(), 1)
    # The last thing reported before the tag is the line break that ends <quiz>'s line.
    crossed = source.index(b"\n<question") + MAX_MARKUP
    line = source[:crossed].count(b"\n") + 1
    assert line > 3
    message = f"line {line}: a tag or comment runs over {MAX_MARKUP:,} bytes, the limit"
    assert refusal(source) == f"big.xml › {message}"
    assert counts() == (0, 0, 0, 0)
