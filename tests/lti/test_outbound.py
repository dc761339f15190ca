"""The outbound policy: softgrade calls an LMS over https, on the registration's own hosts, at
public addresses, follows no redirect and keeps no error body. Each refusal happens before any
request leaves (the `responses` stub sees none)."""

from __future__ import annotations

import pytest
import responses
from django.core.exceptions import ValidationError
from django.urls import reverse
from lti_tool.models import LtiMembership

from lti import outbound
from lti import platform as lms_api
from lti.models import LinkTarget, PlatformHosts, RosterSync, ScorePassback
from lti.tasks import passback_deliver
from tests.factories import InstructorFactory
from tests.lti.conftest import PUBLIC_ADDRESS
from tests.lti.fake_lms import INSTRUCTOR, launch_as
from tests.lti.test_passback import (
    LINEITEM_URL,
    SCORES_URL,
    learner_submits,
    stub_token_endpoint,
    submit,
)

pytestmark = pytest.mark.django_db

# An LMS error page that names things instructors must never read in softgrade.
ERROR_BODY = "<html>Traceback: db password=hunter2 at /srv/lms/grades.py</html>"


def deliver_score(client, platform_, quiz, capture, *, lineitem: str) -> ScorePassback:
    """A learner launched from a link whose line item the LMS named, submitted; one try."""
    submit(learner_submits(client, platform_, quiz, lineitem=lineitem), capture)
    passback = ScorePassback.objects.get()
    return passback_deliver(passback_id=passback.pk)


def calls_to(lms, prefix: str) -> list:
    return [call for call in lms.calls if call.request.url.startswith(prefix)]


REFUSED_LINE_ITEMS = {
    "plain http": (
        "http://lms.example.edu/api/lti/courses/101/line_items/55",
        "over https only",
    ),
    "another host": ("https://grades.attacker.example/line_items/55", "not one of this LMS"),
    "a look-alike host": (
        "https://lms.example.edu.attacker.example/line_items/55",
        "not one of this LMS",
    ),
    "credentials in the URL": ("https://user:pw@lms.example.edu/line_items/55", "Not a URL"),
}


@pytest.mark.parametrize("case", list(REFUSED_LINE_ITEMS), ids=list(REFUSED_LINE_ITEMS))
def test_a_score_to_a_line_item_outside_the_policy_is_refused_before_any_request(
    client, platform, quiz, lms, django_capture_on_commit_callbacks, case
):
    lineitem, why = REFUSED_LINE_ITEMS[case]
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.POST, lineitem + "/scores", json={})
    passback = deliver_score(
        client, platform, quiz, django_capture_on_commit_callbacks, lineitem=lineitem
    )
    assert passback.status == ScorePassback.Status.REFUSED
    assert why in passback.last_error
    assert why in passback.outcomes.get().detail
    assert calls_to(lms, lineitem) == []


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.0.0.5", "192.168.1.10", "169.254.169.254", "100.64.0.1", "::1", "fd00::1"],
)
def test_a_host_resolving_to_a_private_address_is_refused(
    client, platform, quiz, lms, dns, django_capture_on_commit_callbacks, address
):
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.POST, SCORES_URL, json={})
    submit(
        learner_submits(client, platform, quiz, lineitem=LINEITEM_URL),
        django_capture_on_commit_callbacks,
    )
    dns["lms.example.edu"] = [PUBLIC_ADDRESS, address]
    passback = passback_deliver(passback_id=ScorePassback.objects.get().pk)
    assert passback.status == ScorePassback.Status.REFUSED
    assert f"resolves to an address softgrade does not call ({address})" in passback.last_error
    assert calls_to(lms, platform.token_url) == []
    assert calls_to(lms, SCORES_URL) == []


def test_private_addresses_are_allowed_when_the_setting_says_so(
    client, platform, quiz, lms, dns, settings, django_capture_on_commit_callbacks
):
    settings.LTI_ALLOW_PRIVATE_HOSTS = True
    dns["lms.example.edu"] = ["127.0.0.1"]
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.POST, SCORES_URL, json={})
    passback = deliver_score(
        client, platform, quiz, django_capture_on_commit_callbacks, lineitem=LINEITEM_URL
    )
    assert passback.status == ScorePassback.Status.SENT
    assert len(calls_to(lms, SCORES_URL)) == 1


def test_a_host_that_does_not_resolve_is_retried_later(
    client, platform, quiz, lms, dns, django_capture_on_commit_callbacks
):
    stub_token_endpoint(lms, platform, client, [])
    submit(
        learner_submits(client, platform, quiz, lineitem=LINEITEM_URL),
        django_capture_on_commit_callbacks,
    )
    del dns["lms.example.edu"]
    passback = passback_deliver(passback_id=ScorePassback.objects.get().pk)
    assert passback.status == ScorePassback.Status.QUEUED
    assert passback.next_try_at is not None
    assert "does not resolve" in passback.last_error


def test_a_redirect_is_a_refusal_and_is_not_followed(
    client, platform, quiz, lms, django_capture_on_commit_callbacks
):
    elsewhere = "https://lms.example.edu/internal/admin"
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.POST, SCORES_URL, status=307, headers={"Location": elsewhere})
    lms.add(responses.POST, elsewhere, json={})
    passback = deliver_score(
        client, platform, quiz, django_capture_on_commit_callbacks, lineitem=LINEITEM_URL
    )
    assert passback.status == ScorePassback.Status.REFUSED
    outcome = passback.outcomes.get()
    assert outcome.http_status == 307
    assert "HTTP 307 Temporary Redirect" in outcome.detail
    assert "follows no redirects" in outcome.detail
    assert calls_to(lms, elsewhere) == []


@pytest.mark.parametrize("status", [500, 422])
def test_only_the_status_line_of_an_lms_error_is_kept(
    client, platform, quiz, lms, django_capture_on_commit_callbacks, status
):
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.POST, SCORES_URL, status=status, body=ERROR_BODY)
    passback = deliver_score(
        client, platform, quiz, django_capture_on_commit_callbacks, lineitem=LINEITEM_URL
    )
    line = outbound.status_line(status)
    assert line in ("HTTP 500 Internal Server Error", "HTTP 422 Unprocessable Content")
    assert passback.last_error == f"POST {SCORES_URL}: {line}"
    assert passback.outcomes.get().detail == passback.last_error
    client.force_login(InstructorFactory())
    page = client.get(reverse("lti:link-instructor", args=[passback.target.pk]))
    assert "hunter2" not in page.content.decode()


def test_an_extra_host_listed_for_the_registration_is_called(
    client, platform, quiz, lms, dns, django_capture_on_commit_callbacks
):
    lineitem = "https://ml-school.lms-cloud.example.com/api/lti/courses/101/line_items/55"
    dns["ml-school.lms-cloud.example.com"] = [PUBLIC_ADDRESS]
    PlatformHosts.objects.create(
        registration=platform.registration, extra_hosts="other.example.org\n*.lms-cloud.example.com"
    )
    stub_token_endpoint(lms, platform, client, [])
    lms.add(responses.POST, lineitem + "/scores", json={})
    passback = deliver_score(
        client, platform, quiz, django_capture_on_commit_callbacks, lineitem=lineitem
    )
    assert passback.status == ScorePassback.Status.SENT
    assert len(calls_to(lms, lineitem)) == 1


def _instructor_launch(client, platform, quiz, lms) -> LinkTarget:
    launch_as(client, platform, custom={"softgrade_quiz": quiz.slug}, sub="t", roles=(INSTRUCTOR,))
    lms.add(responses.POST, platform.token_url, json={"access_token": "tok", "expires_in": 60})
    return LinkTarget.objects.get()


@pytest.mark.parametrize(
    "next_url",
    [
        "https://collector.attacker.example/roster?page=2",
        "http://lms.example.edu/api/lti/courses/101/names_and_roles?page=2",
    ],
)
def test_a_roster_next_link_outside_the_policy_fails_the_sync_and_stores_nothing(
    client, platform, quiz, lms, next_url
):
    target = _instructor_launch(client, platform, quiz, lms)
    members_before = LtiMembership.objects.filter(context=target.resource_link.context).count()
    lms.add(
        responses.GET,
        platform.memberships_url,
        json={"members": [{"user_id": "s1", "roles": ["Learner"], "status": "Active"}]},
        headers={"Link": f'<{next_url}>; rel="next"'},
    )
    lms.add(responses.GET, next_url, json={"members": []})
    client.post(reverse("lti:link-roster-sync", args=[target.pk]))
    sync = RosterSync.objects.get()
    assert sync.status == RosterSync.Status.FAILED
    assert "refused" in sync.detail
    assert calls_to(lms, next_url) == []
    members = LtiMembership.objects.filter(context=target.resource_link.context)
    assert members.count() == members_before


def test_a_launch_whose_keyset_host_resolves_privately_is_refused_without_a_fetch(
    client, platform, quiz, lms, dns, caplog
):
    dns["lms.example.edu"] = ["10.1.2.3"]
    with caplog.at_level("WARNING", logger="softgrade.lti"):
        response = launch_as(client, platform, custom={"softgrade_quiz": quiz.slug})
    assert response.status_code == 400
    assert "keyset_unavailable" in caplog.text
    assert calls_to(lms, platform.keyset_url) == []


def test_the_token_endpoint_error_body_is_not_kept(platform, lms):
    lms.add(responses.POST, platform.token_url, status=400, body=ERROR_BODY)
    with pytest.raises(lms_api.PlatformError) as raised:
        lms_api.access_token(registration=platform.registration, scopes=(lms_api.SCOPE_SCORE,))
    assert raised.value.message == f"POST {platform.token_url}: HTTP 400 Bad Request"
    assert raised.value.retryable is False


# ---------------------------------------------------------------------------------------------
# The policy's parts
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.215.14", True),
        ("2606:2800:21f:cb07:6820:80da:af6b:8b2c", True),
        ("127.0.0.1", False),
        ("10.20.30.40", False),
        ("172.16.0.1", False),
        ("192.168.0.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("240.0.0.1", False),
        ("192.0.2.1", False),
        ("::1", False),
        ("fe80::1%eth0", False),
        ("fc00::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:10.0.0.1", False),
    ],
)
def test_address_public(address, public):
    assert outbound.address_public(address) is public


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("lms.example.edu", True),
        ("LMS.Example.EDU.", True),
        ("a.cloud.example.com", True),
        ("a.b.cloud.example.com", True),
        ("cloud.example.com", False),
        ("evilcloud.example.com", False),
        ("lms.example.edu.evil.example", False),
        ("example.edu", False),
    ],
)
def test_host_allowed(host, allowed):
    assert outbound.host_allowed(host, {"lms.example.edu", "*.cloud.example.com"}) is allowed


def test_registration_hosts_are_its_own_urls_hosts_plus_the_listed_ones(platform):
    registration = platform.registration
    assert outbound.registration_hosts(registration) == {"lms.example.edu"}
    PlatformHosts.objects.create(registration=registration, extra_hosts="A.example.org\n\n")
    assert outbound.registration_hosts(registration) == {"lms.example.edu", "a.example.org"}


@pytest.mark.parametrize(
    "entry", ["https://a.example.org", "a.example.org/path", "a.example.org:8443", "*", "localhost"]
)
def test_extra_hosts_must_be_host_names(platform, entry):
    hosts = PlatformHosts(
        registration=platform.registration, extra_hosts=f"ok.example.org\n{entry}"
    )
    with pytest.raises(ValidationError) as raised:
        hosts.full_clean()
    assert entry in str(raised.value)
    assert (
        PlatformHosts(
            registration=platform.registration, extra_hosts="ok.example.org\n*.example.net"
        ).full_clean()
        is None
    )


@pytest.mark.parametrize(
    "url",
    [
        "https://other.example.edu/lti/register",
        "https://lms.example.edu.attacker.example/lti/register",
        "https://sub.lms.example.edu/lti/register",
    ],
)
def test_before_a_registration_exists_only_the_configuration_s_host_is_called(lms, url):
    lms.add(responses.POST, url, json={})
    with pytest.raises(outbound.PlatformError) as refused:
        outbound.call_on_host("POST", url, host="lms.example.edu")
    assert "the host of the LMS's OpenID configuration" in refused.value.message
    assert refused.value.retryable is False
    assert len(lms.calls) == 0
