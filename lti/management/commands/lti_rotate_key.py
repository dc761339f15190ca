"""Make a new signing key; keys replaced more than LTI_KEY_OVERLAP_DAYS ago leave the JWKS."""

from django.core.management.base import BaseCommand
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from lti import keys


class Command(BaseCommand):
    help = (
        "Rotate softgrade's LTI signing key. The previous key stays published for "
        "LTI_KEY_OVERLAP_DAYS, so platforms that cached it keep verifying."
    )

    def handle(self, *args, **options):
        new_key, retired = keys.key_rotate()
        self.stdout.write(
            self.style.SUCCESS(_("New signing key %(key)s.") % {"key": keys.key_id(new_key)})
        )
        self.stdout.write(
            ngettext(
                "Retired %(count)s key whose overlap period had ended.",
                "Retired %(count)s keys whose overlap period had ended.",
                retired,
            )
            % {"count": retired}
        )
