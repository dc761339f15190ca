"""An LTI launch inside an LMS's iframe, in real Chromium: the LMS's course page (another site)
frames the launch, posts the OIDC login and the signed id_token from auto-submitting forms, and
the learner lands signed in inside the frame and can work there.

softgrade runs over HTTPS here (a live server with the development certificate, as `make
run-https` serves), because inside another site's frame the state and session cookies come back
only when they are SameSite=None; Secure. With SameSite=Lax the browser would neither keep nor
send them in the frame, and this test fails at the login (cookies blocked) or at the launch.
The LMS's pages come from a small server of its own on https://127.0.0.1; softgrade fetches the
LMS's keyset through its outbound policy, with `responses` standing in for the LMS.
"""

from __future__ import annotations

import html
import re
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest
import responses
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.servers.basehttp import ThreadedWSGIServer
from django.db import connections
from django.test.testcases import LiveServerThread, QuietWSGIRequestHandler
from django.test.utils import modify_settings
from playwright.sync_api import expect

from courses.models import Quiz
from lti.management.commands.lti_dev_certificate import dev_certificate_write
from tests.lti.fake_lms import TestPlatform

pytestmark = pytest.mark.browser

COURSE_PATH = "/courses/101"
LAUNCH_FRAME_PATH = "/courses/101/external_tools/7"


class HttpsRequestHandler(QuietWSGIRequestHandler):
    """Completes the TLS handshake in the request's own thread; tells Django it is HTTPS."""

    def setup(self):
        self.request.do_handshake()
        super().setup()

    def get_environ(self):
        environ = super().get_environ()
        environ["HTTPS"] = "on"
        return environ


def https_server_class(context: ssl.SSLContext) -> type[ThreadedWSGIServer]:
    class HttpsWSGIServer(ThreadedWSGIServer):
        def __init__(self, address, handler, *args, **kwargs):
            super().__init__(address, HttpsRequestHandler, *args, **kwargs)

        def get_request(self):
            connection, address = super().get_request()
            tls = context.wrap_socket(connection, server_side=True, do_handshake_on_connect=False)
            return tls, address

        def handle_error(self, request, client_address):
            # Chromium tries each new connection once without trusting the self-signed
            # certificate before it is told to ignore the error; those refusals are expected.
            if not isinstance(sys.exception(), ssl.SSLError):
                super().handle_error(request, client_address)

    return HttpsWSGIServer


@pytest.fixture
def https_live_server(transactional_db, tmp_path_factory):
    """softgrade on https://localhost:<port>, with the development certificate."""
    context = tls_context(tmp_path_factory.mktemp("certificate"))
    shared = {
        conn.alias: conn
        for conn in connections.all()
        if conn.vendor == "sqlite" and conn.is_in_memory_db()
    }
    thread_class = type(
        "HttpsLiveServerThread", (LiveServerThread,), {"server_class": https_server_class(context)}
    )
    thread = thread_class("127.0.0.1", StaticFilesHandler, connections_override=shared)
    thread.daemon = True
    for conn in shared.values():
        conn.inc_thread_sharing()
    with modify_settings(ALLOWED_HOSTS={"append": "localhost"}):
        thread.start()
        thread.is_ready.wait()
        if thread.error:
            raise thread.error
        yield f"https://localhost:{thread.port}"
        thread.terminate()
    for conn in shared.values():
        conn.dec_thread_sharing()


def tls_context(directory) -> ssl.SSLContext:
    certificate, key = dev_certificate_write(directory=directory)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    return context


def auto_post(action: str, fields: dict[str, str]) -> str:
    """An LMS page whose form posts itself at once, as LMSs do for LTI messages."""
    inputs = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
        for k, v in fields.items()
    )
    return (
        f'<!doctype html><form method="post" action="{html.escape(action)}">{inputs}</form>'
        "<script>document.forms[0].submit()</script>"
    )


class FakeLms:
    """The LMS's own pages: the course page framing the tool, the frame that starts the OIDC
    login, and the authorization endpoint that posts the signed launch back."""

    def __init__(self, *, origin: str, tool: str):
        self.origin = origin
        self.tool = tool
        self.platform = TestPlatform(
            issuer=origin,
            lineitems_url=f"{origin}/api/lti/courses/101/line_items",
            memberships_url=f"{origin}/api/lti/courses/101/names_and_roles",
        )
        self.quiz_slug = ""

    def page(self, path: str) -> str | None:
        if path == COURSE_PATH:
            return (
                '<!doctype html><h1>Machine learning 101</h1><iframe name="tool" '
                f'title="softgrade" src="{LAUNCH_FRAME_PATH}" width="1000" height="700"></iframe>'
            )
        if path == LAUNCH_FRAME_PATH:
            login = {
                "iss": self.platform.issuer,
                "login_hint": "learner-sub-1",
                "target_link_uri": f"{self.tool}/lti/launch/",
                "lti_message_hint": "link-1",
                "client_id": self.platform.client_id,
                "lti_deployment_id": self.platform.deployment_id,
            }
            return auto_post(f"{self.tool}/lti/login/", login)
        if self.platform.auth_url.endswith(path.partition("?")[0]) and "?" in path:
            return self.authorize(path.partition("?")[2])
        return None

    def authorize(self, query_string: str) -> str:
        """The answer to softgrade's authentication request: the signed id_token, posted."""
        query = {key: values[0] for key, values in parse_qs(query_string).items()}
        assert query["redirect_uri"] == f"{self.tool}/lti/launch/"
        claims = self.platform.claims(
            nonce=query["nonce"], custom={"softgrade_quiz": self.quiz_slug}
        )
        token = self.platform.sign(claims)
        return auto_post(query["redirect_uri"], {"id_token": token, "state": query["state"]})


class LmsPageHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = self.server.fake_lms.page(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write((body or "not found").encode())

    def log_message(self, format, *args):
        pass


@pytest.fixture
def fake_lms(https_live_server, tmp_path_factory, transactional_db, shipped_bank, settings):
    """The LMS on https://127.0.0.1:<port>, registered in softgrade, its keyset answered by
    `responses`. softgrade is reached as localhost: another site, so the frame is cross-site for
    cookies, yet on this machine too (Chromium refuses to let a public site frame a local
    one). The outbound policy refuses a loopback LMS unless told otherwise, as here."""
    settings.LTI_ALLOW_PRIVATE_HOSTS = True
    server = ThreadingHTTPServer(("127.0.0.1", 0), LmsPageHandler)
    server.socket = tls_context(tmp_path_factory.mktemp("lms-certificate")).wrap_socket(
        server.socket, server_side=True
    )
    lms = FakeLms(origin=f"https://127.0.0.1:{server.server_address[1]}", tool=https_live_server)
    server.fake_lms = lms
    platform = lms.platform
    platform.register()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add(responses.GET, platform.keyset_url, json=platform.jwks())
        yield lms
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def learner_context(browser, fake_lms):
    """A browser context that reaches only the LMS and softgrade (certificate warnings off: both
    use the self-signed development certificate); closed before the servers stop."""
    context = browser.new_context(ignore_https_errors=True)
    context.problems = []

    def only_the_lms_and_softgrade(route):
        url = route.request.url
        if url.startswith((fake_lms.origin + "/", fake_lms.tool + "/")):
            route.continue_()
        else:
            context.problems.append(f"request to another host: {url}")
            route.abort()

    context.route("**/*", only_the_lms_and_softgrade)
    yield context
    context.close()


def test_a_launch_framed_by_the_lms_signs_the_learner_in_inside_the_frame(
    fake_lms, learner_context
):
    quiz = Quiz.objects.filter(items__isnull=False).distinct().order_by("pk").first()
    fake_lms.quiz_slug = quiz.slug
    fake_lms.platform.grant(quiz.lesson.course)
    problems = learner_context.problems
    page = learner_context.new_page()
    page.set_default_timeout(15_000)
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))

    page.goto(fake_lms.origin + COURSE_PATH)
    frame = page.frame_locator("iframe[name=tool]")
    expect(frame.locator("h1")).to_contain_text(quiz.title)
    expect(frame.get_by_role("button", name=re.compile("Log out"))).to_be_visible()
    assert page.frame(name="tool").url == f"{fake_lms.tool}/quizzes/{quiz.slug}/"

    # The session works on in the frame: a form posted with its CSRF token starts an attempt.
    frame.get_by_role("button", name=re.compile("Start attempt")).click()
    page.frame(name="tool").wait_for_url(re.compile(r"/attempts/\d+/$"))
    expect(frame.get_by_role("button", name=re.compile("Log out"))).to_be_visible()

    cookies = {c["name"]: c for c in learner_context.cookies(fake_lms.tool)}
    assert cookies["sessionid"]["sameSite"] == "None"
    assert cookies["sessionid"]["secure"] is True
    # Kept in the LMS's partition: the browser blocks unpartitioned third-party cookies here.
    assert cookies["sessionid"]["partitionKey"] == fake_lms.origin.rsplit(":", 1)[0]
    # The launch deleted its state cookie once it was used.
    assert not [name for name in cookies if name.startswith("sg_lti_state_")]
    assert problems == []
