"""LTI 1.3 as typed service functions: accept a launch, answer deep linking, send scores back
(Assignment and Grade Services) and sync rosters (Names and Role Provisioning Services).

Scores owed to an LMS are rows (`ScorePassback`) before anything is sent, and the sending is a
background task: an LMS that is slow or down never blocks a learner or loses a score. Each try's
outcome is kept; a retryable failure is tried again later with exponential backoff, for as long
as it takes; a refusal waits for an instructor's "resend".
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import (
    LtiContext,
    LtiDeployment,
    LtiLaunch,
    LtiRegistration,
    LtiResourceLink,
    LtiUser,
)
from lti_tool.utils import DjangoToolConfig, sync_data_from_launch
from pylti1p3.contrib.django import DjangoMessageLaunch

from courses.models import Lesson, Quiz
from grading.models import Attempt, PracticeStreak
from lti import keys, platform
from lti.identity import link_launch_record, lti_account
from lti.launches import (
    AGS_ENDPOINT,
    CUSTOM,
    DEEP_LINKING_REQUEST,
    DEEP_LINKING_SETTINGS,
    DEPLOYMENT_ID,
    ROLES,
    LaunchRefused,
    VerifiedLaunch,
)
from lti.models import (
    LineItem,
    LinkLaunch,
    LinkTarget,
    PassbackOutcome,
    RosterSync,
    ScorePassback,
)

logger = logging.getLogger("softgrade.lti")

# Custom parameters a link carries (set by deep linking, or typed by an LMS administrator).
CUSTOM_QUIZ = "softgrade_quiz"
CUSTOM_PRACTICE = "softgrade_practice"
CUSTOM_MASTERY_PASSBACK = "softgrade_mastery_passback"

# Roles that land on the instructor view and may pick content in deep linking.
TEACHING_ROLES = (ContextRole.INSTRUCTOR, ContextRole.ADMINISTRATOR, ContextRole.CONTENT_DEVELOPER)

# Retries: 30 s, 1 min, 2 min, … doubling up to 6 hours, then every 6 hours until the LMS answers.
RETRY_FIRST_DELAY = timedelta(seconds=30)
RETRY_MAX_DELAY = timedelta(hours=6)


class LtiServiceError(Exception):
    """A request the LTI rules refuse; the message is for people."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


def platform_origin(url: str) -> str:
    """scheme://host[:port] of an LMS URL: what CSP frame-ancestors names."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def is_teaching(roles: list[str]) -> bool:
    """Instructor, administrator or content developer of the context (sub-roles included)."""
    for role in roles:
        normal = normalize_role(role)
        if any(normal == r.value or normal.startswith(r.value + "#") for r in TEACHING_ROLES):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Launch
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LaunchResult:
    """Who arrived, in which role, and where they go: a link's content or the deep-link picker."""

    user: AbstractBaseUser
    teaching: bool
    registration: LtiRegistration
    deployment: LtiDeployment
    context: LtiContext | None
    target: LinkTarget | None
    deep_linking: dict | None


class _VerifiedToolConfig(DjangoToolConfig):
    """django-lti's tool configuration, holding what softgrade's own checks already found."""

    def __init__(self, registration: LtiRegistration, deployment: LtiDeployment):
        super().__init__(registration_uuid=registration.uuid)
        self.registration = registration
        self.deployment = deployment


def _django_lti_launch(request, launch: VerifiedLaunch) -> LtiLaunch:
    # A "restored" message launch skips pylti1p3's own validation: softgrade's is stricter and
    # has already run. django-lti's sync functions then store what the launch says.
    message_launch = DjangoMessageLaunch(
        request, _VerifiedToolConfig(launch.registration, launch.deployment)
    )
    message_launch.set_jwt({"header": launch.header, "body": launch.claims})
    message_launch.set_auto_validation(enable=False).set_restored()
    return LtiLaunch(message_launch)


def _custom_target(custom: dict) -> tuple[str, Quiz | Lesson, bool] | None:
    """What the link's custom parameters name, or None when they name nothing."""
    for parameter, model, kind in (
        (CUSTOM_QUIZ, Quiz, LinkTarget.Kind.QUIZ),
        (CUSTOM_PRACTICE, Lesson, LinkTarget.Kind.PRACTICE),
    ):
        slug = custom.get(parameter)
        if not slug:
            continue
        content = model.objects.filter(slug=slug).first()
        if content is None:
            label = LinkTarget.Kind(kind).label.lower()
            raise LaunchRefused(
                f"This link names a softgrade {label} that no longer exists. Ask your "
                "instructor to choose it again.",
                reason=f"unknown_{kind} ({slug})",
                status=404,
            )
        mastery = kind == LinkTarget.Kind.PRACTICE and str(
            custom.get(CUSTOM_MASTERY_PASSBACK, "")
        ).lower() in ("1", "true", "yes")
        return kind, content, mastery
    return None


def _link_target(*, resource_link: LtiResourceLink, custom: dict) -> LinkTarget:
    named = _custom_target(custom)
    if named is None:
        target = LinkTarget.objects.filter(resource_link=resource_link).first()
        if target is None:
            raise LaunchRefused(
                "This LMS link does not open any softgrade content yet. Your instructor adds "
                "softgrade quizzes through the LMS's content picker (deep linking).",
                reason="link_without_content",
                status=404,
            )
        return target
    kind, content, mastery = named
    target, _ = LinkTarget.objects.update_or_create(
        resource_link=resource_link,
        defaults={
            "kind": kind,
            "quiz": content if kind == LinkTarget.Kind.QUIZ else None,
            "lesson": content if kind == LinkTarget.Kind.PRACTICE else None,
            "mastery_passback": mastery,
        },
    )
    return target


def _line_item_from_launch(*, target: LinkTarget, claims: dict) -> None:
    # When the LMS names the link's column (deep linking made one), that is the one to use.
    lineitem_url = (claims.get(AGS_ENDPOINT) or {}).get("lineitem")
    if lineitem_url and target.sends_scores:
        LineItem.objects.update_or_create(target=target, defaults={"url": lineitem_url})


@transaction.atomic
def launch_accept(*, request, launch: VerifiedLaunch) -> LaunchResult:
    """Store what a verified launch says and find the softgrade user and content it leads to."""
    lti_launch = _django_lti_launch(request, launch)
    sync_data_from_launch(lti_launch)
    lti_user = lti_launch.user
    user = lti_account(lti_user=lti_user)
    teaching = is_teaching(launch.claims[ROLES])
    context = lti_launch.context
    if launch.message_type == DEEP_LINKING_REQUEST:
        if not teaching:
            raise LaunchRefused(
                "Only instructors can choose softgrade content for the LMS.",
                reason="deep_linking_not_instructor",
                status=403,
            )
        return LaunchResult(
            user=user,
            teaching=True,
            registration=launch.registration,
            deployment=launch.deployment,
            context=context,
            target=None,
            deep_linking=deep_linking_request(launch=launch),
        )
    target = _link_target(
        resource_link=lti_launch.resource_link, custom=launch.claims.get(CUSTOM) or {}
    )
    _line_item_from_launch(target=target, claims=launch.claims)
    link_launch_record(target=target, lti_user=lti_user, user=user)
    return LaunchResult(
        user=user,
        teaching=teaching,
        registration=launch.registration,
        deployment=launch.deployment,
        context=context,
        target=target,
        deep_linking=None,
    )


# ---------------------------------------------------------------------------------------------
# Deep linking
# ---------------------------------------------------------------------------------------------


def deep_linking_request(*, launch: VerifiedLaunch) -> dict:
    """What the deep-linking response must echo, kept in the instructor's session."""
    settings_claim = launch.claims[DEEP_LINKING_SETTINGS]
    return {
        "registration_id": launch.registration.pk,
        "deployment_id": launch.claims[DEPLOYMENT_ID],
        "return_url": settings_claim["deep_link_return_url"],
        "data": settings_claim.get("data"),
        "accept_lineitem": settings_claim.get("accept_lineitem", True) is not False,
    }


@dataclass(frozen=True)
class DeepLinkingResponse:
    return_url: str
    jwt: str


def deep_linking_respond(
    *,
    request_state: dict,
    content: Quiz | Lesson,
    mastery_passback: bool,
    launch_url: str,
    now: datetime | None = None,
) -> DeepLinkingResponse:
    """A signed LtiDeepLinkingResponse placing one quiz or practice set, with its line item."""
    now = now or timezone.now()
    registration = LtiRegistration.objects.active().filter(pk=request_state["registration_id"])
    registration = registration.first()
    if registration is None:
        raise LtiServiceError("This LMS's registration was switched off; nothing was added.")
    if isinstance(content, Quiz):
        custom = {CUSTOM_QUIZ: content.slug}
        score_maximum = float(sum(item.points for item in content.items.all()))
        resource_id = f"quiz:{content.slug}"
        title = content.title
        sends_scores = True
    else:
        custom = {CUSTOM_PRACTICE: content.slug}
        if mastery_passback:
            custom[CUSTOM_MASTERY_PASSBACK] = "true"
        score_maximum = float(content.problems.for_practice().count())
        resource_id = f"practice:{content.slug}"
        title = f"Practice: {content.title}"
        sends_scores = mastery_passback
    item: dict = {
        "type": "ltiResourceLink",
        "title": title,
        # Every link launches at softgrade's one launch URL; the custom parameters say what.
        "url": launch_url,
        "custom": custom,
    }
    if sends_scores and score_maximum > 0 and request_state.get("accept_lineitem", True):
        item["lineItem"] = {
            "scoreMaximum": score_maximum,
            "label": title,
            "resourceId": resource_id,
            "tag": "softgrade",
        }
    claims = {
        "iss": registration.client_id,
        "aud": registration.issuer,
        "exp": int((now + timedelta(minutes=5)).timestamp()),
        "iat": int(now.timestamp()),
        "nonce": secrets.token_urlsafe(16),
        "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiDeepLinkingResponse",
        "https://purl.imsglobal.org/spec/lti/claim/version": "1.3.0",
        DEPLOYMENT_ID: request_state["deployment_id"],
        "https://purl.imsglobal.org/spec/lti-dl/claim/content_items": [item],
        "https://purl.imsglobal.org/spec/lti-dl/claim/msg": f"Added “{title}” from softgrade.",
    }
    if request_state.get("data") is not None:
        claims["https://purl.imsglobal.org/spec/lti-dl/claim/data"] = request_state["data"]
    return DeepLinkingResponse(
        return_url=request_state["return_url"], jwt=keys.sign(claims, now=now)
    )


# ---------------------------------------------------------------------------------------------
# Grade passback (AGS)
# ---------------------------------------------------------------------------------------------


def _launched_targets(*, user, targets) -> list[tuple[LinkTarget, LtiUser]]:
    """(link, platform user) pairs: each of these links the learner launched from, in a course
    that takes scores. A link to the same content they never opened gets nothing."""
    launches = (
        LinkLaunch.objects.filter(
            user=user,
            target__in=targets,
            target__resource_link__context__can_publish_scores=True,
        )
        .select_related("lti_user", "target__resource_link__context__deployment__registration")
        .order_by("pk")
    )
    return [(launch.target, launch.lti_user) for launch in launches]


def _passback_queue(
    *,
    target: LinkTarget,
    lti_user: LtiUser,
    score_given: float,
    score_maximum: float,
    progress: str,
    scored_at: datetime,
    attempt: Attempt | None = None,
) -> ScorePassback:
    now = timezone.now()
    with transaction.atomic():
        # An older score still waiting would only overwrite this one later: it is replaced.
        ScorePassback.objects.filter(
            target=target, lti_user=lti_user, status=ScorePassback.Status.QUEUED
        ).update(status=ScorePassback.Status.SUPERSEDED, next_try_at=None, updated_at=now)
        passback = ScorePassback.objects.create(
            target=target,
            lti_user=lti_user,
            attempt=attempt,
            score_given=score_given,
            score_maximum=score_maximum,
            activity_progress=progress,
            scored_at=scored_at,
            next_try_at=now,
        )
        transaction.on_commit(lambda: passback_schedule(passback=passback, when=None))
    return passback


def passback_schedule(*, passback: ScorePassback, when: datetime | None) -> None:
    """Put the passback's delivery on the task queue; a queue failure leaves the row queued,
    for `manage.py lti_passback_sweep` to pick up."""
    from lti.tasks import score_passback_deliver  # the task module imports this one

    try:
        task = score_passback_deliver.using(run_after=when) if when else score_passback_deliver
        task.enqueue(passback.pk)
    except Exception:
        logger.exception("LTI passback %s could not be queued; the sweep will retry", passback.pk)


def _best_quiz_score(*, user, quiz: Quiz) -> Attempt | None:
    return (
        Attempt.objects.filter(user=user, quiz=quiz, status=Attempt.Status.SUBMITTED)
        .order_by("-score", "-submitted_at")
        .first()
    )


def attempt_passback_enqueue(*, attempt: Attempt) -> list[ScorePassback]:
    """Queue the learner's quiz score for every LMS link to this quiz they launched from.

    Called by grading after an attempt is submitted (or closed at its deadline); the score sent
    is the learner's best submitted attempt. Never raises: a learner's submission stands
    whatever happens here.
    """
    try:
        if attempt.status != Attempt.Status.SUBMITTED:
            return []
        targets = LinkTarget.objects.filter(kind=LinkTarget.Kind.QUIZ, quiz_id=attempt.quiz_id)
        pairs = _launched_targets(user=attempt.user, targets=targets)
        if not pairs:
            return []
        best = _best_quiz_score(user=attempt.user, quiz=attempt.quiz) or attempt
        return [
            _passback_queue(
                target=target,
                lti_user=lti_user,
                score_given=best.score,
                score_maximum=best.max_score,
                progress=ScorePassback.Progress.COMPLETED,
                scored_at=attempt.submitted_at or timezone.now(),
                attempt=best,
            )
            for target, lti_user in pairs
        ]
    except Exception:
        logger.exception("LTI passback for attempt %s could not be queued", attempt.pk)
        return []


def mastery_passback_enqueue(*, streak: PracticeStreak) -> list[ScorePassback]:
    """Queue problems mastered out of the practice set's problems, for each link that asks for
    it and that the learner launched from. Never raises, like the attempt hook."""
    try:
        lesson_id = streak.problem.lesson_id
        targets = LinkTarget.objects.filter(
            kind=LinkTarget.Kind.PRACTICE, lesson_id=lesson_id, mastery_passback=True
        )
        pairs = _launched_targets(user=streak.user, targets=targets)
        if not pairs:
            return []
        lesson = Lesson.objects.get(pk=lesson_id)
        total = lesson.problems.for_practice().count()
        mastered = PracticeStreak.objects.filter(
            user=streak.user,
            problem__lesson_id=lesson_id,
            problem__exam_only=False,
            mastered_at__isnull=False,
        ).count()
        return [
            _passback_queue(
                target=target,
                lti_user=lti_user,
                score_given=float(mastered),
                score_maximum=float(total),
                progress=(
                    ScorePassback.Progress.COMPLETED
                    if mastered >= total
                    else ScorePassback.Progress.IN_PROGRESS
                ),
                scored_at=streak.mastered_at or timezone.now(),
            )
            for target, lti_user in pairs
        ]
    except Exception:
        logger.exception("LTI mastery passback for streak %s could not be queued", streak.pk)
        return []


def retry_delay(try_count: int) -> timedelta:
    """How long to wait after the n-th failed try: doubling from 30 s, at most 6 hours."""
    return min(RETRY_FIRST_DELAY * (2 ** max(try_count - 1, 0)), RETRY_MAX_DELAY)


def _target_label(target: LinkTarget) -> tuple[str, str, float]:
    if target.kind == LinkTarget.Kind.QUIZ:
        quiz = target.quiz
        maximum = float(sum(item.points for item in quiz.items.all()))
        return quiz.title, f"quiz:{quiz.slug}", maximum
    lesson = target.lesson
    maximum = float(lesson.problems.for_practice().count())
    return f"Practice: {lesson.title}", f"practice:{lesson.slug}", maximum


def _line_item_url(*, target: LinkTarget) -> str:
    """The link's line item: known, found on the LMS, or made there once.

    The link's row is locked while this runs, so two learners' scores for one new link make
    one line item, and a line item the LMS already has for the link is found, not duplicated.
    """
    target = LinkTarget.objects.select_for_update().get(pk=target.pk)
    known = LineItem.objects.filter(target=target).first()
    if known is not None:
        return known.url
    context = target.resource_link.context
    registration = context.deployment.registration
    if not context.lineitems_url:
        raise platform.PlatformError(
            "The LMS gave this link no gradebook column and no line items service.",
            retryable=False,
        )
    label, resource_id, maximum = _target_label(target)
    found = platform.line_item_find(
        registration=registration,
        lineitems_url=context.lineitems_url,
        resource_link_id=target.resource_link.id_on_platform,
        resource_id=resource_id,
    )
    created = found is None
    if found is None:
        found = platform.line_item_create(
            registration=registration,
            lineitems_url=context.lineitems_url,
            resource_link_id=target.resource_link.id_on_platform,
            resource_id=resource_id,
            label=label,
            score_maximum=maximum,
        )
    LineItem.objects.create(
        target=target,
        url=found.url,
        label=found.label or label,
        score_maximum=found.score_maximum,
        created_by_softgrade=created,
    )
    return found.url


def score_payload(passback: ScorePassback) -> dict:
    """The AGS score body for one passback."""
    return {
        "userId": passback.lti_user.sub,
        "scoreGiven": passback.score_given,
        "scoreMaximum": passback.score_maximum,
        "timestamp": passback.scored_at.isoformat(timespec="milliseconds"),
        "activityProgress": passback.activity_progress,
        "gradingProgress": "FullyGraded",
    }


def passback_deliver(*, passback_id: int, now: datetime | None = None) -> ScorePassback | None:
    """Try once to send a queued score; record the outcome; schedule the next try if it failed.

    A passback that is no longer queued, or whose next try is not yet due (a duplicate task),
    is left alone.
    """
    now = now or timezone.now()
    retry_at = None
    with transaction.atomic():
        passback = (
            ScorePassback.objects.select_for_update()
            .select_related("lti_user", "target__resource_link__context__deployment__registration")
            .filter(pk=passback_id)
            .first()
        )
        if passback is None or passback.status != ScorePassback.Status.QUEUED:
            return passback
        if passback.next_try_at and passback.next_try_at > now + timedelta(seconds=1):
            return passback
        registration = passback.target.resource_link.context.deployment.registration
        passback.try_count += 1
        try:
            lineitem_url = _line_item_url(target=passback.target)
            http_status = platform.score_post(
                registration=registration, lineitem_url=lineitem_url, score=score_payload(passback)
            )
        except platform.PlatformError as error:
            passback.last_error = error.message[:2000]
            if error.retryable:
                retry_at = now + retry_delay(passback.try_count)
                passback.next_try_at = retry_at
                result = PassbackOutcome.Result.WILL_RETRY
            else:
                passback.status = ScorePassback.Status.REFUSED
                passback.next_try_at = None
                result = PassbackOutcome.Result.REFUSED
            PassbackOutcome.objects.create(
                passback=passback,
                result=result,
                http_status=error.status,
                detail=error.message[:2000],
                created_at=now,
            )
            logger.warning(
                "LTI passback %s try %s failed (%s): %s",
                passback.pk,
                passback.try_count,
                result,
                error.message,
            )
        else:
            passback.status = ScorePassback.Status.SENT
            passback.sent_at = now
            passback.next_try_at = None
            passback.last_error = ""
            PassbackOutcome.objects.create(
                passback=passback,
                result=PassbackOutcome.Result.SENT,
                http_status=http_status,
                created_at=now,
            )
        passback.save()
        if retry_at is not None:
            transaction.on_commit(lambda: passback_schedule(passback=passback, when=retry_at))
    return passback


def passback_resend(*, passbacks, now: datetime | None = None) -> int:
    """Queue these scores again now (an instructor's "resend"); returns how many."""
    now = now or timezone.now()
    resent = []
    with transaction.atomic():
        for passback in passbacks:
            passback.status = ScorePassback.Status.QUEUED
            passback.next_try_at = now
            passback.save(update_fields=["status", "next_try_at", "updated_at"])
            resent.append(passback)
        transaction.on_commit(
            lambda: [passback_schedule(passback=passback, when=None) for passback in resent]
        )
    return len(resent)


def passbacks_overdue_requeue(*, now: datetime | None = None, grace: timedelta) -> int:
    """Queue again the queued scores whose next try is overdue by more than `grace` (their task
    was lost, or never queued); returns how many."""
    now = now or timezone.now()
    overdue = list(
        ScorePassback.objects.filter(
            status=ScorePassback.Status.QUEUED, next_try_at__lt=now - grace
        )
    )
    for passback in overdue:
        passback_schedule(passback=passback, when=None)
    return len(overdue)


# ---------------------------------------------------------------------------------------------
# Roster (NRPS)
# ---------------------------------------------------------------------------------------------


def roster_sync(*, context: LtiContext, requested_by: AbstractBaseUser | None) -> RosterSync:
    """Fetch the course roster from the LMS and store its members and roles; the outcome is a
    RosterSync row either way."""
    sync = RosterSync(context=context, requested_by=requested_by, status=RosterSync.Status.DONE)
    if not context.memberships_url:
        sync.status = RosterSync.Status.FAILED
        sync.detail = "The LMS did not offer a roster service for this course."
    else:
        try:
            members = platform.memberships(
                registration=context.deployment.registration,
                memberships_url=context.memberships_url,
            )
            valid = [m for m in members if m.get("user_id") and isinstance(m.get("roles"), list)]
            for member in valid:
                member.setdefault("status", "Active")
            with transaction.atomic():
                context.update_memberships(valid)
            sync.members = len(valid)
            sync.active_members = sum(1 for m in valid if m["status"] == "Active")
        except platform.PlatformError as error:
            sync.status = RosterSync.Status.FAILED
            sync.detail = error.message[:2000]
            logger.warning("LTI roster sync for context %s failed: %s", context.pk, error.message)
    sync.finished_at = timezone.now()
    sync.save()
    return sync
