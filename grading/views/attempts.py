"""A quiz and its attempts: the quiz page, start, the attempt page (one item at a time or the
whole exam sheet, saved by the page's script too), submit, results."""

from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courses.models import QuizItem
from grading import accommodations, policy, quiz_rules, selectors, sheets
from grading.accommodations import answers_release_at
from grading.forms import ItemAnswerForm, SheetForm, submission_token
from grading.locale_numbers import decimal_separator
from grading.models import Attempt

# A module name: two views share their names with its services (attempt_start, attempt_submit).
from grading.services import attempts as attempt_services
from grading.services import closing, prepared
from grading.services.errors import AttemptClosed, ServiceError
from grading.services.overdue import overdue_attempts_close
from grading.services.responses import attempt_answers_save, response_submit
from grading.views.refusals import found, refusal_message


@require_GET
@login_required
def quiz_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The quiz page: its rules, the learner's attempts and the start; before the quiz opens,
    the waiting room (a countdown to the opening and the start, active from that instant)."""
    quiz = found(selectors.quiz_detail, missing=gettext("No such quiz."), slug=slug)
    # An attempt whose time ran out is closed first, so "Resume" never quietly starts a new one.
    overdue_attempts_close(user=request.user, quiz=quiz)
    attempts = selectors.learner_quiz_attempts(user=request.user, quiz=quiz)
    in_progress = next((a for a in attempts if a.status == Attempt.Status.IN_PROGRESS), None)
    # The rules this learner is held to: the quiz's, or theirs if they have an accommodation.
    rules = accommodations.learner_rules(quiz=quiz, user=request.user)
    limit_reached = in_progress is None and not accommodations.attempts_left(
        rules=rules, used=len(attempts)
    )
    now = timezone.now()
    # Whoever teaches the quiz's course starts a preview here, whatever the button says
    # (attempt_start_or_resume decides), so the page says so and offers theirs.
    previewing = attempt_services.may_preview(user=request.user, quiz=quiz)
    closed_reason = accommodations.availability_error(rules=rules, now=now)
    opens_in = accommodations.time_until_open(rules=rules, now=now)
    may_start_later = not previewing and in_progress is None and not limit_reached
    if may_start_later and (opens_in is not None or closed_reason is None):
        # The work of making the attempt is done now, not at the instant the class starts.
        prepared.attempt_prepare(user=request.user, quiz=quiz, now=now)
    context = {
        "quiz": quiz,
        "previewing": previewing,
        "preview_in_progress": previewing
        and attempt_services.attempt_in_progress(
            user=request.user, quiz=quiz, now=now, preview=True
        ),
        "rules": rules,
        "attempts": attempts,
        "attempt_rows": selectors.attempts_shown(attempts=attempts, now=now),
        "in_progress": in_progress,
        "limit_reached": limit_reached,
        "closed_reason": closed_reason,
        # In milliseconds for the page's script (static/js/waiting-room.js): the server's
        # clock decides when the start becomes active, not the learner's.
        "opens_in_ms": math.ceil(opens_in.total_seconds() * 1000) if opens_in else None,
        "waiting": may_start_later and opens_in is not None,
        "immediate": policy.immediate_feedback(quiz),
        "feedback_summary": policy.feedback_summary(quiz),
        "answers_summary": policy.answers_summary(quiz),
        "answers_release_at": answers_release_at(quiz),
        "tries_rule": quiz_rules.tries_rule(quiz),
        "time_rule": quiz_rules.time_rule(rules),
        "overdue_rule": quiz_rules.overdue_rule(quiz=quiz, rules=rules),
        "accommodation_rules": quiz_rules.accommodation_rules(rules),
    }
    return render(request, "grading/quiz_detail.html", context)


@require_POST
@login_required
def attempt_start(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = found(selectors.quiz_detail, missing=gettext("No such quiz."), slug=slug)
    try:
        attempt = attempt_services.attempt_start(user=request.user, quiz=quiz)
    except ServiceError as error:
        messages.error(request, refusal_message(error))
        return redirect("quiz-detail", slug=quiz.slug)
    return redirect("attempt-take", pk=attempt.pk)


def _attempt_or_404(request: HttpRequest, pk: int, *, with_sheet: bool = False) -> Attempt:
    return found(
        selectors.attempt_of_learner,
        missing=gettext("No such attempt."),
        user=request.user,
        attempt_id=pk,
        with_sheet=with_sheet,
    )


GRACE = gettext_noop(
    "Time is up: answers are no longer saved. Submit now, within the few minutes this quiz "
    "allows, to have the answers you saved by the deadline graded."
)


def _closed(request: HttpRequest, attempt: Attempt, message: str) -> HttpResponse:
    messages.warning(request, message)
    return redirect("attempt-results", pk=attempt.pk)


@require_GET
@login_required
def attempt_take(request: HttpRequest, pk: int) -> HttpResponse:
    # The stored sheet comes with the attempt, in the same query (an exam's page is made of it).
    attempt = _attempt_or_404(request, pk, with_sheet=True)
    if closing.attempt_expire_if_overdue(attempt=attempt):
        return _closed(request, attempt, closing.time_up_message(attempt))
    if attempt.status != Attempt.Status.IN_PROGRESS:
        return redirect("attempt-results", pk=attempt.pk)
    now = timezone.now()
    if not closing.answers_accepted(attempt=attempt, now=now):
        # The quiz's grace period: the countdown's reload lands here, and the page to be on is
        # the one that submits (the attempt page would reload itself again at once).
        messages.warning(request, gettext(GRACE))
        return redirect("attempt-submit", pk=attempt.pk)
    immediate = policy.immediate_feedback(attempt.quiz)
    seconds_left = None
    if attempt.deadline:
        seconds_left = max(0, math.ceil((attempt.deadline - now).total_seconds()))
    release_at = answers_release_at(attempt.quiz)
    on_submission = policy.learner_visibility(
        quiz=attempt.quiz, attempt_status=policy.SUBMITTED, now=now, answers_release_at=release_at
    )
    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "immediate": immediate,
        "results_on_submission": on_submission.verdicts,
        "token": submission_token(),
        "seconds_left": seconds_left,
        "tries_rule": quiz_rules.tries_rule(attempt.quiz),
    }
    if not immediate:
        # An exam's items come from the attempt's stored sheet, filled with its saved answers.
        context["sheet"] = sheets.sheet_page(attempt=attempt)
        return render(request, "grading/attempt_take.html", context)
    rows = selectors.attempt_sheet(attempt=attempt)
    # The verdict shown is the latest answer's, or the latest counted one's when the latest
    # could not be read (its message sits by the box instead).
    shown_tries = [try_ for row in rows for try_ in (row.latest, row.latest_counted) if try_]
    context["rows"] = rows
    context["shown"] = policy.attempt_visibility(
        attempt=attempt, now=now, answers_release_at=release_at
    )
    context["misconceptions"] = selectors.misconceptions_by_code(
        try_.misconception for try_ in shown_tries
    )
    return render(request, "grading/attempt_take.html", context)


def _item_of_attempt(attempt: Attempt, item_pk: int) -> QuizItem:
    return found(
        selectors.attempt_item, missing=gettext("No such item."), attempt=attempt, item_id=item_pk
    )


@require_POST
@login_required
def attempt_answer(request: HttpRequest, pk: int, item_pk: int) -> HttpResponse:
    """One item answered on its own: a try with feedback at once (practice quizzes)."""
    attempt = _attempt_or_404(request, pk)
    item = _item_of_attempt(attempt, item_pk)
    choice_ids = list(item.question.choices.values_list("pk", flat=True)) if item.question else []
    form = ItemAnswerForm(request.POST, choice_ids=choice_ids)
    take = reverse("attempt-take", kwargs={"pk": attempt.pk})
    if not form.is_valid():
        messages.error(request, gettext("That choice is not part of this question; choose again."))
        return redirect(f"{take}#item-{item.pk}")
    try:
        response_submit(
            attempt=attempt,
            item=item,
            text=form.cleaned_data["answer"],
            choice_ids=form.cleaned_data["choice"],
            idempotency_key=form.idempotency_key("item", item.pk),
            decimal=decimal_separator(),
        )
    except AttemptClosed as error:
        return _closed(request, attempt, error.message)
    except ServiceError as error:
        messages.error(request, refusal_message(error))
    return redirect(f"{take}#item-{item.pk}")


def _autosave(request: HttpRequest) -> bool:
    """Whether the exam page's script sent the sheet (it asks for JSON); a form sent by the
    browser itself prefers HTML and gets the usual redirect."""
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def _autosave_reply(status: int, code: str, message: str, **fields: object) -> JsonResponse:
    """The exam page script's answer: what happened, in words it shows the learner."""
    return JsonResponse({"code": code, "message": message, **fields}, status=status)


@require_POST
@login_required
def attempt_sheet_save(request: HttpRequest, pk: int) -> HttpResponse:
    """The whole page of an exam: save the changed answers, and submit if asked to.

    The page's autosave sends the same form asking for JSON and gets JSON back: the count saved
    and a fresh submission token for its next save (no message is queued for the next page).
    """
    attempt = _attempt_or_404(request, pk)
    form = SheetForm(request.POST)
    autosave = _autosave(request)
    if not form.is_valid():
        if autosave:
            return _autosave_reply(400, "invalid", gettext("Choose Save answers or Submit."))
        messages.error(request, gettext("Choose Save answers or Submit."))
        return redirect("attempt-take", pk=attempt.pk)
    try:
        recorded = attempt_answers_save(
            attempt=attempt,
            answers=form.answers(),
            idempotency_key=form.idempotency_key("sheet"),
            others_ignored=True,
            decimal=decimal_separator(),
        )
        if form.cleaned_data["action"] == "submit":
            closing.attempt_submit(attempt=attempt)
            if autosave:
                results = reverse("attempt-results", kwargs={"pk": attempt.pk})
                return _autosave_reply(200, "submitted", gettext("Submitted."), location=results)
            messages.success(request, gettext("Your attempt has been submitted."))
            return redirect("attempt-results", pk=attempt.pk)
    except AttemptClosed as error:
        if autosave:
            results = reverse("attempt-results", kwargs={"pk": attempt.pk})
            return _autosave_reply(409, "attempt_closed", error.message, location=results)
        return _closed(request, attempt, error.message)
    except ServiceError as error:
        if autosave:
            return _autosave_reply(409, "refused", refusal_message(error))
        messages.error(request, refusal_message(error))
        return redirect("attempt-take", pk=attempt.pk)
    unreadable = sum(1 for response in recorded.values() if response.status == "invalid")
    saved = len(recorded) - unreadable
    if autosave:
        message = (
            ngettext(
                "%(count)d answer could not be read; press Save answers to see why.",
                "%(count)d answers could not be read; press Save answers to see why.",
                unreadable,
            )
            % {"count": unreadable}
            if unreadable
            else ""
        )
        return _autosave_reply(
            200, "saved", message, saved=saved, unreadable=unreadable, token=submission_token()
        )
    if unreadable:
        messages.error(
            request,
            ngettext(
                "%(count)d answer could not be read and was not saved; see the message next "
                "to the box.",
                "%(count)d answers could not be read and were not saved; see the message next "
                "to each box.",
                unreadable,
            )
            % {"count": unreadable},
        )
    if saved or not unreadable:
        messages.success(
            request,
            ngettext("Saved %(count)d answer.", "Saved %(count)d answers.", saved)
            % {"count": saved}
            if saved
            else gettext("Nothing new to save."),
        )
    if form.cleaned_data["action"] == "review" and not unreadable:
        # Saved first, so the confirmation lists what is unanswered after this save; an answer
        # that could not be read sends the learner back to its box instead.
        return redirect("attempt-submit", pk=attempt.pk)
    return redirect("attempt-take", pk=attempt.pk)


@require_http_methods(["GET", "POST"])
@login_required
def attempt_submit(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the confirmation, naming the items still unanswered; POST: submit.

    The attempt page's script asks the same question in a dialog and posts here (or the sheet
    with action=submit) itself; this page is what a browser without the script shows. The
    countdown never asks: at the deadline the server grades the saved answers whatever is open.
    """
    attempt = _attempt_or_404(request, pk)
    if request.method == "GET":
        return _submit_confirmation(request, attempt)
    try:
        closing.attempt_submit(attempt=attempt)
    except AttemptClosed as error:
        return _closed(request, attempt, error.message)
    messages.success(request, gettext("Your attempt has been submitted."))
    return redirect("attempt-results", pk=attempt.pk)


def _submit_confirmation(request: HttpRequest, attempt: Attempt) -> HttpResponse:
    if closing.attempt_expire_if_overdue(attempt=attempt):
        return _closed(request, attempt, closing.time_up_message(attempt))
    if attempt.status != Attempt.Status.IN_PROGRESS:
        return redirect("attempt-results", pk=attempt.pk)
    rows = selectors.attempt_sheet(attempt=attempt)
    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "unanswered": [row for row in rows if row.latest_counted is None],
        "item_count": len(rows),
    }
    return render(request, "grading/attempt_submit.html", context)


@require_GET
@login_required
def attempt_results(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = _attempt_or_404(request, pk)
    if closing.attempt_expire_if_overdue(attempt=attempt):
        messages.warning(request, closing.time_up_message(attempt))
    if attempt.status == Attempt.Status.IN_PROGRESS:
        return redirect("attempt-take", pk=attempt.pk)
    rows = selectors.attempt_sheet(attempt=attempt)
    shown = policy.attempt_visibility(
        attempt=attempt,
        now=timezone.now(),
        answers_release_at=answers_release_at(attempt.quiz),
    )
    codes = [row.latest_counted.misconception for row in rows if row.latest_counted]
    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "rows": rows,
        "shown": shown,
        "misconceptions": selectors.misconceptions_by_code(codes) if shown.feedback else {},
    }
    return render(request, "grading/attempt_results.html", context)
