"""Sign-up takes an optional email address, and a forgotten password can be reset by email on
the site's own pages: the link works once, sets the new password, and the reset page answers an
unknown address exactly as a known one."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import override_settings
from django.urls import reverse

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "a long passphrase 42"
NEW_PASSWORD = "another long passphrase 7"
SITE_LAYOUT = '<header class="site-header">'
ADMIN_LAYOUT = "Django administration"
LINK = re.compile(r"https?://testserver(/accounts/reset/[^\s]+/)")


def sign_up(client, **extra):
    data = {"username": "grace", "password1": PASSWORD, "password2": PASSWORD, **extra}
    return client.post(reverse("signup"), data)


def test_signup_says_the_email_is_optional_and_works_without_one(client):
    page = client.get(reverse("signup")).content.decode()
    assert "Email (optional)" in page
    assert 'type="email"' in page
    assert "You can leave it empty" in page
    assert sign_up(client).status_code == 302
    assert get_user_model().objects.get(username="grace").email == ""


def test_signup_keeps_the_email_given(client):
    assert sign_up(client, email="grace@example.org").status_code == 302
    assert get_user_model().objects.get(username="grace").email == "grace@example.org"


def test_signup_refuses_a_malformed_email_and_keeps_what_was_typed(client):
    response = sign_up(client, email="not an address")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Enter a valid email address." in page
    assert 'value="grace"' in page
    assert not get_user_model().objects.filter(username="grace").exists()


def test_login_page_links_to_the_password_reset(client):
    page = client.get(reverse("login")).content.decode()
    assert f'href="{reverse("password_reset")}"' in page


@pytest.mark.parametrize(
    "name", ["password_reset", "password_reset_done", "password_reset_complete"]
)
def test_reset_pages_use_the_site_layout_not_the_admin(client, name):
    page = client.get(reverse(name)).content.decode()
    assert SITE_LAYOUT in page
    assert ADMIN_LAYOUT not in page


def test_reset_by_email_end_to_end(client):
    user = UserFactory(username="grace", email="grace@example.org")
    user.set_password(PASSWORD)
    user.save()

    response = client.post(reverse("password_reset"), {"email": "grace@example.org"})
    assert response.status_code == 302
    assert response["Location"] == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["grace@example.org"]
    assert message.subject == "Choose a new softgrade password"
    link = LINK.search(message.body).group(1)

    # The link leads to the site's form (Django swaps the token into the session first).
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    html = form_page.content.decode()
    assert SITE_LAYOUT in html
    assert "Choose a new password" in html
    confirm = form_page.redirect_chain[-1][0]
    done = client.post(confirm, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    assert done["Location"] == reverse("password_reset_complete")
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert not user.check_password(PASSWORD)

    # Used once, the link is dead and says so on the site's page.
    client.logout()
    again = client.get(link, follow=True).content.decode()
    assert "This link no longer works" in again
    assert SITE_LAYOUT in again


def test_reset_refuses_mismatched_passwords_and_changes_nothing(client):
    user = UserFactory(username="grace", email="grace@example.org")
    user.set_password(PASSWORD)
    user.save()
    client.post(reverse("password_reset"), {"email": "grace@example.org"})
    link = LINK.search(mail.outbox[0].body).group(1)
    confirm = client.get(link, follow=True).redirect_chain[-1][0]
    response = client.post(confirm, {"new_password1": NEW_PASSWORD, "new_password2": "other"})
    assert response.status_code == 200
    assert "two password fields" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_an_unknown_address_gets_the_same_answer_and_no_email(client):
    known = UserFactory(username="grace", email="grace@example.org")
    known.set_password(PASSWORD)
    known.save()
    answers = []
    for address in ("grace@example.org", "nobody@example.org"):
        response = client.post(reverse("password_reset"), {"email": address})
        answers.append((response.status_code, response["Location"]))
    assert answers[0] == answers[1]
    done_page = client.get(reverse("password_reset_done")).content.decode()
    assert "If an account uses that address" in done_page
    assert [message.to for message in mail.outbox] == [["grace@example.org"]]


@override_settings(PASSWORD_RESETS_PER_EMAIL="2/h", PASSWORD_RESETS_PER_ADDRESS="3/h")
def test_reset_requests_are_limited_per_email_and_per_address_alike_for_unknown_ones(
    client, limit_clock
):
    known = UserFactory(username="grace", email="grace@example.org")
    known.set_password(PASSWORD)
    known.save()

    def ask(email: str, address: str = "203.0.113.7"):
        return client.post(reverse("password_reset"), {"email": email}, REMOTE_ADDR=address)

    # Per email, from different networks: the third request for one inbox sends nothing.
    statuses = {}
    for email in ("grace@example.org", "nobody@example.org"):
        statuses[email] = [ask(email, f"198.51.100.{n}").status_code for n in (1, 2, 3)]
    assert statuses["grace@example.org"] == statuses["nobody@example.org"] == [302, 302, 429]
    assert len(mail.outbox) == 2
    refused = ask("grace@example.org", "198.51.100.9")
    assert "Too many reset requests" in refused.content.decode()
    assert SITE_LAYOUT in refused.content.decode()

    # Per address, for different inboxes.
    assert [ask(f"x{n}@example.org").status_code for n in range(4)] == [302, 302, 302, 429]

    limit_clock.advance(3600)
    assert ask("grace@example.org").status_code == 302
    assert len(mail.outbox) == 3
