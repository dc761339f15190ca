"""Revoke an API key by the start of its token, e.g. `api_key_revoke sg_3f9a0c1b2d4e`."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from integrations import services
from integrations.models import ApiKey


class Command(BaseCommand):
    help = "Revoke an API key at once, given its token or the token's start (sg_<prefix>)."

    def add_arguments(self, parser):
        parser.add_argument("token_start", help="The key, or its first part: sg_<12 characters>.")

    def handle(self, *args, token_start: str, **options):
        prefix = token_start.removeprefix(ApiKey.TOKEN_PREFIX).split("_", 1)[0]
        key = ApiKey.objects.filter(prefix=prefix).first()
        if key is None:
            raise CommandError(
                _("No API key starts with %(prefix)s.") % {"prefix": ApiKey.TOKEN_PREFIX + prefix}
            )
        services.api_key_revoke(key=key)
        self.stdout.write(
            _("Revoked %(key)s at %(moment)s UTC.")
            % {"key": key, "moment": f"{key.revoked_at:%Y-%m-%d %H:%M}"}
        )
