"""Which zone a request is in: the person's setting, else their browser's (the cookie), else
UTC; a cookie or setting naming no zone this server knows is ignored."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils import timezone

from accounts.middleware import TimeZoneMiddleware
from accounts.models import Profile
from accounts.time_zones import BROWSER_ZONE_COOKIE, person_zone, zone_choices, zone_or_none
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def zone_during(request) -> tuple[str, str]:
    """The zone active while the view runs, and its source."""
    seen = {}

    def view(request):
        seen["zone"] = timezone.get_current_timezone_name()
        return HttpResponse()

    TimeZoneMiddleware(view)(request)
    return seen["zone"], request.time_zone.source


def request_of(user=None, cookie: str | None = None):
    from django.contrib.auth.models import AnonymousUser

    request = RequestFactory().get("/")
    request.user = user or AnonymousUser()
    if cookie is not None:
        request.COOKIES[BROWSER_ZONE_COOKIE] = cookie
    return request


def test_a_visitor_without_the_cookie_reads_utc():
    assert zone_during(request_of()) == ("UTC", "default")


def test_the_browser_s_zone_from_its_cookie():
    assert zone_during(request_of(cookie="Pacific/Auckland")) == ("Pacific/Auckland", "browser")
    assert zone_during(request_of(cookie="UTC")) == ("UTC", "browser")


@pytest.mark.parametrize(
    "cookie",
    [
        "",
        "Mars/Olympus_Mons",
        "pacific/auckland",  # zone names are exact
        "localtime",  # the server's own zone, whatever it is
        "../../etc/passwd",
        "Pacific/Auckland\x00",
        "A" * 300,
        "NZ",  # an old alias, not a name a browser reports
        "posixrules",
    ],
)
def test_a_cookie_naming_no_known_zone_is_ignored(cookie):
    assert zone_during(request_of(cookie=cookie)) == ("UTC", "default")
    profile = Profile(time_zone=cookie)
    assert person_zone(profile_zone=profile.time_zone, browser_zone=None).source == "default"


def test_the_person_s_setting_wins_over_the_browser():
    user = UserFactory()
    Profile.objects.create(user=user, time_zone="America/New_York")
    user.refresh_from_db()
    request = request_of(user, cookie="Pacific/Auckland")
    assert zone_during(request) == ("America/New_York", "profile")


def test_a_blank_setting_follows_the_browser_and_an_unknown_one_is_ignored():
    user = UserFactory()
    Profile.objects.create(user=user, time_zone="")
    assert zone_during(request_of(user, cookie="Asia/Kolkata")) == ("Asia/Kolkata", "browser")
    Profile.objects.filter(user=user).update(time_zone="Atlantis/Capital")
    user.refresh_from_db()
    assert zone_during(request_of(user, cookie="Asia/Kolkata")) == ("Asia/Kolkata", "browser")


def test_the_zone_is_deactivated_after_the_request_even_when_the_view_fails():
    def failing(request):
        raise RuntimeError("the view failed")

    with pytest.raises(RuntimeError):
        TimeZoneMiddleware(failing)(request_of(cookie="Pacific/Auckland"))
    assert timezone.get_current_timezone_name() == "UTC"


def test_every_request_is_in_its_zone_the_admin_included(client):
    admin = UserFactory(is_staff=True, is_superuser=True)
    Profile.objects.create(user=admin, time_zone="Europe/Berlin")
    client.force_login(admin)
    response = client.get("/admin/")
    # The admin's own pages read the active zone (its clock widgets compare it to the browser's).
    assert 'data-admin-utc-offset="3600"' in response.content.decode() or (
        'data-admin-utc-offset="7200"' in response.content.decode()
    )
    assert response.wsgi_request.time_zone.name == "Europe/Berlin"


def test_the_profile_comes_with_the_user_in_one_query(client, django_assert_num_queries):
    """The middleware reads the person's setting on every request at no query of its own: the
    sign-in backend fetches the profile with the user (accounts/backends.py)."""
    user = UserFactory()
    Profile.objects.create(user=user, time_zone="Asia/Tokyo")
    client.force_login(user)
    assert client.session.get("_auth_user_backend") == "accounts.backends.AccountBackend"
    assert client.session[SESSION_KEY] == str(user.pk)
    # The session, the user with their profile, and the navigation's "Teaching" link.
    with django_assert_num_queries(3):
        response = client.get("/account/")
    assert response.wsgi_request.time_zone.name == "Asia/Tokyo"


def test_an_account_without_a_profile_costs_no_query_either(client, django_assert_num_queries):
    client.force_login(UserFactory())
    client.cookies[BROWSER_ZONE_COOKIE] = "Asia/Tokyo"
    with django_assert_num_queries(3):
        response = client.get("/account/")
    assert response.wsgi_request.time_zone.name == "Asia/Tokyo"


def test_the_zones_offered_are_the_known_ones_utc_first():
    names = [name for name, _ in zone_choices()]
    assert names[0] == "UTC"
    assert "Pacific/Auckland" in names
    assert "America/Argentina/Buenos_Aires" in names
    assert all(zone_or_none(name) is not None for name in names)
    assert not any(name.startswith("Etc/") or name in ("NZ", "localtime") for name in names)
    assert dict(zone_choices())["America/New_York"] == "America/New York"
