"""Sign-in and sign-up limits: failed sign-ins per user name and per address, sign-ups per
address, for the pages' login, the admin's login and the sign-up page.

- A failed sign-in (a wrong password, an unknown name, an inactive account, a learner at the
  admin's login) counts against the user name and against the client's address. Once either
  has LOGIN_FAILURES_PER_NAME / LOGIN_FAILURES_PER_ADDRESS failures in the window, sign-ins
  for that name or from that address are refused without checking the password, with a
  message saying how long to wait, until the window ends. A refused sign-in counts nothing
  more, so the wait never grows.
- A successful sign-in counts nothing and forgets the user name's failures in the window: the
  owner proved the password, so their own typos should not leave the name a few guesses from
  a lockout. The address's failures are kept: an attacker must not clear their address's
  count by signing in to an account of their own between guesses.
- Each sign-up request (valid or not: a refused user name tells which names exist) counts
  against the address, up to SIGNUPS_PER_ADDRESS.
- Each password reset request counts against the address (PASSWORD_RESETS_PER_ADDRESS) and
  the email address typed (PASSWORD_RESETS_PER_EMAIL), whether an account uses it or not, so
  nobody can fill an inbox with reset mail and a refusal tells nothing about accounts.

User names count case-insensitively, so "Ada" and "ada" are one name to the limit.
"""

from __future__ import annotations

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from security.addresses import address_group, client_address
from security.limits import Limit, limit_record, limit_reset, limit_take, limit_wait, wait_in_words

TOO_MANY_FAILURES = "too_many_failures"


def _limits(request: HttpRequest | None, username: str) -> list[tuple[Limit, str, str]]:
    """(limit, ident, whose it is, for the message) for the name, and for the address when
    the form was given the request (Django's login views always give it)."""
    limits = [
        (
            Limit.of_setting("LOGIN_FAILURES_PER_NAME"),
            username.strip().casefold(),
            "for this user name",
        )
    ]
    if request is not None:
        limits.append(
            (
                Limit.of_setting("LOGIN_FAILURES_PER_ADDRESS"),
                address_group(client_address(request)),
                "from your network",
            )
        )
    return limits


def login_refusal(*, request: HttpRequest | None, username: str) -> str | None:
    """Why a sign-in is refused before its password is checked, or None."""
    waits = [
        (limit_wait(limit, ident), whose) for limit, ident, whose in _limits(request, username)
    ]
    wait, whose = max(waits)
    if not wait:
        return None
    return (
        f"Too many failed sign-ins {whose}. For your security, sign-in is paused: "
        f"try again in {wait_in_words(wait)}."
    )


def login_failed(*, request: HttpRequest | None, username: str) -> None:
    for limit, ident, _ in _limits(request, username):
        limit_record(limit, ident)


def login_succeeded(*, request: HttpRequest | None, username: str) -> None:
    name_limit, name, _ = _limits(request, username)[0]
    limit_reset(name_limit, name)


def signup_refusal(*, request: HttpRequest) -> str | None:
    """Count a sign-up request against the client's address; why it is refused, or None."""
    limit = Limit.of_setting("SIGNUPS_PER_ADDRESS")
    wait = limit_take(limit, address_group(client_address(request)))
    if not wait:
        return None
    return f"Too many sign-ups from your network. Try again in {wait_in_words(wait)}."


def password_reset_refusal(*, request: HttpRequest, email: str) -> str | None:
    """Count a reset request against the address and the email; why it is refused, or None."""
    limits = [
        (Limit.of_setting("PASSWORD_RESETS_PER_ADDRESS"), address_group(client_address(request))),
        (Limit.of_setting("PASSWORD_RESETS_PER_EMAIL"), email.strip().casefold()),
    ]
    wait = max(limit_take(limit, ident) for limit, ident in limits)
    if not wait:
        return None
    return f"Too many reset requests. Try again in {wait_in_words(wait)}."


class LoginLimited:
    """For an AuthenticationForm (it must have `request`): refuses while a limit is reached
    and counts every failure, as the module's docstring says."""

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        refusal = login_refusal(request=self.request, username=username)
        if refusal:
            raise ValidationError(refusal, code=TOO_MANY_FAILURES)
        if not username or not self.cleaned_data.get("password"):
            return super().clean()  # a field left blank: no sign-in was tried
        try:
            cleaned = super().clean()
        except ValidationError:
            login_failed(request=self.request, username=username)
            raise
        login_succeeded(request=self.request, username=username)
        return cleaned


class LimitedLoginForm(LoginLimited, AuthenticationForm):
    """The pages' sign-in form."""


class LimitedAdminLoginForm(LoginLimited, AdminAuthenticationForm):
    """The admin's sign-in form (staff only, as Django's)."""
