"""An administrator grants a registration its courses on the registration's admin page (for
every deployment, or one of its own); the setup page lists what each registration reaches."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from lti.models import CourseGrant
from tests.factories import CourseFactory, InstructorFactory
from tests.lti.fake_lms import TestPlatform

pytestmark = pytest.mark.django_db

GRANTS = "softgrade_course_grants"


@pytest.fixture
def registration():
    platform = TestPlatform()
    platform.register()
    return platform.registration


def change_page(client, registration):
    return client.get(reverse("admin:lti_tool_ltiregistration_change", args=[registration.pk]))


def form_data(page) -> dict:
    """What the change page's form posts back unchanged: its fields and its inlines' rows."""
    data = {}

    def add(form):
        for bound in form:
            value = bound.value()
            if isinstance(value, bool):
                if value:
                    data[bound.html_name] = "on"
            elif value is not None:
                data[bound.html_name] = value

    add(page.context["adminform"].form)
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        rows = formset.initial_forms
        data[f"{formset.prefix}-TOTAL_FORMS"] = len(rows)
        data[f"{formset.prefix}-INITIAL_FORMS"] = len(rows)
        for row in rows:
            add(row)
    return data


def with_grant(data: dict, *, course, deployment=None) -> dict:
    index = data[f"{GRANTS}-TOTAL_FORMS"]
    data = {**data, f"{GRANTS}-TOTAL_FORMS": index + 1, f"{GRANTS}-{index}-course": course.pk}
    if deployment is not None:
        data[f"{GRANTS}-{index}-deployment"] = deployment.pk
    return data


def test_an_administrator_grants_courses_on_the_registration_s_page(admin_client, registration):
    course, narrowed = CourseFactory(), CourseFactory()
    page = change_page(admin_client, registration)
    assert page.status_code == 200
    assert "Courses granted" in page.content.decode()
    data = with_grant(form_data(page), course=course)
    data = with_grant(data, course=narrowed, deployment=registration.deployments.get())
    url = page.wsgi_request.path
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["errors"]
    grants = set(CourseGrant.objects.values_list("registration", "course", "deployment"))
    assert grants == {
        (registration.pk, course.pk, None),
        (registration.pk, narrowed.pk, registration.deployments.get().pk),
    }


def test_only_the_registration_s_own_deployments_narrow_its_grants(admin_client, registration):
    stranger = TestPlatform(client_id="another-client", deployment_id="their-deployment")
    stranger.register()
    page = change_page(admin_client, registration)
    offered = page.context["inline_admin_formsets"]
    (grants,) = [inline for inline in offered if inline.formset.prefix == GRANTS]
    choices = set(grants.formset.empty_form.fields["deployment"].queryset)
    assert choices == {registration.deployments.get()}
    data = with_grant(form_data(page), course=CourseFactory(), deployment=stranger.deployment)
    response = admin_client.post(page.wsgi_request.path, data)
    assert response.status_code == 200
    assert not CourseGrant.objects.exists()


def test_a_grant_cannot_name_another_registration_s_deployment(registration):
    stranger = TestPlatform(client_id="another-client", deployment_id="their-deployment")
    stranger.register()
    grant = CourseGrant(
        registration=registration, course=CourseFactory(), deployment=stranger.deployment
    )
    with pytest.raises(ValidationError, match="another registration"):
        grant.full_clean()


def test_a_course_is_granted_once_per_registration_and_once_per_deployment(registration):
    course = CourseFactory()
    deployment = registration.deployments.get()
    CourseGrant.objects.create(registration=registration, course=course)
    CourseGrant.objects.create(registration=registration, course=course, deployment=deployment)
    for again in ({}, {"deployment": deployment}):
        with pytest.raises(ValidationError):
            CourseGrant(registration=registration, course=course, **again).validate_constraints()


def test_the_setup_page_lists_the_courses_each_registration_reaches(client, registration):
    CourseGrant.objects.create(registration=registration, course=CourseFactory(title="Attention"))
    bare = TestPlatform(client_id="bare-client", deployment_id="bare-deployment")
    bare.register(name="Bare LMS")
    client.force_login(InstructorFactory())
    page = client.get(reverse("lti:setup")).content.decode()
    assert "<td>Attention</td>" in page
    assert "None: its launches open nothing until one is granted" in page
