"""What grading found in the course's wrong answers to one problem, counted beside its named
mistakes: each named misconception, property check, structural finding and near miss, with how
many answers and learners share it. One grouped query; the labels come from teaching.findings.

A wrong answer may count twice (a property check carrying a misconception); the rows say what
each answer was taken for, not a partition of the answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, TextField, Value
from django.db.models.fields.json import KT
from django.db.models.functions import NullIf
from django.utils.translation import gettext_lazy as _

from courses.models import Course, Problem
from grading.models import Response
from grading.selectors import misconceptions_by_code
from teaching.discovery.problems import responses_of
from teaching.findings import KINDS, finding_label

NAMED = _("Named mistakes")


@dataclass(frozen=True, slots=True)
class FindingCount:
    """One thing the wrong answers were taken for: a heading (its kind), a title, its code."""

    heading: str
    title: str
    code: str
    answers: int
    learners: int


@dataclass(frozen=True, slots=True)
class ProblemFindings:
    wrong: int  # the course's wrong answers to the problem
    rows: tuple[FindingCount, ...]  # by heading (named mistakes first), then most answers first

    def headings(self) -> list[tuple[str, list[FindingCount]]]:
        """The rows under their headings, in the pages' order; empty headings left out."""
        order = [str(heading) for heading in (NAMED, *KINDS.values())]
        return [
            (heading, rows)
            for heading in order
            if (rows := [row for row in self.rows if row.heading == heading])
        ]


def problem_findings(*, course: Course, problem: Problem) -> ProblemFindings:
    """Count the course's wrong answers to the problem by what grading took each for: one
    query grouped by learner, misconception and diagnosis (a row per learner and finding at
    most), and one for the named misconceptions' titles when there are any."""
    diagnosis = NullIf(KT("detail__diagnosis"), Value("null"), output_field=TextField())
    grouped = (
        Response.objects.filter(
            responses_of(course), variant__problem=problem, status=Response.Status.INCORRECT
        )
        .annotate(diagnosis=diagnosis)
        .values_list("user_id", "misconception", "diagnosis")
        .annotate(answers=Count("id"))
        .order_by()
    )
    answers: dict[tuple[str, str], int] = {}
    learners: dict[tuple[str, str], set[int]] = {}
    total = 0
    for user, misconception, found, count in grouped:
        total += count
        for key in (("named", misconception), ("found", found)):
            if key[1]:
                answers[key] = answers.get(key, 0) + count
                learners.setdefault(key, set()).add(user)
    titles = misconceptions_by_code(code for kind, code in answers if kind == "named")
    rows = []
    for (kind, code), count in answers.items():
        if kind == "named":
            heading, title = str(NAMED), titles[code].title if code in titles else code
        else:
            label = finding_label(code, problem.params)
            heading, title = label.heading, label.title
        rows.append(FindingCount(heading, title, code, count, len(learners[(kind, code)])))
    rows.sort(key=lambda row: (-row.answers, row.code))
    return ProblemFindings(wrong=total, rows=tuple(rows))
