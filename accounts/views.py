"""The person's own settings page ("Your settings", /account/)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.forms import SettingsForm
from accounts.middleware import profile_zone_of
from accounts.services import profile_time_zone_set
from accounts.time_zones import BROWSER_ZONE_COOKIE, SOURCES, zone_or_none


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request: HttpRequest) -> HttpResponse:
    browser = zone_or_none(request.COOKIES.get(BROWSER_ZONE_COOKIE))
    form = SettingsForm(
        request.POST or None,
        initial={"time_zone": profile_zone_of(request.user)},
        browser_zone=browser.key if browser else None,
    )
    if request.method == "POST" and form.is_valid():
        profile = profile_time_zone_set(user=request.user, time_zone=form.cleaned_data["time_zone"])
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
        "now": timezone.now(),
    }
    return render(request, "accounts/settings.html", context)
