"""Sign-in and sign-up limits: failed sign-ins per (user name, address) pair and per address,
a per-name ceiling that slows guessing without locking anyone out, sign-ups and password reset
requests per address, for the pages' login, the admin's login and the sign-up page.

- A failed sign-in (a wrong password, an unknown name, an inactive account, a learner at the
  admin's login) counts against the (user name, address) pair, against the address and against
  the user name.
- Pair: once a name has LOGIN_FAILURES_PER_PAIR failures from one address in the window,
  sign-ins for that name from that address are refused without checking the password until the
  window ends. Someone guessing an instructor's password from their address pauses only
  themselves: the instructor, signing in from theirs, never meets that pause.
- Address: once an address has LOGIN_FAILURES_PER_ADDRESS failures in the window (over any
  names), every sign-in from it is refused the same way.
- Name ceiling: once a name has LOGIN_FAILURES_PER_NAME failures in the window (from any
  addresses: a guess spread over many), sign-in for that name is slowed, never paused: from
  each address the name may be tried once per delay, the password checked only then. The delay
  is LOGIN_SLOWDOWN_SECONDS, doubled for each further ceiling's worth of failures, at most the
  ceiling's window. A guesser's many addresses each wait the delay; the owner's address, if it
  has not tried the name in the current delay, goes straight to the password check, so the
  right password always signs them in, at worst one delay after a typo.
- Each refusal says why and how long to wait (the site's sign-in page answers 429 with
  Retry-After); a refused sign-in counts nothing more, so a wait never grows by being asked about.
- A successful sign-in counts nothing and forgets its pair's failures: the owner proved the
  password, so their own typos should not leave them a few guesses from a pause. The address's
  and the name's failures are kept: an attacker must not clear their address's count by signing
  in to an account of their own between guesses, and an owner signing in must not reopen the
  name to a guess spread over many addresses.
- Each sign-up request (valid or not: a refused user name tells which names exist) counts
  against the address, up to SIGNUPS_PER_ADDRESS.
- Each password reset request counts against the address (PASSWORD_RESETS_PER_ADDRESS) and
  the email address typed (PASSWORD_RESETS_PER_EMAIL), whether an account uses it or not, so
  nobody can fill an inbox with reset mail and a refusal tells nothing about accounts.

User names count case-insensitively, so "Ada" and "ada" are one name to the limits. A form
built without the request (none of Django's login views does that) counts every sign-in as
coming from one unknown address.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext

from security.addresses import UNKNOWN, address_group, client_address
from security.limits import (
    Limit,
    limit_count,
    limit_record,
    limit_reset,
    limit_take,
    limit_wait,
    wait_in_words,
)

TOO_MANY_FAILURES = "too_many_failures"


@dataclass(frozen=True)
class LoginRefusal:
    """Why a sign-in is refused before its password is checked, and the seconds to wait."""

    message: str
    wait: float

    @property
    def retry_after(self) -> str:
        """The wait for a Retry-After header: whole seconds, never 0."""
        return str(max(1, math.ceil(self.wait)))


@dataclass(frozen=True)
class _Signer:
    """Who a sign-in counts against: the user name, the address, and the two together."""

    name: str
    address: str

    @classmethod
    def of(cls, request: HttpRequest | None, username: str) -> _Signer:
        address = address_group(client_address(request)) if request is not None else UNKNOWN
        return cls(username.strip().casefold(), address)

    @property
    def pair(self) -> str:
        # A user name may hold any character, so the address goes first, where it has no "\n".
        return f"{self.address}\n{self.name}"


def _pair_limit() -> Limit:
    return Limit.of_setting("LOGIN_FAILURES_PER_PAIR")


def _address_limit() -> Limit:
    return Limit.of_setting("LOGIN_FAILURES_PER_ADDRESS")


def _name_limit() -> Limit:
    return Limit.of_setting("LOGIN_FAILURES_PER_NAME")


def slowdown_delay(*, failures: int, ceiling: Limit) -> int:
    """Seconds between two tries of a slowed name from one address: none under the ceiling,
    then LOGIN_SLOWDOWN_SECONDS, doubled for each further ceiling's worth of failures, at most
    the ceiling's period. With a 30/15m ceiling and 30 s: 29 failures -> 0, 30 -> 30,
    60 -> 60, 90 -> 120, 180 or more -> 900."""
    if failures < ceiling.count:
        return 0
    doublings = min(failures // ceiling.count - 1, 32)  # 2**32 s outlasts any period
    return min(int(settings.LOGIN_SLOWDOWN_SECONDS) * 2**doublings, ceiling.period)


def _seconds_in_words(seconds: float, *, about: bool = True) -> str:
    """'25 seconds' under two minutes, then minutes: 'about 4 minutes' for a wait, '4 minutes'
    for a delay (always whole minutes past two)."""
    whole = max(1, math.ceil(seconds))
    if whole < 120:
        return ngettext("%(count)s second", "%(count)s seconds", whole) % {"count": whole}
    if about:
        return wait_in_words(seconds)
    minutes = math.ceil(whole / 60)
    return ngettext("%(count)s minute", "%(count)s minutes", minutes) % {"count": minutes}


def login_refusal(*, request: HttpRequest | None, username: str) -> LoginRefusal | None:
    """Why a sign-in is refused before its password is checked, or None (see the module's
    docstring). A slowed name's try from an address takes that address's turn."""
    signer = _Signer.of(request, username)
    # Whole sentences, one for each limit, so that each language words them its own way. The
    # longer wait is told; of two equal ones, the address's (the first).
    paused = [
        (
            limit_wait(_address_limit(), signer.address),
            gettext(
                "Too many failed sign-ins from your network. For your security, sign-in is "
                "paused: try again in %(wait)s."
            ),
        ),
        (
            limit_wait(_pair_limit(), signer.pair),
            gettext(
                "Too many failed sign-ins for this user name from your network. For your "
                "security, sign-in is paused: try again in %(wait)s."
            ),
        ),
    ]
    wait, sentence = max(paused, key=lambda pause: pause[0])
    if wait:
        return LoginRefusal(sentence % {"wait": wait_in_words(wait)}, wait)
    ceiling = _name_limit()
    delay = slowdown_delay(failures=limit_count(ceiling, signer.name), ceiling=ceiling)
    if not delay:
        return None
    # One try per delay for each (name, address): the first in each delay-long window passes.
    # Windows are fixed, as every limit's (security/limits.py): two tries may fall either side
    # of a window's edge, but never more than one per delay on average.
    turn = Limit(f"login_slowed_{delay}", 1, delay)
    wait = limit_take(turn, signer.pair)
    if not wait:
        return None
    message = gettext(
        "Many failed sign-ins for this user name lately. For your security, it can be tried "
        "only once every %(delay)s from each network: try again in %(wait)s."
    ) % {"delay": _seconds_in_words(delay, about=False), "wait": _seconds_in_words(wait)}
    return LoginRefusal(message, wait)


def login_failed(*, request: HttpRequest | None, username: str) -> None:
    signer = _Signer.of(request, username)
    limit_record(_pair_limit(), signer.pair)
    limit_record(_address_limit(), signer.address)
    limit_record(_name_limit(), signer.name)


def login_succeeded(*, request: HttpRequest | None, username: str) -> None:
    limit_reset(_pair_limit(), _Signer.of(request, username).pair)


def signup_refusal(*, request: HttpRequest) -> str | None:
    """Count a sign-up request against the client's address; why it is refused, or None."""
    limit = Limit.of_setting("SIGNUPS_PER_ADDRESS")
    wait = limit_take(limit, address_group(client_address(request)))
    if not wait:
        return None
    return gettext("Too many sign-ups from your network. Try again in %(wait)s.") % {
        "wait": wait_in_words(wait)
    }


def password_reset_refusal(*, request: HttpRequest, email: str) -> str | None:
    """Count a reset request against the address and the email; why it is refused, or None."""
    limits = [
        (Limit.of_setting("PASSWORD_RESETS_PER_ADDRESS"), address_group(client_address(request))),
        (Limit.of_setting("PASSWORD_RESETS_PER_EMAIL"), email.strip().casefold()),
    ]
    wait = max(limit_take(limit, ident) for limit, ident in limits)
    if not wait:
        return None
    return gettext("Too many reset requests. Try again in %(wait)s.") % {
        "wait": wait_in_words(wait)
    }


class LoginLimited:
    """For an AuthenticationForm (it must have `request`): refuses while a limit says so and
    counts every failure, as the module's docstring says. A refused form's `refusal` holds the
    wait, for the page's Retry-After."""

    refusal: LoginRefusal | None = None

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        if not username or not self.cleaned_data.get("password"):
            return super().clean()  # a field left blank: no sign-in was tried, no turn taken
        self.refusal = login_refusal(request=self.request, username=username)
        if self.refusal:
            raise ValidationError(self.refusal.message, code=TOO_MANY_FAILURES)
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
