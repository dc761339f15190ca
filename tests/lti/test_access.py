"""Who may act on the LTI side (lti/access.py): staff status alone gives nothing; a model
permission or an instructor's role in the link's course does. Every path asked the same way:
the link's instructor view, its roster sync, the setup page and its registration links, and the
links the results grid offers."""

from __future__ import annotations

import pytest
import responses
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from lti import access
from lti.models import LinkTarget, RegistrationInvite, RosterSync
from lti.selectors import quiz_link_views
from teaching.models import CourseRole
from tests.factories import CourseFactory, UserFactory
from tests.lti.fake_lms import launch_as

pytestmark = pytest.mark.django_db

VIEW = "view_linktarget"
SYNC = "add_rostersync"
INVITE = "add_registrationinvite"


def staff(*codenames: str, **fields):
    """A staff member holding exactly these permissions of the lti app."""
    user = UserFactory(is_staff=True, **fields)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="lti", codename__in=codenames)
    )
    return user


def with_role(course, role=CourseRole.Role.INSTRUCTOR, **fields):
    user = UserFactory(**fields)
    CourseRole.objects.create(course=course, user=user, role=role)
    return user


@pytest.fixture
def target(client, platform, quiz, lms) -> LinkTarget:
    """A link to the quiz, made by a learner's launch; the LMS's roster service answers 503, so
    a sync that is allowed is recorded as failed (a RosterSync row either way)."""
    launch_as(client, platform, sub="learner-1", custom={"softgrade_quiz": quiz.slug})
    client.logout()
    lms.add(responses.POST, platform.token_url, status=503)
    return LinkTarget.objects.get()


def view_status(client, user, target) -> int:
    client.force_login(user)
    return client.get(reverse("lti:link-instructor", args=[target.pk])).status_code


def sync_status(client, user, target) -> int:
    client.force_login(user)
    return client.post(reverse("lti:link-roster-sync", args=[target.pk])).status_code


# ---------------------------------------------------------------------------------------------
# A link's instructor view and its roster sync
# ---------------------------------------------------------------------------------------------


def test_staff_status_alone_opens_no_link_and_syncs_no_roster(client, target, quiz):
    plain = staff()
    assert view_status(client, plain, target) == 404
    assert sync_status(client, plain, target) == 404
    assert not RosterSync.objects.exists()
    assert quiz_link_views(user=plain, quiz=quiz) == []


def test_the_view_permission_opens_every_link_but_syncs_nothing(client, target, quiz):
    viewer = staff(VIEW)
    client.force_login(viewer)
    page = client.get(reverse("lti:link-instructor", args=[target.pk]))
    assert page.status_code == 200
    assert "Sync the roster from the LMS" not in page.content.decode()
    # The page exists for them, so the refusal says so (403) and nothing is asked of the LMS.
    assert sync_status(client, viewer, target) == 403
    assert not RosterSync.objects.exists()
    assert [path for _, path in quiz_link_views(user=viewer, quiz=quiz)] == [
        reverse("lti:link-instructor", args=[target.pk])
    ]


def test_the_view_and_sync_permissions_start_a_roster_sync(client, target):
    syncer = staff(VIEW, SYNC)
    client.force_login(syncer)
    page = client.get(reverse("lti:link-instructor", args=[target.pk])).content.decode()
    assert "Sync the roster from the LMS" in page
    assert sync_status(client, syncer, target) == 302
    assert RosterSync.objects.get().requested_by == syncer


def test_the_sync_permission_without_the_view_finds_no_link(client, target):
    assert sync_status(client, staff(SYNC), target) == 404
    assert not RosterSync.objects.exists()


def test_a_permission_given_through_a_group_counts(client, target):
    group = Group.objects.create(name="LMS support")
    group.permissions.set(
        Permission.objects.filter(content_type__app_label="lti", codename__in=[VIEW, SYNC])
    )
    member = staff()
    member.groups.add(group)
    assert view_status(client, member, target) == 200
    assert sync_status(client, member, target) == 302


def test_an_instructor_of_the_link_s_course_opens_it_and_syncs_its_roster(client, target, quiz):
    instructor = with_role(quiz.lesson.course)
    assert not instructor.is_staff
    assert view_status(client, instructor, target) == 200
    assert sync_status(client, instructor, target) == 302
    assert RosterSync.objects.get().requested_by == instructor
    assert len(quiz_link_views(user=instructor, quiz=quiz)) == 1


@pytest.mark.parametrize("is_staff", [False, True])
def test_an_instructor_of_another_course_gets_404(client, target, quiz, is_staff):
    other = with_role(CourseFactory(), is_staff=is_staff)
    assert view_status(client, other, target) == 404
    assert sync_status(client, other, target) == 404
    assert not RosterSync.objects.exists()
    assert quiz_link_views(user=other, quiz=quiz) == []


def test_a_teaching_assistant_of_the_link_s_course_gets_404(client, target, quiz):
    assistant = with_role(quiz.lesson.course, CourseRole.Role.TEACHING_ASSISTANT)
    assert view_status(client, assistant, target) == 404
    assert sync_status(client, assistant, target) == 404
    assert not RosterSync.objects.exists()


def test_a_practice_link_asks_the_course_of_its_lesson(client, platform, lesson):
    launch_as(client, platform, sub="learner-1", custom={"softgrade_practice": lesson.slug})
    practice = LinkTarget.objects.get()
    assert view_status(client, with_role(lesson.course), practice) == 200
    assert view_status(client, with_role(CourseFactory()), practice) == 404


def test_an_inactive_user_gets_nothing_whatever_they_hold(target):
    holder = staff(VIEW, SYNC, INVITE, is_active=False)
    for action in access.LinkAction:
        assert not access.may_act_on_link(user=holder, target=target, action=action)
    assert not access.may_register_platforms(user=holder)


def test_a_superuser_keeps_everything(client, target):
    root = UserFactory(is_staff=True, is_superuser=True)
    assert view_status(client, root, target) == 200
    assert sync_status(client, root, target) == 302
    assert access.may_register_platforms(user=root)


def test_without_the_course_rule_only_permissions_open_links(client, target, quiz, settings):
    del settings.SOFTGRADE_COURSES_INSTRUCTED
    assert view_status(client, with_role(quiz.lesson.course), target) == 404
    assert view_status(client, staff(VIEW), target) == 200


def test_the_course_rule_in_the_settings_is_teaching_s(settings):
    assert settings.SOFTGRADE_COURSES_INSTRUCTED == "teaching.access.courses_instructed"


# ---------------------------------------------------------------------------------------------
# Registering softgrade in an LMS
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["plain staff", "course instructor"])
def test_neither_staff_status_nor_a_course_role_registers_platforms(client, quiz, who):
    user = staff() if who == "plain staff" else with_role(quiz.lesson.course)
    client.force_login(user)
    assert client.get(reverse("lti:setup")).status_code == 403
    assert client.post(reverse("lti:registration-invite")).status_code == 403
    assert not RegistrationInvite.objects.exists()


def test_the_registration_permission_opens_the_setup_page_and_makes_a_link(client):
    registrar = staff(INVITE)
    client.force_login(registrar)
    assert client.get(reverse("lti:setup")).status_code == 200
    page = client.post(reverse("lti:registration-invite"))
    assert page.status_code == 200
    assert RegistrationInvite.objects.get().created_by == registrar


def test_signed_out_visitors_are_sent_to_sign_in(client):
    assert client.get(reverse("lti:setup")).status_code == 302
    assert client.post(reverse("lti:registration-invite")).status_code == 302
    assert not RegistrationInvite.objects.exists()
