"""The forms that turn a group of unexplained wrong answers into a named mistake of a formula
problem, or into a note. Each group on the page has its own pair, told apart by a prefix that the
form posts back ("group-3-mistake")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from django import forms
from django.utils.translation import gettext_lazy as _

from courses.models import Misconception
from courses.plain_math import plain_math
from teaching.models import MisconceptionNote

NEW = "new"
MISTAKE, NOTE = "mistake", "note"
PREFIX = re.compile(r"^group-(\d{1,4})-(mistake|note)$")


def prefix_for(index: int, kind: str) -> str:
    return f"group-{index}-{kind}"


class MistakeForm(forms.Form):
    relation = forms.CharField(max_length=120, widget=forms.HiddenInput)
    formula = forms.CharField(
        max_length=500,
        label=_("Mistake formula"),
        help_text=_(
            "Over the problem's variables; checked as the admin and a bank import check it."
        ),
    )
    misconception = forms.ChoiceField(label=_("Misconception it names"))
    code = forms.CharField(
        max_length=80,
        required=False,
        label=_("New misconception: code"),
        help_text=_("Lowercase letters, digits and hyphens."),
    )
    title = forms.CharField(max_length=200, required=False, label=_("New misconception: title"))
    explanation = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        label=_("New misconception: explanation"),
        help_text=_("What a learner reads: why the idea is wrong (Markdown, $…$ math)."),
    )

    def __init__(self, *args, misconceptions: Sequence[Misconception], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.known = {m.code: m for m in misconceptions}
        self.fields["misconception"].choices = [
            (NEW, _("A new misconception (give its code, title and explanation)")),
            *((m.code, f"{plain_math(m.title)} ({m.code})") for m in misconceptions),
        ]

    def chosen(self) -> Misconception | None:
        """The lesson's misconception picked, or None for a new one."""
        return self.known.get(self.cleaned_data["misconception"])


class NoteForm(forms.Form):
    relation = forms.CharField(max_length=120, widget=forms.HiddenInput)
    formula = forms.CharField(
        max_length=MisconceptionNote._meta.get_field("formula").max_length,
        widget=forms.HiddenInput,
    )
    text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        label=_("Note"),
        help_text=_("What the group shows, for the course's instructors."),
    )
