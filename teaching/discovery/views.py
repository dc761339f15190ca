"""The problem pages under /teach/courses/<course>/problems/: the course's problems, facility by
generated parameter, and new misconceptions among the unexplained wrong answers, with the form
that turns a group into a named mistake of a formula problem or a note.

Each view finds its course through teaching.access (a 404 outside the user's courses) and the
problem among the course's; only the course's instructors (and superusers) may post, and a post
goes through a typed service: courses.mistakes for a named mistake, teaching.discovery.notes
for a note.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from courses.mistakes import MistakeRefused, formula_mistake_add
from courses.models import Course, Misconception, Problem
from courses.plain_math import plain_math
from grading import engine
from grading.models import Attempt
from grading.services.overdue import overdue_attempts_close
from teaching import access
from teaching.charts.bars import Bar, bar_chart
from teaching.discovery.data import Discovery, named_already, problem_discovery
from teaching.discovery.findings import problem_findings
from teaching.discovery.forms import (
    MISTAKE,
    NEW,
    NOTE,
    PREFIX,
    MistakeForm,
    NoteForm,
    prefix_for,
)
from teaching.discovery.mistakes import MistakeGroup, mistake_formula
from teaching.discovery.notes import misconception_note_add
from teaching.discovery.parameters import overall, parameter_facilities
from teaching.discovery.problems import (
    Source,
    course_problem_or_404,
    problem_counts,
    variant_scores,
)
from teaching.discovery.wording import relation_description
from teaching.findings import kind_counts
from teaching.models import MisconceptionNote

LEARNERS_SHOWN = 24  # per group; the count says how many there are
FACILITY_TICKS = (0, 0.5, 1)
DIAGNOSED = {"include": True, "exclude": False}


def _choice(request: HttpRequest, name: str, allowed: tuple[str, ...]) -> str:
    value = request.GET.get(name, allowed[0])
    if value not in allowed:
        raise BadRequest(f"{name} must be one of {', '.join(allowed)}.")
    return value


def _course_problem(request: HttpRequest, slug: str, problem: str) -> tuple[Course, Problem]:
    """The course (through teaching.access: a 404 outside the user's courses) and its problem;
    the course's attempts whose time ran out closed first, as every read of attempts does (the
    facility by parameter counts submitted attempts, the new misconceptions list attempts)."""
    course = access.course_for_staff_or_404(user=request.user, slug=slug)
    overdue_attempts_close(among=Attempt.objects.filter(quiz__lesson__course=course))
    return course, course_problem_or_404(course=course, slug=problem)


@never_cache
@require_GET
@login_required
def course_problems(request: HttpRequest, slug: str) -> HttpResponse:
    course = access.course_for_staff_or_404(user=request.user, slug=slug)
    context = {"course": course, "rows": problem_counts(course=course)}
    return render(request, "teaching/course_problems.html", context)


@never_cache
@require_GET
@login_required
def problem_parameters(request: HttpRequest, slug: str, problem: str) -> HttpResponse:
    course, found = _course_problem(request, slug, problem)
    source = Source(_choice(request, "source", tuple(Source)))
    rows = variant_scores(course=course, problem=found, source=source)
    charts = []
    for number, parameter in enumerate(parameter_facilities(rows), start=1):
        bars = [
            Bar(
                label=b.label,
                value=b.facility,
                text=_("%(facility)s (n = %(variants)s)")
                % {"facility": number_format(b.facility, 2), "variants": b.variants},
            )
            for b in parameter.bins
        ]
        ticks = [(tick, number_format(tick)) for tick in FACILITY_TICKS]
        chart = None if parameter.constant else bar_chart(bars, maximum=1.0, ticks=ticks)
        charts.append((parameter, chart, f"parameter-{number}"))
    context = {
        "course": course,
        "problem": found,
        "source": source,
        "sources": list(Source),
        "overall": overall(rows),
        "charts": charts,
    }
    return render(request, "teaching/problem_parameters.html", context)


@dataclass
class GroupView:
    """One group as the page shows it, with its forms."""

    index: int
    group: MistakeGroup
    description: str  # the group's relation in the page's language
    formula: str  # as a mistake of the formula problem, or the relation's own formula
    named: str | None  # the formula problem's mistake that already has this formula
    diagnosed: list[tuple[str, int]]  # answers of the group grading diagnosed, by kind
    # Each learner shown: the user, their attempts (id, number) and whether they practised.
    learners: list[tuple[object, list[tuple[int, int]], bool]]
    examples: list[tuple[object, float, float]]  # user, value, true answer
    notes: list[MisconceptionNote]
    mistake_form: MistakeForm | None
    note_form: NoteForm | None


def _is_formula(problem: Problem) -> bool:
    return problem.family == engine.FORMULA_FAMILY and isinstance(problem.params, dict)


def _group_views(
    *,
    problem: Problem,
    discovery: Discovery,
    notes: list[MisconceptionNote],
    may_change: bool,
    bound: MistakeForm | NoteForm | None,
) -> list[GroupView]:
    formula_problem = _is_formula(problem)
    lesson_misconceptions: list[Misconception] = []
    if formula_problem and may_change:
        lesson_misconceptions = list(Misconception.objects.filter(lesson=problem.lesson_id))
    shown = {
        learner
        for group in discovery.groups
        for learner in (
            *group.learners[:LEARNERS_SHOWN],
            *(example.learner for example in group.examples),
        )
    }
    users = {user.pk: user for user in get_user_model().objects.filter(pk__in=shown)}
    views = []
    for index, group in enumerate(discovery.groups):
        sources = [discovery.sources[r] for r in group.responses if r in discovery.sources]
        formula = group.formula
        if formula_problem:
            formula = mistake_formula(group.formula, str(problem.params.get("answer", "answer")))
        learners = []
        for learner in group.learners[:LEARNERS_SHOWN]:
            mine = [source for source in sources if source.learner == learner]
            attempts = sorted({(s.attempt, s.number) for s in mine if s.attempt is not None})
            learners.append((users.get(learner), attempts, any(s.attempt is None for s in mine)))
        named = named_already(problem, group)
        description = relation_description(group.description)
        mistake_form = note_form = None
        if may_change:
            if formula_problem and named is None:
                mistake_form = MistakeForm(
                    prefix=prefix_for(index, MISTAKE),
                    misconceptions=lesson_misconceptions,
                    initial={
                        "relation": group.code,
                        "formula": formula,
                        "misconception": NEW,
                        "code": group.code,
                        "title": description[:1].upper() + description[1:],
                    },
                )
            note_form = NoteForm(
                prefix=prefix_for(index, NOTE),
                initial={"relation": group.code, "formula": group.formula},
            )
        if bound is not None and bound.prefix in (
            prefix_for(index, MISTAKE),
            prefix_for(index, NOTE),
        ):
            if isinstance(bound, MistakeForm):
                mistake_form = bound
            else:
                note_form = bound
        views.append(
            GroupView(
                index=index,
                group=group,
                description=description,
                formula=formula,
                named=named,
                diagnosed=kind_counts(source.diagnosis for source in sources),
                learners=learners,
                examples=[(users.get(e.learner), e.value, e.answer) for e in group.examples],
                notes=[note for note in notes if note.relation == group.code],
                mistake_form=mistake_form,
                note_form=note_form,
            )
        )
    return views


def _misconceptions_page(
    request: HttpRequest,
    course: Course,
    problem: Problem,
    with_diagnosis: bool,
    bound: MistakeForm | NoteForm | None = None,
) -> HttpResponse:
    discovery = problem_discovery(course=course, problem=problem, with_diagnosis=with_diagnosis)
    may_change = access.may_name_mistakes(user=request.user, course=course)
    notes = list(MisconceptionNote.objects.filter(problem=problem))
    groups = _group_views(
        problem=problem, discovery=discovery, notes=notes, may_change=may_change, bound=bound
    )
    placed = bound is None or any(bound in (view.mistake_form, view.note_form) for view in groups)
    context = {
        "course": course,
        "problem": problem,
        "discovery": discovery,
        "findings": problem_findings(course=course, problem=problem),
        "groups": groups,
        "with_diagnosis": with_diagnosis,
        "diagnosed": "include" if with_diagnosis else "exclude",
        "may_change": may_change,
        "formula_problem": _is_formula(problem),
        "unplaced": None if placed else bound,
        "notes": notes,
    }
    return render(request, "teaching/problem_misconceptions.html", context)


@never_cache
@require_GET
@login_required
def problem_misconceptions(request: HttpRequest, slug: str, problem: str) -> HttpResponse:
    course, found = _course_problem(request, slug, problem)
    with_diagnosis = DIAGNOSED[_choice(request, "diagnosed", tuple(DIAGNOSED))]
    return _misconceptions_page(request, course, found, with_diagnosis)


@never_cache
@require_POST
@login_required
def problem_misconception_name(request: HttpRequest, slug: str, problem: str) -> HttpResponse:
    """Turn a group into a named mistake (a formula problem) or a note; on invalid input the
    page again, with the form's errors and nothing changed."""
    course, found = _course_problem(request, slug, problem)
    if not access.may_name_mistakes(user=request.user, course=course):
        raise PermissionDenied("Only the course's instructors name mistakes and keep notes.")
    matched = PREFIX.match(request.POST.get("form", ""))
    diagnosed = request.POST.get("diagnosed", "include")
    if matched is None or diagnosed not in DIAGNOSED:
        raise BadRequest("Which group's form was sent is missing.")
    page = reverse("teaching:problem-misconceptions", args=[course.slug, found.slug])
    page += f"?diagnosed={diagnosed}"
    prefix, kind = matched.group(0), matched.group(2)
    form: MistakeForm | NoteForm
    if kind == MISTAKE:
        if not _is_formula(found):
            raise BadRequest("Only a formula problem takes new named mistakes; keep a note.")
        form = MistakeForm(
            request.POST,
            prefix=prefix,
            misconceptions=list(Misconception.objects.filter(lesson=found.lesson_id)),
        )
        if form.is_valid():
            data = form.cleaned_data
            try:
                named = formula_mistake_add(
                    problem=found,
                    formula=data["formula"],
                    misconception=form.chosen(),
                    code=data["code"].strip(),
                    title=data["title"],
                    explanation=data["explanation"],
                )
            except MistakeRefused as refused:
                for field, message in refused.errors.items():
                    form.add_error(field if field in form.fields else None, message)
            else:
                messages.success(
                    request,
                    _(
                        "%(problem)s now names the mistake %(code)s, %(formula)s. Variants made "
                        "from now on recognise it; answers already given keep their verdicts."
                    )
                    % {
                        "problem": plain_math(found.title),
                        "code": named.code,
                        "formula": data["formula"],
                    },
                )
                return redirect(page)
    else:
        form = NoteForm(request.POST, prefix=prefix)
        if form.is_valid():
            data = form.cleaned_data
            try:
                misconception_note_add(
                    problem=found,
                    relation=data["relation"],
                    formula=data["formula"],
                    text=data["text"],
                    author=request.user,
                )
            except ValueError as refused:
                form.add_error(None, str(refused))
            else:
                messages.success(
                    request, _("Note kept on %(problem)s.") % {"problem": plain_math(found.title)}
                )
                return redirect(page)
    return _misconceptions_page(request, course, found, DIAGNOSED[diagnosed], bound=form)
