"""Changes to a person's own settings."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from accounts.models import Profile
from accounts.time_zones import zone_or_none


class UnknownTimeZone(ValueError):
    """A zone name this server does not know."""


class UnknownLanguage(ValueError):
    """A language softgrade does not speak."""


@transaction.atomic
def profile_time_zone_set(*, user, time_zone: str) -> Profile:
    """Save the zone `user` reads and types times in; "" follows their browser's."""
    if time_zone and zone_or_none(time_zone) is None:
        raise UnknownTimeZone(f"Unknown time zone {time_zone!r}.")
    profile, _ = Profile.objects.select_for_update().get_or_create(user=user)
    profile.time_zone = time_zone
    profile.save(update_fields=["time_zone", "updated_at"])
    return profile


@transaction.atomic
def profile_language_set(*, user, language: str) -> Profile:
    """Save the language `user` reads softgrade in; "" follows their browser's."""
    if language and language not in dict(settings.LANGUAGES):
        raise UnknownLanguage(f"Unknown language {language!r}.")
    profile, _ = Profile.objects.select_for_update().get_or_create(user=user)
    profile.language = language
    profile.save(update_fields=["language", "updated_at"])
    return profile
