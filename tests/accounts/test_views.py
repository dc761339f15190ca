"""The "Your settings" page: a person chooses the zone times are shown in, or follows their
browser's; signed-in people only, CSRF-protected, linked from every page's navigation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Profile
from accounts.services import UnknownTimeZone, profile_time_zone_set
from accounts.time_zones import BROWSER_ZONE_COOKIE
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db
URL = "/account/"


def test_the_page_is_for_signed_in_people(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert reverse("account-settings") == URL


def test_the_page_says_which_zone_and_why_and_offers_to_follow_the_browser(learner_client):
    learner_client.cookies[BROWSER_ZONE_COOKIE] = "Pacific/Auckland"
    html = learner_client.get(URL).content.decode()
    assert "<strong data-time-zone>Pacific/Auckland</strong> (your browser&#x27;s)" in html
    assert '<option value="" selected>Follow my browser (now Pacific/Auckland)</option>' in html
    assert '<option value="Asia/Kolkata">Asia/Kolkata</option>' in html
    assert 'title="Pacific/Auckland">' in html  # it is now …, in that zone


def test_choosing_a_zone_saves_it_and_every_page_follows(learner_client, learner):
    QuizFactory(slug="closing", closes_at=datetime(2027, 1, 20, 12, 0, tzinfo=UTC))
    learner_client.cookies[BROWSER_ZONE_COOKIE] = "Pacific/Auckland"
    response = learner_client.post(URL, {"time_zone": "America/New_York"}, follow=True)
    assert response.redirect_chain == [(URL, 302)]
    html = response.content.decode()
    assert "Times are now shown in America/New_York." in html
    assert "<strong data-time-zone>America/New_York</strong> (your setting)" in html
    assert Profile.objects.get(user=learner).time_zone == "America/New_York"
    quiz = learner_client.get("/quizzes/closing/").content.decode()
    assert "20 Jan 2027, 07:00 EST</time>" in quiz

    response = learner_client.post(URL, {"time_zone": ""}, follow=True)
    assert "Times now follow your browser&#x27;s time zone." in response.content.decode()
    assert Profile.objects.get(user=learner).time_zone == ""
    quiz = learner_client.get("/quizzes/closing/").content.decode()
    assert "21 Jan 2027, 01:00 NZDT</time>" in quiz


def test_a_zone_not_offered_is_refused_and_nothing_is_saved(learner_client, learner):
    response = learner_client.post(URL, {"time_zone": "Mars/Olympus_Mons"})
    assert response.status_code == 200
    assert "Select a valid choice. Mars/Olympus_Mons is not one of the available choices." in (
        response.content.decode()
    )
    assert not Profile.objects.filter(user=learner).exists()


def test_the_service_refuses_an_unknown_zone_too(learner):
    with pytest.raises(UnknownTimeZone, match="Unknown time zone 'Mars/Olympus_Mons'"):
        profile_time_zone_set(user=learner, time_zone="Mars/Olympus_Mons")
    profile = profile_time_zone_set(user=learner, time_zone="Europe/Paris")
    assert profile_time_zone_set(user=learner, time_zone="").pk == profile.pk


def test_a_post_without_the_csrf_token_is_refused(learner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    assert client.post(URL, {"time_zone": "Europe/Paris"}).status_code == 403
    assert not Profile.objects.filter(user=learner).exists()


def test_every_page_links_to_the_settings_for_signed_in_people(client):
    assert 'href="/account/"' not in client.get("/").content.decode()
    client.force_login(UserFactory())
    assert '<a href="/account/">Settings</a>' in client.get("/").content.decode()
    assert 'href="/account/" aria-current="page">Settings</a>' in client.get(URL).content.decode()
