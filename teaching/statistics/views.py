"""The statistics pages under /teach/: a quiz's statistics as Moodle defines them (quiz level,
a histogram of the totals, each item's figures in quiz order) and each item's response
analysis, with the learners behind every count.

Like teaching.views, each view finds its quiz through teaching.access (a 404 outside the user's
courses), reads through teaching.statistics.data and renders; nothing here changes a record.
`?attempts=first` (the default) counts each learner's first submitted attempt, `all` every
submitted attempt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from courses.models import Choice, Misconception
from grading.selectors import misconceptions_by_code
from grading.services.overdue import overdue_attempts_close
from grading.templatetags.grading_display import choice_letter
from teaching import access
from teaching.charts.bars import Bar, bar_chart
from teaching.charts.histogram import count_ticks, histogram
from teaching.findings import KINDS as FINDING_KINDS
from teaching.findings import FindingLabel, finding_label
from teaching.numbers import localized
from teaching.results.reads import AttemptRule, Learner, learner_of
from teaching.statistics.data import RULE_LABELS, RULES, ItemData, item_data, quiz_data
from teaching.statistics.figures import SHARES
from teaching.statistics.responses import Tally, ValueTally

# The quiz level's figures as the page lists them: the name in QuizStatistics, its label, and
# whether it is also shown in points (the figures on the totals' scale, shown as percentages of
# the maximum: teaching/numbers.py). A label's "%" is a percent sign, not a placeholder: the
# comments before them tell makemessages so.
QUIZ_ROWS = (
    # xgettext:no-python-format
    ("mean", _("Mean (% of the maximum)"), True),
    # xgettext:no-python-format
    ("median", _("Median (% of the maximum)"), True),
    # xgettext:no-python-format
    ("sd", _("Standard deviation (% of the maximum)"), True),
    ("skewness", _("Skewness"), False),
    ("kurtosis", _("Kurtosis"), False),
    ("cronbach_alpha", _("Coefficient of internal consistency (Cronbach's α)"), False),
    ("error_ratio", _("Error ratio"), False),
    # xgettext:no-python-format
    ("standard_error", _("Standard error (% of the maximum)"), True),
)


def _rule(request: HttpRequest) -> AttemptRule:
    """The `attempts` query parameter: first (the default) or all; anything else is a 400."""
    value = request.GET.get("attempts", AttemptRule.FIRST.value)
    if value not in RULES:
        raise BadRequest("attempts must be first or all.")
    return AttemptRule(value)


def _rules() -> list[tuple[str, str]]:
    return [(rule.value, RULE_LABELS[rule]) for rule in RULES]


@dataclass(frozen=True)
class QuizRow:
    name: str
    label: str
    value: float | None
    reason: str
    points: float | None  # the value on the quiz's scale, when it has one
    share: bool  # a share of the maximum (a percentage) rather than a coefficient


@never_cache
@require_GET
@login_required
def quiz_statistics(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = access.quiz_for_staff_or_404(user=request.user, slug=slug)
    rule = _rule(request)
    # Statistics count submitted attempts: one whose time ran out is closed first.
    overdue_attempts_close(quiz=quiz)
    data = quiz_data(quiz=quiz, rule=rule)
    report = data.report()
    quiz_rows = []
    for name, label, on_scale in QUIZ_ROWS:
        value = getattr(report.quiz, name)
        points = value * data.max_score if on_scale and value is not None else None
        reason = report.quiz.undefined.get(name, "")
        quiz_rows.append(QuizRow(name, label, value, reason, points, name in SHARES))
    context = {
        "quiz": quiz,
        "course": quiz.lesson.course,
        "rule": rule,
        "rules": _rules(),
        "report": report,
        "quiz_rows": quiz_rows,
        "max_score": data.max_score,
        "items": list(zip(data.items, report.items, strict=True)),
    }
    if data.max_score:
        context.update(_histogram([total / data.max_score for total in data.totals]))
    return render(request, "teaching/quiz_statistics.html", context)


def _histogram(fractions: list[float]) -> dict:
    """The totals' histogram: its bins for the table, and a bar per bin for the chart."""
    bins = [
        {"label": f"{localized(f'{b.low:g}')}–{localized(f'{b.high:g}')}", "count": b.count}
        for b in histogram(fractions)
    ]
    ticks = count_ticks(max(b["count"] for b in bins))
    bars = [Bar(label=b["label"], value=b["count"], text=str(b["count"])) for b in bins]
    counts = "; ".join(f"{b['label']}: {b['count']}" for b in bins)
    return {
        "bins": bins,
        "chart": bar_chart(bars, maximum=ticks[-1], ticks=[(t, str(t)) for t in ticks]),
        "chart_title": ngettext(
            "Histogram of the %(count)s attempt's score, as a fraction of the maximum",
            "Histogram of the %(count)s attempts' scores, as fractions of the maximum",
            len(fractions),
        )
        % {"count": len(fractions)},
        "chart_desc": _("Number of attempts per tenth of the maximum score: %(counts)s.")
        % {"counts": counts},
    }


@dataclass(frozen=True)
class LearnerLink:
    """A learner behind a count, and the attempt of theirs it comes from (its staff view)."""

    learner: Learner
    attempt: int
    number: int
    url: str


@dataclass(frozen=True)
class TallyRow:
    """One line of a response analysis table: what it counts, how often, and who."""

    label: str
    tally: Tally
    learners: list[LearnerLink]
    choice: Choice | None = None
    letter: str = ""
    misconception: Misconception | None = None
    finding: FindingLabel | None = None


# A problem's values typed: the most frequent ones, so a page of thousands of distinct values
# stays a page; the rest are counted in a sentence.
VALUES_SHOWN = 50


@dataclass(frozen=True)
class ValueRow:
    """One line of a problem's values typed: the value, the learners behind it and the named
    misconception it was taken for."""

    value: ValueTally
    learners: list[LearnerLink]
    misconception: Misconception | None = None


def _links(data: ItemData) -> dict[int, LearnerLink]:
    """Each counted attempt's link, by attempt id: made once, for every table that lists it."""
    return {
        pk: LearnerLink(
            learner_of(attempt.user),
            pk,
            attempt.number,
            reverse("teaching:attempt", args=[pk]) + f"#item-{data.item.pk}",
        )
        for pk, attempt in data.attempts.items()
    }


def _learners(data: ItemData, links: dict[int, LearnerLink], tally: Tally) -> list[LearnerLink]:
    """The attempts behind a tally's responses, each once, by learner name and attempt."""
    attempts = dict.fromkeys(data.attempt_of_response[response] for response in tally.responses)
    return sorted(
        (links[pk] for pk in attempts),
        key=lambda link: (link.learner.name.casefold(), link.learner.username, link.number),
    )


def _finding_groups(
    data: ItemData, row: Callable[..., TallyRow]
) -> list[tuple[str, list[TallyRow]]]:
    """The item's diagnosed wrong responses under their kinds' headings (property checks,
    structural findings, near misses), most frequent first within each."""
    problem = getattr(data.item, "problem", None)
    params = problem.params if problem is not None else None
    grouped: dict[str, list[TallyRow]] = {str(kind): [] for kind in FINDING_KINDS.values()}
    for tally in data.analysis.diagnoses:
        label = finding_label(str(tally.key), params)
        grouped[label.heading].append(row(str(tally.key), tally, finding=label))
    return [(heading, rows) for heading, rows in grouped.items() if rows]


@never_cache
@require_GET
@login_required
def item_responses(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    quiz = access.quiz_for_staff_or_404(user=request.user, slug=slug)
    rule = _rule(request)
    # The analysis counts submitted attempts' answers: one whose time ran out is closed first.
    overdue_attempts_close(quiz=quiz)
    # A pool's member is named by `drawn` (statistics_data.entry_key) beside its pool's item.
    data = item_data(quiz=quiz, rule=rule, item_id=item_id, drawn=request.GET.get("drawn", ""))
    if data is None:
        raise Http404("No such item in this quiz.")
    analysis = data.analysis
    named = misconceptions_by_code(tally.key for tally in analysis.misconceptions)

    links = _links(data)

    def row(label: str, tally: Tally, **extra) -> TallyRow:
        return TallyRow(label, tally, _learners(data, links, tally), **extra)

    choices = [
        row(choice.text, tally, choice=choice, letter=choice_letter(number))
        for number, (choice, tally) in enumerate(
            zip(data.choices, analysis.choices, strict=True), start=1
        )
    ]
    outcomes = [
        row(_("Correct"), analysis.correct),
        row(_("Wrong (explained or not)"), analysis.incorrect),
        row(_("Wrong and unexplained (no misconception, no diagnosis)"), analysis.unexplained),
        row(_("Invalid (unreadable; no try used)"), analysis.invalid),
    ]
    context = {
        "quiz": quiz,
        "course": quiz.lesson.course,
        "item": data.item,
        "position": data.position,
        "rule": rule,
        "rules": _rules(),
        "analysis": analysis,
        "attempts": len(data.attempts),
        "choices": choices,
        "outcomes": outcomes,
        "misconceptions": [
            row(str(tally.key), tally, misconception=named.get(str(tally.key)))
            for tally in analysis.misconceptions
        ],
        "findings": _finding_groups(data, row),
        "values": [
            ValueRow(value, _learners(data, links, value.tally), named.get(value.misconception))
            for value in data.values[:VALUES_SHOWN]
        ],
        "values_left": data.values[VALUES_SHOWN:],
    }
    return render(request, "teaching/item_responses.html", context)
