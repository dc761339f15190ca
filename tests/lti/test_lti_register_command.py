"""`manage.py lti_register`: an LMS registered from options or a JSON file; registering again
updates it; every bad input exits with status 1, says what is wrong and stores nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from lti_tool.models import LtiDeployment, LtiRegistration

from lti.models import CourseGrant
from tests.factories import CourseFactory

pytestmark = pytest.mark.django_db

VALUES = {
    "issuer": "https://lms.example.edu",
    "client_id": "client-42",
    "auth_url": "https://lms.example.edu/auth",
    "token_url": "https://lms.example.edu/token",
    "keyset_url": "https://lms.example.edu/jwks",
}


def as_options(values: dict, deployments=("deployment-1",)) -> list[str]:
    options = []
    for key, value in values.items():
        options += [f"--{key.replace('_', '-')}", value]
    for deployment_id in deployments:
        options += ["--deployment-id", deployment_id]
    return options


def register(*args) -> str:
    out = StringIO()
    call_command("lti_register", *args, stdout=out)
    return out.getvalue()


def test_options_register_the_lms_with_its_deployments_switched_on():
    out = register(*as_options(VALUES, deployments=("deployment-1", "deployment-2")))
    registration = LtiRegistration.objects.get()
    assert (registration.issuer, registration.client_id) == ("https://lms.example.edu", "client-42")
    assert registration.auth_url == VALUES["auth_url"]
    assert registration.token_url == VALUES["token_url"]
    assert registration.keyset_url == VALUES["keyset_url"]
    assert registration.name == "lms.example.edu"  # the issuer's host, when no --name is given
    assert registration.is_active
    deployments = {d.deployment_id: d.is_active for d in registration.deployments.all()}
    assert deployments == {"deployment-1": True, "deployment-2": True}
    assert "Registered lms.example.edu" in out
    assert "Added deployment deployment-2 (switched on)." in out


def test_a_json_file_registers_the_lms(tmp_path):
    path = tmp_path / "lms.json"
    path.write_text(
        json.dumps({**VALUES, "name": "School LMS", "deployment_ids": ["d-7"], "audience": "aud"})
    )
    register("--json", str(path))
    registration = LtiRegistration.objects.get()
    assert registration.name == "School LMS"
    assert registration.audience == "aud"
    assert list(registration.deployments.values_list("deployment_id", "is_active")) == [
        ("d-7", True)
    ]


def test_registering_again_updates_urls_and_adds_deployments_without_removing_any():
    register(*as_options(VALUES, deployments=("deployment-1",)))
    first = LtiRegistration.objects.get()
    LtiDeployment.objects.filter(deployment_id="deployment-1").update(is_active=False)
    LtiDeployment.objects.create(registration=first, deployment_id="kept", is_active=True)
    moved = {**VALUES, "token_url": "https://lms.example.edu/oauth2/token"}
    out = register(*as_options(moved, deployments=("deployment-1", "deployment-3")))
    registration = LtiRegistration.objects.get()
    assert registration.pk == first.pk
    assert registration.uuid == first.uuid
    assert registration.token_url == "https://lms.example.edu/oauth2/token"
    deployments = {d.deployment_id: d.is_active for d in registration.deployments.all()}
    assert deployments == {"deployment-1": True, "deployment-3": True, "kept": True}
    assert "Updated lms.example.edu" in out
    assert "Switched on deployment deployment-1." in out


def test_a_registration_without_deployments_is_stored_with_a_warning():
    out = register(*as_options(VALUES, deployments=()))
    assert LtiRegistration.objects.get().deployments.count() == 0
    assert "launches are refused until one is added" in out


BAD_OPTIONS = {
    "http issuer": ({"issuer": "http://lms.example.edu"}, "The issuer must be an https URL"),
    "http token url": (
        {"token_url": "http://lms.example.edu/token"},
        "The token URL must be an https URL",
    ),
    "not a url": ({"keyset_url": "lms.example.edu/jwks"}, "The keyset URL must be an https URL"),
    "no client id": ({"client_id": ""}, "The client id is missing."),
    "no auth url": ({"auth_url": ""}, "The authorization URL is missing."),
    "credentials": (
        {"auth_url": "https://user:pw@lms.example.edu/auth"},
        "must not carry a user name or password",
    ),
    "issuer with a query": (
        {"issuer": "https://lms.example.edu/?tenant=1"},
        "The issuer must have no query or fragment.",
    ),
    "url too long": (
        {"token_url": "https://lms.example.edu/" + "t" * 200},
        "The token URL is longer than 200 characters.",
    ),
}


@pytest.mark.parametrize("case", list(BAD_OPTIONS), ids=list(BAD_OPTIONS))
def test_bad_values_store_nothing_and_say_what_is_wrong(case):
    change, message = BAD_OPTIONS[case]
    with pytest.raises(CommandError) as refused:
        register(*as_options({**VALUES, **change}))
    assert message in str(refused.value)
    assert "Nothing was stored" in str(refused.value)
    assert not LtiRegistration.objects.exists()
    assert not LtiDeployment.objects.exists()


def test_a_deployment_id_given_twice_or_empty_is_refused():
    with pytest.raises(CommandError) as refused:
        register(*as_options(VALUES, deployments=("d-1", "d-1", " ")))
    assert "The deployment id “d-1” is given twice." in str(refused.value)
    assert "A deployment id is empty." in str(refused.value)
    assert not LtiRegistration.objects.exists()


def test_a_bad_update_leaves_the_registration_as_it_was():
    register(*as_options(VALUES))
    with pytest.raises(CommandError):
        register(*as_options({**VALUES, "auth_url": "http://lms.example.edu/auth"}, ["d-9"]))
    registration = LtiRegistration.objects.get()
    assert registration.auth_url == VALUES["auth_url"]
    assert list(registration.deployments.values_list("deployment_id", flat=True)) == [
        "deployment-1"
    ]


BAD_FILES = {
    "not json": ("{issuer:", "not JSON"),
    "a list": ("[]", "must hold one JSON object"),
    "an unknown key": (json.dumps({**VALUES, "clientid": "x"}), "unknown key(s) clientid"),
    "deployments not a list": (
        json.dumps({**VALUES, "deployment_ids": "d-1"}),
        "“deployment_ids” must be a list of strings",
    ),
    "a number as client id": (json.dumps({**VALUES, "client_id": 42}), "“client_id” must be a"),
    "a missing url": (
        json.dumps({k: v for k, v in VALUES.items() if k != "keyset_url"}),
        "The keyset URL is missing.",
    ),
}


@pytest.mark.parametrize("case", list(BAD_FILES), ids=list(BAD_FILES))
def test_a_bad_json_file_stores_nothing(tmp_path, case):
    text, message = BAD_FILES[case]
    path = tmp_path / "lms.json"
    path.write_text(text)
    with pytest.raises(CommandError) as refused:
        register("--json", str(path))
    assert message in str(refused.value)
    assert not LtiRegistration.objects.exists()


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(CommandError, match=r"missing\.json: cannot be read"):
        register("--json", str(tmp_path / "missing.json"))


def test_json_and_options_together_are_refused(tmp_path):
    path = tmp_path / "lms.json"
    path.write_text(json.dumps({**VALUES, "deployment_ids": []}))
    with pytest.raises(CommandError, match=r"either --json or the values as options.*--issuer"):
        register("--json", str(path), "--issuer", "https://other.example.edu")
    assert not LtiRegistration.objects.exists()


def test_bad_input_exits_with_status_1_from_the_shell(tmp_path):
    # The exit status scripts rely on, from a real process (call_command raises instead).
    result = subprocess.run(
        [sys.executable, "manage.py", "lti_register", "--issuer", "http://lms.example.edu"],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "The issuer must be an https URL" in result.stderr
    assert "The client id is missing." in result.stderr


# ---------------------------------------------------------------------------------------------
# Courses the registration reaches
# ---------------------------------------------------------------------------------------------


def grants() -> set[tuple[str, str, object]]:
    return set(
        CourseGrant.objects.values_list("registration__client_id", "course__slug", "deployment_id")
    )


def test_a_registration_is_granted_the_courses_given_and_none_by_default():
    first, second = CourseFactory(slug="attention-math"), CourseFactory(slug="optimisation")
    out = register(*as_options(VALUES))
    assert grants() == set()
    assert "It is granted no course yet" in out
    out = register(*as_options(VALUES), "--course", first.slug, "--course", second.slug)
    # Granted to the whole registration, every deployment.
    assert grants() == {("client-42", "attention-math", None), ("client-42", "optimisation", None)}
    assert "Granted the course attention-math." in out
    assert "no course yet" not in out


def test_registering_again_grants_more_courses_and_takes_none_away():
    CourseFactory(slug="attention-math")
    CourseFactory(slug="optimisation")
    register(*as_options(VALUES), "--course", "attention-math")
    out = register(*as_options(VALUES), "--course", "optimisation", "--course", "attention-math")
    assert grants() == {("client-42", "attention-math", None), ("client-42", "optimisation", None)}
    assert "Granted the course optimisation." in out
    assert "Granted the course attention-math." not in out


def test_an_unknown_course_is_named_and_nothing_is_stored():
    CourseFactory(slug="attention-math")
    with pytest.raises(CommandError) as refused:
        register(*as_options(VALUES), "--course", "attention-math", "--course", "atention-math")
    assert "softgrade has no course “atention-math”." in str(refused.value)
    assert "Nothing was stored" in str(refused.value)
    assert not LtiRegistration.objects.exists()
    assert not LtiDeployment.objects.exists()
    assert not CourseGrant.objects.exists()


def test_an_unknown_course_leaves_an_existing_registration_as_it_was():
    CourseFactory(slug="attention-math")
    register(*as_options(VALUES), "--course", "attention-math")
    moved = {**VALUES, "token_url": "https://lms.example.edu/oauth2/token"}
    with pytest.raises(CommandError):
        register(*as_options(moved, ["d-9"]), "--course", "attention-math", "--course", "nope")
    registration = LtiRegistration.objects.get()
    assert registration.token_url == VALUES["token_url"]
    assert not registration.deployments.filter(deployment_id="d-9").exists()
    assert grants() == {("client-42", "attention-math", None)}


def test_a_course_given_twice_is_refused():
    CourseFactory(slug="attention-math")
    with pytest.raises(CommandError, match=r"The course “attention-math” is given twice\."):
        register(*as_options(VALUES), "--course", "attention-math", "--course", "attention-math")
    assert not LtiRegistration.objects.exists()


def test_a_json_file_grants_its_courses(tmp_path):
    CourseFactory(slug="attention-math")
    path = tmp_path / "lms.json"
    path.write_text(
        json.dumps({**VALUES, "deployment_ids": ["d-7"], "courses": ["attention-math"]})
    )
    register("--json", str(path))
    assert grants() == {("client-42", "attention-math", None)}


@pytest.mark.parametrize("courses", ["attention-math", [1], {"slug": "attention-math"}])
def test_a_json_file_s_courses_must_be_a_list_of_slugs(tmp_path, courses):
    path = tmp_path / "lms.json"
    path.write_text(json.dumps({**VALUES, "courses": courses}))
    with pytest.raises(CommandError, match="“courses” must be a list of strings"):
        register("--json", str(path))
    assert not LtiRegistration.objects.exists()
