"""Sign-up takes an optional email address, and a forgotten password can be reset by email on
the site's own pages: the link works once, sets the new password, and the reset page answers an
unknown address exactly as a known one, doing the same work for both: the mail is the task
worker's to look up and send, never the request's."""

from __future__ import annotations

import re
import time

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.mail.backends.locmem import EmailBackend
from django.db import connection
from django.tasks import default_task_backend
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from grading.tasks import password_reset_mail_send
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "a long passphrase 42"
NEW_PASSWORD = "another long passphrase 7"
SITE_LAYOUT = '<header class="site-header">'
ADMIN_LAYOUT = "Django administration"
LINK = re.compile(r"https?://testserver(/accounts/reset/[^\s]+/)")


class SlowMailBackend(EmailBackend):
    """A mail server that takes its time, and counts how often it was asked to send."""

    calls = 0

    def send_messages(self, messages):
        type(self).calls += 1
        time.sleep(0.05)
        return super().send_messages(messages)


SLOW_MAIL = {"default": {"BACKEND": f"{__name__}.SlowMailBackend"}}


@pytest.fixture(autouse=True)
def _empty_task_queue():
    default_task_backend.clear()
    SlowMailBackend.calls = 0
    yield
    default_task_backend.clear()


def queued_reset_mail() -> list:
    return [
        result
        for result in default_task_backend.results
        if result.task.name == password_reset_mail_send.name
    ]


def deliver_queued_mail() -> list[int]:
    """What the task worker does: run each queued reset mail once; how many each sent."""
    sent = [result.task.call(*result.args, **result.kwargs) for result in queued_reset_mail()]
    default_task_backend.clear()
    return sent


def grace_with_password():
    user = UserFactory(username="grace", email="grace@example.org")
    user.set_password(PASSWORD)
    user.save()
    return user


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
    user = grace_with_password()

    response = client.post(reverse("password_reset"), {"email": "grace@example.org"})
    assert response.status_code == 302
    assert response["Location"] == reverse("password_reset_done")
    assert deliver_queued_mail() == [1]
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
    user = grace_with_password()
    client.post(reverse("password_reset"), {"email": "grace@example.org"})
    deliver_queued_mail()
    link = LINK.search(mail.outbox[0].body).group(1)
    confirm = client.get(link, follow=True).redirect_chain[-1][0]
    response = client.post(confirm, {"new_password1": NEW_PASSWORD, "new_password2": "other"})
    assert response.status_code == 200
    assert "two password fields" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_an_unknown_address_gets_the_same_answer_and_no_email(client):
    grace_with_password()
    answers = []
    for address in ("grace@example.org", "nobody@example.org"):
        response = client.post(reverse("password_reset"), {"email": address})
        answers.append((response.status_code, response["Location"]))
    assert answers[0] == answers[1]
    done_page = client.get(reverse("password_reset_done")).content.decode()
    assert "If an account uses that address" in done_page
    assert deliver_queued_mail() == [1, 0]
    assert [message.to for message in mail.outbox] == [["grace@example.org"]]


@override_settings(MAILERS=SLOW_MAIL)
def test_the_request_never_sends_the_mail_the_task_worker_does(client):
    grace_with_password()

    response = client.post(reverse("password_reset"), {"email": "Grace@example.org"})
    assert response.status_code == 302
    assert SlowMailBackend.calls == 0
    assert mail.outbox == []
    [queued] = queued_reset_mail()
    # Only what a queue can store: the address typed, how to build the link and the language
    # to write the mail in.
    assert queued.args == []
    assert queued.kwargs == {
        "email": "Grace@example.org",
        "domain": "testserver",
        "use_https": False,
        "language": settings.LANGUAGE_CODE,
    }

    assert deliver_queued_mail() == [1]
    assert SlowMailBackend.calls == 1
    [message] = mail.outbox
    assert message.to == ["grace@example.org"]
    assert LINK.search(message.body)


@override_settings(MAILERS=SLOW_MAIL)
def test_a_known_and_an_unknown_address_cost_the_request_the_same_work(client):
    UserFactory(username="grace", email="grace@example.org")
    work = {}
    for address in ("grace@example.org", "nobody@example.org"):
        with CaptureQueriesContext(connection) as queries:
            response = client.post(reverse("password_reset"), {"email": address})
        work[address] = (response.status_code, response["Location"], len(queries))
    assert work["grace@example.org"] == work["nobody@example.org"]
    # Neither request asked the database about accounts, nor the mail server anything.
    assert work["nobody@example.org"][2] == 0
    assert SlowMailBackend.calls == 0
    assert [result.kwargs["email"] for result in queued_reset_mail()] == [
        "grace@example.org",
        "nobody@example.org",
    ]


def test_the_task_sends_nothing_to_an_address_no_account_uses_or_an_inactive_account():
    UserFactory(username="gone", email="gone@example.org", is_active=False)
    for email in ("nobody@example.org", "gone@example.org", "not an address"):
        assert password_reset_mail_send.call(email=email, domain="testserver", use_https=True) == 0
    assert mail.outbox == []


def test_the_task_builds_an_https_link_on_the_requests_host():
    grace_with_password()
    sent = password_reset_mail_send.call(
        email="grace@example.org", domain="softgrade.example.edu", use_https=True
    )
    assert sent == 1
    assert "https://softgrade.example.edu/accounts/reset/" in mail.outbox[0].body


def test_the_task_writes_the_mail_in_the_language_it_is_handed_and_leaves_the_worker_as_is():
    grace_with_password()
    before = translation.get_language()
    sent = password_reset_mail_send.call(
        email="grace@example.org", domain="testserver", use_https=True, language="en"
    )
    assert sent == 1
    assert mail.outbox[0].subject == "Choose a new softgrade password"
    assert translation.get_language() == before


@override_settings(PASSWORD_RESETS_PER_EMAIL="2/h", PASSWORD_RESETS_PER_ADDRESS="3/h")
def test_reset_requests_are_limited_per_email_and_per_address_alike_for_unknown_ones(
    client, limit_clock
):
    grace_with_password()

    def ask(email: str, address: str = "203.0.113.7"):
        return client.post(reverse("password_reset"), {"email": email}, REMOTE_ADDR=address)

    # Per email, from different networks: the third request for one inbox sends nothing.
    statuses = {}
    for email in ("grace@example.org", "nobody@example.org"):
        statuses[email] = [ask(email, f"198.51.100.{n}").status_code for n in (1, 2, 3)]
    assert statuses["grace@example.org"] == statuses["nobody@example.org"] == [302, 302, 429]
    assert deliver_queued_mail() == [1, 1, 0, 0]
    assert len(mail.outbox) == 2
    refused = ask("grace@example.org", "198.51.100.9")
    assert "Too many reset requests" in refused.content.decode()
    assert SITE_LAYOUT in refused.content.decode()

    # Per address, for different inboxes.
    assert [ask(f"x{n}@example.org").status_code for n in range(4)] == [302, 302, 302, 429]

    limit_clock.advance(3600)
    assert ask("grace@example.org").status_code == 302
    assert deliver_queued_mail()[-1] == 1
    assert len(mail.outbox) == 3
