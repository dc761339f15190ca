"""A test platform (an LMS in miniature): its RSA key pair, id_tokens signed with PyJWT, and the
login → launch steps a browser would take. The fixtures in conftest.py serve its JWKS."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from functools import cache
from urllib.parse import parse_qs, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from django.urls import reverse
from lti_tool.models import LtiDeployment, LtiRegistration

from lti.models import CourseGrant

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"


@cache
def _rsa_key(name: str) -> rsa.RSAPrivateKey:
    # Key generation is slow; each named key is made once per test run.
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_jwk(private_key: rsa.RSAPrivateKey, kid: str) -> dict:
    jwk = jwt.algorithms.RSAAlgorithm.to_jwk(private_key.public_key(), as_dict=True)
    return {**jwk, "kid": kid, "alg": "RS256", "use": "sig"}


@dataclass
class TestPlatform:
    """The LMS: issuer, client id, endpoints, one deployment, one course."""

    __test__ = False  # not a test class, despite the name

    issuer: str = "https://lms.example.edu"
    client_id: str = "softgrade-client-1"
    deployment_id: str = "deployment-1"
    kid: str = "platform-key-1"
    context_id: str = "course-101"
    lineitems_url: str = "https://lms.example.edu/api/lti/courses/101/line_items"
    memberships_url: str = "https://lms.example.edu/api/lti/courses/101/names_and_roles"
    registration: LtiRegistration | None = None
    deployment: LtiDeployment | None = None
    extra_keys: list = field(default_factory=list)

    @property
    def auth_url(self) -> str:
        return f"{self.issuer}/api/lti/authorize_redirect"

    @property
    def token_url(self) -> str:
        return f"{self.issuer}/login/oauth2/token"

    @property
    def keyset_url(self) -> str:
        return f"{self.issuer}/api/lti/security/jwks"

    @property
    def private_key(self) -> rsa.RSAPrivateKey:
        return _rsa_key("platform")

    def jwks(self) -> dict:
        return {"keys": [public_jwk(self.private_key, self.kid), *self.extra_keys]}

    def claims(
        self,
        *,
        nonce: str,
        sub: str = "learner-sub-1",
        roles: tuple[str, ...] = (LEARNER,),
        custom: dict | None = None,
        lineitem: str | None = None,
        resource_link_id: str = "link-1",
        message_type: str = "LtiResourceLinkRequest",
    ) -> dict:
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": self.client_id,
            "sub": sub,
            "exp": now + 300,
            "iat": now,
            "nonce": nonce,
            "name": "Ada Lovelace",
            "given_name": "Ada",
            "family_name": "Lovelace",
            "email": "ada@example.edu",
            CLAIM + "deployment_id": self.deployment_id,
            CLAIM + "message_type": message_type,
            CLAIM + "version": "1.3.0",
            CLAIM + "roles": list(roles),
            CLAIM + "context": {
                "id": self.context_id,
                "label": "ML101",
                "title": "Machine learning 101",
                "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"],
            },
            CLAIM + "target_link_uri": "https://softgrade.example.org/lti/launch/",
            NRPS: {
                "context_memberships_url": self.memberships_url,
                "service_versions": ["2.0"],
            },
            AGS: {
                "scope": [SCORE_SCOPE, LINEITEM_SCOPE],
                "lineitems": self.lineitems_url,
            },
        }
        if message_type == "LtiResourceLinkRequest":
            claims[CLAIM + "resource_link"] = {"id": resource_link_id, "title": "Week 1 quiz"}
        else:
            claims[DL_SETTINGS] = {
                "deep_link_return_url": f"{self.issuer}/courses/101/deep_linking_response",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_lineitem": True,
                "data": "platform-opaque-data",
            }
        if custom is not None:
            claims[CLAIM + "custom"] = custom
        if lineitem:
            claims[AGS]["lineitem"] = lineitem
        return claims

    def register(self, *, name: str = "Example LMS") -> None:
        """Register this platform in softgrade, with one active deployment."""
        self.registration = LtiRegistration.objects.create(
            name=name,
            uuid=uuid.uuid4(),
            issuer=self.issuer,
            client_id=self.client_id,
            auth_url=self.auth_url,
            token_url=self.token_url,
            keyset_url=self.keyset_url,
        )
        self.deployment = LtiDeployment.objects.create(
            registration=self.registration, deployment_id=self.deployment_id, is_active=True
        )

    def grant(self, *courses, deployment: LtiDeployment | None = None) -> None:
        """Grant softgrade courses to this platform's registration, as an administrator does."""
        for course in courses:
            CourseGrant.objects.create(
                registration=self.registration, course=course, deployment=deployment
            )

    def sign(self, claims: dict, *, key=None, headers: dict | None = None) -> str:
        header = {"kid": self.kid} if headers is None else headers
        return jwt.encode(claims, key or self.private_key, algorithm="RS256", headers=header)


@dataclass
class Login:
    state: str
    nonce: str
    auth_url: str


def oidc_login(client, platform: TestPlatform, *, secure: bool = False, **extra) -> Login:
    """The LMS starts the login; softgrade answers with the redirect to the LMS's auth URL."""
    params = {
        "iss": platform.issuer,
        "login_hint": "hint-123",
        "target_link_uri": "https://softgrade.example.org/lti/launch/",
        "client_id": platform.client_id,
        "lti_message_hint": "message-hint",
        "sg_new_window": "1",
        **extra,
    }
    response = client.get(reverse("lti:login"), params, secure=secure)
    assert response.status_code == 302, response.content
    auth_url = response["Location"]
    query = parse_qs(urlsplit(auth_url).query)
    return Login(state=query["state"][0], nonce=query["nonce"][0], auth_url=auth_url)


def launch_post(client, *, id_token: str, state: str, **extra):
    return client.post(reverse("lti:launch"), {"id_token": id_token, "state": state}, **extra)


def launch_as(client, platform: TestPlatform, *, secure: bool = False, **claim_options):
    """Login then launch with a valid id_token; returns the launch response."""
    login = oidc_login(client, platform, secure=secure)
    token = platform.sign(platform.claims(nonce=login.nonce, **claim_options))
    return launch_post(client, id_token=token, state=login.state, secure=secure)
