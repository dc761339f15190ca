"""Which language a person reads softgrade in (accounts/languages.py): their choice, then their
browser's, then their LMS's, then English; the selector on every page remembers a choice."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from accounts.languages import (
    BROWSER,
    CHOICE,
    DEFAULT,
    LMS,
    SESSION_LTI_LOCALE,
    from_accept_language,
    person_language,
    supported,
)
from accounts.models import Profile
from accounts.services import UnknownLanguage, profile_language_set
from tests.factories import UserFactory

COOKIE = settings.LANGUAGE_COOKIE_NAME


@pytest.mark.parametrize(
    ("code", "expected"),
    [("de", "de"), ("de-AT", "de"), ("de_CH", "de"), ("DE", "de"), ("en-GB", "en"), ("ar", "ar")],
)
def test_a_regional_variant_reads_as_its_language(code, expected):
    assert supported(code) == expected


@pytest.mark.parametrize("code", ["fr", "", None, "x" * 40, "de;q=1", 7])
def test_a_language_softgrade_does_not_speak_is_none(code):
    assert supported(code) is None


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("fr-FR, fr;q=0.9, de;q=0.7, en;q=0.5", "de"),  # French unspoken: the next by weight
        ("en;q=0.5, de;q=0.8", "de"),  # weight, not order
        ("fr, *", None),
        ("de;q=0", None),  # q=0 means "not this one"
        ("", None),
        (None, None),
        ("de;q=abc, ,;;, en", "en"),  # malformed entries are skipped, not fatal
    ],
)
def test_the_browser_language_is_the_best_weighted_one_softgrade_speaks(header, expected):
    assert from_accept_language(header) == expected


def test_the_order_is_choice_then_browser_then_lms_then_english():
    everything = {"accept_language": "ar", "lms_locale": "de-DE"}
    assert person_language(profile_language="de", **everything) == ("de", CHOICE)
    assert person_language(cookie_language="de", **everything) == ("de", CHOICE)
    assert person_language(**everything) == ("ar", BROWSER)
    assert person_language(accept_language="fr", lms_locale="de-DE") == ("de", LMS)
    assert person_language(accept_language="fr", lms_locale="fr-CA") == ("en", DEFAULT)
    # The profile's choice outranks an older cookie; an unknown cookie is ignored.
    assert person_language(profile_language="en", cookie_language="de") == ("en", CHOICE)
    assert person_language(cookie_language="klingon", accept_language="de") == ("de", BROWSER)


pytestmark = pytest.mark.django_db


def _html_lang(response) -> str:
    html = response.content.decode()
    return html[html.index("<html") : html.index(">", html.index("<html")) + 1]


def test_a_page_follows_the_browser_and_says_so_in_its_headers(client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")
    assert _html_lang(response) == '<html lang="de" dir="ltr">'
    assert response["Content-Language"] == "de"
    assert "Accept-Language" in response["Vary"]
    assert "Cookie" in response["Vary"]
    assert _html_lang(client.get("/")) == '<html lang="en" dir="ltr">'


def test_a_right_to_left_language_turns_the_page(client):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="ar")
    assert _html_lang(response) == '<html lang="ar" dir="rtl">'


def test_the_selector_is_on_every_page_with_the_current_language_chosen(client):
    html = client.get("/login/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert 'action="/account/language/"' in html
    assert '<option value="de" lang="de" selected>Deutsch</option>' in html
    assert '<option value="ar" lang="ar">العربيّة</option>' in html
    # Each language keeps its own name, whatever the page's language.
    assert '<option value="en" lang="en">English</option>' in html
    assert 'name="next" value="/login/"' in html
    assert 'name="csrfmiddlewaretoken"' in html


def test_choosing_a_language_anonymously_keeps_it_in_a_cookie_and_goes_back(client):
    response = client.post("/account/language/", {"language": "de", "next": "/login/"})
    assert response.status_code == 302
    assert response["Location"] == "/login/"
    cookie = response.cookies[COOKIE]
    assert cookie.value == "de"
    assert cookie["httponly"]
    assert cookie["samesite"] == "Lax"
    # The choice outranks the browser's language from now on.
    page = client.get("/login/", HTTP_ACCEPT_LANGUAGE="en")
    assert _html_lang(page) == '<html lang="de" dir="ltr">'


def test_a_signed_in_choice_is_kept_in_the_profile_and_outlives_the_cookie():
    person = UserFactory()
    browser = Client()
    browser.force_login(person)
    browser.post("/account/language/", {"language": "de", "next": "/"})
    assert Profile.objects.get(user=person).language == "de"
    other_device = Client()
    other_device.force_login(person)
    page = other_device.get("/", HTTP_ACCEPT_LANGUAGE="en")
    assert _html_lang(page).startswith('<html lang="de"')


def test_a_language_softgrade_does_not_speak_is_refused_and_nothing_changes():
    person = UserFactory()
    browser = Client()
    browser.force_login(person)
    response = browser.post("/account/language/", {"language": "fr", "next": "/"})
    assert response.status_code == 400
    assert COOKIE not in response.cookies
    assert not Profile.objects.filter(user=person).exists()
    with pytest.raises(UnknownLanguage):
        profile_language_set(user=person, language="fr")


def test_the_way_back_never_leaves_the_site(client):
    for back in ("https://evil.example/", "//evil.example/", "javascript:alert(1)", ""):
        response = client.post("/account/language/", {"language": "de", "next": back})
        assert response["Location"] == "/", back


def test_the_selector_needs_its_csrf_token():
    browser = Client(enforce_csrf_checks=True)
    response = browser.post("/account/language/", {"language": "de", "next": "/"})
    assert response.status_code == 403
    assert COOKIE not in response.cookies


def test_the_selector_takes_only_posts(client):
    assert client.get("/account/language/?language=de").status_code == 405


def test_the_lms_locale_counts_when_the_browser_names_no_language_softgrade_speaks(client):
    session = client.session
    session[SESSION_LTI_LOCALE] = "de-DE"
    session.save()
    assert _html_lang(client.get("/", HTTP_ACCEPT_LANGUAGE="fr")).startswith('<html lang="de"')
    assert _html_lang(client.get("/", HTTP_ACCEPT_LANGUAGE="en")).startswith('<html lang="en"')


def test_the_settings_page_offers_the_languages_and_saves_one():
    person = UserFactory()
    browser = Client()
    browser.force_login(person)
    html = browser.get("/account/").content.decode()
    assert '<option value="" selected>Follow my browser</option>' in html
    browser.post("/account/", {"time_zone": "", "language": "de"})
    assert Profile.objects.get(user=person).language == "de"
    browser.post("/account/", {"time_zone": "", "language": ""})
    assert Profile.objects.get(user=person).language == ""


def test_the_page_scripts_catalog_is_per_language_and_cacheable(client):
    response = client.get("/jsi18n/de/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "max-age=3600" in response["Cache-Control"]
    assert "django.gettext" in response.content.decode()
    assert client.get("/jsi18n/fr/").status_code == 404
    assert client.get("/jsi18n/de-AT/").status_code == 404  # one address per language


def test_every_page_loads_the_catalog_of_its_own_language(client):
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<script src="/jsi18n/de/" defer></script>' in html
    assert html.index("/jsi18n/de/") < html.index("js/page.js")
