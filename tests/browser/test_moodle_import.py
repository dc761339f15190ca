"""An instructor brings a Moodle XML file into a lesson from the admin, in real Chromium: upload,
read the preview of what is imported and what is left out, confirm."""

from pathlib import Path

import pytest

from tests.browser.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FILE = Path(__file__).parent.parent / "courses" / "moodle" / "questions.xml"


def test_upload_preview_and_confirm(page, live_server):
    from tests.factories import InstructorFactory, LessonFactory

    instructor = InstructorFactory(username="grace")
    instructor.set_password(PASSWORD)
    instructor.save()
    lesson = LessonFactory(title="Scaling")
    page.goto(f"{live_server.url}/admin/login/?next=/admin/courses/lesson/")
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Import Moodle XML").click()
    page.get_by_label("Lesson").select_option(str(lesson.pk))
    page.get_by_label("File").set_input_files(str(FILE))
    page.get_by_role("button", name="Preview the import").click()
    preview = page.locator("[data-moodle-preview]")
    assert "question variance-of-a-dot-product" in preview.inner_text()
    reported = page.locator("[data-moodle-reported]").inner_text()
    assert "'Explain the scaling' (essay, line 113): not imported" in reported
    assert lesson.questions.count() == 0
    page.get_by_role("button", name="Import 4 items").click()
    page.wait_for_url(f"{live_server.url}/admin/courses/lesson/{lesson.pk}/change/")
    assert "Imported 4 items" in page.locator(".messagelist").inner_text()
    assert lesson.questions.count() == 3
    assert lesson.problems.count() == 1
