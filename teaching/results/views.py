"""A quiz's results grid, its gradebook and responses exports, and one attempt as its learner
saw it with what staff see besides.

Each view finds its quiz or attempt through teaching.access (a 404 outside the user's courses),
reads through teaching's selectors, and renders. Nothing here changes a record but attempts whose
time ran out, closed first (grading/services/overdue.py) so none shows as open.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.core.paginator import InvalidPage
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from grading import policy
from grading.accommodations import answers_release_at
from grading.services.closing import attempt_expire_if_overdue
from grading.services.overdue import overdue_attempts_close
from teaching import access, selectors
from teaching.results.gradebook import gradebook_lines
from teaching.results.grades import GRADE_RULES, default_rule
from teaching.results.grid import SortError, Status
from teaching.results.neighbours import attempt_neighbours
from teaching.results.pages import results_page
from teaching.results.query import grid_query, header_sorts
from teaching.results.reads import ITEM_TIME_DEFINITION, AttemptRule
from teaching.results.responses_export import response_lines
from teaching.scores import changes as score_changes


def _rule(
    request: HttpRequest, *, allowed: tuple[AttemptRule, ...], default: AttemptRule
) -> AttemptRule:
    """The `attempts` query parameter (`default` when absent); anything else is a 400."""
    value = request.GET.get("attempts", default)
    if value not in allowed:
        choices = ", ".join(rule.value for rule in allowed)
        raise BadRequest(f"attempts must be one of {choices}.")
    return AttemptRule(value)


def _csv_download(lines: Iterable[str], filename: str) -> StreamingHttpResponse:
    """CSV lines streamed as a download named `filename`."""
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@never_cache
@require_GET
@login_required
def quiz_results(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = access.quiz_for_staff_or_404(user=request.user, slug=slug)
    # No learner shows as still answering once their time ran out (grading/services/overdue.py).
    overdue_attempts_close(quiz=quiz)
    query = grid_query(request.GET, default_rule=default_rule(quiz))
    try:
        found = results_page(
            quiz=quiz,
            rule=query.rule,
            grouped=query.grouped,
            search=query.search,
            number=int(request.GET.get("page", 1)),
            sort=query.sort,
            status=query.status,
        )
    except SortError as error:
        raise BadRequest(str(error)) from None
    except (ValueError, InvalidPage):
        raise Http404("No such page of learners.") from None
    # The page links keep the filters and the search: only the page number changes.
    kept = request.GET.copy()
    kept.pop("page", None)
    rule = query.rule
    sorts = header_sorts(query, found.results.items)
    context = {
        "quiz": quiz,
        "course": quiz.lesson.course,
        "results": found.results,
        "grid": found,
        "query": query,
        # What the attempt links carry, so the attempt page's next and previous follow the grid.
        "grid_query": query.encoded(attempts=rule.value),
        "sorts": sorts,
        "item_columns": list(zip(found.results.items, sorts["items"], strict=True)),
        "statuses": list(Status),
        "page_query": kept.urlencode(),
        "group": "lms" if query.grouped else "",
        "rules": list(AttemptRule),
        "export_rule": rule if rule in GRADE_RULES else default_rule(quiz),
        "immediate": policy.immediate_feedback(quiz),
        "item_time_definition": gettext(ITEM_TIME_DEFINITION),
        "lms_links": selectors.quiz_lms_link_views(user=request.user, quiz=quiz),
    }
    return render(request, "teaching/quiz_results.html", context)


@never_cache
@require_GET
@login_required
def quiz_gradebook(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    quiz = access.quiz_for_staff_or_404(user=request.user, slug=slug)
    rule = _rule(request, allowed=GRADE_RULES, default=default_rule(quiz))
    overdue_attempts_close(quiz=quiz)
    return _csv_download(
        gradebook_lines(quiz=quiz, rule=rule), f"softgrade-{quiz.slug}-{rule.value}.csv"
    )


@never_cache
@require_GET
@login_required
def quiz_responses(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """What each learner answered at each item, in the attempt the rule counts (as the
    gradebook counts it), as CSV."""
    quiz = access.quiz_for_staff_or_404(user=request.user, slug=slug)
    rule = _rule(request, allowed=GRADE_RULES, default=default_rule(quiz))
    overdue_attempts_close(quiz=quiz)
    lines = response_lines(quiz=quiz, rule=rule)
    return _csv_download(lines, f"softgrade-{quiz.slug}-responses-{rule.value}.csv")


@never_cache
@require_GET
@login_required
def attempt_review(request: HttpRequest, pk: int) -> HttpResponse:
    attempt = access.attempt_for_staff_or_404(user=request.user, pk=pk)
    query = grid_query(request.GET, default_rule=default_rule(attempt.quiz))
    attempt_expire_if_overdue(attempt=attempt)
    review = selectors.attempt_review(attempt=attempt)
    try:
        neighbours = attempt_neighbours(attempt=attempt, quiz=attempt.quiz, query=query)
    except SortError as error:
        raise BadRequest(str(error)) from None
    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "course": attempt.quiz.lesson.course,
        "learner": attempt.user,
        "review": review,
        # What the learner sees of this attempt now, and what the staff view shows besides.
        "shown": policy.attempt_visibility(
            attempt=attempt,
            now=timezone.now(),
            answers_release_at=answers_release_at(attempt.quiz),
        ),
        "staff": policy.staff_visibility(),
        # Each item's overrides and regrades; the override forms for those who may use them.
        "score_changes": score_changes.attempt_score_changes(attempt=attempt),
        "may_change_scores": access.may_change_scores(user=request.user, quiz=attempt.quiz),
        "item_time_definition": gettext(ITEM_TIME_DEFINITION),
        # The learners either side in the results grid's order, and the grid's query to carry.
        "neighbours": neighbours,
        "grid_query": query.encoded(attempts=query.rule.value),
        "results_query": query.encoded(),
    }
    return render(request, "teaching/attempt_review.html", context)
