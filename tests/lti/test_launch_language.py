"""A launch carries the LMS's locale (`launch_presentation.locale`): softgrade speaks it to a
learner whose own choice and browser name no language softgrade speaks (accounts/languages.py)."""

from __future__ import annotations

import pytest

from accounts.languages import SESSION_LTI_LOCALE
from tests.lti.fake_lms import CLAIM, launch_post, oidc_login

pytestmark = pytest.mark.django_db


def _launch(client, platform, quiz, presentation):
    login = oidc_login(client, platform)
    claims = platform.claims(nonce=login.nonce, custom={"softgrade_quiz": quiz.slug})
    if presentation is not None:
        claims[CLAIM + "launch_presentation"] = presentation
    return launch_post(client, id_token=platform.sign(claims), state=login.state)


def test_the_lms_locale_is_kept_and_used_when_the_browser_names_none_softgrade_speaks(
    client, platform, quiz
):
    response = _launch(client, platform, quiz, {"locale": "de-DE", "document_target": "iframe"})
    assert response.status_code == 302
    assert client.session[SESSION_LTI_LOCALE] == "de-DE"
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="fr-FR")
    assert '<html lang="de" dir="ltr">' in page.content.decode()
    # The learner's browser language still comes first, as their own.
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en-US")
    assert '<html lang="en" dir="ltr">' in page.content.decode()


@pytest.mark.parametrize("presentation", [None, {}, {"locale": 42}, "de", {"locale": "xx-YY"}])
def test_a_missing_or_odd_locale_changes_nothing(client, platform, quiz, presentation):
    response = _launch(client, platform, quiz, presentation)
    assert response.status_code == 302
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="fr-FR")
    assert '<html lang="en" dir="ltr">' in page.content.decode()
