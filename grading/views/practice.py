"""Practice pages: a lesson's problems with their streaks, and one problem's variant, answer
box and verdict."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courses.models import Problem
from grading import policy, scores, selectors
from grading.forms import PracticeAnswerForm, submission_token
from grading.locale_numbers import decimal_separator
from grading.models import PracticeStreak
from grading.services.errors import PracticeRefused, ServiceError
from grading.services.practice import (
    practice_answer_submit,
    practice_variant_current,
    practice_variant_new,
)
from grading.services.solutions import (
    practice_solution_state,
    solution_reveal,
)
from grading.views.refusals import found, refusal_message


@require_GET
@login_required
def practice_lesson(request: HttpRequest, slug: str) -> HttpResponse:
    lesson = found(selectors.practice_lesson, missing=gettext("No such lesson."), slug=slug)
    problems = list(lesson.problems.all())
    streaks = selectors.practice_streaks(user=request.user, problems=problems)
    rows = [(problem, streaks.get(problem.pk)) for problem in problems]
    return render(
        request,
        "grading/practice_lesson.html",
        {"lesson": lesson, "rows": rows, "mastery": PracticeStreak.MASTERY},
    )


def _problem_or_404(slug: str) -> Problem:
    return found(selectors.practice_problem, missing=gettext("No such problem."), slug=slug)


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
    variant = found(
        selectors.practice_variant_of_learner,
        missing=gettext("No such variant."),
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
            decimal=decimal_separator(),
        )
    except PracticeRefused:
        # Nothing was recorded; the practice page says why, and until when.
        return redirect("practice", slug=problem.slug)
    except ServiceError as error:
        messages.error(request, refusal_message(error))
    return redirect(reverse("practice", kwargs={"slug": problem.slug}) + "#verdict")


def _practice_refused(
    request: HttpRequest, problem: Problem, refused: PracticeRefused
) -> HttpResponse:
    return render(
        request,
        "grading/practice_refused.html",
        {"problem": problem, "refusal": refused.refusal},
        status=403,
    )


def _practice_page(
    request: HttpRequest, problem: Problem, form: PracticeAnswerForm | None = None
) -> HttpResponse:
    try:
        variant = practice_variant_current(user=request.user, problem=problem)
    except PracticeRefused as refusal:
        return _practice_refused(request, problem, refusal)
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
    solution = practice_solution_state(variant=variant, tries=tries)
    revealed = solution.stage == policy.REVEALED
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
        "solution": solution,
        # The template shows the steps (variant|solution_steps) only once revealed.
        "revealed": revealed,
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


@require_POST
@login_required
def practice_solution(request: HttpRequest, slug: str) -> HttpResponse:
    """Reveal the worked solution of the learner's practice variant named in the form."""
    problem = _problem_or_404(slug)
    variant_id = request.POST.get("variant", "")
    variant = found(
        selectors.practice_variant_of_learner,
        missing=gettext("No such variant."),
        user=request.user,
        problem=problem,
        variant_id=int(variant_id) if variant_id.isdigit() else 0,
    )
    try:
        solution_reveal(
            user=request.user, variant=variant, give_up=request.POST.get("give_up") == "yes"
        )
    except PracticeRefused:
        return redirect("practice", slug=problem.slug)
    except ServiceError as error:
        messages.error(request, refusal_message(error))
        return redirect(reverse("practice", kwargs={"slug": problem.slug}) + "#solution-offer")
    return redirect(reverse("practice", kwargs={"slug": problem.slug}) + "#solution")
