"""Forms for the learner's pages: sign-up, practice answers and quiz answers.

Every answer form carries a submission token, made fresh each time the form is rendered and
passed to the services as the idempotency key: a double click or a refresh that re-posts the
same form records one response, not two.
"""

from __future__ import annotations

import re
import secrets

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from grading.services.responses import SheetAnswer

# The engine explains anything over its own limit (1,000 characters) in words; this cap only
# stops a pasted novel from reaching it.
ANSWER_MAX_LENGTH = 5000


# User names of accounts softgrade makes itself: LMS learners who launch by LTI ("lti-…",
# lti.identity) and learners an integration provisions ("lms<integration id>-…",
# integrations.services). Nobody may take one, in any case, so no account ever looks like theirs.
RESERVED_USERNAME = re.compile(r"^(lti-|lms[0-9]+-)", re.IGNORECASE)
RESERVED_USERNAME_MESSAGE = _(
    "User names starting with “lti-” or “lms” and a number and a hyphen are kept for the "
    "accounts of learners who come from an LMS. Please choose another user name."
)


def username_unreserved(username: str) -> str:
    """The user name, or a ValidationError when it has a prefix softgrade keeps for itself."""
    if RESERVED_USERNAME.match(username):
        raise forms.ValidationError(RESERVED_USERNAME_MESSAGE, code="reserved_username")
    return username


def submission_token() -> str:
    """A fresh random token for one rendering of an answer form."""
    return secrets.token_urlsafe(18)


class SignupForm(UserCreationForm):
    """A learner account: a user name, a password (Django's validators apply) and, if the
    learner wants to be able to reset a forgotten password, an email address."""

    email = forms.EmailField(
        label=_("Email (optional)"),
        required=False,
        help_text=_("Only to send you a link if you forget your password. You can leave it empty."),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def clean_username(self) -> str | None:
        # Reserved first: whether an LMS learner's name is taken is nobody's business. Django's
        # own check then returns None, having recorded its error, for a name already taken.
        username_unreserved(self.cleaned_data.get("username") or "")
        return super().clean_username()


class TokenForm(forms.Form):
    token = forms.CharField(widget=forms.HiddenInput, max_length=64, required=False)

    def idempotency_key(self, *parts: object) -> str:
        """The submission token scoped to what it answers, or "" when the form sent none."""
        token = self.cleaned_data.get("token") or ""
        if not token:
            return ""
        return ":".join([token, *(str(part) for part in parts)])


class PracticeAnswerForm(TokenForm):
    variant = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    answer = forms.CharField(
        max_length=ANSWER_MAX_LENGTH,
        strip=False,
        error_messages={"required": _("Enter an answer before checking it.")},
    )


class ItemAnswerForm(TokenForm):
    """One quiz item answered on its own (practice quizzes, feedback per item)."""

    answer = forms.CharField(max_length=ANSWER_MAX_LENGTH, strip=False, required=False)
    choice = forms.TypedMultipleChoiceField(coerce=int, required=False, choices=())

    def __init__(self, *args, choice_ids: list[int] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["choice"].choices = [(pk, pk) for pk in choice_ids or []]


# An answer field of the sheet: item-<quiz item id>-answer (typed) or -choice (picked).
SHEET_FIELD = re.compile(r"item-(?P<item>[0-9]+)-(?:answer|choice)")


class SheetForm(TokenForm):
    """The whole answer sheet of an exam: save progress, save and review before submitting
    (the confirmation page), or save and submit (the confirmation's own button)."""

    action = forms.ChoiceField(
        choices=[
            ("save", _("Save")),
            ("review", _("Review and submit")),
            ("submit", pgettext_lazy("verb: submit an attempt", "Submit")),
        ]
    )

    def answers(self) -> dict[int, SheetAnswer]:
        """What the sheet sent per quiz item id, from its fields' names (the service ignores
        items that are not the quiz's): no read of the quiz's items here."""
        items = {int(match["item"]) for name in self.data if (match := SHEET_FIELD.fullmatch(name))}
        return {
            item: SheetAnswer(
                text=self.data.get(f"item-{item}-answer", ""),
                choice_ids=tuple(
                    int(value)
                    for value in self.data.getlist(f"item-{item}-choice")
                    if value.isdigit()
                ),
            )
            for item in items
        }
