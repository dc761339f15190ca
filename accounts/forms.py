"""The form of the "Your settings" page."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.languages import language_choices
from accounts.time_zones import zone_choices


class SettingsForm(forms.Form):
    """A person's own settings; a zone must be one of those offered (the choices' own check)."""

    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        required=False,
        help_text=_(
            "Every time softgrade shows you, and every time you type, is in this zone. "
            "Following your browser, it changes when you travel."
        ),
    )

    language = forms.ChoiceField(
        label=_("Language"),
        required=False,
        help_text=_(
            "The language of softgrade's pages, messages and feedback, and how you write "
            "decimal numbers in answers. Lessons and questions stay in the language their "
            "instructors wrote them in."
        ),
    )

    def __init__(self, *args, browser_zone: str | None = None, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)
        follow = _("Follow my browser")
        if browser_zone:
            follow = _("Follow my browser (now %(zone)s)") % {"zone": browser_zone}
        self.fields["time_zone"].choices = [("", follow), *zone_choices()]
        self.fields["language"].choices = [("", _("Follow my browser")), *language_choices()]
