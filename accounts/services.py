"""Changes to a person's own settings."""

from __future__ import annotations

from django.db import transaction

from accounts.models import Profile
from accounts.time_zones import zone_or_none


class UnknownTimeZone(ValueError):
    """A zone name this server does not know."""


@transaction.atomic
def profile_time_zone_set(*, user, time_zone: str) -> Profile:
    """Save the zone `user` reads and types times in; "" follows their browser's."""
    if time_zone and zone_or_none(time_zone) is None:
        raise UnknownTimeZone(f"Unknown time zone {time_zone!r}.")
    profile, _ = Profile.objects.select_for_update().get_or_create(user=user)
    profile.time_zone = time_zone
    profile.save(update_fields=["time_zone", "updated_at"])
    return profile
