"""Passwords are stored with Argon2id at the cost chosen for exam day (security/passwords.py);
passwords stored by the older hashers still sign in, and are re-hashed at that sign-in.

The test settings hash with MD5 for speed; these tests switch to the real settings' list.
"""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import (
    Argon2PasswordHasher,
    check_password,
    identify_hasher,
    make_password,
)
from django.urls import reverse

from config.settings import base
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"
CHOSEN = "argon2$argon2id$v=19$m=19456,t=2,p=1$"


@pytest.fixture(autouse=True)
def real_hashers(settings):
    settings.PASSWORD_HASHERS = base.PASSWORD_HASHERS


def test_a_new_password_is_stored_with_argon2id_at_the_chosen_cost():
    stored = make_password(PASSWORD)

    assert stored.startswith(CHOSEN)
    assert check_password(PASSWORD, stored)
    assert not check_password("wrong horse battery", stored)


def django_default_argon2(password: str) -> str:
    """Django's own Argon2 parameters (100 MiB, 8 lanes): the same algorithm name, other cost."""
    hasher = Argon2PasswordHasher()
    return hasher.encode(password, hasher.salt())


@pytest.mark.parametrize(
    "old_hash",
    [
        lambda password: make_password(password, hasher="pbkdf2_sha256"),
        lambda password: make_password(password, hasher="pbkdf2_sha1"),
        django_default_argon2,
    ],
    ids=["pbkdf2_sha256", "pbkdf2_sha1", "argon2-django-defaults"],
)
def test_an_older_hash_signs_in_and_is_upgraded_at_that_sign_in(client, old_hash):
    stored = old_hash(PASSWORD)
    assert not stored.startswith(CHOSEN)
    learner = UserFactory(username="ada")
    get_user_model().objects.filter(pk=learner.pk).update(password=stored)

    response = client.post(reverse("login"), {"username": "ada", "password": PASSWORD})

    assert response.status_code == 302
    assert "_auth_user_id" in client.session
    learner.refresh_from_db()
    assert learner.password.startswith(CHOSEN)
    assert identify_hasher(learner.password).algorithm == "argon2"
    assert check_password(PASSWORD, learner.password)


def test_a_wrong_password_against_an_old_hash_signs_in_nobody_and_changes_nothing(client):
    stored = make_password(PASSWORD, hasher="pbkdf2_sha256")
    learner = UserFactory(username="ada")
    get_user_model().objects.filter(pk=learner.pk).update(password=stored)

    response = client.post(reverse("login"), {"username": "ada", "password": "wrong"})

    assert response.status_code == 200
    assert "_auth_user_id" not in client.session
    learner.refresh_from_db()
    assert learner.password == stored
