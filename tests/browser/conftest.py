"""Real headless Chromium (Debian's) through Playwright's sync API, against pytest-django's
live server.

Every page a test opens is watched: a console error, an uncaught script error, a Content
Security Policy violation or a request to any host but the live server fails the test.
Without Chromium the tests skip with the reason, unless REQUIRE_BROWSER=1 (CI), where they fail.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "a long passphrase 42"

# Recorded in the page before any of its own scripts run (an init script is not subject to the
# page's Content Security Policy), so the tests can read every violation the browser reports.
CSP_RECORDER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


def _chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        reason = "Debian's chromium is not installed (apt-get install chromium)"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    return path


@pytest.fixture(scope="module")
def browser():
    """Chromium for the tests of one module; it stops with the module, so nothing outlives it.

    Playwright's sync API keeps an event loop running in the test's thread while it is open;
    Django would then refuse the ORM calls a test makes to set up data, although they do not run
    inside that loop. The variable that allows them is set only meanwhile: the deploy checks
    rightly refuse it anywhere else.
    """
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class PageWatch:
    """What went wrong on the pages of one test: console errors, script errors, other hosts."""

    def __init__(self, origin: str):
        self.origin = origin
        self.problems: list[str] = []
        self.refused_on_purpose: set[str] = set()

    def expect_refusal(self, url: str) -> None:
        """The test opens `url` knowing it answers with an error status: Chromium reports that
        load as a console error (sometimes, depending on timing), which is then no problem."""
        self.refused_on_purpose.add(url)

    def console(self, message) -> None:
        if message.type != "error":
            return
        if (
            message.text.startswith("Failed to load resource")
            and message.location.get("url") in self.refused_on_purpose
        ):
            return
        self.problems.append(f"console error: {message.text}")

    def page_error(self, error) -> None:
        self.problems.append(f"script error: {error}")

    def route(self, route) -> None:
        url = route.request.url
        parts = urlsplit(url)
        if (
            parts.scheme in ("data", "blob", "about")
            or f"{parts.scheme}://{parts.netloc}" == self.origin
        ):
            route.continue_()
            return
        self.problems.append(f"request to another host: {url}")
        route.abort()


@pytest.fixture
def watch(live_server):
    return PageWatch(urlsplit(live_server.url)._replace(path="").geturl())


def _context(browser, watch, **options):
    context = browser.new_context(**options)
    context.add_init_script(CSP_RECORDER)
    context.route("**/*", watch.route)
    context.on("page", lambda page: _watch_page(page, watch))
    return context


def _watch_page(page, watch):
    page.on("console", watch.console)
    page.on("pageerror", watch.page_error)


def _check(pages, watch):
    for page in pages:
        if page.is_closed():
            continue
        violations = page.evaluate("window.__cspViolations || []")
        watch.problems.extend(f"CSP violation: {v}" for v in violations)
    assert watch.problems == [], "\n".join(watch.problems)


def _watched_page(browser, watch, **options):
    context = _context(browser, watch, **options)
    page = context.new_page()
    page.set_default_timeout(10_000)
    return context, page


@contextmanager
def watched_page(browser, watch, *, desktop: bool = True, **options):
    """A page watched as every fixture's is (the test fails on any console error, CSP
    violation or other host), desktop-sized unless `desktop` is False, in `options`' context
    (a locale, a time zone, a viewport)."""
    if desktop:
        options = {"viewport": {"width": 1280, "height": 900}, **options}
    context, page = _watched_page(browser, watch, **options)
    yield page
    _check(context.pages, watch)
    context.close()


# Every page's browser lives away from UTC (and, in December, on the next calendar day), so a
# time shown in UTC, or a date taken from UTC, where a person reads it shows up in any test.
BROWSER_TIME_ZONE = "Pacific/Auckland"


@pytest.fixture
def page(browser, watch):
    """A desktop-sized page; the test fails on any console error, CSP violation or other host."""
    with watched_page(browser, watch, timezone_id=BROWSER_TIME_ZONE, locale="en-US") as page:
        yield page


@pytest.fixture
def german_page(browser, watch):
    """A desktop-sized page whose browser asks for German (Accept-Language: de-DE), watched like
    `page`."""
    with watched_page(browser, watch, timezone_id="Europe/Berlin", locale="de-DE") as page:
        yield page


@pytest.fixture
def phone_page(browser, watch):
    """A 375 px wide page, as on a phone, watched like `page`."""
    with watched_page(
        browser,
        watch,
        desktop=False,
        viewport={"width": 375, "height": 812},
        device_scale_factor=2,
        is_mobile=True,
        timezone_id=BROWSER_TIME_ZONE,
        locale="en-US",
    ) as page:
        yield page


@pytest.fixture
def learner_account(transactional_db):
    from tests.factories import UserFactory

    user = UserFactory(username="ada")
    user.set_password(PASSWORD)
    user.save()
    return user


def log_in(page, live_server, user) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")
