"""LTI Dynamic Registration against a fake platform: softgrade staff make a one-time link, the
LMS opens it with its OpenID configuration URL and a registration token, softgrade fetches and
checks the configuration, posts its tool configuration and stores the registration. Every
refusal stores nothing; a link works once, and not after it expires; without a link softgrade
calls nothing."""

from __future__ import annotations

import hashlib
import html
import io
import json
from datetime import timedelta
from io import StringIO
from urllib.parse import urlencode, urlsplit

import pytest
import requests
import responses
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from lti_tool.models import LtiDeployment, LtiRegistration
from urllib3.exceptions import ProtocolError

from lti.dynamic_registration import RegistrationRefused, invite_claim, invite_create
from lti.models import CourseGrant, RegistrationInvite
from lti.tool_configuration import TOOL_CONFIGURATION_CLAIM
from tests.factories import CourseFactory, InstructorFactory, UserFactory

pytestmark = pytest.mark.django_db

CONFIGURATION_URL = "https://lms.example.edu/lti/openid-configuration"
REGISTRATION_ENDPOINT = "https://lms.example.edu/lti/register"
REGISTRATION_TOKEN = "platform-registration-token-123"
AGS_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


def platform_configuration(**changes) -> dict:
    """The OpenID configuration of the fake platform, as an LMS publishes it."""
    configuration = {
        "issuer": "https://lms.example.edu",
        "authorization_endpoint": "https://lms.example.edu/lti/auth",
        "token_endpoint": "https://lms.example.edu/lti/token",
        "jwks_uri": "https://lms.example.edu/lti/certs",
        "registration_endpoint": REGISTRATION_ENDPOINT,
        "token_endpoint_auth_methods_supported": ["private_key_jwt"],
        "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "response_types_supported": ["id_token"],
        "scopes_supported": ["openid", AGS_SCORE, NRPS],
        "https://purl.imsglobal.org/spec/lti-platform-configuration": {
            "product_family_code": "schoollms",
            "version": "4.1",
            "messages_supported": [
                {"type": "LtiResourceLinkRequest"},
                {"type": "LtiDeepLinkingRequest"},
            ],
        },
    }
    configuration.update(changes)
    return {key: value for key, value in configuration.items() if value is not None}


class FakePlatform:
    """The LMS's two endpoints, answering through `responses`; what softgrade sent is kept."""

    def __init__(self, lms, *, configuration=None, answer=None, answer_status=201):
        self.configuration = configuration or platform_configuration()
        self.answer = answer or {
            "client_id": "dyn-client-1",
            TOOL_CONFIGURATION_CLAIM: {"deployment_id": "dyn-deployment-1"},
        }
        self.answer_status = answer_status
        self.requests = []
        lms.add_callback(responses.GET, CONFIGURATION_URL, callback=self.serve_configuration)
        lms.add_callback(responses.POST, REGISTRATION_ENDPOINT, callback=self.register)

    def serve_configuration(self, request):
        self.requests.append(request)
        return 200, {"Content-Type": "application/json"}, json.dumps(self.configuration)

    def register(self, request):
        self.requests.append(request)
        return self.answer_status, {"Content-Type": "application/json"}, json.dumps(self.answer)

    @property
    def posted(self) -> dict:
        return json.loads(self.requests[-1].body)


def registration_link(client, courses=()) -> str:
    """The one-time link, made by softgrade staff on the setup page (path and token only),
    granting its registration `courses`."""
    client.force_login(InstructorFactory())
    courses = {"courses": [course.pk for course in courses]}
    page = client.post(reverse("lti:registration-invite"), courses).content.decode()
    client.logout()
    start = page.index("http://testserver/lti/register/")
    return urlsplit(page[start : page.index("<", start)]).path


def open_link(client, path, *, configuration_url=CONFIGURATION_URL, token=REGISTRATION_TOKEN):
    """The LMS opens the link, as the LMS administrator's browser does."""
    query = {"openid_configuration": configuration_url, "registration_token": token}
    return client.get(f"{path}?{urlencode(query)}")


def nothing_stored() -> bool:
    return not LtiRegistration.objects.exists() and not LtiDeployment.objects.exists()


# ---------------------------------------------------------------------------------------------
# The flow
# ---------------------------------------------------------------------------------------------


def test_the_lms_registers_softgrade_through_a_registration_link(client, lms):
    FakePlatform(lms)
    response = open_link(client, registration_link(client))
    assert response.status_code == 200
    registration = LtiRegistration.objects.get()
    assert registration.issuer == "https://lms.example.edu"
    assert registration.client_id == "dyn-client-1"
    assert registration.auth_url == "https://lms.example.edu/lti/auth"
    assert registration.token_url == "https://lms.example.edu/lti/token"
    assert registration.keyset_url == "https://lms.example.edu/lti/certs"
    assert registration.name == "schoollms at lms.example.edu"
    deployment = registration.deployments.get()
    assert deployment.deployment_id == "dyn-deployment-1"
    assert deployment.is_active
    invite = RegistrationInvite.objects.get()
    assert invite.used_at is not None
    assert invite.registration == registration
    page = response.content.decode()
    assert "softgrade is registered with schoollms at lms.example.edu" in page
    assert 'data-registered="true"' in page
    assert "lti/js/registration-close" in page


def test_softgrade_fetches_the_configuration_and_posts_its_tool_configuration(client, lms):
    platform = FakePlatform(lms)
    open_link(client, registration_link(client))
    fetch, post = platform.requests
    assert fetch.method == "GET"
    assert fetch.headers["Authorization"] == f"Bearer {REGISTRATION_TOKEN}"
    assert post.method == "POST"
    assert post.headers["Authorization"] == f"Bearer {REGISTRATION_TOKEN}"
    assert post.headers["Content-Type"] == "application/json"
    sent = platform.posted
    assert sent["initiate_login_uri"] == "http://testserver/lti/login/"
    assert sent["redirect_uris"] == ["http://testserver/lti/launch/"]
    assert sent["jwks_uri"] == "http://testserver/lti/jwks/"
    assert sent["token_endpoint_auth_method"] == "private_key_jwt"
    assert sent["response_types"] == ["id_token"]
    tool = sent[TOOL_CONFIGURATION_CLAIM]
    assert tool["domain"] == "testserver"
    assert tool["target_link_uri"] == "http://testserver/lti/launch/"
    assert {"iss", "sub", "name", "email"} <= set(tool["claims"])
    assert {"type": "LtiDeepLinkingRequest"}.items() <= tool["messages"][0].items()
    assert tool["messages"][0]["target_link_uri"] == "http://testserver/lti/launch/"
    # Only the scopes the platform supports are asked for (it lists no line item scopes).
    assert sent["scope"].split() == [AGS_SCORE, NRPS]


def test_without_scopes_supported_every_scope_softgrade_uses_is_asked_for(client, lms):
    platform = FakePlatform(lms, configuration=platform_configuration(scopes_supported=None))
    open_link(client, registration_link(client))
    scopes = platform.posted["scope"].split()
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem" in scopes
    assert AGS_SCORE in scopes
    assert NRPS in scopes


def test_an_lms_that_sends_no_deployment_id_is_registered_without_one(client, lms):
    FakePlatform(lms, answer={"client_id": "dyn-client-2"})
    response = open_link(client, registration_link(client))
    assert response.status_code == 200
    assert LtiRegistration.objects.get().deployments.count() == 0
    assert "None yet" in response.content.decode()


def test_the_page_may_be_framed_by_the_lms_and_runs_no_inline_script(client, lms):
    FakePlatform(lms)
    response = open_link(client, registration_link(client))
    policy = response["Content-Security-Policy"]
    assert "frame-ancestors 'self' https:" in policy
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "X-Frame-Options" not in response
    page = response.content.decode()
    assert page.count("<script") == page.count("<script src=")


# ---------------------------------------------------------------------------------------------
# Who may start one: the registration link
# ---------------------------------------------------------------------------------------------


def test_without_a_link_softgrade_refuses_and_calls_nothing(client, lms):
    platform = FakePlatform(lms)
    response = open_link(client, reverse("lti:register", args=["made-up-token"]))
    assert response.status_code == 404
    assert "not one softgrade made" in response.content.decode()
    assert platform.requests == []
    assert nothing_stored()


def test_a_used_link_is_refused(client, lms):
    platform = FakePlatform(lms)
    path = registration_link(client)
    open_link(client, path)
    platform.requests.clear()
    response = open_link(client, path)
    assert response.status_code == 410
    assert "already used" in response.content.decode()
    assert platform.requests == []
    assert LtiRegistration.objects.count() == 1


def test_an_expired_link_is_refused(client, lms):
    platform = FakePlatform(lms)
    path = registration_link(client)
    RegistrationInvite.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = open_link(client, path)
    assert response.status_code == 410
    assert "has expired" in response.content.decode()
    assert platform.requests == []
    assert nothing_stored()


def test_only_the_token_s_hash_is_kept_and_the_link_is_shown_once(client):
    path = registration_link(client)
    token = path.rstrip("/").rsplit("/", 1)[1]
    invite = RegistrationInvite.objects.get()
    assert invite.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert len(token) >= 40
    assert invite.expires_at - invite.created_at == timedelta(days=1)
    client.force_login(InstructorFactory())
    assert token not in client.get(reverse("lti:setup")).content.decode()


def test_only_those_allowed_to_register_platforms_make_registration_links(client):
    client.force_login(UserFactory())
    assert client.post(reverse("lti:registration-invite")).status_code == 403
    client.logout()
    assert client.post(reverse("lti:registration-invite")).status_code == 302
    client.force_login(InstructorFactory())
    assert client.get(reverse("lti:registration-invite")).status_code == 405
    assert not RegistrationInvite.objects.exists()


def test_a_link_taken_by_a_running_registration_cannot_be_taken_again(db):
    _, token = invite_create(created_by=None)
    invite_claim(token)
    with pytest.raises(RegistrationRefused) as refused:
        invite_claim(token)
    assert refused.value.reason == "invite_used"


# ---------------------------------------------------------------------------------------------
# Refusals: each stores nothing and leaves the link usable
# ---------------------------------------------------------------------------------------------


def refused(client, path, status=400) -> str:
    response = client.get(path) if "?" in path else open_link(client, path)
    assert response.status_code == status
    assert 'data-registered="false"' in response.content.decode()
    assert nothing_stored()
    assert RegistrationInvite.objects.get().used_at is None
    return response.content.decode()


def test_a_link_opened_without_the_lms_s_parameters_is_refused(client, lms):
    platform = FakePlatform(lms)
    path = registration_link(client)
    page = refused(client, path + "?")
    assert "did not send its OpenID configuration URL" in page
    assert platform.requests == []


BAD_CONFIGURATIONS = {
    "issuer on another host": (
        {"issuer": "https://other.example.edu"},
        "is not on lms.example.edu, the host of the configuration URL",
    ),
    "http issuer": ({"issuer": "http://lms.example.edu"}, "The issuer must be an https URL"),
    "no issuer": ({"issuer": None}, "It names no issuer."),
    "no keyset": ({"jwks_uri": None}, "It has no keyset URL (jwks_uri) (jwks_uri)."),
    "no registration endpoint": (
        {"registration_endpoint": None},
        "It has no registration endpoint (registration_endpoint).",
    ),
    "registration endpoint elsewhere": (
        {"registration_endpoint": "https://collector.example.net/register"},
        "Its registration endpoint is not on lms.example.edu",
    ),
    "http token endpoint": (
        {"token_endpoint": "http://lms.example.edu/lti/token"},
        "The token endpoint must be an https URL",
    ),
    "no RS256": (
        {"id_token_signing_alg_values_supported": ["HS256"]},
        "It does not support RS256",
    ),
    "no private_key_jwt": (
        {"token_endpoint_auth_methods_supported": ["client_secret_basic"]},
        "It does not support private_key_jwt",
    ),
}


@pytest.mark.parametrize("case", list(BAD_CONFIGURATIONS), ids=list(BAD_CONFIGURATIONS))
def test_a_configuration_that_fails_a_check_is_refused_before_registering(client, lms, case):
    change, message = BAD_CONFIGURATIONS[case]
    platform = FakePlatform(lms, configuration=platform_configuration(**change))
    page = refused(client, registration_link(client))
    assert "OpenID configuration cannot be used" in page
    assert message in page
    assert [request.method for request in platform.requests] == ["GET"]


def test_a_configuration_that_is_not_json_is_refused(client, lms):
    lms.add(responses.GET, CONFIGURATION_URL, body="<html>sign in</html>")
    page = refused(client, registration_link(client))
    assert "OpenID configuration is not JSON" in page


def test_a_configuration_too_large_or_not_an_object_is_refused(client, lms):
    lms.add(responses.GET, CONFIGURATION_URL, body=b" " * (256 * 1024 + 1))
    lms.add(responses.GET, CONFIGURATION_URL, json=["issuer"])
    path = registration_link(client)
    assert "OpenID configuration is too large" in refused(client, path)
    assert "OpenID configuration is not a JSON object" in refused(client, path)


class BrokenConnection(io.RawIOBase):
    """A connection that drops after an answer's first bytes."""

    def __init__(self, first: bytes):
        self.first = first
        self.sent = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.sent:
            raise ProtocolError("Connection broken: reset by peer")
        self.sent = True
        buffer[: len(self.first)] = self.first
        return len(self.first)


def test_an_lms_that_does_not_answer_is_refused(client, lms):
    lms.add(responses.GET, CONFIGURATION_URL, body=requests.ConnectionError("reset by peer"))
    page = html.unescape(refused(client, registration_link(client), status=502))
    assert "could not fetch the LMS's OpenID configuration" in page
    assert "no answer (ConnectionError: reset by peer)" in page


def test_an_answer_that_breaks_off_is_refused(client, lms):
    lms.add(
        responses.GET,
        CONFIGURATION_URL,
        body=io.BufferedReader(BrokenConnection(b'{"issuer": "https://lms.exa')),
    )
    page = html.unescape(refused(client, registration_link(client), status=502))
    assert "The LMS's OpenID configuration broke off (ChunkedEncodingError)." in page


def test_an_answer_without_a_client_id_stores_nothing(client, lms):
    FakePlatform(lms, answer={"client_name": "softgrade"})
    page = refused(client, registration_link(client))
    assert "sent no client id" in page


def test_a_client_id_softgrade_already_has_is_refused_and_the_old_one_kept(client, lms):
    FakePlatform(lms)
    open_link(client, registration_link(client))
    before = LtiRegistration.objects.values().get()
    LtiRegistration.objects.update(auth_url="https://lms.example.edu/kept")
    response = open_link(client, registration_link(client))
    assert response.status_code == 400
    assert "already has a registration" in response.content.decode()
    assert LtiRegistration.objects.get().auth_url == "https://lms.example.edu/kept"
    assert LtiRegistration.objects.get().pk == before["id"]
    assert RegistrationInvite.objects.filter(used_at__isnull=True).count() == 1


# ---------------------------------------------------------------------------------------------
# The outbound policy holds before any registration exists
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("configuration_url", "message"),
    [
        ("http://lms.example.edu/lti/openid-configuration", "must be an https URL"),
        ("https://user:pw@lms.example.edu/openid", "must not carry a user name or password"),
        ("lms.example.edu/openid", "must be an https URL"),
    ],
)
def test_a_configuration_url_that_is_not_https_is_refused_without_a_call(
    client, lms, configuration_url, message
):
    platform = FakePlatform(lms)
    response = open_link(client, registration_link(client), configuration_url=configuration_url)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert platform.requests == []
    assert nothing_stored()


def test_a_configuration_host_with_a_private_address_is_refused_without_a_call(client, lms, dns):
    platform = FakePlatform(lms)
    dns["lms.example.edu"] = ["10.0.0.7"]
    page = refused(client, registration_link(client), status=502)
    assert "resolves to an address softgrade does not call (10.0.0.7)" in page
    assert platform.requests == []


def test_a_redirect_from_the_lms_is_not_followed(client, lms):
    lms.add(
        responses.GET,
        CONFIGURATION_URL,
        status=302,
        headers={"Location": "https://169.254.169.254/latest/meta-data"},
    )
    page = refused(client, registration_link(client), status=502)
    assert "HTTP 302 Found; softgrade follows no redirects" in page
    assert [call.request.url for call in lms.calls] == [CONFIGURATION_URL]


def test_a_failed_registration_shows_the_status_line_and_never_the_lms_s_body(client, lms):
    FakePlatform(lms, answer={"error": "Traceback: secret=hunter2"}, answer_status=500)
    page = refused(client, registration_link(client), status=502)
    assert "softgrade could not register with the LMS" in page
    assert "HTTP 500 Internal Server Error" in page
    assert "hunter2" not in page


def test_deleting_an_unused_link_in_the_admin_revokes_it(client, lms):
    platform = FakePlatform(lms)
    path = registration_link(client)
    client.force_login(InstructorFactory())
    invite = RegistrationInvite.objects.get()
    listing = client.get(reverse("admin:lti_registrationinvite_changelist"))
    assert listing.status_code == 200
    assert client.get(reverse("admin:lti_registrationinvite_add")).status_code == 403
    client.post(reverse("admin:lti_registrationinvite_delete", args=[invite.pk]), {"post": "yes"})
    client.logout()
    assert open_link(client, path).status_code == 404
    assert platform.requests == []
    assert nothing_stored()


def test_the_command_prints_a_link_that_registers_the_lms(client, lms):
    platform = FakePlatform(lms)
    out, err = StringIO(), StringIO()
    call_command(
        "lti_registration_link",
        "--base-url",
        "https://softgrade.example.edu/",
        "--days",
        "3",
        stdout=out,
        stderr=err,
    )
    link = out.getvalue().strip()
    assert link.startswith("https://softgrade.example.edu/lti/register/")
    assert "Works once" in err.getvalue()
    invite = RegistrationInvite.objects.get()
    assert invite.expires_at - invite.created_at == timedelta(days=3)
    assert open_link(client, urlsplit(link).path).status_code == 200
    assert [request.method for request in platform.requests] == ["GET", "POST"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--base-url", "http://softgrade.example.edu"], "must be an https URL"),
        (["--base-url", "https://softgrade.example.edu", "--days", "0"], "from 1 to 30"),
        (["--base-url", "https://softgrade.example.edu", "--days", "31"], "from 1 to 30"),
    ],
)
def test_the_command_refuses_a_bad_base_url_or_lifetime(options, message):
    with pytest.raises(CommandError, match=message):
        call_command("lti_registration_link", *options, stdout=StringIO())
    assert not RegistrationInvite.objects.exists()


# ---------------------------------------------------------------------------------------------
# The courses a link grants
# ---------------------------------------------------------------------------------------------


def test_the_registration_is_granted_the_courses_its_link_names_and_no_other(client, lms):
    FakePlatform(lms)
    named, other = CourseFactory(title="Attention"), CourseFactory(title="Optimisation")
    path = registration_link(client, courses=[named])
    assert list(RegistrationInvite.objects.get().courses.all()) == [named]
    assert open_link(client, path).status_code == 200
    (grant,) = CourseGrant.objects.all()
    assert (grant.registration, grant.course, grant.deployment) == (
        LtiRegistration.objects.get(),
        named,
        None,
    )
    assert not CourseGrant.objects.filter(course=other).exists()


def test_a_link_naming_no_course_makes_a_registration_that_reaches_none(client, lms):
    FakePlatform(lms)
    CourseFactory()
    assert open_link(client, registration_link(client)).status_code == 200
    assert LtiRegistration.objects.exists()
    assert not CourseGrant.objects.exists()


def test_a_refused_registration_grants_nothing(client, lms):
    FakePlatform(lms, answer={"no": "client id"})
    path = registration_link(client, courses=[CourseFactory()])
    assert open_link(client, path).status_code == 400
    assert nothing_stored()
    assert not CourseGrant.objects.exists()


def test_a_link_naming_an_unknown_course_is_not_made(client):
    client.force_login(InstructorFactory())
    course = CourseFactory()
    response = client.post(reverse("lti:registration-invite"), {"courses": [course.pk + 99]})
    assert response.status_code == 400
    assert "is not one of the available choices" in html.unescape(response.content.decode())
    assert "/lti/register/" not in response.content.decode()
    assert not RegistrationInvite.objects.exists()


def test_the_command_s_link_grants_the_courses_given(client, lms):
    FakePlatform(lms)
    CourseFactory(slug="attention-math")
    out = StringIO()
    options = ["--base-url", "https://softgrade.example.edu", "--course", "attention-math"]
    call_command("lti_registration_link", *options, stdout=out, stderr=StringIO())
    assert open_link(client, urlsplit(out.getvalue().strip()).path).status_code == 200
    assert list(CourseGrant.objects.values_list("course__slug", flat=True)) == ["attention-math"]


def test_the_command_refuses_an_unknown_course_and_makes_no_link():
    options = ["--base-url", "https://softgrade.example.edu", "--course", "no-such-course"]
    with pytest.raises(CommandError, match="softgrade has no course “no-such-course”"):
        call_command("lti_registration_link", *options, stdout=StringIO())
    assert not RegistrationInvite.objects.exists()
