"""Who a launch signs in, and which links they launched from.

An LMS user is (registration, `sub`). Their softgrade account is the one softgrade made for them
at their first launch, named by an `LtiIdentity` row written in the same transaction. Nothing
else ties a launch to an account: not a user name (anyone could have signed up under one), not
django-lti's `LtiUser.auth_user` (older versions set it to accounts they adopted by name), not
the same `sub` under another registration (two LMS tenants may share an issuer).
"""

from __future__ import annotations

import secrets
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from lti_tool.models import LtiUser

from lti.models import LinkLaunch, LinkTarget, LtiIdentity

# Sign-up refuses user names with this prefix (grading.forms), so no one else can hold one.
USERNAME_PREFIX = "lti-"


def _username_fresh() -> str:
    # Random, so nobody can know, let alone claim first, the name a learner's account will get.
    return USERNAME_PREFIX + secrets.token_hex(12)


def _identity_find(*, lti_user: LtiUser) -> LtiIdentity | None:
    return (
        LtiIdentity.objects.select_related("user")
        .filter(registration_id=lti_user.registration_id, sub=lti_user.sub)
        .first()
    )


def _identity_create(*, lti_user: LtiUser) -> LtiIdentity:
    try:
        with transaction.atomic():
            user = get_user_model()(username=_username_fresh())
            # Only a launch signs this account in; a password could never be reset either.
            user.set_unusable_password()
            user.save()
            return LtiIdentity.objects.create(
                registration_id=lti_user.registration_id, sub=lti_user.sub, user=user
            )
    except IntegrityError:
        # A simultaneous first launch of the same LMS user made the identity first (the unique
        # constraint refused this one, and the account made with it is rolled back): theirs is
        # the account.
        identity = _identity_find(lti_user=lti_user)
        if identity is None:
            raise
        return identity


def lti_account(*, lti_user: LtiUser) -> AbstractBaseUser:
    """The softgrade account of this LMS user, made on their first launch with a random user
    name and no usable password; its names and email follow what the launch says."""
    identity = _identity_find(lti_user=lti_user) or _identity_create(lti_user=lti_user)
    user = identity.user
    if lti_user.auth_user_id != user.pk:
        # django-lti's tie follows softgrade's (memberships and rosters are read through it).
        lti_user.auth_user = user
        lti_user.save(update_fields=["auth_user", "datetime_modified"])
    names = {
        "first_name": lti_user.given_name[:150],
        "last_name": lti_user.family_name[:150],
        "email": lti_user.email,
    }
    changed = [field for field, value in names.items() if value and getattr(user, field) != value]
    for field in changed:
        setattr(user, field, names[field])
    if changed:
        user.save(update_fields=changed)
    return user


def link_launch_record(
    *,
    target: LinkTarget,
    lti_user: LtiUser,
    user: AbstractBaseUser,
    now: datetime | None = None,
) -> LinkLaunch:
    """Note that this LMS user launched from this link (once per pair; later launches update
    the time): scores go back only to such links."""
    now = now or timezone.now()
    launch, _ = LinkLaunch.objects.update_or_create(
        target=target,
        lti_user=lti_user,
        defaults={"user": user, "last_launched_at": now},
        create_defaults={"user": user, "first_launched_at": now, "last_launched_at": now},
    )
    return launch
