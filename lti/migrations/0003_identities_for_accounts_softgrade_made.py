"""Carry over the ties between LMS users and softgrade accounts that softgrade itself made.

Before identities were rows, a launch named the account `lti-<sha256(issuer, sub)[:24]>` and
adopted any account already holding that name, or any account tied to the same `sub` under
another registration of the same issuer. A tie is carried over as an `LtiIdentity` only when
softgrade must have made the account for that LMS user: its user name is the one derived from
that registration's issuer and the `sub`, it has no usable password (sign-up always sets one,
launches never did), and no other LMS user is tied to it. Every other tie is cleared
(`LtiUser.auth_user` set to null): that LMS user's next launch makes a fresh account, and the
old account, with its attempts, stays as it is for an administrator to look into.
"""

import hashlib
from collections import Counter

from django.contrib.auth.hashers import is_password_usable
from django.db import migrations

BATCH = 500


def _derived_username(issuer: str, sub: str) -> str:
    # The name the old launch code gave an LMS user's account.
    return "lti-" + hashlib.sha256(f"{issuer}\n{sub}".encode()).hexdigest()[:24]


def identities_carry_over(apps, schema_editor):
    lti_user_model = apps.get_model("lti_tool", "LtiUser")
    identity_model = apps.get_model("lti", "LtiIdentity")
    tied = list(
        lti_user_model.objects.filter(auth_user__isnull=False)
        .select_related("registration", "auth_user")
        .order_by("pk")
    )
    ties_per_account = Counter(lti_user.auth_user_id for lti_user in tied)
    identities = []
    cleared = []
    for lti_user in tied:
        account = lti_user.auth_user
        made_by_softgrade = (
            ties_per_account[account.pk] == 1
            and account.username == _derived_username(lti_user.registration.issuer, lti_user.sub)
            and not is_password_usable(account.password)
        )
        if made_by_softgrade:
            identities.append(
                identity_model(
                    registration_id=lti_user.registration_id,
                    sub=lti_user.sub,
                    user_id=account.pk,
                    created_at=lti_user.datetime_created,
                )
            )
        else:
            cleared.append(lti_user.pk)
    identity_model.objects.bulk_create(identities, batch_size=BATCH)
    for start in range(0, len(cleared), BATCH):
        lti_user_model.objects.filter(pk__in=cleared[start : start + BATCH]).update(
            auth_user=None
        )


class Migration(migrations.Migration):
    dependencies = [
        ("lti", "0002_lti_identities"),
    ]

    operations = [
        # Going back drops the identities table; cleared ties stay cleared.
        migrations.RunPython(identities_carry_over, migrations.RunPython.noop),
    ]
