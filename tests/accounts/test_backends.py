"""Signing in as before, the profile fetched with the user (accounts/backends.py)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import BACKEND_SESSION_KEY, aauthenticate, authenticate
from django.contrib.auth.hashers import check_password

from accounts.backends import AccountBackend
from accounts.models import Profile
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "a long passphrase 42"


@pytest.fixture
def person():
    user = UserFactory(username="ada")
    user.set_password(PASSWORD)
    user.save()
    return user


def test_a_right_password_signs_in_with_this_backend(person):
    user = authenticate(username="ada", password=PASSWORD)
    assert user == person
    assert user.backend == "accounts.backends.AccountBackend"


def test_a_wrong_password_is_checked_once_not_again_by_the_backend_kept_for_old_sessions(
    person, monkeypatch
):
    checks = []

    def counting(*args, **kwargs):
        checks.append(args)
        return check_password(*args, **kwargs)

    monkeypatch.setattr("django.contrib.auth.base_user.check_password", counting)
    assert authenticate(username="ada", password="wrong") is None
    assert len(checks) == 1


def test_an_inactive_account_and_an_unknown_one_are_refused(person):
    person.is_active = False
    person.save()
    assert authenticate(username="ada", password=PASSWORD) is None
    assert authenticate(username="nobody", password=PASSWORD) is None
    assert AccountBackend().get_user(person.pk) is None
    assert AccountBackend().get_user(10_000) is None


def test_the_user_comes_with_their_profile_or_known_to_have_none(person, django_assert_num_queries):
    with django_assert_num_queries(1):
        user = AccountBackend().get_user(person.pk)
        assert getattr(user, "profile", None) is None
    Profile.objects.create(user=person, time_zone="Asia/Tokyo")
    with django_assert_num_queries(1):
        assert AccountBackend().get_user(person.pk).profile.time_zone == "Asia/Tokyo"


async def authenticate_async(**credentials):
    return await aauthenticate(**credentials)


def test_the_async_reads_do_the_same(person):
    Profile.objects.create(user=person, time_zone="Asia/Tokyo")
    assert async_to_sync(AccountBackend().aget_user)(person.pk).profile.time_zone == "Asia/Tokyo"
    assert async_to_sync(AccountBackend().aget_user)(10_000) is None
    assert async_to_sync(authenticate_async)(username="ada", password="wrong") is None
    assert async_to_sync(authenticate_async)(username="ada", password=PASSWORD) == person


def test_a_session_signed_in_before_this_backend_still_works(client, person):
    """Sessions name the backend that signed them in: Django's ModelBackend, before."""
    client.force_login(person, backend="django.contrib.auth.backends.ModelBackend")
    assert client.session[BACKEND_SESSION_KEY] == "django.contrib.auth.backends.ModelBackend"
    response = client.get("/account/")
    assert response.status_code == 200
    assert response.wsgi_request.user == person
