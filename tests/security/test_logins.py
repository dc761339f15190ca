"""The admin's sign-in is limited as the pages' is (staff accounts are the ones worth guessing),
and the rule's arithmetic: how the slowdown grows, what Retry-After says."""

from __future__ import annotations

import pytest

from security.limits import Limit
from security.logins import LimitedLoginForm, LoginRefusal, slowdown_delay
from tests.factories import InstructorFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("limit_clock")]

PASSWORD = "correct horse battery"


def admin_sign_in(client, username: str, password: str, address: str = "203.0.113.7"):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


def test_ten_failures_pause_the_staff_name_from_that_address_at_the_admin_with_the_wait(client):
    InstructorFactory(username="teacher")
    for _ in range(10):
        page = admin_sign_in(client, "teacher", "guess").content.decode()
        assert "Too many failed sign-ins" not in page
    page = admin_sign_in(client, "teacher", PASSWORD).content.decode()
    assert "Too many failed sign-ins for this user name" in page
    assert "try again in about 15 minutes" in page
    assert "_auth_user_id" not in client.session
    assert client.get("/admin/").status_code == 302  # still signed out
    # The staff member, from their own address, is not paused.
    assert admin_sign_in(client, "teacher", PASSWORD, address="198.51.100.9").status_code == 302


def test_a_staff_sign_in_works_and_a_learner_at_the_admin_counts_as_a_failure(client, limit_clock):
    InstructorFactory(username="teacher")
    assert admin_sign_in(client, "teacher", PASSWORD).status_code == 302
    client.logout()
    UserFactory(username="learner")
    for _ in range(10):
        admin_sign_in(client, "learner", PASSWORD)  # right password, but not staff
    assert "Too many failed sign-ins" in admin_sign_in(client, "learner", PASSWORD).content.decode()
    limit_clock.advance(900)
    assert admin_sign_in(client, "teacher", PASSWORD).status_code == 302


def test_a_form_built_without_the_request_still_limits_the_name(ada_form_data):
    for _ in range(10):
        assert not LimitedLoginForm(data={**ada_form_data, "password": "guess"}).is_valid()
    form = LimitedLoginForm(data=ada_form_data)
    assert not form.is_valid()
    assert "Too many failed sign-ins for this user name" in str(form.non_field_errors())


@pytest.fixture
def ada_form_data(db):
    UserFactory(username="ada")
    return {"username": "ada", "password": PASSWORD}


@pytest.mark.parametrize(
    ("failures", "delay"),
    [
        (0, 0),
        (29, 0),
        (30, 30),
        (59, 30),
        (60, 60),
        (90, 120),
        (150, 480),
        (180, 900),
        (10**9, 900),
    ],
)
def test_the_slowdown_doubles_per_ceiling_of_failures_up_to_the_window(settings, failures, delay):
    settings.LOGIN_SLOWDOWN_SECONDS = 30
    ceiling = Limit.of_rate("login_failures_per_name", "30/15m")
    assert slowdown_delay(failures=failures, ceiling=ceiling) == delay


@pytest.mark.parametrize(("wait", "header"), [(0.2, "1"), (29.5, "30"), (900, "900")])
def test_retry_after_is_whole_seconds_never_zero(wait, header):
    assert LoginRefusal("paused", wait).retry_after == header
