"""The admin's start page: each user's courses with links to their /teach/ pages, the buttons
to add content their permissions allow, their recent imports; the admin's own list of models
stays below it."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from courses.models import Lesson
from courses.moodle_admin import IMPORT_LOG_PREFIX
from teaching.models import CourseRole
from teaching.start.reads import COURSES_SHOWN, recent_imports, start_page
from tests.factories import CourseFactory, InstructorFactory, LessonFactory, UserFactory

pytestmark = pytest.mark.django_db

ADMIN = reverse("admin:index")


def staff_with(*perms: str, **fields):
    user = UserFactory(is_staff=True, **fields)
    for perm in perms:
        app, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app, codename=codename)
        )
    return user


def log(user, lesson, message: str) -> LogEntry:
    return LogEntry.objects.create(
        user=user,
        content_type=ContentType.objects.get_for_model(Lesson),
        object_id=str(lesson.pk),
        object_repr=str(lesson),
        action_flag=CHANGE,
        change_message=message,
    )


def test_an_instructor_sees_only_the_courses_they_teach_with_their_pages():
    mine, theirs = CourseFactory(title="Attention"), CourseFactory(title="Other")
    user = staff_with("courses.add_question")
    CourseRole.objects.create(course=mine, user=user, role=CourseRole.Role.INSTRUCTOR)
    page = start_page(user)
    assert [entry.course for entry in page.courses] == [mine]
    assert page.courses[0].role == "Instructor"
    urls = [link.url for link in page.courses[0].links]
    assert reverse("teaching:course", args=[mine.slug]) in urls
    assert reverse("teaching:accommodations", args=[mine.slug]) in urls
    assert all(theirs.slug not in url for url in urls)
    assert page.more == 0


def test_the_add_buttons_follow_the_permissions():
    only_questions = staff_with("courses.add_question")
    assert [link.label for link in start_page(only_questions).adds] == ["Add a question"]
    everything = InstructorFactory()
    labels = [link.label for link in start_page(everything).adds]
    assert labels == ["Add a problem", "Add a question", "Add a quiz", "Import Moodle XML"]


def test_a_superuser_s_long_list_is_cut_with_how_many_more():
    for n in range(COURSES_SHOWN + 2):
        CourseFactory(title=f"Course {n:02}")
    page = start_page(InstructorFactory(is_superuser=True))
    assert len(page.courses) == COURSES_SHOWN
    assert page.more == 2


def test_recent_imports_are_the_user_s_own_newest_first():
    user, other = staff_with(), staff_with()
    lesson = LessonFactory()
    first = log(user, lesson, f"{IMPORT_LOG_PREFIX} (a.xml): 3 item(s), 0 left out.")
    log(user, lesson, "Changed title.")  # not an import
    log(other, lesson, f"{IMPORT_LOG_PREFIX} (b.xml): 1 item(s), 0 left out.")
    second = log(user, lesson, f"{IMPORT_LOG_PREFIX} (c.xml): 2 item(s), 1 left out.")
    assert recent_imports(user) == [second, first]


def test_the_admin_index_shows_the_start_page_and_keeps_the_model_list(client):
    course = CourseFactory(title="Attention")
    user = staff_with("courses.add_quiz", "courses.view_quiz")
    CourseRole.objects.create(course=course, user=user, role=CourseRole.Role.TEACHING_ASSISTANT)
    log(user, LessonFactory(course=course), f"{IMPORT_LOG_PREFIX} (q.xml): 4 item(s), 0 left out.")
    client.force_login(user)
    html = client.get(ADMIN).content.decode()
    assert "Your courses" in html
    assert reverse("teaching:course", args=[course.slug]) in html
    assert "(Teaching assistant)" in html
    assert reverse("admin:courses_quiz_add") in html
    assert "q.xml" in html
    # The admin's list of models is still there.
    assert reverse("admin:courses_quiz_changelist") in html


def test_an_instructor_without_a_course_is_told_how_to_get_one(client):
    client.force_login(staff_with("courses.add_question"))
    html = client.get(ADMIN).content.decode()
    assert "You teach no course yet." in html
    assert "No import yet." in html


def test_a_superuser_sees_every_course_and_every_model(client):
    course = CourseFactory(title="Attention")
    client.force_login(InstructorFactory(is_superuser=True))
    html = client.get(ADMIN).content.decode()
    assert reverse("teaching:course", args=[course.slug]) in html
    assert "(Superuser)" in html
    assert reverse("admin:auth_user_changelist") in html


def test_a_moodle_import_is_recorded_for_the_start_page(client):
    from tests.courses.moodle.test_admin import upload

    user = InstructorFactory()
    client.force_login(user)
    lesson = LessonFactory()
    preview = upload(client, lesson)
    confirm = preview.context["confirm"]
    data = {name: confirm[name].value() for name in ("lesson", "file_name", "source")}
    client.post(reverse("admin:courses_lesson_moodle_import"), {**data, "confirm": "1"})
    (entry,) = recent_imports(user)
    assert entry.change_message.startswith(f"{IMPORT_LOG_PREFIX} (questions.xml): 4 item(s)")
    assert entry.object_id == str(lesson.pk)
    assert "questions.xml" in client.get(ADMIN).content.decode()


def test_anonymous_visitors_get_the_login_not_the_start_page(client):
    response = client.get(ADMIN)
    assert response.status_code == 302
