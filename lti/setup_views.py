"""Registering softgrade in an LMS: the setup page (its URLs and tool configuration, with copy
buttons), the configuration as JSON, one-time registration links (each naming the courses its
registration is granted), and the dynamic registration page an LMS opens through such a link."""

from __future__ import annotations

import json
import logging

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from courses.models import Course
from lti import access, keys, selectors
from lti.content import CUSTOM_MASTERY_PASSBACK, CUSTOM_PRACTICE, CUSTOM_QUIZ
from lti.dynamic_registration import RegistrationRefused, dynamic_register, invite_create
from lti.tool_configuration import tool_configuration, tool_urls

logger = logging.getLogger("softgrade.lti")

# The registration page is opened by the LMS, often in a frame of its own administration pages,
# whose origin softgrade cannot know before the registration (one LMS may serve many schools'
# hosts). The page acts on GET behind a one-time link and has no control that acts, so framing
# it by any https page gives a click-jacker nothing to click.
REGISTRATION_FRAME_ANCESTORS = ["https:"]


class InviteForm(forms.Form):
    courses = forms.ModelMultipleChoiceField(
        queryset=Course.objects.order_by("title"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )


def _registering_or_403(request: HttpRequest) -> None:
    """Refuse unless the user may register softgrade in LMSs (lti/access.py): staff status
    alone is not enough."""
    if not access.may_register_platforms(user=request.user):
        raise PermissionDenied("Registering softgrade in an LMS needs the permission to do so.")


def _setup_context(request: HttpRequest, *, invite_form: InviteForm | None = None) -> dict:
    urls = tool_urls(request.build_absolute_uri)
    registrations = selectors.registrations_with_deployments()
    return {
        "urls": urls,
        "configuration_json": json.dumps(tool_configuration(urls), indent=2),
        "configuration_url": request.build_absolute_uri(reverse("lti:configuration")),
        "registrations": [
            (
                registration,
                request.build_absolute_uri(
                    reverse("lti:login-registration", args=[registration.uuid])
                ),
            )
            for registration in registrations
        ],
        "key_id": keys.key_id(keys.signing_key()),
        "overlap_days": settings.LTI_KEY_OVERLAP_DAYS,
        "custom_quiz": CUSTOM_QUIZ,
        "custom_practice": CUSTOM_PRACTICE,
        "custom_mastery": CUSTOM_MASTERY_PASSBACK,
        "invite_form": invite_form or InviteForm(),
    }


@login_required
@require_GET
def setup(request: HttpRequest) -> HttpResponse:
    """What an LMS administrator enters to register softgrade, and what is registered."""
    _registering_or_403(request)
    return render(request, "lti/setup.html", _setup_context(request))


@never_cache
@login_required
@require_POST
def registration_invite(request: HttpRequest) -> HttpResponse:
    """Make a one-time dynamic registration link, naming the courses its registration is
    granted, and show it, once, on the setup page."""
    _registering_or_403(request)
    form = InviteForm(request.POST)
    if not form.is_valid():
        context = _setup_context(request, invite_form=form)
        return render(request, "lti/setup.html", context, status=400)
    invite, token = invite_create(created_by=request.user, courses=form.cleaned_data["courses"])
    context = _setup_context(request)
    context["invite_url"] = request.build_absolute_uri(reverse("lti:register", args=[token]))
    context["invite"] = invite
    logger.info("LTI registration link %s made by user %s", invite.pk, request.user.pk)
    return render(request, "lti/setup.html", context)


@require_GET
def configuration(request: HttpRequest) -> JsonResponse:
    """The tool configuration as JSON, for an LMS that takes a configuration URL. It holds only
    softgrade's public URLs, so anyone may read it."""
    response = JsonResponse(
        tool_configuration(tool_urls(request.build_absolute_uri)), json_dumps_params={"indent": 2}
    )
    response["Content-Disposition"] = 'inline; filename="softgrade-lti-configuration.json"'
    return response


@never_cache
@require_GET
def register(request: HttpRequest, token: str) -> HttpResponse:
    """LTI Dynamic Registration, opened by the LMS through a one-time link
    (lti/dynamic_registration.py says who may start one and what is checked)."""
    request.lti_frame_ancestors = REGISTRATION_FRAME_ANCESTORS
    try:
        saved = dynamic_register(
            token=token,
            configuration_url=request.GET.get("openid_configuration", ""),
            registration_token=request.GET.get("registration_token", ""),
            urls=tool_urls(request.build_absolute_uri),
        )
    except RegistrationRefused as refusal:
        logger.warning(
            "LTI dynamic registration refused (%s): reason=%s %s",
            refusal.status,
            refusal.reason,
            refusal.message,
        )
        return render(
            request,
            "lti/register.html",
            {"refusal": refusal},
            status=refusal.status,
        )
    return render(request, "lti/register.html", {"saved": saved})
