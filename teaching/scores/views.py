"""The pages under /teach/ that change scores: override one item's score in a learner's attempt,
grade one item across every learner's attempts on one page (each row with its own override
form), and regrade a quiz item after fixing it, with a preview of who gains and who loses.

Each page finds its attempt or item through teaching.access (a 404 outside the user's courses)
and shows it to every role of the course; the forms are there only for those who may change
scores (access.may_change_scores: instructors and superusers), and a score change anyone else
sends is a 403 that changes nothing. The changes themselves go through the audited services
(grading/overrides.py, grading/regrades.py), which tell the LMS of the new scores. Every POST
answers with a redirect (POST/redirect/GET) and a message, except a refused override, whose
form is shown again with the reason (on the grade-by-item page, in its row, the other rows as
they were).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.core.paginator import InvalidPage
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from courses.models import QuizItem
from grading import draws, policy
from grading.models import Attempt, ScoreChange
from grading.overrides import ScoreChangeNotAllowed, ScoreChangeRefused, item_score_override
from grading.regrade_fixes import FixRefused
from grading.regrades import RegradeResult, RegradeStale, quiz_item_regrade
from grading.services.closing import attempt_expire_if_overdue
from grading.services.overdue import overdue_attempts_close
from teaching import access
from teaching.results.pages import SEARCH_MAX_LENGTH
from teaching.results.reads import AttemptRule
from teaching.scores import changes as score_changes
from teaching.scores.by_item import item_grading_page
from teaching.scores.forms import OverrideForm, fix_fields, fix_form


def _points(value: float) -> str:
    """Points as the pages show them: 2, 1.50."""
    return floatformat(value, -2)


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def item_override(request: HttpRequest, pk: int, item_pk: int) -> HttpResponse:
    attempt = access.attempt_for_staff_or_404(user=request.user, pk=pk)
    # An attempt whose time ran out is closed first: then it can be overridden.
    attempt_expire_if_overdue(attempt=attempt)
    item = get_object_or_404(attempt.quiz.items.select_related("question", "problem"), pk=item_pk)
    draws.items_as_drawn(attempt=attempt, items=[item])  # a pool item shows what it drew
    may_change = access.may_change_scores(user=request.user, quiz=attempt.quiz)
    points_now = score_changes.item_points_now(attempt=attempt, item=item)
    form = None
    status = 200
    if request.method == "POST":
        access.scores_changeable_or_403(user=request.user, quiz=attempt.quiz)
        form = OverrideForm(request.POST, item=item)
        if form.is_valid():
            change = _override_saved(form, attempt=attempt, item=item, by=request.user)
            if change is not None:
                messages.success(request, _score_set(change, item, attempt))
                url = reverse("teaching:attempt", args=[attempt.pk])
                return HttpResponseRedirect(f"{url}#item-{item.pk}")
        status = 400
    elif may_change:
        form = OverrideForm(item=item, initial={"score": round(points_now, 4)})
    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "course": attempt.quiz.lesson.course,
        "learner": attempt.user,
        "item": item,
        "points_now": points_now,
        "history": score_changes.attempt_score_changes(attempt=attempt).get(item.pk, []),
        "form": form,
        "may_change": may_change,
    }
    return render(request, "teaching/score_override.html", context, status=status)


def _override_saved(form, *, attempt: Attempt, item: QuizItem, by) -> ScoreChange | None:
    """The override a valid form asks for, saved; None, with the refusal on the form, when the
    override's rules refuse it (the one place both override pages save through)."""
    try:
        return item_score_override(
            attempt=attempt,
            item=item,
            score=form.cleaned_data["score"],
            reason=form.cleaned_data["reason"],
            by=by,
        )
    except (ScoreChangeRefused, ScoreChangeNotAllowed) as refusal:
        form.add_error(None, refusal.message)
        return None


def _score_set(change, item, attempt) -> str:
    return ngettext(
        "Score set: %(score)s of %(points)s point (was %(old)s); the attempt now has "
        "%(attempt)s of %(maximum)s. The learner's new score goes to the LMS gradebook if they "
        "came from one.",
        "Score set: %(score)s of %(points)s points (was %(old)s); the attempt now has "
        "%(attempt)s of %(maximum)s. The learner's new score goes to the LMS gradebook if they "
        "came from one.",
        item.points,
    ) % {
        "score": _points(change.new_score),
        "points": item.points,
        "old": _points(change.old_score),
        "attempt": _points(change.new_attempt_score),
        "maximum": _points(attempt.max_score),
    }


# Grade by item lists every attempt by default: under first, best or last an override can
# change which attempt counts, and the row just saved would then show another attempt.
GRADING_RULE = AttemptRule.ALL


def _grading_query(request: HttpRequest) -> tuple[AttemptRule, str, int]:
    """The grade-by-item page's attempt rule, search and page number from its query string;
    a rule or search it cannot take is a 400, a page that is no number a 404."""
    value = request.GET.get("attempts", GRADING_RULE.value)
    if value not in tuple(AttemptRule):
        choices = ", ".join(rule.value for rule in AttemptRule)
        raise BadRequest(f"attempts must be one of {choices}.")
    search = request.GET.get("q", "").strip()
    if len(search) > SEARCH_MAX_LENGTH:
        raise BadRequest(f"A search is at most {SEARCH_MAX_LENGTH} characters.")
    try:
        number = int(request.GET.get("page", 1))
    except ValueError:
        raise Http404("No such page of learners.") from None
    return AttemptRule(value), search, number


def _grading_form(attempt_id: int, item, data=None, score: float | None = None) -> OverrideForm:
    """A row's override form, its ids unique to the row, bound to `data` when sent, else
    starting from the score now. The page says once what the single override page says in each
    field's help, so a row keeps to the range and the reason's use."""
    form = OverrideForm(
        data, item=item, auto_id=f"grade-{attempt_id}-%s", initial={"score": round(score or 0, 4)}
    )
    form.fields["score"].help_text = _("From 0 to %(points)s.") % {"points": item.points}
    form.fields["reason"].help_text = _("Kept with the learner's record.")
    form.fields["reason"].widget.attrs["rows"] = 2
    return form


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def item_grading(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    """One item across the learners' attempts, each row with its score, its history and, for
    those who may change scores, an override form that posts back to the same page and place."""
    quiz = access.quiz_for_staff_or_404(user=request.user, slug=slug)
    item = get_object_or_404(quiz.items.select_related("question", "problem", "pool"), pk=item_id)
    # No attempt shows as open once its time ran out; a closed one can be overridden.
    overdue_attempts_close(quiz=quiz)
    rule, search, number = _grading_query(request)
    may_change = access.may_change_scores(user=request.user, quiz=quiz)
    sent: tuple[int, OverrideForm] | None = None
    if request.method == "POST":
        access.scores_changeable_or_403(user=request.user, quiz=quiz)
        attempt = (
            Attempt.objects.counted()
            .select_related("user")
            .filter(quiz=quiz, pk=_attempt_id(request.POST.get("attempt", "")))
            .first()
        )
        if attempt is None:
            raise Http404("No such attempt at this quiz.")
        form = _grading_form(attempt.pk, item, data=request.POST)
        if form.is_valid():
            change = _override_saved(form, attempt=attempt, item=item, by=request.user)
            if change is not None:
                name = attempt.user.get_full_name() or attempt.user.get_username()
                messages.success(request, f"{name}: {_score_set(change, item, attempt)}")
                return HttpResponseRedirect(f"{request.get_full_path()}#grade-{attempt.pk}")
        sent = (attempt.pk, form)
    try:
        found = item_grading_page(quiz=quiz, item=item, rule=rule, search=search, number=number)
    except InvalidPage:
        raise Http404("No such page of learners.") from None
    rows = []
    for grade in found.rows:
        form = None
        if may_change and grade.may_override:
            if sent is not None and sent[0] == grade.attempt.pk:
                form = sent[1]
            else:
                form = _grading_form(grade.attempt.pk, item, score=grade.points)
        rows.append((grade, form))
    kept = request.GET.copy()
    kept.pop("page", None)
    context = {
        "quiz": quiz,
        "course": quiz.lesson.course,
        "item": item,
        "grading": found,
        "rows": rows,
        "rules": list(AttemptRule),
        "page_query": kept.urlencode(),
        "may_change": may_change,
        "staff": policy.staff_visibility(),
        # A refused row's form names the attempt; when that row is not on the page (another
        # page, a search), the refusal is said at the top so nothing is lost silently.
        "sent_elsewhere": sent is not None
        and all(grade.attempt is None or grade.attempt.pk != sent[0] for grade in found.rows),
        "sent": sent[1] if sent else None,
    }
    return render(
        request, "teaching/item_grading.html", context, status=200 if sent is None else 400
    )


def _attempt_id(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise Http404("No such attempt at this quiz.") from None


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def item_regrade(request: HttpRequest, pk: int) -> HttpResponse:
    item = access.quiz_item_for_staff_or_404(user=request.user, pk=pk)
    # An attempt whose time ran out is regraded as the submitted attempt it is (its score, its
    # overrides, the LMS told), in the preview and in the apply alike, so their digests agree.
    overdue_attempts_close(quiz=item.quiz)
    if request.method == "POST":
        return _regrade_apply(request, item)
    may_change = access.may_change_scores(user=request.user, quiz=item.quiz)
    question_now = score_changes.question_now(item) if item.question_id else None
    form = preview = refusal = None
    if may_change and item.pool_id:
        # A pool item has no one question or problem to fix: it is regraded as it stands.
        preview = quiz_item_regrade(item=item, by=request.user, apply=False)
    elif may_change:
        fixing = "fix" in request.GET
        form = fix_form(item=item, data=request.GET if fixing else None, question_now=question_now)
        if not fixing or form.is_valid():
            try:
                preview = quiz_item_regrade(
                    item=item,
                    by=request.user,
                    apply=False,
                    fix=form.fix() if fixing else None,
                )
            except FixRefused as refused:
                refusal = refused.message
    context = {
        "item": item,
        "quiz": item.quiz,
        "course": item.quiz.lesson.course,
        "number": score_changes.item_number(item),
        "question_now": question_now,
        "problem_now": score_changes.problem_now(item) if item.problem_id else None,
        "other_uses": score_changes.other_uses(item),
        "regrades": score_changes.item_regrades(item),
        "may_change": may_change,
        "form": form,
        "refusal": refusal,
        "preview": preview,
        "apply_fields": fix_fields(form) if preview is not None and "fix" in request.GET else [],
    }
    return render(request, "teaching/item_regrade.html", context)


def _regrade_apply(request: HttpRequest, item) -> HttpResponse:
    """Apply exactly the regrade previewed: the fix and the digest the preview's apply form
    sent; anything else changes nothing and returns to the preview with the reason."""
    access.scores_changeable_or_403(user=request.user, quiz=item.quiz)
    page = reverse("teaching:item-regrade", args=[item.pk])
    fixing = "fix" in request.POST and not item.pool_id  # a pool item takes no fix
    question_now = score_changes.question_now(item) if item.question_id else None
    form = (
        None if item.pool_id else fix_form(item=item, data=request.POST, question_now=question_now)
    )
    again = f"{page}?{urlencode(fix_fields(form))}" if fixing and form else page
    digest = request.POST.get("digest", "")
    if not digest or (fixing and not form.is_valid()):
        messages.error(request, _("Nothing was applied: preview the regrade, then apply it."))
        return HttpResponseRedirect(again)
    try:
        result = quiz_item_regrade(
            item=item,
            by=request.user,
            apply=True,
            fix=form.fix() if fixing and form else None,
            expected_digest=digest,
        )
    except (RegradeStale, FixRefused, ScoreChangeNotAllowed) as refusal:
        messages.error(request, refusal.message)
        return HttpResponseRedirect(again)
    messages.success(request, _applied(result))
    return HttpResponseRedirect(page)


def _applied(result: RegradeResult) -> str:
    answers, attempts, told = (
        result.responses_changed,
        len(result.learners),
        len(result.passed_back),
    )
    # Three counts, each with its own plural: the sentence is put together from its parts.
    regraded = _(
        "Regraded: %(answers)s in %(attempts)s got a new verdict; %(gained)s gained, %(lost)s lost."
    ) % {
        "answers": ngettext("%(count)s answer", "%(count)s answers", answers) % {"count": answers},
        "attempts": ngettext("%(count)s attempt", "%(count)s attempts", attempts)
        % {"count": attempts},
        "gained": len(result.gainers),
        "lost": len(result.losers),
    }
    passed_back = ngettext(
        "New scores of %(count)s learner go to the LMS gradebook (for those who came from one).",
        "New scores of %(count)s learners go to the LMS gradebook (for those who came from one).",
        told,
    ) % {"count": told}
    return f"{regraded} {passed_back}"
