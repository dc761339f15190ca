"""Production settings refuse to start half-configured, and pass Django's deploy checks."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    unset = ("SECRET_KEY", "ALLOWED_HOSTS", "CONN_HEALTH_CHECKS", "CONN_MAX_AGE", "EMAIL_URL")
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    environment.update(DJANGO_SETTINGS_MODULE="config.settings.production", **env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ALLOWED_HOSTS": "softgrade.example.org"}, "SECRET_KEY must be set"),
        ({"ALLOWED_HOSTS": "softgrade.example.org", "SECRET_KEY": "short"}, "SECRET_KEY must be"),
        ({"SECRET_KEY": secrets.token_urlsafe(64)}, "ALLOWED_HOSTS must list"),
    ],
)
def test_production_refuses_to_start_without_its_configuration(env, message):
    result = manage("check", **env)
    assert result.returncode != 0
    assert message in result.stderr


def test_deploy_checks_are_clean():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="softgrade.example.org",
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize(("value", "expected"), [(None, "False"), ("True", "True")])
def test_connection_health_checks_are_off_unless_asked_for(value, expected):
    """A health check is a round trip per request; production turns it on only when told."""
    env = {"SECRET_KEY": secrets.token_urlsafe(64), "ALLOWED_HOSTS": "softgrade.example.org"}
    if value is not None:
        env["CONN_HEALTH_CHECKS"] = value
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings; print(settings.DATABASES['default']"
        "['CONN_HEALTH_CHECKS'], settings.DATABASES['default']['CONN_MAX_AGE'])",
        **env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [expected, "60"]


def test_a_wsgi_worker_settles_before_its_first_request():
    """Views imported and start-up's objects frozen out of the collector's full passes."""
    environment = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    environment.update(SECRET_KEY=secrets.token_urlsafe(64), ALLOWED_HOSTS="softgrade.example.org")
    code = (
        "import gc, sys, config.wsgi; "
        "print(gc.get_freeze_count(), 'grading.api.views' in sys.modules, "
        "config.wsgi.application is not None)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    frozen, views, app = result.stdout.split()
    assert int(frozen) > 10_000
    assert (views, app) == ("True", "True")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # Never the console in production: a reset link in the logs opens the account.
        (
            None,
            "django.core.mail.backends.smtp.EmailBackend "
            "{'host': 'localhost', 'port': 25, 'username': '', "
            "'password': '', 'use_tls': False, 'use_ssl': False, 'timeout': 10}",
        ),
        (
            "smtp+tls://mailer:s3cret@smtp.example.org:587",
            "django.core.mail.backends.smtp.EmailBackend "
            "{'host': 'smtp.example.org', 'port': 587, 'username': 'mailer', "
            "'password': 's3cret', 'use_tls': True, 'use_ssl': False, 'timeout': 10}",
        ),
    ],
)
def test_production_sends_email_through_the_backend_email_url_names(value, expected):
    env = {"SECRET_KEY": secrets.token_urlsafe(64), "ALLOWED_HOSTS": "softgrade.example.org"}
    if value is not None:
        env["EMAIL_URL"] = value
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings; m = settings.MAILERS['default'];"
        "print(m['BACKEND'], m.get('OPTIONS', {}))",
        **env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


def test_locally_email_goes_to_the_console_unless_email_url_says_otherwise():
    environment = {k: v for k, v in os.environ.items() if k != "EMAIL_URL"}
    environment["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    code = "from django.conf import settings; print(settings.MAILERS['default']['BACKEND'])"
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "django.core.mail.backends.console.EmailBackend"
