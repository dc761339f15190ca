"""The learner's pages: home with progress, practice, quizzes, results, history, sign-in and
sign-up.

Each view parses its input, calls one service or selector, and renders; every POST ends in a
redirect (post/redirect/get), so a refresh never submits twice. Objects are always looked up
together with the learner who owns them, so another learner's attempt or variant is a 404.
The home page lives here, not in courses, because it shows the learner's progress and the
courses app never imports grading.
"""

from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courses import selectors as course_selectors
from courses.models import Problem, QuizItem
from grading import policy, scores, selectors
from grading.forms import (
    ItemAnswerForm,
    PracticeAnswerForm,
    SheetForm,
    SignupForm,
    submission_token,
)
from grading.models import Attempt, PracticeStreak

# A module name: two views share their names with its services (attempt_start, attempt_submit).
from grading.services import attempts as attempt_services
from grading.services.errors import (
    AttemptClosed,
    IdempotencyConflict,
    PracticeRefused,
    ServiceError,
)
from grading.services.practice import (
    practice_answer_submit,
    practice_variant_current,
    practice_variant_new,
)
from grading.services.responses import SheetAnswer, attempt_answers_save, response_submit
from security.logins import TOO_MANY_FAILURES, LimitedLoginForm, signup_refusal

# A stale copy of a page (the browser's Back button) re-sends a token already spent on another
# answer; the service refuses it, and the learner needs words about pages, not keys.
STALE_PAGE = (
    "That copy of the page was already used to send a different answer, so nothing was "
    "recorded. This is a fresh copy: enter your answer again."
)


def _refusal(error: ServiceError) -> str:
    return STALE_PAGE if isinstance(error, IdempotencyConflict) else error.message


def _found(read, *, missing: str, **lookup):
    """What a selector finds, or a 404 saying what is missing (also for another learner's)."""
    try:
        return read(**lookup)
    except ObjectDoesNotExist as exc:
        raise Http404(missing) from exc


# ---------------------------------------------------------------------------------------------
# Home and accounts
# ---------------------------------------------------------------------------------------------


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    courses = list(course_selectors.course_list())
    progress = {}
    if request.user.is_authenticated:
        lessons = [lesson for course in courses for lesson in course.lessons.all()]
        progress = selectors.lesson_progress(user=request.user, lessons=lessons, now=timezone.now())
    catalogue = [
        (course, [(lesson, progress.get(lesson.pk)) for lesson in course.lessons.all()])
        for course in courses
    ]
    return render(request, "grading/home.html", {"catalogue": catalogue})


def _safe_next(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("home")


class SignIn(LoginView):
    """Django's sign-in page, with failed sign-ins limited per user name and per address
    (security/logins.py); a paused sign-in is a 429 with the message saying how long."""

    authentication_form = LimitedLoginForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if any(error.code == TOO_MANY_FAILURES for error in form.non_field_errors().as_data()):
            response.status_code = 429
        return response


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    refusal = signup_refusal(request=request) if request.method == "POST" else None
    if refusal:
        # Not validated: a refused request learns nothing, not even whether a name is taken.
        messages.error(request, refusal)
        form = SignupForm(initial={"username": request.POST.get("username", "")})
        context = {"form": form, "next": request.POST.get("next", "")}
        return render(request, "registration/signup.html", context, status=429)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome to softgrade, {user.get_username()}.")
        return redirect(_safe_next(request))
    return render(
        request, "registration/signup.html", {"form": form, "next": request.GET.get("next", "")}
    )


# ---------------------------------------------------------------------------------------------
# Practice
# ---------------------------------------------------------------------------------------------


@require_GET
@login_required
def practice_lesson(request: HttpRequest, slug: str) -> HttpResponse:
    lesson = _found(selectors.practice_lesson, missing="No such lesson.", slug=slug)
    problems = list(lesson.problems.all())
    streaks = selectors.practice_streaks(user=request.user, problems=problems)
    rows = [(problem, streaks.get(problem.pk)) for problem in problems]
    return render(
        request,
        "grading/practice_lesson.html",
        {"lesson": lesson, "rows": rows, "mastery": PracticeStreak.MASTERY},
    )


def _problem_or_404(slug: str) -> Problem:
    return _found(selectors.practice_problem, missing="No such problem.", slug=slug)


@require_http_methods(["GET", "POST"])
@login_required
def practice(request: HttpRequest, slug: str) -> HttpResponse:
    problem = _problem_or_404(slug)
    if request.method != "POST":
        return _practice_page(request, problem)
    form = PracticeAnswerForm(request.POST)
    if not form.is_valid():
        # Nothing was recorded: the page comes back with the form's message and the same token.
        return _practice_page(request, problem, form=form)
    variant = _found(
        selectors.practice_variant_of_learner,
        missing="No such variant.",
        user=request.user,
        problem=problem,
        variant_id=form.cleaned_data["variant"],
    )
    try:
        practice_answer_submit(
            user=request.user,
            variant=variant,
            text=form.cleaned_data["answer"],
            idempotency_key=form.idempotency_key("practice"),
        )
    except PracticeRefused:
        # Nothing was recorded; the practice page says why, and until when.
        return redirect("practice", slug=problem.slug)
    except ServiceError as error:
        messages.error(request, _refusal(error))
    return redirect(reverse("practice", kwargs={"slug": problem.slug}) + "#verdict")


def _practice_refused(request: HttpRequest, problem: Problem, message: str) -> HttpResponse:
    return render(
        request,
        "grading/practice_refused.html",
        {"problem": problem, "message": message},
        status=403,
    )


def _practice_page(
    request: HttpRequest, problem: Problem, form: PracticeAnswerForm | None = None
) -> HttpResponse:
    try:
        variant = practice_variant_current(user=request.user, problem=problem)
    except PracticeRefused as refusal:
        return _practice_refused(request, problem, refusal.message)
    responses = selectors.variant_responses(variant=variant)
    latest = responses[-1] if responses else None
    tries = [response for response in responses if response.counts_as_try]
    solved = scores.solved(tries)
    if form is None:
        form = PracticeAnswerForm(
            initial={
                "variant": variant.pk,
                # The learner edits what they typed last, unless it was right.
                "answer": latest.text if latest and not solved else "",
                "token": submission_token(),
            }
        )
    streak = selectors.practice_streaks(user=request.user, problems=[problem]).get(problem.pk)
    context = {
        "problem": problem,
        "variant": variant,
        "form": form,
        "latest": latest,
        "tries": tries,
        "solved": solved,
        "streak": streak,
        "mastery": PracticeStreak.MASTERY,
        "misconceptions": selectors.misconceptions_by_code(
            [latest.misconception] if latest else []
        ),
    }
    return render(request, "grading/practice.html", context)


@require_POST
@login_required
def practice_new_variant(request: HttpRequest, slug: str) -> HttpResponse:
    problem = _problem_or_404(slug)
    try:
        current = practice_variant_current(user=request.user, problem=problem)
        # The form names the variant it replaces: a double click asks twice to replace the
        # same one, and only the first request makes a new variant.
        if request.POST.get("replaces") == str(current.pk):
            practice_variant_new(user=request.user, problem=problem)
    except PracticeRefused:
        pass  # nothing made; the practice page says why, and until when
    return redirect("practice", slug=problem.slug)


# ---------------------------------------------------------------------------------------------
# Quizzes and attempts
# ---------------------------------------------------------------------------------------------


@require_GET
@login_required
def quiz_detail(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _found(selectors.quiz_detail, missing="No such quiz.", slug=slug)
    attempts = selectors.learner_quiz_attempts(user=request.user, quiz=quiz)
    in_progress = next((a for a in attempts if a.status == Attempt.Status.IN_PROGRESS), None)
    # An attempt whose time ran out is closed here, so "Resume" never quietly starts a new one.
    if in_progress is not None and attempt_services.attempt_expire_if_overdue(attempt=in_progress):
        in_progress = None
    limit_reached = (
        in_progress is None
        and quiz.attempts_allowed is not None
        and len(attempts) >= quiz.attempts_allowed
    )
    now = timezone.now()
    context = {
        "quiz": quiz,
        "attempts": attempts,
        "attempt_rows": selectors.attempts_shown(attempts=attempts, now=now),
        "in_progress": in_progress,
        "limit_reached": limit_reached,
        "closed_reason": attempt_services.quiz_availability_error(quiz=quiz, now=now),
        "immediate": policy.immediate_feedback(quiz),
        "feedback_summary": policy.feedback_summary(quiz),
        "answers_summary": policy.answers_summary(quiz),
    }
    return render(request, "grading/quiz_detail.html", context)


@require_POST
@login_required
def attempt_start(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _found(selectors.quiz_detail, missing="No such quiz.", slug=slug)
    try:
        attempt = attempt_services.attempt_start(user=request.user, quiz=quiz)
    except ServiceError as error:
        messages.error(request, _refusal(error))
        return redirect("quiz-detail", slug=quiz.slug)
    return redirect("attempt-take", pk=attempt.pk)


def _attempt_or_404(request: HttpRequest, pk: int) -> Attempt:
    return _found(
        selectors.attempt_of_learner, missing="No such attempt.", user=request.user, attempt_id=pk
    )


def _closed(request: HttpRequest, attempt: Attempt, message: str) -> HttpResponse:
    messages.warning(request, message)
    return redirect("attempt-results", pk=attempt.pk)


TIME_UP = "Time is up: this attempt closed at its deadline, and your saved answers were graded."


@require_GET
@login_required
def attempt_take(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = _attempt_or_404(request, pk)
    if attempt_services.attempt_expire_if_overdue(attempt=attempt):
        return _closed(request, attempt, TIME_UP)
    if attempt.status != Attempt.Status.IN_PROGRESS:
        return redirect("attempt-results", pk=attempt.pk)
    rows = selectors.attempt_sheet(attempt=attempt)
    now = timezone.now()
    immediate = policy.immediate_feedback(attempt.quiz)
    codes = [row.latest.misconception for row in rows if row.latest] if immediate else []
    seconds_left = None
    if attempt.deadline:
        seconds_left = max(0, math.ceil((attempt.deadline - now).total_seconds()))
    on_submission = policy.learner_visibility(
        quiz=attempt.quiz, attempt_status=policy.SUBMITTED, now=now
    )
    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "rows": rows,
        "immediate": immediate,
        "shown": policy.attempt_visibility(attempt=attempt, now=now),
        "results_on_submission": on_submission.verdicts,
        "token": submission_token(),
        "seconds_left": seconds_left,
        "misconceptions": selectors.misconceptions_by_code(codes),
    }
    return render(request, "grading/attempt_take.html", context)


def _item_of_attempt(attempt: Attempt, item_pk: int) -> QuizItem:
    return _found(selectors.attempt_item, missing="No such item.", attempt=attempt, item_id=item_pk)


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
        messages.error(request, "That choice is not part of this question; choose again.")
        return redirect(f"{take}#item-{item.pk}")
    try:
        response_submit(
            attempt=attempt,
            item=item,
            text=form.cleaned_data["answer"],
            choice_ids=form.cleaned_data["choice"],
            idempotency_key=form.idempotency_key("item", item.pk),
        )
    except AttemptClosed as error:
        return _closed(request, attempt, error.message)
    except ServiceError as error:
        messages.error(request, _refusal(error))
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
            return _autosave_reply(400, "invalid", "Choose Save answers or Submit.")
        messages.error(request, "Choose Save answers or Submit.")
        return redirect("attempt-take", pk=attempt.pk)
    rows = selectors.attempt_sheet(attempt=attempt)
    answers = {
        row.item.pk: SheetAnswer(
            text=request.POST.get(f"item-{row.item.pk}-answer", ""),
            choice_ids=tuple(
                int(value)
                for value in request.POST.getlist(f"item-{row.item.pk}-choice")
                if value.isdigit()
            ),
        )
        for row in rows
    }
    try:
        recorded = attempt_answers_save(
            attempt=attempt, answers=answers, idempotency_key=form.idempotency_key("sheet")
        )
        if form.cleaned_data["action"] == "submit":
            attempt_services.attempt_submit(attempt=attempt)
            if autosave:
                results = reverse("attempt-results", kwargs={"pk": attempt.pk})
                return _autosave_reply(200, "submitted", "Submitted.", location=results)
            messages.success(request, "Your attempt has been submitted.")
            return redirect("attempt-results", pk=attempt.pk)
    except AttemptClosed as error:
        if autosave:
            results = reverse("attempt-results", kwargs={"pk": attempt.pk})
            return _autosave_reply(409, "attempt_closed", error.message, location=results)
        return _closed(request, attempt, error.message)
    except ServiceError as error:
        if autosave:
            return _autosave_reply(409, "refused", _refusal(error))
        messages.error(request, _refusal(error))
        return redirect("attempt-take", pk=attempt.pk)
    unreadable = sum(1 for response in recorded.values() if response.status == "invalid")
    saved = len(recorded) - unreadable
    if autosave:
        message = (
            f"{unreadable} answer{'s' if unreadable != 1 else ''} could not be read; "
            "press Save answers to see why."
            if unreadable
            else ""
        )
        return _autosave_reply(
            200, "saved", message, saved=saved, unreadable=unreadable, token=submission_token()
        )
    if unreadable:
        messages.error(
            request,
            f"{unreadable} answer{'s' if unreadable != 1 else ''} could not be read and "
            f"{'were' if unreadable != 1 else 'was'} not saved; see the message next to "
            f"{'each box' if unreadable != 1 else 'the box'}.",
        )
    if saved or not unreadable:
        messages.success(
            request,
            f"Saved {saved} answer{'s' if saved != 1 else ''}."
            if saved
            else "Nothing new to save.",
        )
    return redirect("attempt-take", pk=attempt.pk)


@require_POST
@login_required
def attempt_submit(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = _attempt_or_404(request, pk)
    try:
        attempt_services.attempt_submit(attempt=attempt)
    except AttemptClosed as error:
        return _closed(request, attempt, error.message)
    messages.success(request, "Your attempt has been submitted.")
    return redirect("attempt-results", pk=attempt.pk)


@require_GET
@login_required
def attempt_results(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = _attempt_or_404(request, pk)
    if attempt_services.attempt_expire_if_overdue(attempt=attempt):
        messages.warning(request, TIME_UP)
    if attempt.status == Attempt.Status.IN_PROGRESS:
        return redirect("attempt-take", pk=attempt.pk)
    rows = selectors.attempt_sheet(attempt=attempt)
    shown = policy.attempt_visibility(attempt=attempt, now=timezone.now())
    codes = [row.latest_counted.misconception for row in rows if row.latest_counted]
    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "rows": rows,
        "shown": shown,
        "misconceptions": selectors.misconceptions_by_code(codes) if shown.feedback else {},
    }
    return render(request, "grading/attempt_results.html", context)


@require_GET
@login_required
def history(request: HttpRequest) -> HttpResponse:
    attempts = selectors.learner_attempts(user=request.user)
    context = {
        "attempt_rows": selectors.attempts_shown(attempts=attempts, now=timezone.now()),
        "streaks": selectors.learner_streaks(user=request.user),
        "mastery": PracticeStreak.MASTERY,
    }
    return render(request, "grading/history.html", context)
