"""Who a launch signs in: only the account softgrade made for that (registration, sub), never one
found by its user name or borrowed from another registration; and the ties older versions made."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from lti_tool.models import LtiMembership, LtiRegistration, LtiUser

from grading.forms import SignupForm
from grading.services.attempts import attempt_start
from lti.models import LinkLaunch, LtiIdentity
from tests.factories import UserFactory
from tests.lti.conftest import registered
from tests.lti.fake_lms import TestPlatform, launch_as

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"
carry_over = importlib.import_module(
    "lti.migrations.0003_identities_for_accounts_softgrade_made"
).identities_carry_over


def derived_username(issuer: str, sub: str) -> str:
    """The user name older versions gave (and adopted for) an LMS user's account."""
    return "lti-" + hashlib.sha256(f"{issuer}\n{sub}".encode()).hexdigest()[:24]


def quiz_custom(quiz) -> dict:
    return {"softgrade_quiz": quiz.slug}


def signed_in(response):
    assert response.status_code == 302, response.content
    return response.wsgi_request.user


def second_registration(platform: TestPlatform) -> TestPlatform:
    """Another registration of the same issuer (another tenant of one LMS), same keys."""
    other = dataclasses.replace(
        platform, client_id="softgrade-client-2", deployment_id="deployment-2"
    )
    return registered(other, name="Example LMS, another tenant")


# ---------------------------------------------------------------------------------------------
# Launches
# ---------------------------------------------------------------------------------------------


def test_a_name_claimed_first_is_not_adopted_the_learner_lands_in_a_fresh_account(
    client, platform, quiz
):
    # The attacker signs up under the name older versions derived from (issuer, sub). Sign-up
    # now refuses it, so the account is made directly, as an older version would have allowed.
    squatter = UserFactory(username=derived_username(platform.issuer, "learner-sub-1"))

    learner = signed_in(launch_as(client, platform, custom=quiz_custom(quiz)))

    assert learner.pk != squatter.pk
    assert not learner.has_usable_password()
    assert learner.username.startswith("lti-")
    assert learner.username != squatter.username
    identity = LtiIdentity.objects.get(registration=platform.registration, sub="learner-sub-1")
    assert identity.user == learner
    lti_user = LtiUser.objects.get(registration=platform.registration, sub="learner-sub-1")
    assert lti_user.auth_user == learner
    # The learner's work is theirs; the squatter's account gets nothing from the LMS.
    attempt = attempt_start(user=learner, quiz=quiz)
    assert attempt.user == learner
    squatter.refresh_from_db()
    assert squatter.check_password(PASSWORD)
    assert (squatter.first_name, squatter.email) == ("", f"{squatter.username}@example.org")
    assert not LtiUser.objects.filter(auth_user=squatter).exists()
    assert not LtiIdentity.objects.filter(user=squatter).exists()
    assert not LtiMembership.objects.filter(user__auth_user=squatter).exists()
    assert not LinkLaunch.objects.filter(user=squatter).exists()
    assert not squatter.attempts.exists()


def test_a_tie_softgrade_did_not_make_is_ignored_and_replaced(client, platform, quiz):
    # django-lti's LtiUser already points at some account (an older version adopted it by name):
    # without an identity row, that proves nothing, and the launch makes the learner's own.
    someone = UserFactory()
    old_tie(platform.registration, "learner-sub-1", someone)

    learner = signed_in(launch_as(client, platform, custom=quiz_custom(quiz)))

    assert learner.pk != someone.pk
    assert not learner.has_usable_password()
    assert LtiUser.objects.get(sub="learner-sub-1").auth_user == learner
    assert not LtiIdentity.objects.filter(user=someone).exists()


def test_the_same_sub_under_another_registration_of_the_issuer_is_another_account(
    client, platform, quiz
):
    other = second_registration(platform)
    first = signed_in(launch_as(client, platform, custom=quiz_custom(quiz)))
    client.logout()
    second = signed_in(launch_as(client, other, custom=quiz_custom(quiz)))

    assert first.pk != second.pk
    assert not second.has_usable_password()
    assert {
        (identity.registration_id, identity.user_id) for identity in LtiIdentity.objects.all()
    } == {(platform.registration.pk, first.pk), (other.registration.pk, second.pk)}
    # Each keeps landing in their own account.
    client.logout()
    assert signed_in(launch_as(client, platform, custom=quiz_custom(quiz))).pk == first.pk
    client.logout()
    assert signed_in(launch_as(client, other, custom=quiz_custom(quiz))).pk == second.pk


def test_user_names_are_random_not_derived_from_issuer_and_sub(client, platform, quiz):
    names = set()
    for sub in ("learner-sub-1", "learner-sub-2"):
        client.logout()
        user = signed_in(launch_as(client, platform, custom=quiz_custom(quiz), sub=sub))
        assert user.username != derived_username(platform.issuer, sub)
        assert len(user.username) >= len("lti-") + 24
        names.add(user.username)
    assert len(names) == 2
    assert get_user_model().objects.filter(lti_identity__isnull=False).count() == 2


def test_the_names_launches_give_are_refused_at_sign_up(client, platform, quiz):
    learner = signed_in(launch_as(client, platform, custom=quiz_custom(quiz)))
    # The launch's own name (taken) and a free name of the same shape are both refused as
    # reserved, so sign-up never tells which LMS learners' names exist.
    other = learner.username[:-1] + ("1" if learner.username.endswith("0") else "0")
    for username in (learner.username, other):
        form = SignupForm({"username": username, "password1": PASSWORD, "password2": PASSWORD})
        assert not form.is_valid()
        assert [e.code for e in form.errors.as_data()["username"]] == ["reserved_username"]


# ---------------------------------------------------------------------------------------------
# Ties made by older versions (data migration)
# ---------------------------------------------------------------------------------------------


def old_tie(registration: LtiRegistration, sub: str, account) -> LtiUser:
    return LtiUser.objects.create(registration=registration, sub=sub, auth_user=account)


def old_account(issuer: str, sub: str):
    """An account as older launches made it: the derived name and no usable password."""
    user = get_user_model()(username=derived_username(issuer, sub))
    user.set_unusable_password()
    user.save()
    return user


def test_ties_softgrade_made_are_carried_over_and_keep_working(client, platform, quiz):
    made = old_account(platform.issuer, "learner-sub-1")
    old_tie(platform.registration, "learner-sub-1", made)
    attempt = attempt_start(user=made, quiz=quiz)

    carry_over(apps, None)

    assert LtiIdentity.objects.get().user == made
    learner = signed_in(launch_as(client, platform, custom=quiz_custom(quiz)))
    assert learner.pk == made.pk
    assert learner.attempts.get() == attempt


def test_ties_to_accounts_softgrade_did_not_make_are_cleared(client, platform, quiz):
    other = second_registration(platform)
    # A squatted name (the account has a password), a name that is not the derived one, and one
    # account adopted across two registrations of the same issuer.
    squatter = UserFactory(username=derived_username(platform.issuer, "sub-squatted"))
    squatted = old_tie(platform.registration, "sub-squatted", squatter)
    stranger = old_tie(platform.registration, "sub-stranger", old_account("x", "y"))
    shared = old_account(platform.issuer, "sub-shared")
    twins = [old_tie(platform.registration, "sub-shared", shared)]
    twins.append(old_tie(other.registration, "sub-shared", shared))
    kept = old_tie(platform.registration, "sub-kept", old_account(platform.issuer, "sub-kept"))

    carry_over(apps, None)

    assert [(i.sub, i.user_id) for i in LtiIdentity.objects.all()] == [
        ("sub-kept", kept.auth_user_id)
    ]
    for lti_user in (squatted, stranger, *twins):
        lti_user.refresh_from_db()
        assert lti_user.auth_user is None
    # The squatted learner's next launch lands in an account of their own.
    learner = signed_in(launch_as(client, platform, custom=quiz_custom(quiz), sub="sub-squatted"))
    assert learner.pk != squatter.pk
    assert not learner.has_usable_password()
