"""Misconception profiles under /teach/courses/<course>/: the course's (per misconception, the
learners who showed it and how many later answered its family right) and one learner's (each
misconception they showed, where, and whether they later got it right).

A learner's profile is a 404 unless they are a learner of the course (an attempt at one of its
quizzes, or practice of one of its problems), exactly like a course out of reach."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from courses.plain_math import plain_math
from grading.models import Attempt
from grading.selectors import misconceptions_by_code
from grading.services.overdue import overdue_attempts_close
from teaching import access
from teaching.charts.bars import Bar, bar_chart
from teaching.profiles.data import course_tries, learner_attempts, practised_in
from teaching.profiles.summaries import MisconceptionSummary, course_summary, profiles
from teaching.results.reads import Learner, learner_of

LEARNERS_SHOWN = 40  # per misconception; the counts say how many there are


@dataclass
class Entry:
    """One misconception of the course as the page shows it."""

    summary: MisconceptionSummary
    title: str  # the authored misconception's, else its code
    families: list[str]
    learners: list[tuple[Learner, bool]]  # the first LEARNERS_SHOWN, later right or not

    @property
    def showed(self) -> int:
        return len(self.summary.learners)

    @property
    def later(self) -> int:
        return len(self.summary.later_right)


@never_cache
@require_GET
@login_required
def course_misconceptions(request: HttpRequest, slug: str) -> HttpResponse:
    course = access.course_for_staff_or_404(user=request.user, slug=slug)
    rows, families = course_tries(course=course)
    summary = course_summary(profiles(rows))
    everyone = len({row.learner for row in rows})
    named = misconceptions_by_code(s.misconception for s in summary)
    shown = {learner for s in summary for learner in s.learners[:LEARNERS_SHOWN]}
    users = {u.pk: learner_of(u) for u in get_user_model().objects.filter(pk__in=shown)}
    entries = []
    for s in summary:
        later = set(s.later_right)
        misconception = named.get(s.misconception)
        entries.append(
            Entry(
                summary=s,
                title=misconception.title if misconception else s.misconception,
                families=[families.get(family, family) for family in s.families],
                learners=[
                    (users[learner], learner in later)
                    for learner in s.learners[:LEARNERS_SHOWN]
                    if learner in users
                ],
            )
        )
    chart = None
    if entries:
        bars = [Bar(plain_math(e.title), e.showed, f"{e.showed} ({e.later})") for e in entries]
        chart = bar_chart(bars, maximum=everyone, ticks=((0, "0"), (everyone, str(everyone))))
    context = {"course": course, "entries": entries, "chart": chart, "everyone": everyone}
    return render(request, "teaching/course_misconceptions.html", context)


@never_cache
@require_GET
@login_required
def learner_profile(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    course = access.course_for_staff_or_404(user=request.user, slug=slug)
    user = get_user_model().objects.filter(pk=pk).first()
    if user is not None:
        overdue_attempts_close(user=user, among=Attempt.objects.filter(quiz__lesson__course=course))
    attempts = learner_attempts(course=course, user=user) if user is not None else []
    if user is None or not (attempts or practised_in(course=course, user=user)):
        raise Http404("No such learner in this course.")
    rows, families = course_tries(course=course, learner=user.pk)
    shown = profiles(rows).get(user.pk, ())
    context = {
        "course": course,
        "learner": learner_of(user),
        "attempts": attempts,
        "shown": shown,
        "families": families,
        "titles": misconceptions_by_code(s.misconception for s in shown),
        "later_right": sum(1 for s in shown if s.later_right is not None),
        "tries": len(rows),
    }
    return render(request, "teaching/learner_profile.html", context)
