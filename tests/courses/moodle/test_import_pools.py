"""A Moodle XML import into a pool (`--pool`, or the admin's pool field): every imported question
and problem joins it, as a Moodle import fills a category; a pool of another course is refused,
naming each question, with nothing written."""

from __future__ import annotations

import html

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.courses.moodle.test_import_command import FILES, counts, run
from tests.factories import CourseFactory, LessonFactory, PoolFactory, UserFactory

pytestmark = pytest.mark.django_db

RULE = "may hold only questions and problems of lessons in its own course"


def test_every_imported_question_and_problem_joins_a_pool_of_the_lesson_s_course(capsys):
    lesson = LessonFactory()
    # Another lesson of the same course: its pools may hold this lesson's questions.
    pool = PoolFactory(lesson=LessonFactory(course=lesson.course), slug="warm-up")
    out, _ = run("questions.xml", lesson, capsys, "--pool", "warm-up")
    assert "pool warm-up: every question and problem imported joins it" in out
    assert set(pool.questions.all()) == set(lesson.questions.all())
    assert len(pool.questions.all()) == 3
    assert list(pool.problems.all()) == list(lesson.problems.all())
    assert pool.problems.count() == 1


def test_a_pool_of_another_course_is_refused_naming_each_question(capsys):
    lesson = LessonFactory(title="Scaling")
    elsewhere = LessonFactory(course=CourseFactory(title="Other course"))
    pool = PoolFactory(lesson=elsewhere, slug="their-pool")
    before = counts()
    with pytest.raises(CommandError, match="4 error"):
        run("questions.xml", lesson, capsys, "--pool", "their-pool")
    err = capsys.readouterr().err.splitlines()
    refusal = (
        "cannot join pool 'their-pool': its lesson “Scaling” is in the course "
        f"“{lesson.course.title}”, and a pool of the course “Other course” {RULE}"
    )
    assert err == [
        f"question 'Variance of a dot product' (multichoice, line 10) › pool: {refusal}",
        f"question 'Softmax properties' (multichoice, line 46) › pool: {refusal}",
        f"question 'Zero mean means small' (truefalse, line 69) › pool: {refusal}",
        f"question 'Scaled score' (numerical, line 85) › pool: {refusal}",
    ]
    assert counts() == before
    assert not pool.questions.exists()
    assert not pool.problems.exists()
    # The dry run refuses the same, so a preview already shows it.
    with pytest.raises(CommandError, match="4 error"):
        run("questions.xml", lesson, capsys, "--pool", "their-pool", "--dry-run")


def test_an_unknown_pool_is_an_error():
    lesson = LessonFactory()
    with pytest.raises(CommandError, match="No pool 'nope'"):
        call_command(
            "import_moodle_xml",
            str(FILES / "questions.xml"),
            "--lesson",
            lesson.slug,
            "--pool",
            "nope",
        )


# --- the admin's upload ----------------------------------------------------------------------

URL = reverse("admin:courses_lesson_moodle_import")


def upload(client, lesson, pool):
    source = (FILES / "questions.xml").read_bytes()
    file = SimpleUploadedFile("questions.xml", source, content_type="text/xml")
    return client.post(URL, {"lesson": lesson.pk, "file": file, "pool": pool.pk})


def test_the_admin_previews_the_pool_then_fills_it_on_confirm(admin_client):
    lesson = LessonFactory()
    pool = PoolFactory(lesson=lesson, title="Warm-up")
    # The form names each pool with its course and lesson.
    form = html.unescape(admin_client.get(URL).content.decode())
    assert f">Warm-up ({lesson.course.title} › {lesson.order}. {lesson.title})</option>" in form
    preview = upload(admin_client, lesson, pool)
    assert f"joins the pool “{pool.slug}”" in preview.content.decode()
    assert not pool.questions.exists()
    confirm = preview.context["confirm"]
    data = {name: confirm[name].value() for name in ("lesson", "file_name", "source", "pool")}
    assert admin_client.post(URL, {**data, "confirm": "1"}).status_code == 302
    assert pool.questions.count() == 3
    assert pool.problems.count() == 1


def test_the_admin_refuses_a_pool_of_another_course_naming_each_question(admin_client):
    lesson = LessonFactory()
    theirs = PoolFactory(lesson=LessonFactory(course=CourseFactory()), slug="their-pool")
    before = counts()
    page = html.unescape(upload(admin_client, lesson, theirs).content.decode())
    assert (
        "question 'Variance of a dot product' (multichoice, line 10) › pool: cannot join pool "
        "'their-pool'"
    ) in page
    assert 'name="confirm"' not in page
    # A confirmation naming that pool (made by hand) is checked anew and refused the same.
    own = PoolFactory(lesson=lesson)
    confirm = upload(admin_client, lesson, own).context["confirm"]
    data = {name: confirm[name].value() for name in ("lesson", "file_name", "source")}
    page = html.unescape(
        admin_client.post(URL, {**data, "pool": theirs.pk, "confirm": "1"}).content.decode()
    )
    assert "question 'Scaled score' (numerical, line 85) › pool: cannot join pool" in page
    assert counts() == before
    assert not theirs.questions.exists()
    assert not theirs.problems.exists()


def test_filling_a_pool_needs_permission_to_change_pools(client):
    user = UserFactory(is_staff=True)
    codenames = ["view_lesson", "add_question", "add_choice", "add_misconception", "add_problem"]
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client.force_login(user)
    lesson = LessonFactory()
    assert upload(client, lesson, PoolFactory(lesson=lesson)).status_code == 403
    assert counts() == (0, 0, 0, 0)
