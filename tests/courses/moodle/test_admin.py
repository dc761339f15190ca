"""The lesson admin: upload a Moodle XML file, preview what it imports and what it leaves out,
confirm; download a lesson's questions. Staff need permission to add questions and problems."""

import base64
import zlib
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from courses.models import Choice, Misconception, Problem, Question
from tests.factories import InstructorFactory, LessonFactory, UserFactory

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent
URL = reverse("admin:courses_lesson_moodle_import")


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Question, Choice, Problem, Misconception))


def upload(client, lesson, name="questions.xml"):
    file = SimpleUploadedFile(name, (FILES / name).read_bytes(), content_type="text/xml")
    return client.post(URL, {"lesson": lesson.pk, "file": file})


@pytest.fixture
def instructor_client(client):
    client.force_login(InstructorFactory())
    return client


def test_the_lesson_list_links_to_the_import(instructor_client):
    page = instructor_client.get(reverse("admin:courses_lesson_changelist"))
    assert URL in page.content.decode()


def test_upload_previews_without_writing_then_confirm_imports(instructor_client):
    lesson = LessonFactory()
    preview = upload(instructor_client, lesson)
    assert preview.status_code == 200
    html = preview.content.decode()
    assert "question variance-of-a-dot-product from question" in html
    assert "question &#x27;Explain the scaling&#x27; (essay, line 113): not imported" in html
    assert "Import 4 items" in html
    assert "start unpublished" in html
    assert counts() == (0, 0, 0, 0)
    confirm = preview.context["confirm"]
    data = {name: confirm[name].value() for name in ("lesson", "file_name", "source")}
    done = instructor_client.post(URL, {**data, "confirm": "1"}, follow=True)
    assert done.redirect_chain[0][1] == 302
    assert "start unpublished" in done.content.decode()
    assert lesson.questions.count() == 3
    assert lesson.problems.count() == 1


def test_a_bad_file_shows_located_errors_and_changes_nothing(instructor_client):
    lesson = LessonFactory()
    page = upload(instructor_client, lesson, "malformed.xml")
    html = page.content.decode()
    assert "nothing was changed" in html
    assert "malformed.xml › line 8" in html
    assert "confirm" not in page.context or page.context.get("confirm") is None
    assert counts() == (0, 0, 0, 0)


def test_a_tampered_confirmation_is_checked_again(instructor_client):
    lesson = LessonFactory()
    source = base64.b64encode(zlib.compress((FILES / "one_bad_question.xml").read_bytes())).decode()
    page = instructor_client.post(
        URL, {"lesson": lesson.pk, "file_name": "x.xml", "source": source, "confirm": "1"}
    )
    assert page.status_code == 200
    assert "&#x27;twelve&#x27; is not a number" in page.content.decode()
    assert counts() == (0, 0, 0, 0)


def test_a_confirmation_that_is_not_a_packed_file_is_refused(instructor_client):
    lesson = LessonFactory()
    page = instructor_client.post(
        URL, {"lesson": lesson.pk, "file_name": "x.xml", "source": "not base64!", "confirm": "1"}
    )
    assert "could not be read back" in page.content.decode()
    assert counts() == (0, 0, 0, 0)


def test_a_file_too_large_to_carry_to_the_confirmation_points_to_the_command(
    instructor_client, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 5000
    page = upload(instructor_client, LessonFactory())
    html = page.content.decode()
    assert "import it with <code>manage.py import_moodle_xml</code>" in html
    assert 'name="confirm"' not in html
    assert counts() == (0, 0, 0, 0)


def test_staff_without_add_permission_are_refused(client):
    user = UserFactory(is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_lesson", "add_question"])
    )
    client.force_login(user)
    assert client.get(URL).status_code == 403
    assert upload(client, LessonFactory()).status_code == 403
    assert counts() == (0, 0, 0, 0)


def test_staff_with_the_add_permissions_may_import(client):
    user = UserFactory(is_staff=True)
    codenames = ["view_lesson", "add_question", "add_choice", "add_misconception", "add_problem"]
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client.force_login(user)
    assert client.get(URL).status_code == 200


def test_learners_are_sent_to_the_login(client):
    client.force_login(UserFactory())
    assert client.get(URL).status_code == 302


def test_the_import_form_is_csrf_protected(client):
    client.handler.enforce_csrf_checks = True
    client.force_login(InstructorFactory())
    assert upload(client, LessonFactory()).status_code == 403


def test_export_action_downloads_the_lesson(instructor_client):
    lesson = LessonFactory()
    upload_page = upload(instructor_client, lesson)
    confirm = upload_page.context["confirm"]
    data = {name: confirm[name].value() for name in ("lesson", "file_name", "source")}
    instructor_client.post(URL, {**data, "confirm": "1"})
    response = instructor_client.post(
        reverse("admin:courses_lesson_changelist"),
        {"action": "export_moodle_xml", "_selected_action": [lesson.pk]},
    )
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{lesson.slug}-moodle.xml"'
    body = response.content.decode()
    assert body.count('<question type="multichoice">') == 2
    assert '<question type="truefalse">' in body
    assert '<question type="numerical">' in body


def test_export_action_needs_exactly_one_lesson(instructor_client):
    lessons = [LessonFactory(), LessonFactory()]
    response = instructor_client.post(
        reverse("admin:courses_lesson_changelist"),
        {"action": "export_moodle_xml", "_selected_action": [x.pk for x in lessons]},
        follow=True,
    )
    assert "Choose exactly one lesson to export." in response.content.decode()


def test_export_needs_permission_to_read_the_questions(client):
    user = UserFactory(is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_lesson"]))
    client.force_login(user)
    lesson = LessonFactory()
    response = client.post(
        reverse("admin:courses_lesson_changelist"),
        {"action": "export_moodle_xml", "_selected_action": [lesson.pk]},
    )
    assert response.status_code == 403
