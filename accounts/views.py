"""The person's own settings page ("Your settings", /account/) and the language selector that
every page carries (/account/language/)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import SettingsForm
from accounts.languages import SOURCES as LANGUAGE_SOURCES
from accounts.middleware import profile_zone_of
from accounts.services import profile_language_set, profile_time_zone_set
from accounts.time_zones import BROWSER_ZONE_COOKIE, SOURCES, zone_or_none


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request: HttpRequest) -> HttpResponse:
    browser = zone_or_none(request.COOKIES.get(BROWSER_ZONE_COOKIE))
    profile = getattr(request.user, "profile", None)
    form = SettingsForm(
        request.POST or None,
        initial={
            "time_zone": profile_zone_of(request.user),
            "language": profile.language if profile is not None else "",
        },
        browser_zone=browser.key if browser else None,
    )
    if request.method == "POST" and form.is_valid():
        profile_language_set(user=request.user, language=form.cleaned_data["language"])
        profile = profile_time_zone_set(user=request.user, time_zone=form.cleaned_data["time_zone"])
        # The confirmation is read on the next page, in the language just chosen.
        translation.activate(form.cleaned_data["language"] or request.LANGUAGE_CODE)
        if profile.time_zone:
            messages.success(
                request, _("Times are now shown in %(zone)s.") % {"zone": profile.time_zone}
            )
        else:
            messages.success(request, _("Times now follow your browser's time zone."))
        return redirect("account-settings")
    context = {
        "form": form,
        "zone": request.time_zone,
        "zone_source": SOURCES[request.time_zone.source],
        "language_source": LANGUAGE_SOURCES[request.language_source],
        "now": timezone.now(),
    }
    return render(request, "accounts/settings.html", context)


@require_POST
def language_choose(request: HttpRequest) -> HttpResponse:
    """The selector on every page: remember the language chosen (in the profile when signed in,
    in a cookie always, so the choice outlives signing out) and go back to the page it was on."""
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        return HttpResponseBadRequest(_("softgrade does not speak that language."))
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = reverse("home")
    if request.user.is_authenticated:
        profile_language_set(user=request.user, language=language)
    response = redirect(back)
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
    )
    return response
