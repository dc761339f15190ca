"""LTI 1.3 pages: the tool's JWKS, OIDC login, launch, the deep-linking picker and the instructor
view of a link (the setup page and dynamic registration are in lti/setup_views.py).

The login and launch endpoints are CSRF-exempt because the LMS posts to them from its own site;
the OIDC state cookie and the single-use nonce are what protect them instead. Every refusal is a
4xx page in words for the learner and one log line for the administrator.
"""

from __future__ import annotations

import logging
import math
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.crypto import get_random_string
from django.utils.csp import CSP
from django.utils.translation import gettext, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.backends import ACCOUNT_BACKEND
from accounts.languages import SESSION_LTI_LOCALE
from grading.models import Attempt
from grading.services.overdue import overdue_attempts_close
from lti import access, keys, selectors
from lti.deep_linking import LtiServiceError, deep_linking_respond
from lti.launch.accept import launch_accept
from lti.launch.claims import LAUNCH_PRESENTATION
from lti.launch.login import NONCE_LIFETIME, login_initiate, state_cookie_name
from lti.launch.roles import launch_teaching_landing
from lti.launch.verify import launch_verify
from lti.middleware import SESSION_FRAME_ANCESTORS, platform_origin
from lti.models import LinkTarget
from lti.refusals import LaunchRefused, refusal_log
from lti.roster import roster_sync
from security.addresses import address_group, client_address
from security.content_policy import relax
from security.limits import Limit, limit_take, wait_in_words

logger = logging.getLogger("softgrade.lti")

# Deep-linking requests waiting for the instructor's choice, by a one-time token.
SESSION_DEEP_LINKING = "lti_deep_linking"
# A cookie the login page sets and its script looks for: absent means the browser blocks
# softgrade's cookies in this frame, and the learner is offered a new tab instead.
COOKIE_CHECK = "sg_lti_cookie_check"
NEW_WINDOW_PARAM = "sg_new_window"
LOGIN_PARAMS = (
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "lti_deployment_id",
    "client_id",
)


def _refused(request: HttpRequest, refusal: LaunchRefused, *, step: str) -> HttpResponse:
    params = request.POST if request.method == "POST" else request.GET
    refusal_log(refusal, step=step, params=params)
    return render(request, "lti/refused.html", {"message": refusal.message}, status=refusal.status)


def _launch_url(request: HttpRequest) -> str:
    return request.build_absolute_uri(reverse("lti:launch"))


def _cookie_options(request: HttpRequest) -> dict:
    # Inside the LMS's iframe the launch is a cross-site POST: only SameSite=None cookies come
    # back with it, and browsers accept those only when Secure, so only over HTTPS.
    secure = request.is_secure()
    return {"secure": secure, "samesite": "None" if secure else "Lax"}


@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    """softgrade's public keys, for platforms to verify what it signs."""
    response = JsonResponse(keys.jwks())
    response["Cache-Control"] = "public, max-age=300"
    return response


@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def oidc_login(request: HttpRequest, registration_uuid: str | None = None) -> HttpResponse:
    """Step one of a launch: the LMS sends the browser here; softgrade sends it to the LMS's
    authorization endpoint with a fresh state (in a cookie) and nonce."""
    address = client_address(request)
    # Each login initiation stores a nonce row: a flood from one address is refused before it.
    wait = limit_take(Limit.of_setting("LTI_LOGINS_PER_ADDRESS"), address_group(address))
    if wait:
        logger.warning("LTI login throttled for the address %s", address)
        refusal = LaunchRefused(
            gettext(
                "Too many launches came from your network in a short time. Wait %(wait)s, then "
                "open the activity again from your LMS."
            )
            % {"wait": wait_in_words(wait)},
            reason="login_throttled",
            status=429,
        )
        response = _refused(request, refusal, step="login")
        response["Retry-After"] = str(math.ceil(wait))
        return response
    params = request.POST if request.method == "POST" else request.GET
    try:
        login_redirect = login_initiate(
            params=params,
            launch_url=_launch_url(request),
            registration_uuid=str(registration_uuid) if registration_uuid else None,
        )
    except LaunchRefused as refusal:
        return _refused(request, refusal, step="login")
    request.lti_frame_ancestors = [platform_origin(login_redirect.registration.auth_url)]
    if params.get(NEW_WINDOW_PARAM):
        response = redirect(login_redirect.auth_url)
    else:
        retry = {key: params[key] for key in LOGIN_PARAMS if params.get(key)}
        retry[NEW_WINDOW_PARAM] = "1"
        response = render(
            request,
            "lti/login.html",
            {
                "auth_url": login_redirect.auth_url,
                "new_window_url": f"{request.path}?{urlencode(retry)}",
                "cookie_check": COOKIE_CHECK,
            },
        )
        response.set_cookie(
            COOKIE_CHECK, "1", max_age=60, httponly=False, **_cookie_options(request)
        )
    response.set_cookie(
        state_cookie_name(login_redirect.state),
        login_redirect.state,
        max_age=int(NONCE_LIFETIME.total_seconds()),
        httponly=True,
        **_cookie_options(request),
    )
    return response


@csrf_exempt
@never_cache
@require_POST
def launch(request: HttpRequest) -> HttpResponse:
    """Step two: the LMS posts the signed id_token; softgrade checks it, signs the learner in
    and sends them to the link's quiz or practice set (the course's instructors and teaching
    assistants to that content's instructor page, other instructor roles to the link's
    instructor view, deep linking to the picker). Never to a URL the request names."""
    state = request.POST.get("state", "")
    cookie_name = state_cookie_name(state) if state else ""
    try:
        verified = launch_verify(
            id_token=request.POST.get("id_token", ""),
            state=state,
            state_cookie=request.COOKIES.get(cookie_name) if cookie_name else None,
        )
        result = launch_accept(request=request, launch=verified)
    except LaunchRefused as refusal:
        return _refused(request, refusal, step="launch")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        # A claim of the wrong shape (say, a context that is not an object) is the LMS's error.
        logger.warning("LTI launch refused: malformed claims (%s: %s)", type(exc).__name__, exc)
        return render(
            request,
            "lti/refused.html",
            {"message": gettext("The LMS sent a launch whose contents softgrade cannot read.")},
            status=400,
        )
    login(request, result.user, backend=ACCOUNT_BACKEND)
    request.session[SESSION_FRAME_ANCESTORS] = [platform_origin(result.registration.auth_url)]
    # The LMS's language for this learner, used when neither they nor their browser chose one.
    presentation = verified.claims.get(LAUNCH_PRESENTATION)
    locale = presentation.get("locale") if isinstance(presentation, dict) else None
    request.session[SESSION_LTI_LOCALE] = locale if isinstance(locale, str) else None
    if result.deep_linking is not None:
        token = get_random_string(24)
        pending = request.session.get(SESSION_DEEP_LINKING, {})
        pending[token] = result.deep_linking
        request.session[SESSION_DEEP_LINKING] = pending
        response = redirect("lti:deep-linking", token=token)
    elif result.course_role is not None and (
        landing := launch_teaching_landing(user=result.user, target=result.target)
    ):
        response = redirect(landing)
    elif result.teaching:
        response = redirect("lti:link-instructor", pk=result.target.pk)
    elif result.target.kind == LinkTarget.Kind.QUIZ:
        response = redirect("quiz-detail", slug=result.target.quiz.slug)
    else:
        response = redirect("practice-lesson", slug=result.target.lesson.slug)
    response.delete_cookie(cookie_name, samesite=_cookie_options(request)["samesite"])
    return response


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def deep_linking(request: HttpRequest, token: str) -> HttpResponse:
    """The instructor's picker: choose a quiz or a practice set, of the courses granted to the
    LMS, to place in it."""
    pending = request.session.get(SESSION_DEEP_LINKING, {})
    request_state = pending.get(token)
    if request_state is None:
        raise Http404("This content picker has expired; open it again from the LMS.")
    granted = {
        "registration": request_state["registration_id"],
        "deployment": request_state.get("deployment_pk"),
    }
    quizzes, lessons = selectors.deep_linking_choices(**granted)
    error = ""
    if request.method == "POST":
        kind, _, slug = request.POST.get("content", "").partition(":")
        content = selectors.deep_linking_choice(**granted, kind=kind, slug=slug)
        if content is None:
            error = gettext("Choose a quiz or a practice set.")
        else:
            try:
                reply = deep_linking_respond(
                    request_state=request_state,
                    content=content,
                    mastery_passback=bool(request.POST.get("mastery_passback")),
                    launch_url=_launch_url(request),
                )
            except LtiServiceError as refusal:
                error = refusal.message
            else:
                pending.pop(token, None)
                request.session[SESSION_DEEP_LINKING] = pending
                response = render(
                    request,
                    "lti/deep_linking_return.html",
                    {"return_url": reply.return_url, "jwt": reply.jwt, "content": content},
                )
                # The form goes back to the LMS, so this one page may post to its origin.
                relax(response, "form-action", [CSP.SELF, platform_origin(reply.return_url)])
                return response
    return render(
        request,
        "lti/deep_linking.html",
        {"quizzes": quizzes, "lessons": lessons, "token": token, "error": error},
        status=400 if error else 200,
    )


def _teacher_target(request: HttpRequest, pk: int) -> LinkTarget:
    try:
        return selectors.link_target_for_teacher(user=request.user, pk=pk)
    except ObjectDoesNotExist as exc:
        raise Http404("No such link among the courses you teach.") from exc


@login_required
@require_GET
def link_instructor(request: HttpRequest, pk: int) -> HttpResponse:
    """The instructor view of an LMS link: its content, learners' results, scores sent back
    (lti/access.py says who may open it, and who may sync its roster)."""
    target = _teacher_target(request, pk)
    if target.kind == LinkTarget.Kind.QUIZ:
        # Best scores are of submitted attempts: one whose time ran out is closed first.
        overdue_attempts_close(among=Attempt.objects.filter(quiz_id=target.quiz_id))
    context = {
        "target": target,
        "may_sync_roster": access.may_act_on_link(
            user=request.user, target=target, action=access.LinkAction.ROSTER_SYNC
        ),
        "items": selectors.link_content_items(target=target),
        "learners": selectors.link_learners(target=target),
        "passbacks": selectors.link_passbacks(target=target),
        "roster_syncs": selectors.link_roster_syncs(target=target),
        "lms_context": target.resource_link.context,
    }
    return render(request, "lti/link_instructor.html", context)


@login_required
@require_POST
def link_roster_sync(request: HttpRequest, pk: int) -> HttpResponse:
    """Sync the link's course roster from the LMS (NRPS). A link the user may open but not
    sync is a 403: the page exists for them, so the refusal says so."""
    target = _teacher_target(request, pk)
    if not access.may_act_on_link(
        user=request.user, target=target, action=access.LinkAction.ROSTER_SYNC
    ):
        raise PermissionDenied("Syncing this course's roster is for its instructors.")
    sync = roster_sync(context=target.resource_link.context, requested_by=request.user)
    if sync.status == sync.Status.DONE:
        synced = ngettext(
            "Roster synced: %(members)s member, %(active)s active.",
            "Roster synced: %(members)s members, %(active)s active.",
            sync.members,
        )
        messages.success(request, synced % {"members": sync.members, "active": sync.active_members})
    else:
        messages.error(
            request,
            gettext("The roster could not be synced: %(detail)s") % {"detail": sync.detail},
        )
    return redirect("lti:link-instructor", pk=target.pk)
